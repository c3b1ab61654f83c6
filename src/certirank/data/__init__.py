"""Evaluation data: the validated long table, its readers (one registry: `formats`) and writer."""

from .formats.inspect_logs import load_inspect
from .formats.lm_eval import load_lm_eval
from .preferences import load_preferences, validate_preferences
from .readers import FORMATS, load, write_table
from .summary import InspectResult, summarize
from .table import CANONICAL, policies, to_wide, validate_table

__all__ = ["CANONICAL", "FORMATS", "InspectResult", "load", "load_inspect", "load_lm_eval", "load_preferences",
           "policies", "summarize", "to_wide", "validate_preferences", "validate_table", "write_table"]

"""Evaluation data: the validated long table, readers, writers and importers."""

from .importers import load_inspect, load_lm_eval
from .readers import FORMATS, load, load_preferences, validate_preferences, write_table
from .summary import InspectResult, summarize
from .table import CANONICAL, policies, to_wide, validate_table

__all__ = ["CANONICAL", "FORMATS", "InspectResult", "load", "load_inspect", "load_lm_eval", "load_preferences",
           "policies", "summarize", "to_wide", "validate_preferences", "validate_table", "write_table"]

"""Evaluation data: the validated long table, readers, writers and importers."""

from .table import CANONICAL, policies, to_wide, validate_table

__all__ = ["CANONICAL", "policies", "to_wide", "validate_table"]

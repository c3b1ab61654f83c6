"""Live evaluation campaigns in one SQLite file: "what do I run next, record it, can I stop?" (issue 17).

``Campaign.init(path, policies, ...)`` / ``Campaign.open(path)``, then ``next()``, ``record()``, ``fault()``,
``note()``, ``add_run()`` (leaderboards), ``undo()``, ``unblind()``, ``amend()``, ``plan()``, ``status()``,
``log()``, ``export()``, ``verify()``.
Every method returns a result object with ``to_dict()``; the CLI (``certirank campaign``) and the web page are
thin shells over it. See docs/campaigns.md.
"""

from .results import (AuditLog, CampaignStatus, Check, ExportResult, NextRollouts, Plan, Record, Suggestion,
                      Unblinding, VerifyReport)
from ._campaign import FORMAT, Campaign

__all__ = ["Campaign", "FORMAT", "Suggestion", "Record", "CampaignStatus", "AuditLog", "ExportResult",
           "VerifyReport", "Check", "Plan", "NextRollouts", "Unblinding"]

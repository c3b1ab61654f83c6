"""Live evaluation campaigns in one SQLite file: "what do I run next, record it, can I stop?" (issue 17).

``Campaign.init(path, policies, ...)`` / ``Campaign.open(path)``, then ``next()``, ``record()``,
``add_run()`` (leaderboards), ``undo()``, ``unblind()``, ``status()``, ``log()``, ``export()``, ``verify()``.
Every method returns a result object with ``to_dict()``; the CLI (``certirank campaign``) and the web page are
thin shells over it. See docs/campaigns.md.
"""

from .results import AuditLog, CampaignStatus, Check, ExportResult, Record, Suggestion, VerifyReport
from ._campaign import FORMAT, Campaign

__all__ = ["Campaign", "FORMAT", "Suggestion", "Record", "CampaignStatus", "AuditLog", "ExportResult",
           "VerifyReport", "Check"]

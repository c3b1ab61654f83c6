"""certirank.integrations — certirank inside the tools evaluators already run.

- `certirank.integrations.inspect.CertifiedStopping`: an inspect_ai early-stopping manager (optional extra
  ``inspect``; Python >= 3.11). Importing it does not import inspect_ai.
- `certirank.integrations._stopping.StoppingCore`: its statistical core, usable without inspect_ai.
"""

from __future__ import annotations

__all__ = ["CertifiedStopping", "StoppingCore"]


def __getattr__(name: str):  # noqa: ANN202 - lazy, so the core never pays for an integration it does not use
    if name == "CertifiedStopping":
        from .inspect import CertifiedStopping

        return CertifiedStopping
    if name == "StoppingCore":
        from ._stopping import StoppingCore

        return StoppingCore
    raise AttributeError(f"module 'certirank.integrations' has no attribute {name!r}")

"""Optional extras: one sentence for a feature whose extra is not installed.

Every command and API that needs an optional dependency says, in one line, which extra to install and the pip
command (a CLI exit 2, a `ParameterError` from the API), never an ImportError traceback:
``campaign serve`` -> ``web``; ``--backend dask`` / ``backend="dask"`` -> ``dask``; ``--backend ray`` -> ``ray``.
(``fast``/numba only speeds up arithmetic that has a numpy fallback; ``slurm`` provides cluster objects the user
builds and passes as ``scheduler``; ``inspect``'s manager is called by inspect_ai itself: none of them has a
missing-extra path.)
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .errors import ParameterError

__all__ = ["missing_extra", "require"]


def missing_extra(what: str, extra: str, module: str | None = None) -> ParameterError:
    """The error for `what` when the optional `extra` (its `module`) is not installed."""
    missing = f" ({module} is not installed)" if module else ""
    return ParameterError(f"{what} needs the optional extra '{extra}': pip install 'certirank[{extra}]'{missing}")


def require(module: str, extra: str, what: str) -> ModuleType:
    """Import `module`, or raise :func:`missing_extra` naming `extra`."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise missing_extra(what, extra, (exc.name or module).split(".")[0]) from None

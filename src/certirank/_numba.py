"""The optional numba accelerator: compiled kernels where the package has one, identical numpy code otherwise.

numba is an optional extra (``pip install 'certirank[fast]'``). A kernel compiled here must give the same bits
as its numpy fallback: the kernels use only IEEE operations numpy performs in the same order (no fast-math, no
reassociated reductions, no fused multiply-add), and leave the logarithms and the final sums to numpy. Tests
compare the two paths bit for bit where numba is installed.

``CERTIRANK_NUMBA=0`` in the environment turns the accelerator off (the numpy path is then used everywhere).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

__all__ = ["available", "jit"]


def available() -> bool:
    """True when numba imports and is not switched off by ``CERTIRANK_NUMBA=0``."""
    if os.environ.get("CERTIRANK_NUMBA", "1").strip() in ("0", "false", "no", "off"):
        return False
    try:
        import numba  # noqa: F401
    except Exception:  # any import failure (missing, or built for another numpy) means: not available
        return False
    return True


def jit(fn: Callable[..., Any]) -> Callable[..., Any] | None:
    """``fn`` compiled with numba (no Python objects, GIL released, cached on disk), or None without numba.

    ``fastmath`` stays off and floating-point contraction into fused multiply-adds is not enabled, so the
    compiled code rounds exactly as numpy's ufuncs do.
    """
    if not available():
        return None
    import numba

    return numba.njit(nogil=True, cache=True, fastmath=False, error_model="numpy")(fn)

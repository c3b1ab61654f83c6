"""The exact betting factor of BB-EDGE's default plug-in stake, for every direction of a board at once.

For direction e = a -> b the replicate's log factor needs, per stake k,

    sum_m log(1 + lam[e, k] x_{e,m}),    x_{e,m} = v_a[a, m] - v_b[b, m],

and the stake rule needs s2_e = sum_m x_{e,m}^2. That is L(L - 1) M terms: 10^10 at L = 1,000 models and
M = 10,000 blocks, so this is where a large board spends its time.

Why products: 1 + lam x lies in [0.1, 1.9] (|x| <= 1 because x = (w_m / w_*) (Y_m - Yhat_m) with both in
[0, 1], and lam <= 0.9), so the product of ``PRODUCT_GROUP`` = 64 factors stays within [1e-64, 1e18], far
inside float64's range. One logarithm per 64 factors replaces 64 (a log costs ~10 multiplications), and the
rounding of a 64-factor product (at most 64 ulps, relative) is of the same order as that of 64 rounded logs
summed. The blocks are laid out as a (G, W) grid (G <= 64 rows of W columns, zero-padded: x = 0 gives the
factor 1 exactly); product j multiplies column j over the G rows in row order.

The same arithmetic runs in numpy, or in a compiled numba kernel where the optional extra is installed
(:mod:`certirank._numba`); both do exactly the same IEEE operations in the same order and leave the
logarithms and the final sums to the same numpy calls, so they give the same bits (tested). Directions are
processed in chunks (bounded memory at any L) spread over threads; every direction's arithmetic is the same
whatever the chunk or the thread, so results never depend on ``threads``.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from ... import _numba

__all__ = ["betting_terms", "PRODUCT_GROUP", "product_layout"]

#: factors multiplied together before one logarithm (see the module docstring for why 64 is safe)
PRODUCT_GROUP = 64
#: entries (directions x padded blocks) per chunk of work: a few float64 buffers of this size stay in cache
BETTING_BLOCK_ENTRIES = 80_000
#: below this many entries the compiled kernel is not worth its first-call load
_NUMBA_MIN_ENTRIES = 2_000_000
#: threads for large boards; None = the CPUs this process may use (results do not depend on it)
THREADS: int | None = None
_MIN_ENTRIES_PER_THREAD = 4_000_000
#: directions per task on a worker process or cluster (a fixed size: the bits never depend on the workers)
TASK_DIRECTIONS = 1 << 15


def product_layout(n_blocks: int) -> tuple[int, int]:
    """(G, W): the blocks as G <= PRODUCT_GROUP rows of W >= 2 columns (G W >= n_blocks; padding gives factor 1)."""
    # W >= 2 keeps numpy's reduction over the G rows an elementwise loop over W columns (row order); with one
    # column it would become a pairwise reduction and round differently from the compiled kernel
    W = max(2, -(-n_blocks // PRODUCT_GROUP))
    return max(1, -(-n_blocks // W)), W


def _threads(entries: int) -> int:
    want = THREADS
    if want is None:
        try:
            want = len(os.sched_getaffinity(0))
        except AttributeError:  # not on Linux
            want = os.cpu_count() or 1
    return int(max(1, min(want, entries // _MIN_ENTRIES_PER_THREAD, 16)))


def _kernel_py(pa: np.ndarray, pb: np.ndarray, a_idx: np.ndarray, b_idx: np.ndarray, lam: np.ndarray, G: int,
               W: int, s2p: np.ndarray, prod: np.ndarray, xrow: np.ndarray) -> None:
    # compiled by numba (never called as Python): per direction, the columns of the (G, W) grid, row by row
    n = a_idx.shape[0]
    K = lam.shape[1]
    for e in range(n):
        ra = pa[a_idx[e]]
        rb = pb[b_idx[e]]
        for g in range(G):
            off = g * W
            for j in range(W):
                xrow[j] = ra[off + j] - rb[off + j]
            if g == 0:
                for j in range(W):
                    s2p[e, j] = xrow[j] * xrow[j]
                for k in range(K):
                    lk = lam[e, k]
                    for j in range(W):
                        prod[e, k, j] = xrow[j] * lk + 1.0
            else:
                for j in range(W):
                    s2p[e, j] += xrow[j] * xrow[j]
                for k in range(K):
                    lk = lam[e, k]
                    for j in range(W):
                        prod[e, k, j] *= xrow[j] * lk + 1.0


_KERNEL: Any = False  # False = not looked up yet, None = numba unavailable


def _kernel() -> Any:
    global _KERNEL
    if _KERNEL is False:
        _KERNEL = _numba.jit(_kernel_py)
    return _KERNEL


def _chunk_numpy(pa: np.ndarray, pb: np.ndarray, a_blk: np.ndarray, b_blk: np.ndarray, lam: np.ndarray, G: int,
                 W: int) -> tuple[np.ndarray, np.ndarray]:
    n = a_blk.shape[0]
    a0, b0 = int(a_blk[0]), int(b_blk[0])
    if (a_blk == a0).all() and (b_blk == np.arange(b0, b0 + n)).all():
        # one better model against a run of consecutive others (most chunks of a full board): no gather
        xs = pa[a0] - pb[b0:b0 + n]
    else:
        xs = pa[a_blk]
        xs -= pb[b_blk]
    f = xs * xs
    s2p = np.add.reduce(f.reshape(n, G, W), axis=1)
    prod = np.empty((n, lam.shape[1], W))
    for k in range(lam.shape[1]):
        np.multiply(xs, lam[:, k, None], out=f)
        f += 1.0
        np.multiply.reduce(f.reshape(n, G, W), axis=1, out=prod[:, k])
    return s2p, prod


def betting_terms(v_a: np.ndarray, v_b: np.ndarray, a_row: np.ndarray, b_row: np.ndarray,
                  lam: np.ndarray, *, backend: str | None = None, jobs: int = 1,
                  scheduler: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Per-direction sums of the exact betting factor for directions a_row[e] -> b_row[e]: (s2, log_prod).

    With xi_m = Y_m - Yhat_m = kappa + (u_a,m - u_b,m) / 2 and x_m = (w_m / w_*) xi_m, the caller passes
    v_a = (w_m / w_*)(kappa + u / 2) and v_b = (w_m / w_*) u / 2 per model, so x = v_a[a] - v_b[b] (one
    subtraction per entry; the linear sum of x follows from row sums). ``lam`` is (E, K): K stakes per
    direction. Returns s2 = sum_m x_m^2 (E,) and log_prod[:, k] = sum_m log(1 + lam[:, k] x_m) (E, K).

    The log factor of the replicate is lambda (lin - sum_m x_m) + log_prod with lin = sum_m (w_m / w_*)(Y_m -
    mu_0), i.e. the product over blocks of (1 + lambda_m (Y_m - Yhat_m)) exp(lambda_m (Yhat_m - mu_0)): the
    middle step of spec 04 §5's lemma, whose conditional mean is (1 + lambda_m (mu_m - Yhat_m))
    e^{lambda_m (Yhat_m - mu_0)} <= e^{lambda_m (mu_m - mu_0)}. So it is a supermartingale factor under the
    same conditions, and since exp(lambda xi - psi_E(lambda) xi^2) <= 1 + lambda xi it is >= the
    empirical-Bernstein factor of the same stake on every path.

    ``backend``, ``jobs``, ``scheduler`` (:func:`certirank._parallel.run_tasks`) spread the directions over
    worker processes or a cluster in tasks of ``TASK_DIRECTIONS`` directions (the block rows are shipped to
    each worker once); without them the work stays in this process, on threads. The bits are the same.

    When the caller passes the same array as ``v_a`` and ``v_b`` (kappa = 0, i.e. tau = 0) the direction
    b -> a has x = -(x of a -> b) exactly (IEEE subtraction is antisymmetric), and x (-lam) rounds as
    (-x) lam: both directions of a pair are then computed from one pass over x, with the same bits.
    """
    a_row = np.asarray(a_row, dtype=np.int64)
    b_row = np.asarray(b_row, dtype=np.int64)
    lam = np.ascontiguousarray(lam, dtype=float)
    E, K = a_row.shape[0], lam.shape[1]
    s2 = np.empty(E)
    out = np.empty((E, K))
    if E == 0:
        return s2, out
    pa, pb, G, W = _padded(v_a), None, *product_layout(v_a.shape[1])
    pb = pa if v_b is v_a else _padded(v_b)
    todo = np.ones(E, dtype=bool)
    if pb is pa:
        L = pa.shape[0]
        key = a_row * L + b_row
        order = np.argsort(key, kind="stable")
        pos = np.searchsorted(key[order], b_row * L + a_row)
        pos = np.minimum(pos, E - 1)
        rev = order[pos]
        has = (key[rev] == b_row * L + a_row) & (a_row < b_row)
        first = np.flatnonzero(has)
        if first.size:
            second = rev[first]
            both = np.concatenate([lam[first], -lam[second]], axis=1)
            s2p, outp = _spread(pa, pa, a_row[first], b_row[first], both, G, W, backend, jobs, scheduler)
            s2[first], s2[second] = s2p, s2p
            out[first], out[second] = outp[:, :K], outp[:, K:]
            todo[first] = todo[second] = False
    rest = np.flatnonzero(todo)
    if rest.size:
        s2r, outr = _spread(pa, pb, a_row[rest], b_row[rest], lam[rest], G, W, backend, jobs, scheduler)
        s2[rest], out[rest] = s2r, outr
    return s2, out


def _padded(v: np.ndarray) -> np.ndarray:
    M = v.shape[1]
    G, W = product_layout(M)
    if G * W == M:
        return np.ascontiguousarray(v, dtype=float)
    p = np.zeros((v.shape[0], G * W))
    p[:, :M] = v
    return p


def _spread(pa: np.ndarray, pb: np.ndarray, a_row: np.ndarray, b_row: np.ndarray, lam: np.ndarray, G: int, W: int,
            backend: str | None, jobs: int, scheduler: Any) -> tuple[np.ndarray, np.ndarray]:
    from ..._parallel import resolve_backend, run_tasks

    if resolve_backend(backend, jobs, scheduler) == "serial":
        return _run(pa, pb, a_row, b_row, lam, G, W)
    step = TASK_DIRECTIONS
    tasks = [(a_row[s:s + step], b_row[s:s + step], lam[s:s + step], G, W) for s in range(0, a_row.shape[0], step)]
    parts = run_tasks(_run, tasks, backend=backend, jobs=jobs, scheduler=scheduler, shared=(pa, pb))
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def _run(pa: np.ndarray, pb: np.ndarray, a_row: np.ndarray, b_row: np.ndarray, lam: np.ndarray, G: int,
         W: int) -> tuple[np.ndarray, np.ndarray]:
    """s2 and log products of the directions a_row -> b_row on padded rows, chunked and threaded."""
    E, K = a_row.shape[0], lam.shape[1]
    Mp = G * W
    s2 = np.empty(E)
    out = np.empty((E, K))
    kernel = _kernel() if E * Mp >= _NUMBA_MIN_ENTRIES else None
    rows = max(1, min(E, BETTING_BLOCK_ENTRIES // Mp))
    if kernel is not None:
        rows = max(rows, 256)  # the kernel works in L1 row by row; bigger chunks only amortise the call

    def work(s: int) -> None:
        sl = slice(s, min(E, s + rows))
        if kernel is not None:
            n = sl.stop - s
            s2p, prod = np.empty((n, W)), np.empty((n, K, W))
            kernel(pa, pb, a_row[sl], b_row[sl], lam[sl], G, W, s2p, prod, np.empty(W))
        else:
            s2p, prod = _chunk_numpy(pa, pb, a_row[sl], b_row[sl], lam[sl], G, W)
        s2[sl] = s2p.sum(axis=1)
        out[sl] = np.log(prod, out=prod).sum(axis=2)

    starts = range(0, E, rows)
    threads = _threads(E * Mp)
    if threads == 1:
        for s in starts:
            work(s)
    else:
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(work, starts))
    return s2, out

"""Compact letter display (spec 07 §1): insert–absorb (multcompView) plus Piepho's sweep.

Two items share at least one letter iff they were *not* declared different. Columns are handled as Python
integer bit sets over display indices, which keeps 50 items with hundreds of pairs in the millisecond range.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ..errors import ParameterError

__all__ = ["letters", "letter_columns", "letter_name", "display_order"]


def letter_name(k: int) -> str:
    """Column k (0-based) -> 'a'..'z', 'A'..'Z', then '.' * (k // 52) + the letter for k % 52."""
    if k < 0:
        raise ParameterError(f"letter index must be >= 0, got {k}")
    r = k % 52
    base = chr(ord("a") + r) if r < 26 else chr(ord("A") + r - 26)
    return "." * (k // 52) + base


def display_order(names: Sequence[str], means: Any | None = None) -> list[int]:
    """Indices of ``names`` in display order: mean descending, ties by name; given order if no means."""
    if means is None:
        return list(range(len(names)))
    mu = np.asarray(means, dtype=float)
    if mu.shape != (len(names),):
        raise ParameterError(f"means must have one value per policy ({len(names)}), got shape {mu.shape}")
    if np.isnan(mu).any():
        raise ParameterError("means must not contain NaN (every policy needs a summary mean to be ordered)")
    return sorted(range(len(names)), key=lambda i: (-float(mu[i]), str(names[i])))


def _bits(mask: int) -> list[int]:
    out = []
    i = 0
    while mask:
        if mask & 1:
            out.append(i)
        mask >>= 1
        i += 1
    return out


def _sort_key(mask: int) -> tuple[int, ...]:
    return tuple(_bits(mask))


def _absorb(cols: list[int]) -> list[int]:
    """Delete columns contained in another (spec 07 §1 step 3, with the restart-after-deletion scan)."""
    changed = True
    while changed:
        changed = False
        n = len(cols)
        for i in range(n):
            ci = cols[i]
            for j in range(i + 1, n):
                cj = cols[j]
                if cj & ~ci == 0:  # col_j ⊆ col_i
                    del cols[j]
                    changed = True
                    break
                if ci & ~cj == 0:  # col_i ⊆ col_j
                    del cols[i]
                    changed = True
                    break
            if changed:
                break
    return cols


def letter_columns(n: int, different: Iterable[tuple[int, int]], *, sweep: bool = True) -> list[list[int]]:
    """Letter columns over display indices 0..n-1, in display order.

    Parameters
    ----------
    n : int
        Number of items (already in display order).
    different : iterable of (int, int)
        Pairs declared different (order inside a pair is irrelevant).
    sweep : bool, default True
        Apply Piepho's sweep (False gives the plain insert–absorb / multcompView result).

    Returns
    -------
    list of list of int
        Column k (letter :func:`letter_name` (k)) lists its members in index order.
    """
    if n < 1:
        return []
    pairs = set()
    for pair in different:
        u, v = (int(x) for x in pair)
        if u == v:
            raise ParameterError(f"a policy cannot be different from itself (pair {pair!r})")
        if not (0 <= u < n and 0 <= v < n):
            raise ParameterError(f"pair {pair!r} refers to an item outside 0..{n - 1}")
        pairs.add((min(u, v), max(u, v)))
    cols = [(1 << n) - 1]
    for u, v in sorted(pairs):
        bu, bv = 1 << u, 1 << v
        both = bu | bv
        new = []
        for i, c in enumerate(cols):
            if c & both == both:
                new.append(c & ~bu)
                cols[i] = c & ~bv
        if new:
            cols.extend(new)
            cols = _absorb(cols)
    if sweep:
        cols = _sweep(cols, n)
    cols.sort(key=_sort_key)
    return [_bits(c) for c in cols]


def _sweep(cols: list[int], n: int) -> list[int]:
    """Piepho's sweep (spec 07 §1 step 4): drop memberships that no pair needs."""
    cols = sorted(cols, key=_sort_key)
    for ci in range(len(cols)):
        for x in _bits(cols[ci]):
            bx = 1 << x
            others = [cols[k] for k in range(len(cols)) if k != ci]
            if not any(o & bx for o in others):
                continue  # (a) x must keep at least one letter
            ok = True
            for y in _bits(cols[ci] & ~bx):
                by = 1 << y
                if not any((o & bx) and (o & by) for o in others):
                    ok = False
                    break
            if ok:
                cols[ci] &= ~bx
    cols = [c for c in cols if c]
    return _absorb(cols)


def letters(policies: Sequence[str], different_pairs: Iterable[tuple[str, str]], means: Any | None = None,
            *, sweep: bool = True) -> dict[str, str]:
    """Compact letter display: policy -> letters; two policies share a letter iff not declared different.

    Parameters
    ----------
    policies : sequence of str
        Policy (or model) names, unique.
    different_pairs : iterable of (str, str)
        Pairs declared different (decided, certified in either direction, or significant); direction and
        duplicates are ignored.
    means : array_like, optional
        Summary mean per policy (same order as ``policies``). Letters follow display order: mean descending,
        ties by name, so letter "a" contains the top policy. Without means, ``policies`` is taken to be in
        display order already.
    sweep : bool, default True
        Piepho's sweep; ``False`` reproduces R's multcompView.

    Returns
    -------
    dict
        Policy -> letters (e.g. ``"ab"``), in display order.

    Raises
    ------
    ParameterError
        Duplicate or unknown policy names, a pair of a policy with itself, or bad means.

    Examples
    --------
    >>> letters(["A", "B", "C"], [("B", "C")])
    {'A': 'ab', 'B': 'a', 'C': 'b'}
    """
    names = [str(p) for p in policies]
    if len(set(names)) != len(names):
        raise ParameterError("policy names must be unique")
    order = display_order(names, means)
    pos = {names[i]: k for k, i in enumerate(order)}
    idx_pairs = []
    for pair in different_pairs:
        try:
            a, b = pair
        except (TypeError, ValueError):
            raise ParameterError(f"each different pair must be two policy names, got {pair!r}") from None
        for v in (a, b):
            if str(v) not in pos:
                raise ParameterError(f"unknown policy {v!r} in different pair {pair!r}; known: {', '.join(names)}")
        idx_pairs.append((pos[str(a)], pos[str(b)]))
    cols = letter_columns(len(names), idx_pairs, sweep=sweep)
    labels = [""] * len(names)
    for k, col in enumerate(cols):
        name = letter_name(k)
        for x in col:
            labels[x] += name
    return {names[i]: labels[k] for k, i in enumerate(order)}

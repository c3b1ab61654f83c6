"""Compact letter display (spec 07 §1): insert–absorb (multcompView) plus Piepho's sweep.

Two items share at least one letter iff they were *not* declared different. Columns are Python integer bit sets
over display indices. The absorb step is incremental (a split column survives iff it is still a maximal clique
of the "not different" graph) and the sweep keeps pair co-membership counts, so each membership test is one
integer operation. Both give exactly the output of the spec's literal algorithm (tests/test_order.py keeps a
literal reference and compares) at a small fraction of its cost (see docs/performance/multitest.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from .._params import validated
from .._compat import keyword_only
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
    # the reversed binary string is the quickest pure-Python way to list the set bits of dense masks
    return [i for i, ch in enumerate(bin(mask)[:1:-1]) if ch == "1"]


def _sort_key(mask: int) -> tuple[int, ...]:
    return tuple(_bits(mask))


def _maximal(cols: list[int]) -> list[int]:
    """Absorb a list of arbitrary columns: keep the first copy of each column not strictly inside another.

    This is the fixed point of spec 07 §1's restart-after-deletion scan: the scan only ever deletes a column
    contained in a surviving or later-deleted one, and containment is transitive, so exactly the strict subsets
    and the later duplicates go, and the survivors keep their relative order. Instead of O(C^2) pairwise tests
    per deletion we intersect per-item membership bit sets (bit k = column k): a column is inside another iff
    the intersection over its members, minus itself, is non-empty.
    """
    cols = list(dict.fromkeys(cols))
    mem = _membership(cols)
    everyone = (1 << len(cols)) - 1
    keep = []
    for k, c in enumerate(cols):
        acc = everyone & ~(1 << k)
        for x in _bits(c):
            acc &= mem[x]
            if not acc:
                break
        if not acc:
            keep.append(c)
    return keep


def _membership(cols: list[int]) -> dict[int, int]:
    """Item -> bit set of the columns (by position) that contain it."""
    mem: dict[int, int] = {}
    for k, c in enumerate(cols):
        bk = 1 << k
        for x in _bits(c):
            mem[x] = mem.get(x, 0) | bk
    return mem


def _insert_absorb(n: int, pairs: list[tuple[int, int]]) -> list[int] | None:
    """Spec 07 §1 step 3, with an incremental absorb that gives the same columns in the same order.

    Returns None once the family exceeds ``MAX_EXACT_COLUMNS`` (the caller then covers greedily).

    After each pair the columns are exactly the maximal cliques of the graph "not declared different so far"
    (by induction: splitting a maximal clique c that holds u and v into ``c - v`` and ``c - u`` produces every
    maximal clique of the graph without the edge uv, and absorb keeps exactly the members of the family that
    no other member strictly contains, with no duplicates possible). Hence an untouched column always
    survives, and a split result survives iff it is still a maximal clique, i.e. no item outside it is
    compatible with all its members. That is one AND of ``compatible`` bit sets per member, instead of the
    literal scan's repeated O(C^2) passes over all columns.
    """
    full = (1 << n) - 1
    compatible = [full] * n  # bit y of compatible[x]: x and y not declared different (so far)
    cols = [full]
    for u, v in pairs:
        if len(cols) > MAX_EXACT_COLUMNS:
            return None
        bu, bv = 1 << u, 1 << v
        both = bu | bv
        compatible[u] &= ~bv
        compatible[v] &= ~bu
        # An item w outside c that could extend c - v must be compatible with u and (as c was maximal, and
        # only the pair uv changed) incompatible with v; symmetrically for c - u. These sets are usually tiny.
        extends_u = compatible[u] & ~compatible[v]
        extends_v = compatible[v] & ~compatible[u]
        out = []
        new = []
        for c in cols:
            if c & both != both:
                out.append(c)
                continue
            kept = c ^ bv  # keeps u
            if not (extends_u & ~c and _extendable(kept, extends_u, compatible)):
                out.append(kept)
            copy = c ^ bu  # keeps v
            if not (extends_v & ~c and _extendable(copy, extends_v, compatible)):
                new.append(copy)
        out.extend(new)
        cols = out
    return cols


def _greedy_cover(n: int, pairs: list[tuple[int, int]]) -> list[int]:
    """A valid letter display when the maximal cliques are too many to list (this project's fallback).

    Every pair not declared different must share a column and no column may hold a different pair. Walk the
    uncovered compatible pairs in index order; grow each from its pair by adding, in index order, every item
    compatible with all current members, then mark the pairs inside it covered. Items compatible with no
    other item get a column of their own. At most one column per compatible pair, so polynomial in n.
    """
    full = (1 << n) - 1
    compatible = [full] * n
    for u, v in pairs:
        compatible[u] &= ~(1 << v)
        compatible[v] &= ~(1 << u)
    need = [compatible[x] & ~((1 << (x + 1)) - 1) for x in range(n)]  # uncovered partners y > x
    cols = []
    for x in range(n):
        if compatible[x] == 1 << x:
            cols.append(1 << x)
        while need[x]:
            y = (need[x] & -need[x]).bit_length() - 1
            col = (1 << x) | (1 << y)
            cand = compatible[x] & compatible[y] & ~col
            while cand:
                low = cand & -cand
                z = low.bit_length() - 1
                if not col & ~compatible[z]:
                    col |= low
                cand ^= low
            cols.append(col)
            for a in _bits(col):
                need[a] &= ~col
    return cols


def _extendable(col: int, anchor: int, compatible: list[int]) -> bool:
    """Whether some item of ``anchor`` outside ``col`` is compatible with all of ``col``."""
    candidates = anchor & ~col
    if candidates.bit_count() <= col.bit_count():
        # few outsiders (dense "not different" graph, large columns): test each against the whole column
        while candidates:
            low = candidates & -candidates
            if not col & ~compatible[low.bit_length() - 1]:
                return True
            candidates ^= low
        return False
    rest = col  # small column: intersect its members' compatible sets until nothing is left
    while candidates and rest:
        low = rest & -rest
        candidates &= compatible[low.bit_length() - 1]
        rest ^= low
    return candidates != 0


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

    Notes
    -----
    The insert–absorb columns are the maximal cliques of the "not declared different" graph, so their number
    can grow exponentially in n for some inputs (e.g. n/2 disjoint different pairs give 2**(n/2) columns before
    the sweep); typical decision sets give at most a few hundred to a few thousand. Past ``MAX_EXACT_COLUMNS``
    intermediate columns the spec's algorithm is abandoned for a greedy cover (this project's choice): still a
    correct display (shared letter iff not declared different), possibly with more letters than spec 07's.
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
    cols = _insert_absorb(n, sorted(pairs))
    if cols is None:
        cols = _maximal(_greedy_cover(n, sorted(pairs)))
    if sweep:
        cols = _sweep(cols, n)
    cols.sort(key=_sort_key)
    return [_bits(c) for c in cols]


def _sweep(cols: list[int], n: int) -> list[int]:
    """Piepho's sweep (spec 07 §1 step 4): drop memberships that no pair needs.

    For x in column c, conditions (a) and (b) together say that every current member y of c (x included)
    shares a column other than c with x, i.e. that ``count[x, y] >= 2`` for all y in c, where ``count[x, y]``
    is the number of columns holding both (``count[x, x]``: the columns holding x).

    Each row ``count[x, :]`` is kept as one Python integer with a W-bit field per item ("SIMD within a
    register"), so decrementing a whole set of fields is one subtraction, and the fields >= 2 are read off in
    two more operations (below). Columns are spread to the same layout, so each membership test is one AND.
    Removing x from c changes only counts of pairs that involve x, and x has then left c, so the other tests
    *in the same column* see the removal only through the shrinking c; the counts are therefore brought up
    to date once per column, before the next column (which must see them). The initial counts are one
    matrix product.
    """
    members = [_bits(c) for c in cols]
    order = sorted(range(len(cols)), key=members.__getitem__)  # display order (step 5)
    cols = [cols[k] for k in order]
    members = [members[k] for k in order]
    width = _field_width(len(cols))
    field_dtype = np.dtype(f"<u{width // 8}")
    count = np.zeros((n, n))
    spreads = []  # column k in the field layout: 1 in the field of each member
    for start in range(0, len(cols), _CHUNK):  # bounded memory even for very many columns
        block = np.zeros((min(_CHUNK, len(cols) - start), n))
        for k, m in enumerate(members[start:start + _CHUNK]):
            block[k, m] = 1.0
        count += block.T @ block  # exact: counts stay far below 2**53
        spreads.extend(int.from_bytes(r.tobytes(), "little") for r in block.astype(field_dtype))
    rows = [int.from_bytes(r.tobytes(), "little") for r in np.rint(count).astype(field_dtype)]
    one = [1 << (width * y) for y in range(n)]  # field y, value 1
    top = [b << (width - 1) for b in one]  # field y, top bit
    ones = sum(one)
    guard = ones << (width - 1)  # the top bit of every field
    twos = ones << 1
    # per field t < 2**(width-1): (guard + t - 2) keeps its top bit iff t >= 2, and no borrow crosses fields
    multi = [((r | guard) - twos) & guard for r in rows]
    for ci, m in enumerate(members):
        spread = spreads[ci]
        current = spread << (width - 1)  # the column's members, as top bits
        spread_removed = 0
        for x in m:
            if not current & ~multi[x]:
                current ^= top[x]
                spread_removed |= one[x]
        if not spread_removed:
            continue
        # the pairs of the original column with at least one removed member lost this column
        c = 0
        for y in m:
            if spread_removed & one[y]:
                r = rows[y] - spread
            else:
                r = rows[y] - spread_removed
                c |= 1 << y
            rows[y] = r
            multi[y] = ((r | guard) - twos) & guard
        cols[ci] = c
    return _maximal([c for c in cols if c])


_CHUNK = 1 << 15
#: beyond this many intermediate insert-absorb columns (about 1 s of work) the greedy cover takes over
MAX_EXACT_COLUMNS = 1 << 16


def _field_width(n_cols: int) -> int:
    """Bits per count field: counts never exceed n_cols, and the top bit of each field must stay 0."""
    return 16 if n_cols < 1 << 15 else 32 if n_cols < 1 << 31 else 64


@keyword_only(("means",))
@validated("letters")
def letters(policies: Sequence[str], different_pairs: Iterable[tuple[str, str]], *, means: Any | None = None,
            sweep: bool = True) -> dict[str, str]:
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
    if isinstance(policies, (str, bytes)) or not hasattr(policies, "__iter__"):
        # a string would otherwise be split into one-letter policies
        raise ParameterError(f"policies must be a list of policy names, got {policies!r}")
    if isinstance(different_pairs, (str, bytes)):
        raise ParameterError(f"different_pairs must be a list of (policy, policy) pairs, got {different_pairs!r}")
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

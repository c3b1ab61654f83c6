"""How a table's trials are paired across policies, and the policies that pairing can never compare.

Trial-by-trial methods compare two policies on the environments (items, trials) both have. A policy whose
labels appear for no other policy is never compared: its letters would say "not certified to differ" about
a pair that was never tested. Such a policy almost always means a reader matched the wrong thing (a misspelled
header in one file of a folder, a group written two ways), so readers say so; `isolated_policies` finds it in
any validated table, and `pairing_note` says how a table without environment labels is paired.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from ._cells import label_codes
from .table import near_miss

__all__ = ["unshared", "isolated_policies", "isolated_warning", "pairing_note"]


def unshared(keys: Mapping[str, Iterable[Hashable]]) -> list[str]:
    """The names (in order) none of whose keys belongs to another name; [] for fewer than two names."""
    sets = {name: set(ks) for name, ks in keys.items()}
    if len(sets) < 2:
        return []
    holders = Counter(k for ks in sets.values() for k in ks)
    return [name for name, ks in sets.items() if all(holders[k] == 1 for k in ks)]


def isolated_policies(table: pd.DataFrame) -> list[str]:
    """Policies of a validated long table that share no environment label with any other policy.

    Empty when the table has no environment labels (then trials pair by order, see `pairing_note`).
    """
    if "env" not in table.columns or "policy" not in table.columns or len(table) == 0 or table["env"].isna().any():
        return []
    # on codes (a long table repeats each policy and label thousands of times): a policy is isolated iff every
    # label it holds is held by no other policy; the same names in the same order as `unshared`
    pc, names = label_codes(table["policy"])
    ec, _ = label_codes(table["env"])
    if len(names) < 2:
        return []
    n_env = int(ec.max()) + 1
    key = pc.astype(np.int64)  # a new array: the codes are shared
    key *= n_env
    key += ec
    if len(names) * n_env <= 4 * len(key) + 1024:  # a presence mask: one pass, no sort
        seen = np.zeros(len(names) * n_env, dtype=bool)
        seen[key] = True
        pairs = np.flatnonzero(seen)
    else:
        key.sort()
        pairs = key[np.r_[True, key[1:] != key[:-1]]]
    holders = np.bincount(pairs % n_env, minlength=n_env)
    shared = np.zeros(len(names), dtype=bool)
    shared[pairs[holders[pairs % n_env] > 1] // n_env] = True
    return [str(names[i]) for i in np.flatnonzero(~shared)]


def isolated_warning(table: pd.DataFrame, where: str, *, rows: bool = False) -> str | None:
    """One line about the policies pairing by environment can never compare (`rows`: a wide table, whose
    environments are its rows), or None."""
    lonely = isolated_policies(table)
    if not lonely:
        return None
    fix = "check those labels, or pair each policy's trials by order (--pairing by-order)"
    if len(lonely) == table["policy"].nunique():
        unit = "row" if rows else "environment label"
        return f"{where}: no two policies share a{'n' if unit[0] == 'e' else ''} {unit}, so pairing by environment " \
               f"compares no pair; {fix.replace('those labels', 'the environment column' if not rows else 'the rows')}"
    one = len(lonely) == 1
    names = ", ".join(map(repr, lonely[:5])) + (f" and {len(lonely) - 5} more" if len(lonely) > 5 else "")
    if rows:
        what = f"no row with any other policy (no other policy has a value in {'its' if one else 'their'} rows)"
        fix = fix.replace("those labels", "the table")
    else:
        labels = table.loc[table["policy"] == lonely[0], "env"].drop_duplicates().head(3).tolist()
        what = (f"no environment with any other policy (labels such as {', '.join(map(repr, labels))} appear for no "
                "other)")
    return (f"{where}: {'policy' if one else 'policies'} {names} {'shares' if one else 'share'} {what}, so pairing "
            f"by environment never compares {'it' if one else 'them'}; {fix}")


def pairing_note(table: pd.DataFrame, columns: Sequence[object], known: Sequence[str]) -> str | None:
    """What a long table without environment labels pairs (each policy's n-th trial with the others' n-th),
    naming a column that looks like a misspelt environment header; None when the table has labels."""
    if "env" not in table.columns or not table["env"].isna().all() or table["policy"].nunique() < 2:
        return None
    miss = near_miss(columns, known)
    hint = (f"; column {miss[0]!r} is not read as one (rename it {miss[1]!r} if it names the environment)" if miss
            else "; add an environment or trial column to pair trials run in the same conditions")
    return ("no environment column: each policy's n-th trial is paired with the n-th trial of the others "
            f"(pairing by order){hint}")

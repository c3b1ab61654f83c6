"""Speed of the multiplicity and order layers (spec 02, spec 07).

Run:  .venv/bin/python benchmarks/speed/multitest_and_order.py [--repeat 7] [--markdown]

Reports the median (and best) wall time over ``--repeat`` repetitions of:

* a full graphical pass on K = 190 hypotheses (20 policies, soft_masked prior graph): ``graph_test``
  (Algorithm 2 over all 190 hypotheses, plus the rejections it implies), and Algorithm 1 from scratch with
  every hypothesis rejected (190 online Bretz updates, the AnyRank path);
* one online Bretz update (``Graph.reject``) at K = 190 and K = 1225 (50 policies);
* a sequential tester fed 20 monotone p-value vectors at K = 190;
* direct e-Holm over 380 and 9900 directions (BB-EDGE with 20 and 100 models);
* transitive closure + partial ranking + DOT for 20 and 50 policies;
* compact letter displays for 50 policies (sparse, medium and dense decision sets), and for random
  difference sets with 30 and 50 policies.

Goal (issue 4): a full graphical pass on K = 190 in under 5 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

import numpy as np

from certirank.multitest import Graph, SequentialGraphTest, e_holm, from_prior, graph_test, pair_gaps
from certirank.order import letters, make_ranking, transitive_closure
from certirank.order.letters import letter_columns


def timed(fn: Callable[[], object], repeat: int, number: int = 1) -> tuple[float, float]:
    """Median and best time per call, in milliseconds."""
    fn()  # warm-up
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        runs.append((time.perf_counter() - t0) / number * 1e3)
    return statistics.median(runs), min(runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--markdown", action="store_true", help="print a markdown table")
    args = ap.parse_args()
    rng = np.random.default_rng(2026)
    rows: list[tuple[str, float, float]] = []

    def add(name: str, fn: Callable[[], object], number: int = 1) -> None:
        med, best = timed(fn, args.repeat, number)
        rows.append((name, med, best))

    # --- graphical procedure, K = 190 (20 policies)
    _, d190 = pair_gaps(rng.random(20))
    g190 = from_prior(d190, gamma=5.0)
    p_all = rng.random(190) * 1e-5  # every hypothesis gets rejected: the longest pass
    p_mix = rng.random(190) ** 3
    add("graph_test, K=190, all rejected", lambda: graph_test(g190, p_all, 0.05), 5)
    add("graph_test, K=190, mixed p", lambda: graph_test(g190, p_mix, 0.05), 5)

    def alg1_all() -> None:
        g = g190.initial()
        g.reject_eligible(p_all, 0.05)
        assert g.rejected.all()

    add("Algorithm 1 online (190 Graph.reject), K=190", alg1_all, 3)

    g_one = g190.initial()
    add("one Graph.reject, K=190", lambda: g_one.copy().reject(7), 50)
    _, d1225 = pair_gaps(rng.random(50))
    g1225 = from_prior(d1225, gamma=5.0)
    add("one Graph.reject, K=1225 (50 policies)", lambda: g1225.copy().reject(7), 5)

    paths = np.minimum.accumulate(rng.random((20, 190)) ** 4, axis=0)

    def sequential() -> None:
        t = SequentialGraphTest(g190, 0.1)
        for row in paths:
            t.update(row)

    add("SequentialGraphTest, K=190, 20 updates", sequential, 1)
    ser = g190.initial()
    ser.reject_eligible(p_mix, 0.05)
    add("Graph.to_dict + from_dict, K=190", lambda: Graph.from_dict(ser.to_dict()), 5)

    # --- e-Holm (BB-EDGE families)
    le380 = rng.normal(1.0, 3.0, 380)
    le9900 = rng.normal(1.0, 3.0, 9900)
    add("e_holm (log), 380 directions", lambda: e_holm(le380, 0.05, log=True), 200)
    add("e_holm (log), 9900 directions", lambda: e_holm(le9900, 0.05, log=True), 50)

    # --- order layer
    for n in (20, 50):
        names = [f"p{i:02d}" for i in range(n)]
        mu = rng.random(n)
        rels = [(names[a], names[b]) for a in range(n) for b in range(n) if mu[a] - mu[b] > 0.35]
        adj = np.array([[mu[a] - mu[b] > 0.35 for b in range(n)] for a in range(n)])
        add(f"transitive_closure, L={n}", lambda adj=adj: transitive_closure(adj), 20)
        add(f"make_ranking + DOT, L={n} ({len(rels)} relations)",
            lambda names=names, rels=rels, mu=mu: make_ranking(names, rels, kind="bench", means=mu).to_dot(), 1)
    names50 = [f"p{i:02d}" for i in range(50)]
    mu50 = rng.random(50)
    for gap in (0.6, 0.3, 0.1):
        diff = [(names50[a], names50[b]) for a in range(50) for b in range(a + 1, 50)
                if abs(mu50[a] - mu50[b]) > gap]
        add(f"letters, 50 policies, {len(diff)} different pairs",
            lambda diff=diff: letters(names50, diff, means=mu50), 1)
    # random difference sets (each pair different with probability p): these made the literal restart-scan
    # absorb take 0.7-90 s before the incremental absorb; the sparse one has ~5000 columns before the sweep
    rng_l = np.random.default_rng(0)
    for n_l, p_l in ((30, 0.5), (30, 0.2), (30, 0.8), (50, 0.5), (50, 0.03)):
        names_l = [f"p{i}" for i in range(n_l)]
        diff_l = [(names_l[a], names_l[b]) for a in range(n_l) for b in range(a + 1, n_l) if rng_l.random() < p_l]
        add(f"letters, {n_l} policies, random p={p_l} ({len(diff_l)} different pairs)",
            lambda names_l=names_l, diff_l=diff_l: letters(names_l, diff_l), 1)
    # k disjoint different pairs among 2k policies: 2**k maximal cliques; past MAX_EXACT_COLUMNS (k > 17) the
    # greedy cover takes over (docs/performance/multitest.md)
    for k in (16, 17, 19, 25, 50):
        names_d = [f"p{i}" for i in range(2 * k)]
        diff_d = [(names_d[2 * i], names_d[2 * i + 1]) for i in range(k)]
        n_cols = len(letter_columns(2 * k, [(2 * i, 2 * i + 1) for i in range(k)]))
        add(f"letters, {k} disjoint different pairs among {2 * k} ({n_cols} letters)",
            lambda names_d=names_d, diff_d=diff_d: letters(names_d, diff_d), 1)

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# {os.cpu_count()} CPUs, 1-min load average {load:.1f} when finished, numpy {np.__version__}")
    if args.markdown:
        print("| operation | median (ms) | best (ms) |")
        print("|---|---:|---:|")
        for name, med, best in rows:
            print(f"| {name} | {med:.3f} | {best:.3f} |")
    else:
        width = max(len(r[0]) for r in rows)
        print(f"{'operation':<{width}}  {'median ms':>10}  {'best ms':>10}")
        for name, med, best in rows:
            print(f"{name:<{width}}  {med:>10.3f}  {best:>10.3f}")


if __name__ == "__main__":
    main()

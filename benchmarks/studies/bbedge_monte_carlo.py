"""BB-EDGE Monte Carlo studies on the spec 04 §13 generator (L = 10, N = 100, blocks of 5, alpha = 0.05).

Studies (``--study``):

- ``fwer-power`` (default): anytime FWER_R and Power_r for BB-EDGE, BFH-e-Holm, CR-EDGE and BB-EDGE-PI in the
  four settings; r90 = first replicate with mean power >= 0.9 (paper anchor: heterogeneity, BB-EDGE 56,
  BFH-e-Holm 95). ``--stake`` picks the stake rule of BB-EDGE and CR-EDGE: the predictable plug-in on the
  exact betting factor (``plugin``, the package default), the plug-in on the empirical-Bernstein factor
  (``plugin-eb``), the spec 04 41-point mixture (``grid``) or ``all`` three on the same panels;
- ``topk``: Top-4 certification, full graph vs pilot-targeted (R0 = 3): FWER_R, FCP_R, CertProb_R, mean CR;
- ``bound``: an upper bound on Power_r in the heterogeneity setting that needs no e-Holm bookkeeping: a true
  edge can be in E_r only if its mixture e-value reaches a lower bound on c_r (1/alpha plus 1/alpha - 1 for
  every true edge whose reversed direction provably has E <= 1). Computed from the formulas of spec 04 §4 and
  B7 directly, not through the engine, so it also cross-checks it. Besides the 41-point mixture it bounds
  *every* mixture of constant stakes (any grid, any prior: a mixture never exceeds its best component) by the
  best constant stake in hindsight, and it runs the oracle stake (the growth-optimal constant stake computed
  from the true gap: not a valid test, the reference any predictable plug-in stake is chasing), for both
  the empirical-Bernstein and the betting factor, beside the two plug-ins;
- ``stake-cost``: median wall time of one replicate update per stake rule, side by side on the same panels
  (``--L`` models, ``--N`` singleton items, 1/N weights, ``keep_history=False``; e.g. ``--L 100 --N 10000``);
- ``epochs``: benchmark expansion 40 -> 70 -> 100 items after replicates 10 and 20, epoch reset at alpha/3 vs
  "fixed" BB-EDGE on the first version at alpha.

Every method sees the same panels in a repetition (one ``SeedSequence(seed).spawn(reps)`` child each), so
results do not depend on ``--jobs``.

Run:  .venv/bin/python benchmarks/studies/bbedge_monte_carlo.py --reps 500 --R 100 --jobs 2
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")  # tiny matrices: BLAS threads only add contention

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from certirank.methods.bbedge import Leaderboard, bbedge_path  # noqa: E402
from certirank.sim.bbedge_dgp import (  # noqa: E402
    SETTINGS,
    bbedge_blocks,
    bbedge_expansion_versions,
    bbedge_panels,
    bbedge_thetas,
    bbedge_truth,
)

METHODS = ("bb-edge", "bfh-e-holm", "cr-edge", "bb-edge-pi")


def _blocks_for(method: str, N: int, block_size: int):
    return "replicate" if method == "cr-edge" else list(bbedge_blocks(N, block_size))


def _runs(methods, stake):
    """(label, method, stake) for every run: BB-EDGE and CR-EDGE once per chosen stake rule."""
    stakes = ("plugin", "plugin-eb", "grid") if stake == "all" else (stake,)
    out = []
    for m in methods:
        if m in ("bb-edge", "cr-edge"):
            out += [(f"{m}/{s}" if len(stakes) > 1 else m, m, s) for s in stakes]
        else:
            out.append((m, m, None))
    return out


def one_rep_fwer_power(child, setting, R, runs, L, N, block_size, tau):
    truth = bbedge_truth(bbedge_thetas(L), tau=tau)
    null = ~truth.true_edge
    np.fill_diagonal(null, False)
    P = bbedge_panels(child, setting, L=L, N=N, R=R, block_size=block_size)
    out = {}
    for label, m, stake in runs:
        cert = bbedge_path(P, tau=tau, blocks=_blocks_for(m, N, block_size), method=m, stake=stake)["certified"]
        false_r = np.logical_or.accumulate((cert & null).any(axis=(1, 2)))
        power = (cert & truth.true_edge).sum(axis=(1, 2)) / truth.true_edge.sum()
        allp = (cert & truth.true_edge).sum(axis=(1, 2)) == truth.true_edge.sum()
        ever = np.logical_or.accumulate(cert, axis=0)  # the `cumulative` output (spec 04 §6)
        power_cum = (ever & truth.true_edge).sum(axis=(1, 2)) / truth.true_edge.sum()
        out[label] = (false_r, power, allp, power_cum)
    return out


def one_rep_topk(child, setting, R, L, N, block_size, k, R0):
    truth = bbedge_truth(bbedge_thetas(L))
    null = ~truth.true_edge
    np.fill_diagonal(null, False)
    true_set = truth.top_k(k)
    P = bbedge_panels(child, setting, L=L, N=N, R=R + R0, block_size=block_size)
    blocks = list(bbedge_blocks(N, block_size))
    res = {}
    # the Top-k and epoch studies keep the grid stake: their tables in docs/performance/bbedge.md were
    # measured with it (before the plug-in became the default)
    full = bbedge_path(P[:R], blocks=blocks, top_k=k, stake="grid")
    res["full graph"] = (bool((full["certified"] & null).any()), full["top_k_at"], full["top_k_set"])
    pil = bbedge_path(P, blocks=blocks, top_k=k, pilot=R0, stake="grid")
    res["pilot (R0=%d)" % R0] = (bool((pil["certified"] & null).any()), pil["top_k_at"], pil["top_k_set"])
    return res, true_set


def one_rep_epochs(child, setting, R, L, N, block_size):
    truth = bbedge_truth(bbedge_thetas(L))
    null = ~truth.true_edge
    np.fill_diagonal(null, False)
    P = bbedge_panels(child, setting, L=L, N=N, R=R, block_size=block_size)
    versions = bbedge_expansion_versions(N)
    blocks = bbedge_blocks(N, block_size)
    names = [str(i) for i in range(L)]
    # epoch reset: versions switch after replicates 10 and 20, alpha_v = alpha / 3
    v1 = versions[0]
    lb = Leaderboard(names, items=[str(i) for i in v1], blocks=[str(blocks[i]) for i in v1], epochs=3,
                     stake="grid")
    fixed = Leaderboard(names, items=[str(i) for i in v1], blocks=[str(blocks[i]) for i in v1], stake="grid")
    f_reset = f_fixed = False
    pow_reset, pow_fixed = np.zeros(R), np.zeros(R)
    current = v1
    for r in range(R):
        if r in (10, 20):
            nxt = versions[1 if r == 10 else 2]
            add = [i for i in nxt if i not in set(current)]
            lb.expand_benchmark([str(i) for i in add], blocks=[str(blocks[i]) for i in add])
            current = np.concatenate([current, add])
        lb.add_replicate(P[r][:, current])
        fixed.add_replicate(P[r][:, v1])
        for board, acc in ((lb, pow_reset), (fixed, pow_fixed)):
            c = board.certified_matrix()
            acc[r] = (c & truth.true_edge).sum() / truth.true_edge.sum()
        f_reset |= bool((lb.certified_matrix() & null).any())
        f_fixed |= bool((fixed.certified_matrix() & null).any())
    return (f_reset, pow_reset), (f_fixed, pow_fixed)


def one_rep_bound(child, R, N, block_size, lam):
    """Per true edge and replicate: log E (mixture) and a lower bound on log c_r, for the EB and Hoeffding forms.

    c_r >= 1/alpha + (1/alpha - 1) * n_r, where n_r counts true edges whose summed centred contrast is >= 0: for
    those, every grid component of the *reversed* direction is <= 1, so the reversed direction sits in J_r with
    E <= 1. Tied and other directions only add to c_r, so this is a valid lower bound.
    """
    P = bbedge_panels(child, "heterogeneity", L=10, N=N, R=R, block_size=block_size)
    truth = bbedge_truth(bbedge_thetas(10))
    a, b = np.nonzero(truth.true_edge)  # the 40 true edges a -> b
    blocks = bbedge_blocks(N, block_size)
    M = int(blocks.max()) + 1
    avg = np.zeros((N, M))
    avg[np.arange(N), blocks] = 1.0 / np.bincount(blocks)[blocks]  # equal weights: lambda_{g,m} = lambda_g
    Y = ((1.0 + P[:, a, :] - P[:, b, :]) / 2.0) @ avg  # (R, 40, M)
    mu0 = 0.5
    pred = (mu0 + np.cumsum(Y, axis=0) - Y) / np.arange(1, R + 1)[:, None, None]
    lin = np.cumsum((Y - mu0).sum(axis=2), axis=0)  # (R, 40)
    sq = np.cumsum(((Y - pred) ** 2).sum(axis=2), axis=0)
    psi = -np.log1p(-lam) - lam
    hoeff_pen = np.arange(1, R + 1)[:, None, None] * M * lam ** 2 / 8
    log_c = np.log(20.0 + 19.0 * (lin >= 0).sum(axis=1))[:, None]  # (R, 1)
    out = []
    for comp in (lin[..., None] * lam - sq[..., None] * psi, lin[..., None] * lam - hoeff_pen):
        m = comp.max(axis=2)
        log_e = m + np.log(np.exp(comp - m[..., None]).sum(axis=2)) - np.log(lam.size)
        out.append(((log_e >= log_c).mean(axis=1), comp.max(axis=2)[-1].mean() / R))
    # sup over every constant stake in [0, 1): lambda = lin / (lin + sq) maximises lin*l - sq*psi(l) in closed
    # form; the reversed direction of an edge with lin >= 0 is <= 1 for any constant stake, so log_c holds
    best = np.clip(lin / (np.maximum(lin, 0.0) + sq), 0.0, 1.0 - 1e-12)
    sup = lin * best - sq * (-np.log1p(-best) - best)
    out.append(((sup >= log_c).mean(axis=1), float(sup[-1].mean() / R)))
    return out


def one_rep_oracle(child, R, N, block_size):
    """Power path of the oracle constant stake (all 90 directions, true e-Holm), and of the plug-in (engine)."""
    P = bbedge_panels(child, "heterogeneity", L=10, N=N, R=R, block_size=block_size)
    truth = bbedge_truth(bbedge_thetas(10))
    a, b = np.where(~np.eye(10, dtype=bool))
    te = truth.true_edge[a, b]
    blocks = bbedge_blocks(N, block_size)
    M = int(blocks.max()) + 1
    avg = np.zeros((N, M))
    avg[np.arange(N), blocks] = 1.0 / np.bincount(blocks)[blocks]
    Y = ((1.0 + P[:, a, :] - P[:, b, :]) / 2.0) @ avg  # (R, 90, M)
    pred = (0.5 + np.cumsum(Y, axis=0) - Y) / np.arange(1, R + 1)[:, None, None]
    lin = (Y - 0.5).sum(axis=2)
    sq = ((Y - pred) ** 2).sum(axis=2)
    # growth-optimal constant stake from the true half-gap and this run's mean squared error (not predictable)
    d = M * truth.delta[a, b] / 2.0
    lam = np.clip(d / (np.maximum(d, 0.0) + sq.mean(axis=0)), 0.0, 0.95)
    kelly = np.clip(d / sq.mean(axis=0), 0.0, 0.95)
    out = []
    for log_e in (np.cumsum(lam * lin - (-np.log1p(-lam) - lam) * sq, axis=0),
                  np.cumsum((np.log1p(kelly[None, :, None] * (Y - pred)) + kelly[None, :, None] * (pred - 0.5))
                            .sum(axis=2), axis=0)):
        mask = log_e < np.log(20.0)
        c = 20.0 + np.where(mask, 20.0 - np.exp(np.where(mask, log_e, 0.0)), 0.0).sum(axis=1)
        cert = log_e >= np.log(c)[:, None]
        out.append((cert & te).sum(axis=1) / te.sum())
    for stake in ("plugin-eb", "plugin"):
        plug = bbedge_path(P, blocks=list(blocks), stake=stake)["certified"]
        out.append((plug & truth.true_edge).sum(axis=(1, 2)) / truth.true_edge.sum())
    return out


def study_bound(args):
    lam = 0.95 * np.arange(41) / 40
    cols = [r for r in (40, 50, 56, 60, 70, 80, 95, 100, 120) if r <= args.R]
    print(f"Upper bound on Power_r of spec 04 BB-EDGE / BFH-e-Holm, heterogeneity setting, blocks of "
          f"{args.block_size}; {args.reps} reps (an edge counts if E_r >= a lower bound on c_r)")
    children = np.random.SeedSequence([args.seed, 300]).spawn(args.reps)
    reps = _map(one_rep_bound, children, args.jobs, args.R, args.N, args.block_size, lam)
    for j, name in enumerate(("BB-EDGE", "BFH-e-Holm", "any const. mix")):
        bound = np.mean([rep[j][0] for rep in reps], axis=0)
        drift = np.mean([rep[j][1] for rep in reps])
        r90 = int(np.argmax(bound >= 0.9)) + 1 if (bound >= 0.9).any() else None
        print(f"{name:11s} best-grid log-growth/replicate (all 40 edges) {drift:.3f}; first r with bound >= 0.9: "
              f"{r90 if r90 else '>' + str(args.R)}; " + " ".join(f"r={c}: {bound[c - 1]:.3f}" for c in cols))
    print("Measured power (true e-Holm over all 90 directions): oracle constant stakes vs the plug-in stakes")
    children = np.random.SeedSequence([args.seed, 301]).spawn(args.reps)
    reps = _map(one_rep_oracle, children, args.jobs, args.R, args.N, args.block_size)
    for j, name in enumerate(("oracle, EB factor", "oracle, betting", "plugin-eb", "plugin (betting)")):
        pw = np.mean([rep[j] for rep in reps], axis=0)
        r90 = int(np.argmax(pw >= 0.9)) + 1 if (pw >= 0.9).any() else None
        print(f"{name:18s} r90 {r90 if r90 else '>' + str(args.R)}; " +
              " ".join(f"r={c}: {pw[c - 1]:.3f}" for c in cols))


def study_stake_cost(args):
    rng = np.random.default_rng(args.seed)
    p = rng.uniform(0.3, 0.7, (args.L, 1))
    panels = [(rng.random((args.L, args.N)) < p).astype(float) for _ in range(5)]
    print(f"One replicate update, L = {args.L}, N = {args.N} singleton items, median of replicates 2-5")
    for stake in ("grid", "plugin-eb", "plugin"):
        lb = Leaderboard([f"m{i}" for i in range(args.L)], stake=stake, keep_history=False)
        times = []
        for panel in panels:
            t0 = time.perf_counter()
            lb.add_replicate(panel)
            times.append(time.perf_counter() - t0)
        print(f"stake {stake:10s} median {np.median(times[1:]):.3f} s  (first {times[0]:.3f} s)")


def _map(fn, children, jobs, *args):
    if jobs <= 1:
        return [fn(c, *args) for c in children]
    from joblib import Parallel, delayed
    return Parallel(n_jobs=min(jobs, 2))(delayed(fn)(c, *args) for c in children)


def study_fwer_power(args):
    cols = [r for r in (1, 2, 5, 10, 20, 30, 40, 50, 56, 60, 70, 80, 90, 95, 100) if r <= args.R]
    print(f"Anytime FWER_R and Power_r (mean fraction of true edges certified at r); {args.reps} reps, R = {args.R}, "
          f"L = {args.L}, N = {args.N}, blocks of {args.block_size}, tau = {args.tau}, alpha = 0.05")
    print("r90 = first r with mean Power_r >= 0.9 (current edges); r90c = the same for the cumulative edge set")
    print(f"{'setting':14s} {'method':14s} {'FWER_R':>7s} {'r90':>4s} {'r90c':>4s} {'P(all)_R':>8s}  " +
          " ".join(f"{'r=' + str(c):>6s}" for c in cols))
    for setting in args.settings:
        children = np.random.SeedSequence([args.seed, list(SETTINGS).index(setting)]).spawn(args.reps)
        t0 = time.perf_counter()
        runs = _runs(args.methods, args.stake)
        reps = _map(one_rep_fwer_power, children, args.jobs, setting, args.R, runs, args.L, args.N,
                    args.block_size, args.tau)
        for m, _, _ in runs:
            fw = np.mean([rep[m][0][-1] for rep in reps])
            pw = np.mean([rep[m][1] for rep in reps], axis=0)
            pall = np.mean([rep[m][2][-1] for rep in reps])
            pwc = np.mean([rep[m][3] for rep in reps], axis=0)
            r90, r90c = (int(np.argmax(x >= 0.9)) + 1 if (x >= 0.9).any() else None for x in (pw, pwc))
            print(f"{setting:14s} {m:14s} {fw:7.3f} {str(r90) if r90 else '>' + str(args.R):>4s} "
                  f"{str(r90c) if r90c else '>' + str(args.R):>4s} {pall:8.3f}  " +
                  " ".join(f"{pw[c - 1]:6.3f}" for c in cols))
        print(f"  ({setting}: {time.perf_counter() - t0:.0f} s)")


def study_topk(args):
    k, R0 = 4, 3
    print(f"Top-{k} certification; {args.reps} reps, R = {args.R}, pilot R0 = {R0}; CR censored at R (R + R0 for the "
          "pilot; confirmatory part in brackets)")
    print(f"{'setting':14s} {'procedure':14s} {'FWER_R':>7s} {'FCP_R':>6s} {'CertProb':>8s} {'mean CR':>14s}")
    for setting in args.settings:
        children = np.random.SeedSequence([args.seed, 100 + list(SETTINGS).index(setting)]).spawn(args.reps)
        reps = _map(one_rep_topk, children, args.jobs, setting, args.R, args.L, args.N, args.block_size, k, R0)
        for proc in reps[0][0]:
            fw = np.mean([rep[0][proc][0] for rep in reps])
            cert = [rep[0][proc][1] is not None for rep in reps]
            fcp = np.mean([rep[0][proc][1] is not None and frozenset(rep[0][proc][2]) != rep[1] for rep in reps])
            pilot = proc.startswith("pilot")
            cens = args.R + (R0 if pilot else 0)
            cr = np.mean([rep[0][proc][1] if rep[0][proc][1] is not None else cens for rep in reps])
            extra = f" [{cr - R0:.1f}]" if pilot else ""
            print(f"{setting:14s} {proc:14s} {fw:7.3f} {fcp:6.3f} {np.mean(cert):8.3f} {cr:8.1f}{extra:>6s}")


def study_epochs(args):
    print(f"Epoch reset (40 -> 70 -> 100 items after r = 10, 20; alpha_v = alpha/3) vs fixed BB-EDGE on the 40-item "
          f"version; {args.reps} reps, R = {args.R}")
    cols = [r for r in (10, 11, 15, 20, 21, 30, 40, 60, 80, 100) if r <= args.R]
    print(f"{'setting':14s} {'procedure':12s} {'FWER_R':>7s}  " + " ".join(f"{'r=' + str(c):>6s}" for c in cols))
    for setting in args.settings:
        children = np.random.SeedSequence([args.seed, 200 + list(SETTINGS).index(setting)]).spawn(args.reps)
        reps = _map(one_rep_epochs, children, args.jobs, setting, args.R, args.L, args.N, args.block_size)
        for j, name in enumerate(("epoch reset", "fixed")):
            fw = np.mean([rep[j][0] for rep in reps])
            pw = np.mean([rep[j][1] for rep in reps], axis=0)
            print(f"{setting:14s} {name:12s} {fw:7.3f}  " + " ".join(f"{pw[c - 1]:6.3f}" for c in cols))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--study", choices=("fwer-power", "topk", "epochs", "bound", "stake-cost"), default="fwer-power")
    ap.add_argument("--reps", type=int, default=500)
    ap.add_argument("--R", type=int, default=100)
    ap.add_argument("--L", type=int, default=10)
    ap.add_argument("--N", type=int, default=100)
    ap.add_argument("--block-size", type=int, default=5)
    ap.add_argument("--tau", type=float, default=0.0)
    ap.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    ap.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    ap.add_argument("--stake", choices=("plugin", "plugin-eb", "grid", "all"), default="all",
                    help="stake rule of bb-edge / cr-edge in the fwer-power study (default: all, same panels)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--jobs", type=int, default=1, help="at most 2")
    args = ap.parse_args()
    t0 = time.perf_counter()
    {"fwer-power": study_fwer_power, "topk": study_topk, "epochs": study_epochs,
     "bound": study_bound, "stake-cost": study_stake_cost}[args.study](args)
    print(f"total {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()

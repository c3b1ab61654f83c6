"""Regenerate certirank's simulation numbers beside the papers' anchors (spec 03 §12.2, spec 06 §5–6, spec 04 §14).

    .venv/bin/python benchmarks/reproduce/simulation_anchors.py                 # default (modest) rep counts, jobs = 2
    .venv/bin/python benchmarks/reproduce/simulation_anchors.py --reps 200 --bbedge-reps 500 --bt-reps 100   # paper-sized
    .venv/bin/python benchmarks/reproduce/simulation_anchors.py --out docs/reproduction/sim.md

Writes a Markdown report (tables of our numbers next to the anchors, with the explanation of every
discrepancy) to ``docs/reproduction/sim.md`` and prints it. Everything is seeded: the same command gives
the same numbers on any machine and for any ``--jobs``.
"""

from __future__ import annotations

import argparse
import math
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from certirank.sim import simulate
from certirank.sim.metrics import first_reach

ROOT = Path(__file__).resolve().parents[2]


def fmt(x: Any, nd: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    return f"{x:.{nd}f}"


def table(header: list[str], rows: list[list[Any]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def ci(s: dict[str, Any]) -> str:
    return f"{s['fwer']:.3f} [{s['fwer_ci'][0]:.3f}, {s['fwer_ci'][1]:.3f}]"

NOTES = """## Summary: what matches, what does not, and why

**Matches (within Monte-Carlo error or the spec's loose tolerances)**

- *HO-I FWER.* AnyRank₀ with the papers' tie mode (`ties="assume_none"`) has FWER ≈ 0.049 over 1000 runs
  (exact 95% interval about 0.036–0.064), the paper reports 0.045. The library default (`ties="allow"`) halves it
  (≈ 0.023), as spec 03 §12.2 predicts, and the strict directional guarantee is ≈ 0.002. Bonferroni never errs
  here. The first 200 runs alone give a higher 0.080 / 0.050: 200 runs cannot resolve 0.045 from 0.08 (binomial
  sd ≈ 0.015–0.02), which is why the HO-I study uses 1000 runs. `assume_none` is *allowed* to exceed α on an
  exact tie (a tied pair can be ordered with probability up to 2 × its level, spec 01 §4), so an estimate
  above 0.05 in this mode is not a bug; `allow` is the mode with a tie guarantee and stays below 0.05.
- *HE-F per-policy trials* (authors' output, 200 runs, γ = 0): AnyRank₀ 1278 vs 1244, Bonferroni 1796 vs 1803,
  AnyRank_∞ 1199 vs 1239, policy by policy within about 10%.
- *HE-F full-ranking fraction vs iteration:* 0.07 / 0.52 / 0.65 / 0.84 / 0.90 at iterations 200 / 400 / 500 /
  700 / 900 against the authors' 0.08 / 0.425 / 0.58 / 0.76 / 0.865; first ≥ 0.9 at iteration 909 vs 946.
- *HO-F ≈ 750 evaluations:* the full-ranking fraction of AnyRank₀ reaches 0.9 after ≈ 760 total evaluations
  (Σ_i samples_i) at iteration ≈ 240.
- *Bootstrapped BT on HO-F* (fully correct ranking at 500 / 700 / 900 / 1000 games): 0.10 / 0.43 / 0.73 / 0.80
  vs 0.08 / 0.49 / 0.82 / 0.96 — within the noise of 30 runs and B = 1000 bootstrap samples (see below).
- *BT counterexample:* classical BT ends with π2 above π3 in every run (FWER 1, its population limit, spec 06
  §6) while AnyRank₀ on the same per-trial scores orders π3 ≻ π2 ≻ π1 with no error.
- *BB-EDGE error control:* BB-EDGE, BFH-e-Holm, CR-EDGE and BB-EDGE-PI have anytime FWER 0 (and Top-4
  FWER_R = FCP_R = 0) in all four settings; SERPANT controls FWER only with i.i.d. items (0.00 iid, 0.11
  heterogeneity, 0.58 dependence, 0.72 combined; paper 0.006 → 0.574–0.896); SERPANT-R exceeds the level
  under within-block dependence (0.37 / 0.25); EMR (1.0), t-Holm (0.09 iid, 0.91 dependence) and AsympCS-Bonf
  (0.66–0.80) exceed it; BB-EDGE-PI ≈ BB-EDGE.

**Does not match, with the reason**

1. *HE-F "≈ 1,000 evaluations to full power".* Our AnyRank₀ reaches a 0.9 full-ranking fraction at
   iteration ≈ 909 but only after ≈ 2,150 total evaluations. The paper's axis unit is ambiguous (spec 03 §12.2:
   the authors' code plots AnyRank against the iteration index); read as iterations, the anchor matches. The
   HO-F anchor (750) matches on the evaluations axis instead, so the two paper anchors cannot both be in the
   same unit; we report both axes.
2. *Weighted Bonferroni on HE-F:* 1753 total trials (γ = 1) and fewer with γ = 5, vs the authors' 2272, which
   is *more* than their Bonferroni (1803) on every policy by the same factor ≈ 1.27. That uniform inflation
   looks like every pair running at a level about 4× smaller than α/K (log(1/a) grows by 1.27). With the
   weights of spec 02 B.6 the levels sum to α and weighted Bonferroni can only move level between pairs, so
   it cannot be uniformly slower than Bonferroni. The authors' weighting or prior for this run is not
   available; we do not reproduce the number.
3. *Bootstrapped BT on HE-F* is slower than the authors' (0.00 / 0.13 / 0.37 / 0.40 vs 0.07 / 0.46 / 0.64 /
   0.56 at 1000 / 1600 / 1900 / 2000 games). We use B = 1000 bootstrap fits (paper 5000) to stay within
   minutes: the Bonferroni quantile α/(2K) = 0.0025 is then an extrapolation between the 2nd and 3rd most
   extreme resamples, which widens the intervals and delays the hardest HE-F pair (0.35 vs 0.45); with 30 runs
   each fraction also has a standard error of up to 0.09. The HO-F pairs are far apart, so B matters less there.
4. *Bootstrapped BT on HO-I, "mean fraction of correct decisions 0.88":* we report 0.985 of the 9 decidable
   pairs; the authors' fraction is over all 10 pairs (the tied pair can never be correct), i.e. at most 0.9,
   and 0.88/0.9 ≈ 0.98.
5. *BB-EDGE 90%-power replicate under heterogeneity:* 78 vs 56 (paper), and BFH-e-Holm stays at ≈ 0.34 power at
   R = 100 (paper: 90% at 95). The BB-EDGE helper's own study finds the same 78 (docs/reproduction/
   bbedge.md), so the simulator is not the cause. The DGP is a reconstruction (spec 04 §13.2: h,
   the block map and the latent correlations), and so are the e-process details the paper's missing equations
   hid (prediction rule, grid); smaller per-block variance in the paper's generator or a different κ2 would
   shift both numbers. The ordering BB-EDGE > BB-EDGE-PI > BFH-e-Holm > CR-EDGE and the error-control
   conclusions do not depend on it.
6. *Top-4 CR reductions* (paper: full graph 44.7%–69.9%, pilot confirmatory 62.3%–83.7% vs the strongest valid
   baseline): the valid baselines (BFH-e-Holm, CR-EDGE) never certify a Top-4 set within R = 100 in our DGP, so
   their CR is censored at 100 and our "reductions" (20% iid, ≈ 1% under dependence) are lower bounds driven by
   censoring, and by the weaker power of point 5. Under dependence (κ1 = 0.5) BB-EDGE certifies Top-4 in only
   9% of runs by R = 100; the pilot-targeted variant (24 directions) does better (26–31%). SERPANT certifies
   faster but is not valid there.

**No anchor.** *Scalability* (spec 03 §12.1 is a reconstruction; the paper's table is not available): AnyRank with
γ = 1 and the true means as prior saves 16–22% of the trials of Bonferroni for M ≤ 7 at equal (full) power; for
M ≥ 10 both methods hit the n_max = 500 budget on the closest pairs (gap 1/M), so the censored costs converge and
AnyRank's advantage shows as higher power instead (0.93 vs 0.88 at M = 10). FWER is 0 throughout (20 runs each).

**Metric conventions used here (spec 03 §11, 04 §13.5).** FWER counts any false claim at any time (for BT, at
any of the refits; for SERPANT, at any item time). Budget-exhausted pairs never count as decided. Sample
complexity is Σ_i samples_i at the last decision when every decidable pair is decided, else the run's total
(censored). BB-EDGE power uses the *current* certified set at r; CR is censored at R (pilot: R_0 = 3 plus the
confirmatory replicate, censored at R + R_0).
"""


# ------------------------------------------------------------------------------------------ AnyRank

def anyrank_studies(reps: int, jobs: int, n_max: int, hoi_reps: int) -> tuple[str, dict[str, Any]]:
    parts: list[str] = []
    nums: dict[str, Any] = {}
    common = dict(reps=reps, seed=2026, jobs=jobs, n_max=n_max, n_games=10, progress=False)

    # HO-I FWER (anchor 0.045 with assume_no_ties, gamma = 0); the first `reps` runs of this study are the
    # runs of a `reps`-run study with the same seed (SeedSequence children are prefix-stable)
    res = simulate("HO-I", {"AnyRank0 (assume_none)": ("anyrank0", {"ties": "assume_none"}),
                            "AnyRank0 (allow)": ("anyrank0", {}),
                            "AnyRank0 (strict)": ("anyrank0", {"guarantee": "strict"}),
                            "Bonferroni (assume_none)": ("bonferroni", {"ties": "assume_none"})},
                   **{**common, "reps": hoi_reps})
    rows = []
    first = res.runs[res.runs["run"] < 200].groupby("method", sort=False)["false_ever"].mean()
    for lab, s in res.summary.items():
        anchor = "0.045 (paper)" if lab == "AnyRank0 (assume_none)" else (
            "≈ half of 0.045" if lab == "AnyRank0 (allow)" else "≤ 0.05")
        rows.append([lab, ci(s), fmt(float(first[lab])), anchor, fmt(s["power"]), fmt(s["full_ranking_rate"])])
    nums["hoi"] = res.summary
    parts.append(f"### HO-I: empirical FWER (α = 0.05, {hoi_reps} runs, n_max = {n_max})\n\n" +
                 table(["method", "FWER [95% CP]", "FWER, first 200 runs", "anchor", "final power (9 pairs)",
                        "full ranking (9/9, tie open)"], rows))

    # HO-F and HE-F: time to full power and full-ranking curves (assume_none, gamma = 0)
    for scen in ("HO-F", "HE-F"):
        res = simulate(scen, {"AnyRank0": ("anyrank0", {"ties": "assume_none"}),
                              "Bonferroni": ("bonferroni", {"ties": "assume_none"}),
                              "AnyRank_inf": ("anyrank-inf", {"ties": "assume_none"}),
                              "Weighted Bonferroni (gamma=1)": ("weighted-bonferroni", {"ties": "assume_none",
                                                                                         "gamma": 1.0}),
                              "Weighted Bonferroni (gamma=5)": ("weighted-bonferroni", {"ties": "assume_none",
                                                                                         "gamma": 5.0}),
                              "AnyRank0 (allow)": ("anyrank0", {})}, **common)
        cv_t = res.curves(grid=np.arange(0, 3 * n_max + 1, 1.0), axis="time")
        cv_e = res.curves(grid=np.arange(0, 5 * n_max + 1, 5.0), axis="evals")
        rows = []
        for lab, s in res.summary.items():
            ct = cv_t[cv_t["method"] == lab]
            ce = cv_e[cv_e["method"] == lab]
            rows.append([lab, ci(s), fmt(s["full_ranking_rate"]), fmt(first_reach(ct, "full_ranking", 0.9), 0),
                         fmt(first_reach(ce, "full_ranking", 0.9), 0), fmt(first_reach(ce, "power", 0.99), 0),
                         fmt(s["mean_samples"], 0), fmt(s["censored_rate"])])
        nums[scen] = {"summary": res.summary, "curve_t": cv_t, "curve_e": cv_e}
        anchor = "≈ 750 evaluations" if scen == "HO-F" else "≈ 1,000 evaluations; full-ranking ≥ 0.9 first at iteration 946"
        parts.append(f"### {scen}: time to full power ({reps} runs, n_max = {n_max}; paper anchor: {anchor})\n\n" +
                     table(["method", "FWER [95% CP]", "full ranking at end", "iteration: full ranking ≥ 0.9",
                            "total evaluations: full ranking ≥ 0.9", "total evaluations: mean power ≥ 0.99",
                            "mean sample complexity (Σ samples)", "censored"], rows))
        if scen == "HE-F":
            ct = cv_t[cv_t["method"] == "AnyRank0"].set_index("x")["full_ranking"]
            pts = [200, 400, 500, 700, 900]
            anchors = [0.08, 0.425, 0.58, 0.76, 0.865]
            parts.append("#### HE-F full-ranking fraction vs iteration, AnyRank0 (assume_none)\n\n" + table(
                ["iteration", *map(str, pts), "first ≥ 0.9"],
                [["certirank", *[fmt(float(ct.get(float(p), np.nan))) for p in pts],
                  fmt(first_reach(cv_t[cv_t["method"] == "AnyRank0"], "full_ranking", 0.9), 0)],
                 ["authors' output", *map(str, anchors), "946"]]))
            paper = {"AnyRank0": [180.9, 430.5, 418.8, 148.8, 65.1, 1244],
                     "Bonferroni": [231.1, 663.8, 652.4, 182.5, 73.5, 1803],
                     "AnyRank_inf": [144.8, 471.6, 461.3, 114.8, 46.8, 1239],
                     "Weighted Bonferroni (gamma=1)": [315.1, 814.1, 801.8, 241.3, 99.6, 2272]}
            rows = []
            for lab, ref in paper.items():
                per = res.summary[lab].get("mean_samples_per_policy", {})
                ours = [per.get(p, float("nan")) for p in res.summary[lab].get("mean_samples_per_policy", {})]
                tot = float(np.sum(ours)) if ours else float("nan")
                rows.append([lab, *[f"{fmt(o, 1)} ({r})" for o, r in zip(ours, ref[:5])], f"{fmt(tot, 0)} ({ref[5]})"])
            parts.append("#### HE-F mean trials per policy at termination: certirank (authors' output)\n\n" + table(
                ["method", "π1 (0.20)", "π2 (0.35)", "π3 (0.45)", "π4 (0.65)", "π5 (0.90)", "total"], rows))
    return "\n\n".join(parts), nums


def scalability_study(reps: int, jobs: int) -> str:
    rows = []
    for m in (3, 5, 7, 10, 15, 20):
        res = simulate("scalability", {"AnyRank (gamma=1, soft_masked)": ("anyrank", {"gamma": 1.0, "graph": "soft_masked"}),
                                       "Bonferroni": ("bonferroni", {})},
                       reps=reps, seed=2026, jobs=jobs, m=m, n_max=500, n_games=10, progress=False)
        a, b = res.summary["AnyRank (gamma=1, soft_masked)"], res.summary["Bonferroni"]
        rows.append([m, m * (m - 1) // 2, fmt(a["power"]), fmt(b["power"]), fmt(a["mean_samples"], 0),
                     fmt(b["mean_samples"], 0), fmt(a["mean_samples"] / b["mean_samples"], 2), fmt(a["fwer"]),
                     fmt(b["fwer"])])
    return (f"### Scalability: μ_i = (i + 0.5)/M, α = 0.1, n_max = 500, prior = true means ({reps} runs, as the "
            f"authors' scaling script)\n\nThe paper's table values are not available (spec 03 §12.1); these are "
            f"certirank's own numbers. Sample complexity is censored at the total cost when pairs stay undecided.\n\n"
            + table(["M", "pairs", "power AnyRank", "power Bonferroni", "Σ samples AnyRank", "Σ samples Bonferroni",
                     "ratio", "FWER AnyRank", "FWER Bonferroni"], rows))


def bt_studies(reps: int, jobs: int) -> tuple[str, dict[str, Any]]:
    parts = []
    nums: dict[str, Any] = {}
    anchors = {"HO-F": ([500, 700, 900, 1000], [0.08, 0.49, 0.82, 0.96]),
               "HE-F": ([1000, 1600, 1900, 2000], [0.07, 0.46, 0.64, 0.56])}
    for scen, (pts, ref) in anchors.items():
        at = "|".join(map(str, pts))
        res = simulate(scen, {"BT (bootstrap, B=1000)": ("bt-bootstrap", {"at": at}), "BT (point)": ("bt", {"at": at})},
                       reps=reps, seed=2026, jobs=jobs, n_max=10, n_games=max(pts), progress=False)
        cv = res.curves(grid=pts, axis="time")
        rows = []
        for lab in res.summary:
            c = cv[cv["method"] == lab].set_index("x")
            rows.append([lab, *[fmt(float(c.loc[float(p), "full_ranking"])) for p in pts], ci(res.summary[lab])])
        rows.append(["authors' bootstrapped BT (100 reruns)", *map(str, ref), "—"])
        nums[scen] = res.summary
        parts.append(f"### {scen}: fraction of runs with a fully correct BT ranking vs games ({reps} runs; "
                     f"evaluations = 2 × games)\n\n" + table(["method", *[f"{p} games" for p in pts],
                                                               "FWER over these looks"], rows))
    res = simulate("HO-I", {"BT (bootstrap, B=1000)": ("bt-bootstrap", {"at": "1000"}), "BT (point)": ("bt", {"at": "1000"})},
                   reps=reps, seed=2026, jobs=jobs, n_max=10, n_games=1000, progress=False)
    rows = [[lab, fmt(s["power"]), ci(s)] for lab, s in res.summary.items()]
    rows.append(["authors' bootstrapped BT", "0.88", "FPR 0–0.01"])
    nums["HO-I"] = res.summary
    parts.append(f"### HO-I at 1000 games ({reps} runs)\n\n" + table(["method", "mean fraction of correct decisions",
                                                                       "FWER [95% CP]"], rows))
    res = simulate("BT-counterexample", {"BT (point, refits at 200/1000/3000 games)": ("bt", {"at": "200|1000|3000"}),
                                         "AnyRank0": ("anyrank0", {})}, reps=reps, seed=2026, jobs=jobs,
                   n_games=3000, n_max=2000, progress=False)
    rows = [[lab, ci(s), fmt(s["fwer_final"]), fmt(s["power"]), fmt(s["full_ranking_rate"])]
            for lab, s in res.summary.items()]
    nums["BT-counterexample"] = res.summary
    parts.append(f"### BT counterexample (π3 ~ U{{0.8, 0.9}} beats π2 ~ B(0.7) in mean, loses in preference; "
                 f"{reps} runs)\n\n" + table(["method", "FWER [95% CP]", "false claim at the end", "power",
                                              "full ranking"], rows))
    return "\n\n".join(parts), nums


# ------------------------------------------------------------------------------------------ BB-EDGE

def bbedge_studies(reps: int, jobs: int) -> tuple[str, dict[str, Any]]:
    parts = []
    nums: dict[str, Any] = {}
    # beb-holm (fixed-time, no anchor) is left out: it costs as much as all the others together
    methods = "bbedge,bfh-e-holm,cr-edge,bbedge-pi,bbedge-topk,serpant,serpant-r,emr,t-holm,asympcs-bonf"
    rows_fwer = []
    rows_topk = []
    p90 = {}
    for setting in ("iid", "heterogeneity", "dependence", "combined"):
        res = simulate(f"bbedge-{setting}", methods, reps=reps, seed=2026, jobs=jobs, progress=False)
        cv = res.curves(grid=np.arange(1, 101, 1.0), axis="time")
        nums[setting] = res.summary
        for lab, s in res.summary.items():
            c = cv[cv["method"] == lab]
            r90 = first_reach(c, "power", 0.9)
            p90[(setting, lab)] = r90
            rows_fwer.append([setting, lab, ci(s), fmt(s["power"]), fmt(r90, 0), fmt(s["full_ranking_rate"])])
            rows_topk.append([setting, lab, fmt(s["fwer"]), fmt(s["topk_fcp"]), fmt(s["topk_certprob"]),
                              fmt(s["topk_mean_cr"], 1)])
    parts.append(f"### BB-EDGE DGP: anytime FWER and power (L = 10, N = 100, R = 100, {reps} reps)\n\n" +
                 table(["setting", "method", "FWER_R [95% CP]", "power_R", "first r with power ≥ 0.9",
                        "P(all 40 true edges at R)"], rows_fwer))
    parts.append("### 90%-power replicate under heterogeneity\n\n" + table(
        ["method", "certirank", "paper"],
        [["BB-EDGE", fmt(p90[("heterogeneity", "bbedge")], 0), "56"],
         ["BFH-e-Holm", fmt(p90[("heterogeneity", "bfh-e-holm")], 0), "95"]]))
    parts.append(f"### Top-4 (τ = 0, R = 100; CR censored at R, pilot CR = R_0 + confirmatory, censored at "
                 f"R + R_0; {reps} reps)\n\n" + table(["setting", "method", "FWER_R", "FCP_R", "CertProb_R", "mean CR"],
                                                      rows_topk))
    valid = ("bfh-e-holm", "cr-edge")
    rows = []
    for setting in ("iid", "heterogeneity", "dependence", "combined"):
        s = nums[setting]
        best = min(valid, key=lambda m: s[m]["topk_mean_cr"])
        full = s["bbedge"]["topk_mean_cr"]
        pilot = s["bbedge-topk"]["topk_mean_cr"] - 3
        base = s[best]["topk_mean_cr"]
        rows.append([setting, f"{best} ({fmt(base, 1)})", fmt(full, 1), f"{100 * (1 - full / base):.1f}%",
                     fmt(pilot, 1), f"{100 * (1 - pilot / base):.1f}%"])
    parts.append("### Top-4 mean CR reduction vs the strongest valid baseline (paper: full graph 44.7%–69.9%, "
                 "pilot confirmatory 62.3%–83.7%)\n\n" + table(
                     ["setting", "strongest valid baseline (mean CR)", "BB-EDGE full graph", "reduction",
                      "pilot confirmatory CR (mean, incl. censoring)", "reduction"], rows))
    return "\n\n".join(parts), nums


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=200, help="AnyRank runs per scenario (paper 200)")
    ap.add_argument("--hoi-reps", type=int, default=1000, help="AnyRank runs for the HO-I FWER study")
    ap.add_argument("--scal-reps", type=int, default=20, help="runs per M in the scalability study (authors: 20)")
    ap.add_argument("--bt-reps", type=int, default=30, help="bootstrapped-BT runs (paper 100)")
    ap.add_argument("--bbedge-reps", type=int, default=100, help="BB-EDGE repetitions per setting (paper 500)")
    ap.add_argument("--n-max", type=int, default=1000, help="AnyRank budget per policy (authors' code 1000)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", choices=["anyrank", "bt", "bbedge"], default=None)
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "reproduction" / "sim.md")
    args = ap.parse_args()
    t0 = time.time()
    sections = []
    if args.only in (None, "anyrank"):
        txt, _ = anyrank_studies(args.reps, args.jobs, args.n_max, args.hoi_reps)
        txt += "\n\n" + scalability_study(args.scal_reps, args.jobs)
        sections.append(("AnyRank (spec 03 §12)", txt))
        print(txt, flush=True)
    if args.only in (None, "bt"):
        txt, _ = bt_studies(args.bt_reps, args.jobs)
        sections.append(("Bradley–Terry baselines (spec 06 §5–6)", txt))
        print(txt, flush=True)
    if args.only in (None, "bbedge"):
        txt, _ = bbedge_studies(args.bbedge_reps, args.jobs)
        sections.append(("BB-EDGE (spec 04 §13–14)", txt))
        print(txt, flush=True)
    head = (f"# Simulation reproduction (`certirank.sim`)\n\n"
            f"Generated by `.venv/bin/python benchmarks/reproduce/simulation_anchors.py` in {time.time() - t0:.0f} s on the shared "
            f"2-core machine (load {os.getloadavg()[0]:.1f}, jobs {args.jobs}). Rep counts: AnyRank {args.reps} runs "
            f"per scenario ({args.hoi_reps} for HO-I), bootstrapped BT {args.bt_reps}, BB-EDGE {args.bbedge_reps} "
            f"repetitions per setting (the papers: 200, 100 and 500). Seed 2026 everywhere; every number is "
            f"reproducible for any --jobs.\n")
    body = head + "\n" + NOTES + "\n\n" + "\n\n".join(f"## {t}\n\n{x}" for t, x in sections) + "\n"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(body)
    print(body)


if __name__ == "__main__":
    main()

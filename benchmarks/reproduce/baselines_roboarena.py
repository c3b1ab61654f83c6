"""Bradley–Terry baselines on the shipped RoboArena preferences (docs/reproduction/baselines.md).

Usage (from the repository root):

    .venv/bin/python benchmarks/reproduce/baselines_roboarena.py [--seeds 100] [--partial-seeds 10] [--n-boot 5000]

Prints Markdown tables: the BT-Davidson, BT-EM (corrected default, with and without partial progress, and
the original server v1.1 procedure) and classical / bootstrapped BT rankings, on all 796 preference rows
(8 policies, including pi05_droid) and on the rows among the seven policies of the AnyRank paper.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd

from certirank.baselines import bootstrap_bt, bradley_terry, bt_em, davidson

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "roboarena"

# spec 03 §13: paper letters (D inferred, not confirmed)
LETTERS = {"pi0_fast_droid": "A", "paligemma_fast_droid": "B", "paligemma_fast_specialist_droid": "C",
           "paligemma_vq_droid": "D", "paligemma_diffusion_droid": "E", "pi0_droid": "F",
           "paligemma_binning_droid": "G", "pi05_droid": "-"}


def label(p: str) -> str:
    return f"{LETTERS.get(p, '?')} `{p}`"


def ranking_table(title: str, results: dict[str, object], extra: dict[str, str]) -> str:
    lines = [f"**{title}**", ""]
    names = list(results)
    lines.append("| rank | " + " | ".join(names) + " |")
    lines.append("|---|" + "---|" * len(names))
    n = len(next(iter(results.values())).order)
    for k in range(n):
        cells = []
        for name, res in results.items():
            p = res.order[k]
            val = res.scores[p]
            note = ""
            key = extra.get(name)
            if key == "se":
                note = f" ± {res.details['standard_errors'][p]:.3f}"
            elif key == "sd":
                note = f" (sd {res.details['sd'][p]:.3f})"
            elif key == "iv":
                lo, hi = res.details["intervals"][p]
                note = f" [{lo:.2f}, {hi:.2f}]"
            cells.append(f"{label(p)} {val:+.3f}{note}")
        lines.append(f"| {k + 1} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=100, help="BT-EM seeds (server: 100)")
    ap.add_argument("--partial-seeds", type=int, default=10,
                    help="BT-EM seeds for the partial-progress variant, seven-policy rows only (each seed runs all "
                         "60 EM iterations of a 900-parameter L-BFGS M-step, minutes per seed on a busy machine)")
    ap.add_argument("--n-boot", type=int, default=5000, help="bootstrap replicates (paper: 5000)")
    args = ap.parse_args()

    prefs = pd.read_csv(DATA / "policy_preferences.csv")
    progress = pd.read_csv(DATA / "per_trial_progress_data.csv")
    seven = ~((prefs["A"] == "pi05_droid") | (prefs["B"] == "pi05_droid"))
    subsets = {"all 796 rows, 8 policies": (prefs, progress),
               f"{int(seven.sum())} rows among the seven paper policies": (prefs[seven].reset_index(drop=True),
                                                                           progress[seven].reset_index(drop=True))}
    timings = []
    for title, (data, prog) in subsets.items():
        print(f"### {title}\n")
        t0 = time.perf_counter()
        dav = davidson(data)
        timings.append(("bt-davidson", title, time.perf_counter() - t0))
        t0 = time.perf_counter()
        em = bt_em(data, seeds=args.seeds)
        timings.append((f"bt-em ({args.seeds} seeds)", title, time.perf_counter() - t0))
        em_p = None
        if "seven" in title:
            t0 = time.perf_counter()
            em_p = bt_em(data, seeds=args.partial_seeds, use_partials=True, progress=prog)
            timings.append((f"bt-em + partials ({args.partial_seeds} seeds)", title, time.perf_counter() - t0))
        t0 = time.perf_counter()
        em_q = bt_em(data, seeds=args.seeds, reproduce_quirks=True)
        timings.append((f"bt-em original ({args.seeds} seeds)", title, time.perf_counter() - t0))
        cols = {"BT-Davidson (θ ± SE)": dav, f"BT-EM ({args.seeds} seeds)": em}
        if em_p is not None:
            cols[f"BT-EM w/ partial progress ({args.partial_seeds} seeds)"] = em_p
        cols[f"BT-EM original v1.1 ({args.seeds} seeds)"] = em_q
        print(ranking_table("BT-Davidson and BT-EM (score = centred log-strength θ; BT-EM: mean θ over seeds "
                            "with its SD over seeds)", cols,
                            {k: ("se" if k.startswith("BT-Davidson") else "sd") for k in cols}))
        print()
        print(f"Davidson tie parameter: ν (RoboArena) = {dav.details['tie_nu_roboarena']:.4f}, "
              f"ν_D (Davidson) = {dav.details['tie_nu_davidson']:.4f}; NLL = {dav.details['nll']:.3f}; "
              f"{dav.details['n_ties']} ties in {dav.n} comparisons.\n")
        t0 = time.perf_counter()
        bt = bradley_terry(data)
        boot = bootstrap_bt(data, n_boot=args.n_boot, seed=0, alpha=0.05)
        timings.append((f"bt + bt-bootstrap (B = {args.n_boot})", title, time.perf_counter() - t0))
        print(ranking_table(f"Classical BT and bootstrapped BT (B = {args.n_boot}, seed 0, alpha = 0.05; "
                            "interval = [L, U] at alpha/(2K))",
                            {"BT classical": bt, "bootstrapped BT": boot}, {"bootstrapped BT": "iv"}))
        print()
        sig = sorted((LETTERS[d["better"]], LETTERS[d["worse"]]) for d in boot.decisions if d["kind"] == "direct")
        print(f"Bootstrapped BT significant pairs ({len(sig)}): "
              + (", ".join(f"{a} ≻ {b}" for a, b in sig) or "none") + "; letters: "
              + ", ".join(f"{LETTERS[p]}={v}" for p, v in boot.details["letters"].items()) + "\n")
        ea = {name: res.scores["paligemma_diffusion_droid"] > res.scores["pi0_fast_droid"]
              for name, res in (("BT", bt), ("BT-Davidson", dav), ("BT-EM", em))}
        print("E (PG-Diff) above A (π0-FAST)? " + ", ".join(f"{k}: {'yes' if v else 'no'}" for k, v in ea.items())
              + "\n")
    print("### Timings (this machine, shared with other jobs)\n")
    print("| computation | data | seconds |\n|---|---|---|")
    for name, title, sec in timings:
        print(f"| {name} | {title} | {sec:.1f} |")


if __name__ == "__main__":
    main()

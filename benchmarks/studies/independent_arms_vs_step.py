"""Does certirank's default test for independent arms beat STEP? Power and rollouts-to-decision, side by side.

Usage::

    .venv/bin/python benchmarks/studies/independent_arms_vs_step.py --runs 1000 --budgets 50 200 \\
        --markdown docs/performance/tests-and-power.md --plot docs/performance/independent-arms-frontier.png

For Bernoulli pairs (p0, p1) with independent arms (each policy's rollouts independent, one of each per step:
STEP's own setting), alpha = 0.05 two-sided and valid under exact ties (certirank ``ties="allow"``, STEP / Lai
``inference_mode="ranking"``): the power (fraction of runs declaring the right direction within the budget), the
mean rollouts per policy (undecided runs count the whole budget) and, under exact ties, P(any claim). Every
method sees the same seeded streams. Columns:

- ``certirank`` — the default exact budget test for independent arms (``compare(x, y, bins="binary", n_max=N,
  arms="independent")``: the Barnard-type test of both success counts, `certirank.evidence.barnard`), and beside
  it its exact power and expected rollouts from the dynamic programme (no simulation);
- ``discordant`` — the previous independent-arms calibration (discordant pairs only, ``statistic="mixture"``);
- ``STEP``, ``Lai`` — `sequentialized-barnard-tests` (licence CC BY-NC 4.0). It is never a dependency of
  certirank: this script installs it into a throw-away virtualenv (``--step-venv``, default /tmp/stepenv; pass
  ``--no-install`` to skip) and runs ``benchmarks/_step_runner.py`` under that interpreter, in a separate
  process, on the saved streams (the first run at a new (n_max, alpha) synthesises STEP's policy: minutes).

The targets of issue 31 items 2-3 are checked in the last columns: power >= STEP - 0.005 and rollouts <=
STEP + 2 on every pair; ties: P(any claim) <= alpha + 4 binomial standard errors.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from certirank.evidence import barnard
from certirank.evidence.budget import budget_batch, make_design

ALPHA = 0.05
PAIRS = [(0.3, 0.5), (0.5, 0.7), (0.4, 0.5), (0.6, 0.8), (0.7, 0.9)]
TIES = [0.2, 0.5, 0.9]
HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(os.path.dirname(HERE), "_step_runner.py")


def streams(p0: float, p1: float, runs: int, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (rng.random((runs, n)) < p0).astype(float), (rng.random((runs, n)) < p1).astype(float)


def summary(decision: np.ndarray, stop: np.ndarray, n: int, truth: int) -> tuple[float, float]:
    """(fraction with the right decision (any claim if truth == 0), mean rollouts per policy)."""
    hit = decision != 0 if truth == 0 else decision == truth
    return float(np.mean(hit)), float(np.mean(np.where(decision != 0, stop, n)))


def step_python(venv: str, install: bool) -> str | None:
    py = os.path.join(venv, "bin", "python")
    if not os.path.exists(py) and install:
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([py, "-m", "pip", "install", "-q", "sequentialized-barnard-tests"], check=True)
    return py if os.path.exists(py) else None


def external(method: str, x: np.ndarray, y: np.ndarray, n: int, python: str) -> tuple[np.ndarray, np.ndarray] | str:
    with tempfile.TemporaryDirectory() as tmp:
        src, dst = os.path.join(tmp, "in.npz"), os.path.join(tmp, "out.npz")
        np.savez(src, x=x.astype(np.int8), y=y.astype(np.int8))
        proc = subprocess.run([python, RUNNER, src, dst, method, str(n), str(ALPHA), "ranking"], capture_output=True,
                              text=True, check=False)
        if proc.returncode != 0 or not os.path.exists(dst):
            return (proc.stderr.strip().splitlines() or ["failed"])[-1][:120]
        out = np.load(dst)
        return out["decision"], out["stop"]


def study(runs: int, seed: int, budgets: list[int], python: str | None) -> tuple[list[str], list[dict]]:
    lines: list[str] = []
    points: list[dict] = []
    for n in budgets:
        t0 = time.process_time()
        des = make_design(n, alpha=ALPHA, arms="independent")
        old = make_design(n, alpha=ALPHA, arms="independent", statistic="mixture")
        lines += [f"\n#### {n} rollouts per policy, alpha = {ALPHA}, tie-safe, independent arms, {runs} runs per row "
                  f"(certirank design: {time.process_time() - t0:.1f} s CPU, spending exponent {des.rho:.2f})\n",
                  "| p0 vs p1 | certirank | certirank, exact DP | discordant (old) | STEP | Lai | power >= STEP - 0.005 "
                  "| rollouts <= STEP + 2 |",
                  "|---|---:|---:|---:|---:|---:|:-:|:-:|"]
        cases = [(p0, p1, 1) for p0, p1 in PAIRS] + [(p, p, 0) for p in TIES]
        for ci, (p0, p1, truth) in enumerate(cases):
            x, y = streams(p0, p1, runs, n, seed + 1000 * n + ci)
            cells = {}
            r = budget_batch(x, y, des)
            cells["certirank"] = summary(r["decision"], r["decided_at"], n, truth)
            oc = barnard.operating_characteristics(des, p0, p1)
            cells["dp"] = ((oc["power"] + oc["wrong"]) if truth == 0 else oc["power"], oc["rollouts"])
            r = budget_batch(x, y, old)
            cells["discordant"] = summary(r["decision"], r["decided_at"], n, truth)
            for m in ("step", "lai"):
                out = external(m, x, y, n, python) if python else "not installed"
                cells[m] = out if isinstance(out, str) else summary(out[0], out[1], n, truth)
            fmt = {k: (v if isinstance(v, str) else f"{v[0]:.3f} ({v[1]:.1f})") for k, v in cells.items()}
            step = cells["step"]
            if truth and not isinstance(step, str):
                ok_p = "yes" if cells["certirank"][0] >= step[0] - 0.005 else "**no**"
                ok_t = "yes" if cells["certirank"][1] <= step[1] + 2 else "**no**"
            elif not truth:
                bound = ALPHA + 4 * math.sqrt(ALPHA * (1 - ALPHA) / runs)
                ok_p = "yes" if cells["certirank"][0] <= bound else "**no**"
                ok_t = ""
            else:
                ok_p = ok_t = ""
            label = f"{p0:g} vs {p1:g}" if truth else f"tie {p0:g} (P(any claim))"
            lines.append(f"| {label} | {fmt['certirank']} | {fmt['dp']} | {fmt['discordant']} | {fmt['step']} | "
                         f"{fmt['lai']} | {ok_p} | {ok_t} |")
            print(lines[-1], flush=True)
            if truth:
                points.append({"n": n, "pair": label, **{k: v for k, v in cells.items() if not isinstance(v, str)}})
        lines.append(f"\nCells: power (mean rollouts per policy; undecided runs count {n}); tie rows: P(any claim), "
                     f"binomial standard error at 0.05: {math.sqrt(0.05 * 0.95 / runs):.4f}; the tie check allows "
                     "alpha + 4 standard errors.")
    return lines, points


def plot(points: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    budgets = sorted({p["n"] for p in points})
    fig, axes = plt.subplots(1, len(budgets), figsize=(5.5 * len(budgets), 4.2), squeeze=False)
    style = {"certirank": ("o", "C0", "certirank (default, Barnard-type)"), "step": ("s", "C3", "STEP"),
             "lai": ("^", "C2", "Lai"), "discordant": ("x", "C7", "certirank, discordant pairs (old)")}
    for ax, n in zip(axes[0], budgets):
        for key, (marker, colour, label) in style.items():
            pts = [(p[key][1], p[key][0]) for p in points if p["n"] == n and key in p]
            if pts:
                ax.scatter(*zip(*pts), marker=marker, color=colour, label=label)
        for p in points:
            if p["n"] == n and "certirank" in p:
                ax.annotate(p["pair"], (p["certirank"][1], p["certirank"][0]), fontsize=7, xytext=(4, -8),
                            textcoords="offset points")
        ax.set_title(f"budget {n} rollouts per policy")
        ax.set_xlabel("mean rollouts per policy to the decision")
        ax.set_ylabel("power")
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=2027)
    ap.add_argument("--budgets", type=int, nargs="+", default=[50, 200])
    ap.add_argument("--step-venv", default="/tmp/stepenv")
    ap.add_argument("--no-install", action="store_true", help="do not create the throw-away STEP environment")
    ap.add_argument("--markdown", help="write the tables to this file (replacing the block between the markers)")
    ap.add_argument("--plot", help="write the power-vs-rollouts frontier to this PNG")
    args = ap.parse_args()
    python = step_python(args.step_venv, not args.no_install)
    lines, points = study(args.runs, args.seed, args.budgets, python)
    cmd = ("    .venv/bin/python benchmarks/studies/independent_arms_vs_step.py --runs "
           f"{args.runs} --budgets {' '.join(map(str, args.budgets))}")
    block = "\n".join(["<!-- independent-arms-vs-step:begin -->", "Measured with", "", cmd, ""] + lines
                      + ["<!-- independent-arms-vs-step:end -->"])
    if args.markdown:
        text = open(args.markdown).read() if os.path.exists(args.markdown) else ""
        a, b = "<!-- independent-arms-vs-step:begin -->", "<!-- independent-arms-vs-step:end -->"
        if a in text and b in text:
            text = text[:text.index(a)] + block + text[text.index(b) + len(b):]
        else:
            text += "\n" + block + "\n"
        with open(args.markdown, "w") as fh:
            fh.write(text)
    if args.plot:
        plot(points, args.plot)
    print(block)


if __name__ == "__main__":
    main()

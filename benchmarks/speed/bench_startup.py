"""How long does the `certirank` command take to start? Ratios against `python -c "import numpy"`, same run.

Usage::

    .venv/bin/python benchmarks/speed/bench_startup.py --repeat 15

Runs, interleaved round-robin so that a busy machine slows all of them alike, `--repeat` times each:
``python -c "import numpy"`` (the reference: the least a numeric Python tool pays to start), ``certirank --help``
and ``certirank compare small.csv --a A --b B`` on a generated 100-row file (50 paired trials of two binary
policies, seed 0), and, as the floor of that `compare`, ``python -c "import pandas, scipy.special"`` (the table
reader and the e-process's special functions, which `compare` cannot do without). For each, the median CPU time of the child process (user + system, from ``os.wait4``: less
disturbed by other load than the wall clock) and the median wall time; the ratios divide by the reference's.
Targets (issue 32): ``--help`` <= 4x and the 100-row ``compare`` <= 6x the reference; a CPU ratio over its
target is named on the last line.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

TARGETS = {"certirank --help": 4.0, "certirank compare (100 rows)": 6.0}


def small_file(folder: Path) -> Path:
    rng = np.random.default_rng(0)
    rows = [f"{p},e{i},{int(rng.random() < q)}" for i in range(50) for p, q in (("A", 0.8), ("B", 0.4))]
    path = folder / "small.csv"
    path.write_text("policy,env,score\n" + "\n".join(rows) + "\n")
    return path


def run(argv: list[str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one run of `argv`; its output is discarded."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited with {proc.returncode}")
    return usage.ru_utime + usage.ru_stime, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    script = Path(sys.executable).with_name("certirank")
    cli = [str(script)] if script.exists() else [sys.executable, "-m", "certirank"]
    with tempfile.TemporaryDirectory() as tmp:
        data = small_file(Path(tmp))
        cases = {"python -c \"import numpy\"": [sys.executable, "-c", "import numpy"],
                 "python -c \"import pandas, scipy.special\"": [sys.executable, "-c",
                                                              "import pandas, scipy.special"],
                 "certirank --help": [*cli, "--help"],
                 "certirank compare (100 rows)": [*cli, "compare", str(data), "--a", "A", "--b", "B"]}
        for argv in cases.values():  # warm the file cache and the bytecode
            run(argv)
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
        for _ in range(args.repeat):
            for name, argv in cases.items():
                times[name].append(run(argv))
    cpu = {n: statistics.median(c for c, _ in t) for n, t in times.items()}
    wall = {n: statistics.median(w for _, w in t) for n, t in times.items()}
    ref = next(iter(cases))
    print(f"median of {args.repeat} interleaved runs each; Python {sys.version.split()[0]}, numpy {np.__version__}\n")
    print("| command | CPU, s | wall, s | CPU / reference | wall / reference | target |")
    print("|---|---:|---:|---:|---:|---:|")
    missed = []
    for name in cases:
        r_cpu, r_wall = cpu[name] / cpu[ref], wall[name] / wall[ref]
        target = TARGETS.get(name)
        if target is not None and r_cpu > target:
            missed.append(name)
        print(f"| `{name}` | {cpu[name]:.2f} | {wall[name]:.2f} | {r_cpu:.1f}x | {r_wall:.1f}x | "
              f"{'reference' if name == ref else ('floor of compare' if target is None else f'<= {target:g}x')} |")
    if missed:
        print(f"\nover the target: {', '.join(missed)}")


if __name__ == "__main__":
    main()

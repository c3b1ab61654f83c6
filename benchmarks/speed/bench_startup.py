"""How long does the `certirank` command take to start? Ratios against `python -c "import numpy"`, same run.

Usage::

    .venv/bin/python benchmarks/speed/bench_startup.py --repeat 15 --base-install

Runs, interleaved round-robin so that a busy machine slows all of them alike, `--repeat` times each:
``python -c "import numpy"`` (the reference: the least a numeric Python tool pays to start), ``certirank --help``
and ``certirank compare small.csv --a A --b B`` on a generated 100-row file (50 paired trials of two policies,
seed 0) with binary scores (the exact budget test, the default for 0/1 files) and with partial-progress scores
(the anytime e-process). What `compare` cannot do without is measured beside it, each as its own command so
that the differences say what costs what: ``import numpy, scipy.special`` (the e-process's and the exact test's
special functions), ``import pandas`` (the table type; pandas >= 3 imports pyarrow with it), both, and both plus
the command-line libraries (typer, rich). For each, the median CPU
time of the child process (user + system, from ``os.wait4``: less disturbed by other load than the wall clock)
and the median wall time; the ratios divide by the reference's. Targets (issue 32): ``--help`` <= 4x and the
100-row ``compare`` <= 6x the reference; a CPU ratio over its target is named on the last line.

The children run with a bytecode cache in a temporary folder (``PYTHONPYCACHEPREFIX``, written by a first,
unmeasured run of each command), whatever ``PYTHONDONTWRITEBYTECODE`` says: an installed wheel carries compiled
bytecode and a source checkout writes ``__pycache__`` on its first run, so that is what a user starts with
(without it every run re-compiles certirank's ~50 modules a compare imports, about 0.15 s of CPU).

The project's venv (``make install-test``) holds every extra and the test tools, some of which change what the
libraries import (e.g. ``requests`` brings ``charset_normalizer``, which ``numpy.f2py`` imports when scipy.special
clones numpy's namespace). ``--base-install`` also builds a throw-away venv in the temporary folder with what
``pip install certirank`` gives (``pip install`` of this checkout, no extras: the package index must be reachable)
and times the reference, ``--help`` and both compares there too, in the same interleaved run; those rows say
"base install" and their ratios divide by that venv's own ``import numpy``. That is the install issue 32's targets
are about. ``--without PKG`` (with ``--base-install``) also times both compares there as if PKG were not installed
(a folder first on ``PYTHONPATH`` holds a PKG whose import fails; pandas then does without pyarrow as it does
when pyarrow is absent): what making PKG an optional extra would save.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

COMPARE_BINARY = "certirank compare (100 rows, binary: exact budget test)"
COMPARE_PROGRESS = "certirank compare (100 rows, progress: e-process)"
TARGETS = {"certirank --help": 4.0, COMPARE_BINARY: 6.0, COMPARE_PROGRESS: 6.0}
# what a compare cannot do without, each measured as its own command (the differences say what costs what)
FLOORS = ("numpy, scipy.special", "pandas", "pandas, scipy.special", "pandas, scipy.special, typer, rich.table")
BASE = ", base install"
ROOT = Path(__file__).resolve().parents[2]


def small_file(folder: Path, scores: str) -> Path:
    rng = np.random.default_rng(0)
    rows = [f"{p},e{i},{int(rng.random() < q) if scores == 'binary' else rng.integers(0, 11) / 10 * q:.1f}"
            for i in range(50) for p, q in (("A", 0.8), ("B", 0.4))]
    path = folder / f"small_{scores}.csv"
    path.write_text("policy,env,score\n" + "\n".join(rows) + "\n")
    return path


def run(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one run of `argv`; its output is discarded. A leading ``PYTHONPATH=DIR``
    item runs it with that import path."""
    if argv[0].startswith("PYTHONPATH="):
        env = {**env, "PYTHONPATH": argv[0].split("=", 1)[1]}
        argv = argv[1:]
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited with {proc.returncode}")
    return usage.ru_utime + usage.ru_stime, wall


def base_install(folder: Path) -> Path:
    """A fresh venv in `folder` with this checkout installed as `pip install certirank` would (no extras); its
    bin/ folder."""
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    proc = subprocess.run([str(folder / "bin" / "python"), "-m", "pip", "install", "--quiet",
                           "--disable-pip-version-check", str(ROOT)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"pip install {ROOT} into a fresh venv failed: {proc.stderr.strip()[-1500:]}")
    return folder / "bin"


def import_costs(argv: list[str], env: dict[str, str], repeat: int) -> list[tuple[str, float]]:
    """Median self time (ms) of the imports of `argv` (``python -X importtime``), summed per top-level package."""
    runs = []
    for _ in range(repeat):
        err = subprocess.run([sys.executable, "-X", "importtime", *argv], env=env, capture_output=True, text=True,
                             check=True).stderr
        per: collections.Counter[str] = collections.Counter()
        for m in re.finditer(r"import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)", err):
            per[m.group(2).split(".")[0]] += int(m.group(1)) / 1000.0
        runs.append(per)
    names = set().union(*runs)
    return sorted(((n, statistics.median(r.get(n, 0.0) for r in runs)) for n in names), key=lambda x: -x[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--importtime", action="store_true",
                    help="also list what the binary compare's imports cost, per package (python -X importtime)")
    ap.add_argument("--baseline-src", type=Path, default=None,
                    help="also time both compares with certirank imported from this source folder (e.g. an older "
                         "commit's src/, from `git archive COMMIT src | tar -x -C DIR`), in the same run")
    ap.add_argument("--base-install", action="store_true",
                    help="also time the reference, --help and both compares in a throw-away venv holding only what "
                         "`pip install certirank` installs (no extras), in the same run")
    ap.add_argument("--without", action="append", default=[], metavar="PKG",
                    help="with --base-install: also time both compares there as if PKG were not installed")
    args = ap.parse_args()
    if args.without and not args.base_install:
        ap.error("--without needs --base-install")
    script = Path(sys.executable).with_name("certirank")
    cli = [str(script)] if script.exists() else [sys.executable, "-m", "certirank"]
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        cases = {"python -c \"import numpy\"": [sys.executable, "-c", "import numpy"],
                 **{f"python -c \"import {mods}\"": [sys.executable, "-c", f"import {mods}"] for mods in FLOORS},
                 "certirank --help": [*cli, "--help"],
                 **{name: [*cli, "compare", str(small_file(Path(tmp), scores)), "--a", "A", "--b", "B"]
                    for name, scores in ((COMPARE_BINARY, "binary"), (COMPARE_PROGRESS, "progress"))}}
        if args.base_install:
            print("building a throw-away venv with the base install ...", file=sys.stderr, flush=True)
            base = base_install(Path(tmp) / "base")
            base_cases = {"python -c \"import numpy\"": [str(base / "python"), "-c", "import numpy"],
                          "certirank --help": [str(base / "certirank"), "--help"],
                          **{name: [str(base / "certirank"), *cases[name][len(cli):]]
                             for name in (COMPARE_BINARY, COMPARE_PROGRESS)}}
            cases.update({name + BASE: argv for name, argv in base_cases.items()})
            if args.without:
                hidden = Path(tmp) / "hidden"
                for pkg in args.without:
                    (hidden / pkg).mkdir(parents=True)
                    (hidden / pkg / "__init__.py").write_text(f"raise ImportError('{pkg} hidden by bench_startup')\n")
                label = BASE + " without " + ", ".join(args.without)
                cases.update({name + label: [f"PYTHONPATH={hidden}", *base_cases[name]]
                              for name in (COMPARE_BINARY, COMPARE_PROGRESS)})
        if args.baseline_src is not None:
            src = str(args.baseline_src.resolve())
            cases.update({f"{name}, baseline src": [f"PYTHONPATH={src}", *cases[name]]
                          for name in (COMPARE_BINARY, COMPARE_PROGRESS)})
        for argv in cases.values():  # warm the file cache and write the bytecode
            run(argv, env)
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
        for _ in range(args.repeat):
            for name, argv in cases.items():
                times[name].append(run(argv, env))
        costs = (import_costs(["-m", "certirank", *cases[COMPARE_BINARY][len(cli):]], env, args.repeat)
                 if args.importtime else [])
    cpu = {n: statistics.median(c for c, _ in t) for n, t in times.items()}
    wall = {n: statistics.median(w for _, w in t) for n, t in times.items()}
    ref = next(iter(cases))

    def reference(name: str) -> str:
        return ref + BASE if BASE in name else ref

    print(f"median of {args.repeat} interleaved runs each; Python {sys.version.split()[0]}, numpy {np.__version__}\n")
    print("| command | CPU, s | wall, s | CPU / reference | wall / reference | target |")
    print("|---|---:|---:|---:|---:|---:|")
    missed = []
    for name in cases:
        r_cpu, r_wall = cpu[name] / cpu[reference(name)], wall[name] / wall[reference(name)]
        target = None if " without " in name else TARGETS.get(name.split(BASE)[0])
        if target is not None and r_cpu > target:
            missed.append(name)
        label = ("reference" if name == reference(name) else "baseline src" if name.endswith("baseline src") else
                 "if not installed" if " without " in name else
                 "part of compare" if target is None else f"<= {target:g}x")
        print(f"| `{name}` | {cpu[name]:.2f} | {wall[name]:.2f} | {r_cpu:.1f}x | {r_wall:.1f}x | {label} |")
    if missed:
        print(f"\nover the target: {', '.join(missed)}")
    if costs:
        total = sum(ms for _, ms in costs)
        print(f"\nimports of `{COMPARE_BINARY}`: self time per package, median of {args.repeat} runs of "
              f"`python -X importtime` (its own overhead included), {total:.0f} ms in all\n")
        print("| package | ms | share |\n|---|---:|---:|")
        rest = 0.0
        for name, ms in costs:
            if ms >= 0.02 * total:
                print(f"| {name} | {ms:.0f} | {ms / total:.0%} |")
            else:
                rest += ms
        print(f"| (each under 2 %) | {rest:.0f} | {rest / total:.0%} |")


if __name__ == "__main__":
    main()

"""A fast start: `certirank --help` and a small `compare` import only what they use (issue 32, item 2).

The assertions are on *which modules are imported* (in a fresh interpreter), never on a time; the times are
measured side by side in `benchmarks/speed/bench_startup.py`.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import typer

from certirank.cli import app
from certirank.cli._registry import COMMANDS

CLI = Path(__file__).resolve().parent.parent / "src" / "certirank" / "cli"

# heavy libraries no command line needs before it runs a command that uses them
HEAVY = {"scipy", "matplotlib", "fastapi", "starlette", "uvicorn", "jinja2", "dask", "distributed", "ray", "numba",
         "statsmodels", "sklearn", "networkx"}
# typer 0.29 validates every option value with pydantic (about 0.15 s of CPU); pyproject.toml pins typer < 0.29,
# whose parser does without it
CLI_EXTRAS = {"pydantic", "pydantic_core"}

_PROBE = """
import json, sys
from certirank.cli import main
sys.argv = ["certirank", *json.loads(sys.argv[1])]
try:
    main()
except SystemExit as exc:
    code = exc.code
with open({out!r}, "w") as fh:
    json.dump({{"modules": sorted(sys.modules), "code": code}}, fh)
"""


def _imported(args: list[str], tmp_path: Path) -> tuple[set[str], int]:
    """The modules a fresh interpreter has imported after running `certirank ARGS`, and the exit code."""
    out = tmp_path / "modules.json"
    subprocess.run([sys.executable, "-c", _PROBE.format(out=str(out)), json.dumps(args)], check=False,
                   capture_output=True, text=True, timeout=300)
    got = json.loads(out.read_text())
    return set(got["modules"]), got["code"]


def _top(modules: set[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


def test_help_imports_no_command_module_and_no_heavy_library(tmp_path: Path) -> None:
    modules, code = _imported(["--help"], tmp_path)
    assert code == 0
    unused = _top(modules) & (HEAVY | CLI_EXTRAS | {"numpy", "pandas", "pyarrow"})
    assert not unused, sorted(unused)
    commands = {m for m in modules if m.startswith("certirank.cli.") and not m.split(".")[-1].startswith("_")}
    assert commands == set(), commands  # the listing comes from the declarations
    assert {m for m in modules if m.startswith("certirank.")} <= {
        "certirank.errors", "certirank.cli", "certirank.cli._common", "certirank.cli._registry"}


@pytest.mark.parametrize("scores", ["binary", "progress"])
def test_small_compare_imports_its_command_and_no_heavy_extra(tmp_path: Path, scores: str) -> None:
    rng = np.random.default_rng(0)
    data = tmp_path / "small.csv"
    # binary scores run the exact budget test (its design's binomial tails come from scipy.special's ufunc, not
    # scipy.stats); partial-progress scores run the anytime e-process
    rows = [f"{p},e{i},{int(rng.random() < q) if scores == 'binary' else rng.integers(0, 11) / 10 * q:.1f}"
            for i in range(50) for p, q in (("A", 0.8), ("B", 0.4))]
    data.write_text("policy,env,score\n" + "\n".join(rows) + "\n")
    modules, code = _imported(["compare", str(data), "--a", "A", "--b", "B"], tmp_path)
    assert code == 0
    assert "certirank.cli.compare" in modules
    others = {f"certirank.cli.{mod}" for name, (mods, _) in COMMANDS.items() if name != "compare" for mod in mods}
    assert not (modules & others), sorted(modules & others)
    heavy = _top(modules) & ((HEAVY - {"scipy"}) | CLI_EXTRAS)
    assert not heavy, sorted(heavy)
    # scipy.special computes the e-process and the exact tails; scipy.stats (about a second to import), optimize,
    # linalg, the plotting and page stack, and the other commands' methods are not needed here
    assert not {m for m in modules if m.startswith(("scipy.stats", "scipy.optimize", "scipy.linalg",
                                                    "scipy.interpolate", "scipy.spatial"))}
    assert not {m for m in modules if m.startswith(("certirank.web", "certirank.campaign", "certirank.baselines",
                                                    "certirank.sim", "certirank.methods.bbedge",
                                                    "certirank.methods.rposst"))}


def _first_paragraph(text: str) -> str:
    return " ".join(text.split("\n\n")[0].split())


def test_every_command_module_is_declared_with_its_own_help() -> None:
    registered = set()
    for path in CLI.glob("*.py"):
        text = path.read_text()
        registered |= {(path.stem, n) for n in re.findall(r'@app\.command\(\s*"([^"]+)"', text)}
        registered |= {(path.stem, n) for n in re.findall(r'app\.add_typer\([^)]*name="([^"]+)"', text)}
    assert {n for _, n in registered} == set(COMMANDS)
    assert all(mod in COMMANDS[name][0] for mod, name in registered)
    group = typer.main.get_command(app)
    for name, cmd in group.commands.items():  # enumerating loads every command
        assert _first_paragraph(cmd.help or "") == COMMANDS[name][1], name


def test_lazy_help_page_is_the_full_help_page(cli) -> None:
    lazy = cli(["--help"], command=typer.main.get_command(app), env={"COLUMNS": "200"}).output
    group = typer.main.get_command(app)
    group.commands  # noqa: B018  (loads every command)
    full = cli(["--help"], command=group, env={"COLUMNS": "200"}).output
    assert "compose-test" in lazy and lazy == full


def test_an_unknown_command_is_one_line_and_exit_2() -> None:
    res = subprocess.run([sys.executable, "-m", "certirank", "nosuch"], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 2 and res.stderr.strip().count("\n") == 0 and "nosuch" in res.stderr


@pytest.mark.parametrize("target", [10.0, 20.0, 40.0, 100.0, 200.0])
def test_the_calibrations_kept_for_common_alphas_are_the_bisections(target: float) -> None:
    from certirank.evidence.mixture import _SOLVED_LOG_C, CALIBRATION_PAIRS, _Calibration

    kept = _Calibration(target)
    assert kept.pairs == CALIBRATION_PAIRS and kept.log_c == float.fromhex(_SOLVED_LOG_C[target])
    assert kept._bisect(target) == kept.log_c  # the bisection, re-run: the same bits

"""What a user who builds, installs and adopts certirank relies on: one version, package data that covers every
file the package reads, the GitHub Action, the pre-commit hook and the pytest plugin.

The wheel itself is built and installed in a fresh venv by `.ci/check_wheel.py` (run by `.ci/run` and `make wheel`):
minutes, not seconds, so it is a CI step rather than a test here.
"""

from __future__ import annotations

import fnmatch
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import certirank

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "certirank"
yaml = pytest.importorskip("yaml", reason="pyyaml is in the test extras (pip install -e '.[dev]')")

try:
    import tomllib
except ImportError:  # Python 3.10
    tomllib = pytest.importorskip("tomli", reason="reading pyproject.toml on Python 3.10 needs tomli")


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_version_has_one_home_and_every_copy_agrees(cli) -> None:
    project = _pyproject()
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "certirank.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", certirank.__version__)
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert str(cff["version"]) == certirank.__version__
    first = re.search(r"^## (\S+)", (ROOT / "CHANGELOG.md").read_text(), flags=re.M)
    assert first is not None and first.group(1) == certirank.__version__
    out = cli(["--version"])
    assert out.exit_code == 0 and out.output.strip() == f"certirank {certirank.__version__}"


def test_package_data_covers_every_file_the_package_reads() -> None:
    patterns = _pyproject()["tool"]["setuptools"]["package-data"]["certirank"]
    data_dirs = [PACKAGE / "web" / "templates", PACKAGE / "web" / "static"]
    if (PACKAGE / "schemas").is_dir():
        data_dirs.append(PACKAGE / "schemas")
    files = [p.relative_to(PACKAGE).as_posix() for d in data_dirs for p in d.rglob("*") if p.is_file()]
    assert files, "no package data found"
    uncovered = [f for f in files if not any(fnmatch.fnmatch(f, pat) for pat in patterns)]
    assert not uncovered, f"not in [tool.setuptools.package-data]: {uncovered}"
    # htmx keeps its licence beside it; the project's own licence is declared
    assert (PACKAGE / "web" / "static" / "htmx-LICENSE.txt").is_file()
    assert _pyproject()["project"]["license"] == "MIT" and (ROOT / "LICENSE").read_text().startswith("MIT License")


def _table(tmp_path: Path, a_rate: float, b_rate: float, n: int = 80) -> Path:
    """A wide table of two policies with fixed success patterns (A succeeds on the first a_rate * n rows, ...)."""
    rows = ["A,B"] + [f"{int(i < a_rate * n)},{int(i < b_rate * n)}" for i in range(n)]
    path = tmp_path / "eval.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def _action_env(tmp_path: Path, files: str, claims: str, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"CERTIRANK": str(Path(sys.executable).parent / "certirank"), "CERTIRANK_FILES": files,
                "CERTIRANK_CLAIMS": claims, "CERTIRANK_ALPHA": "0.05",
                "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"), "GITHUB_OUTPUT": str(tmp_path / "output")})
    env.update(extra)
    return env


def test_action_declares_its_inputs_and_runs_its_script() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    assert {"files", "claims", "alpha", "fail-on"} <= set(action["inputs"])
    steps = action["runs"]["steps"]
    check = next(s for s in steps if s.get("id") == "check")
    assert ".github/certirank-check.sh" in check["run"]
    assert set(check["env"]) == {"CERTIRANK_FILES", "CERTIRANK_CLAIMS", "CERTIRANK_ALPHA", "CERTIRANK_FAIL_ON",
                                 "CERTIRANK_MARGIN"}
    assert (ROOT / ".github" / "certirank-check.sh").is_file()


def test_action_script_writes_the_summary_and_returns_the_gate(tmp_path: Path) -> None:
    data = _table(tmp_path, 0.95, 0.05)
    script = str(ROOT / ".github" / "certirank-check.sh")
    ok = subprocess.run(["bash", script], env=_action_env(tmp_path, f"{data}\n", "  A>B  \n\n"),
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    summary = (tmp_path / "summary.md").read_text()
    assert "A is better than B" in summary and "PASS" in summary
    assert (tmp_path / "output").read_text().strip() == "exit-code=0"
    (tmp_path / "output").unlink()
    bad = subprocess.run(["bash", script], env=_action_env(tmp_path, str(data), "B>A"), capture_output=True, text=True)
    assert bad.returncode == 3
    assert (tmp_path / "output").read_text().strip() == "exit-code=3"
    none = subprocess.run(["bash", script], env=_action_env(tmp_path, str(data), "\n"), capture_output=True, text=True)
    assert none.returncode == 2 and "at least one claim" in none.stderr


@pytest.mark.parametrize("fail_on, codes", [("any", (0, 1, 3)), ("reversed", (0, 0, 3)), ("", (0, 1, 3))])
def test_action_fail_on_decides_which_verdicts_fail(tmp_path: Path, fail_on: str, codes: tuple) -> None:
    data = tmp_path / "abc.csv"  # A>B certified, A>C undecidable (C is A's copy), B>A certified the other way
    data.write_text("A,B,C\n" + "".join(f"{int(i < 76)},{int(i < 4)},{int(i < 76)}\n" for i in range(80)))
    script = str(ROOT / ".github" / "certirank-check.sh")
    for claim, code in zip(("A>B", "A>C", "B>A"), codes):
        env = {**_action_env(tmp_path, str(data), claim), "CERTIRANK_FAIL_ON": fail_on}
        run = subprocess.run(["bash", script], env=env, capture_output=True, text=True)
        assert run.returncode == code, (fail_on, claim, run.stderr)
    env = {**_action_env(tmp_path, str(data), "A>B"), "CERTIRANK_FAIL_ON": "sometimes"}
    run = subprocess.run(["bash", script], env=env, capture_output=True, text=True)
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and "any or reversed" in run.stderr


def test_pre_commit_hook_entry_is_the_check_command(tmp_path: Path) -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert [h["id"] for h in hooks] == ["certirank-check"]
    hook = hooks[0]
    assert hook["language"] == "python" and hook["pass_filenames"] is False
    program, *words = hook["entry"].split()
    assert program == "certirank"
    data = _table(tmp_path, 0.95, 0.05)
    exe = str(Path(sys.executable).parent / "certirank")
    run = subprocess.run([exe, *words, str(data), "--claim", "A>B"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_pytest_plugin_fixture_passes_and_fails_with_the_claims(pytester: pytest.Pytester, tmp_path: Path) -> None:
    data = _table(tmp_path, 0.95, 0.05)
    pytester.makepyfile(f"""
        import pytest

        @pytest.mark.certirank
        def test_better(certirank_check):
            result = certirank_check({str(data)!r}, "A>B")
            assert result.claims[0]["status"] == "certified"

        def test_worse(certirank_check):
            certirank_check({str(data)!r}, ["B>A"])

        def test_reversed_only(certirank_check):
            certirank_check({str(data)!r}, "A>B", fail_on="reversed")
    """)
    result = pytester.runpytest("-q")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*certirank check failed*", "*B>A: certified the other way*"])

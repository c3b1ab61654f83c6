"""The getting-started pages run as written (issue 32, item 3): every `bash` block of each page, command by
command and in order, in an empty folder, with this environment's `certirank` and `python` first on PATH.

A command's expected exit code is 0 unless its line ends with ``# exit code N``; no command may print a traceback.
The YAML examples of "Gate a PR with check" use only the inputs `action.yml` declares and the hook
`.pre-commit-hooks.yaml` defines. Each page is in the site's nav and linked from docs/index.md and the README.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = ["start-robot-lab.md", "start-llm-evaluator.md", "start-test-designer.md", "gate-a-pr.md"]
yaml = pytest.importorskip("yaml", reason="pyyaml is in the test extras (pip install -e '.[dev]')")

_FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)
_HEREDOC = re.compile(r"<<-?'?(\w+)'?")
_EXPECT = re.compile(r"#\s*exit code (\d+)\s*$")


def blocks(page: str, lang: str) -> list[str]:
    return [body for kind, body in _FENCE.findall((DOCS / page).read_text(encoding="utf-8")) if kind == lang]


def commands(block: str) -> list[tuple[str, int]]:
    """(command, expected exit code) per command of a bash block; a here-document stays with its command."""
    out: list[tuple[str, int]] = []
    lines = block.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cmd = [line]
        heredoc = _HEREDOC.search(line)
        if heredoc:
            while i < len(lines) and lines[i].strip() != heredoc[1]:
                cmd.append(lines[i])
                i += 1
            cmd.append(lines[i] if i < len(lines) else heredoc[1])
            i += 1
        expect = _EXPECT.search(line)
        out.append(("\n".join(cmd), int(expect[1]) if expect else 0))
    return out


@pytest.mark.parametrize("page", PAGES)
def test_every_command_of_the_page_runs(page: str, tmp_path: Path) -> None:
    env = dict(os.environ)
    env.update({"PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}", "COLUMNS": "100",
                "CERTIRANK_OPERATOR": "docs-test"})
    env.pop("CERTIRANK_TOKEN", None)
    ran = 0
    for block in blocks(page, "bash"):
        for cmd, expected in commands(block):
            res = subprocess.run(["bash", "-c", cmd], cwd=tmp_path, env=env, capture_output=True, text=True,
                                 timeout=600)
            assert "Traceback" not in res.stdout + res.stderr, (page, cmd, res.stderr)
            assert res.returncode == expected, (page, cmd, res.returncode, res.stdout[-2000:], res.stderr[-2000:])
            ran += 1
    assert ran >= 3, f"{page}: only {ran} commands"


def test_the_gate_page_yaml_matches_the_action_and_the_hook() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    hooks = {h["id"] for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    step, repo = (yaml.safe_load(b)[0] for b in blocks("gate-a-pr.md", "yaml"))
    assert step["uses"].split("@")[0].endswith("/certirank")
    assert set(step["with"]) <= set(action["inputs"]) and {"files", "claims"} <= set(step["with"])
    assert step["with"]["fail-on"] in ("any", "reversed")
    assert {h["id"] for h in repo["hooks"]} <= hooks


def test_the_pages_are_in_the_nav_and_linked_from_the_index_and_the_readme() -> None:
    nav = (ROOT / "mkdocs.yml").read_text()
    index = (DOCS / "index.md").read_text()
    readme = (ROOT / "README.md").read_text()
    for page in PAGES:
        assert f": {page}" in nav, page
        assert f"]({page})" in index, page
        assert f"](docs/{page})" in readme, page
    # the README keeps its two quick-start commands
    assert "make demo" in readme and "make test" in readme

"""The import graph keeps the layers (docs/architecture.md): no import runs up a layer, and no new import circle.

The graph is read from the source with `ast` (every `import` and `from ... import`, at module level and inside
functions alike: a lazy import is still a dependency), so the test needs no tool and imports nothing it reads.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "certirank"
LAYERS = ("data", "evidence", "multitest", "order", "methods", "baselines", "sim", "campaign", "integrations",
          "report", "cli", "web")
#: imports that run up a layer on purpose, with the reason
UPWARD_ALLOWED = {
    ("certirank.__main__", "certirank.cli"): "`python -m certirank` is the command line",
    ("certirank.cli.campaign_serve", "certirank.web"): "`campaign serve` starts the page (the page never imports "
                                                       "the command line)",
}
#: circles that other work in progress is cutting (issue 36 item 5); the list may only shrink
CIRCLES_BEING_CUT: set[frozenset[str]] = set()


def _module(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """module -> the certirank modules it imports (anywhere in its source)."""
    modules = {_module(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = path.name == "__init__.py"
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".") if package else name.split(".")[:-1]
                    base = base[:len(base) - node.level + 1]
                    origin = ".".join(base + ([node.module] if node.module else []))
                else:
                    origin = node.module or ""
                targets = [f"{origin}.{a.name}" if f"{origin}.{a.name}" in modules else origin for a in node.names]
            for t in targets:
                while t not in modules and "." in t:
                    t = t.rsplit(".", 1)[0]
                if t in modules and t != name and t.startswith("certirank"):
                    deps.add(t)
        graph[name] = deps
    return graph


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[frozenset[str]] = []
    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(frozenset(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _layer(module: str) -> int | None:
    parts = module.split(".")
    if len(parts) == 1:
        return None  # the package's lazy index of public names
    return LAYERS.index(parts[1]) if parts[1] in LAYERS else -1  # top-level modules are the base


def test_no_import_runs_up_a_layer():
    graph = import_graph()
    upward = sorted((m, d) for m, deps in graph.items() for d in deps
                    if _layer(m) is not None and _layer(d) is not None and _layer(d) > _layer(m)
                    and (m, d) not in UPWARD_ALLOWED)
    assert not upward, upward


def test_no_new_import_circle():
    found = set(circles(import_graph()))
    new = [sorted(c) for c in found if not any(c <= allowed for allowed in CIRCLES_BEING_CUT)]
    assert not new, f"new import circle(s): {new}"


def test_the_circle_finder_finds_circles():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset("abc")]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_multitest_sim_data_bbedge_and_campaign_circles_are_cut():
    found = circles(import_graph())
    for package in ("certirank.multitest", "certirank.sim", "certirank.data", "certirank.methods",
                    "certirank.campaign", "certirank._"):
        assert not [c for c in found if any(m.startswith(package) for m in c)], package


# ------------------------------------------------------------------------ tests: one command-line runner

TESTS = Path(__file__).resolve().parent
RUNNER_HOME = TESTS / "cli_runner.py"  # the one runner, served as the `cli` fixture by tests/conftest.py


def builds_a_runner(source: str) -> bool:
    """Does this test source build or import a click runner of its own (rather than use the `cli` fixture)?"""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name) and node.id == "CliRunner":
            return True
        if isinstance(node, ast.Attribute) and node.attr == "CliRunner":
            return True
        if isinstance(node, ast.ImportFrom) and node.module in ("typer.testing", "click.testing"):
            return True
        if isinstance(node, ast.Import) and any(a.name in ("typer.testing", "click.testing") for a in node.names):
            return True
    return False


def test_no_test_file_builds_its_own_command_line_runner():
    own = sorted(str(path.relative_to(TESTS)) for path in TESTS.rglob("*.py")
                 if path != RUNNER_HOME and builds_a_runner(path.read_text(encoding="utf-8")))
    assert not own, f"use the `cli` fixture (tests/cli_runner.py) instead of a runner of their own: {own}"


def test_the_runner_check_sees_every_spelling():
    for source in ("from typer.testing import CliRunner\n", "import typer.testing\nr = typer.testing.CliRunner()\n",
                   "from click.testing import CliRunner as R\n", "import click.testing\n"):
        assert builds_a_runner(source), source
    assert not builds_a_runner('text = "CliRunner()"\ndef test(cli):\n    cli(["--help"])\n')
    assert builds_a_runner(RUNNER_HOME.read_text(encoding="utf-8"))

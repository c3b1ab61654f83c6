"""The documentation site: every page is reachable from the navigation, every nav entry exists, and the generated
command reference documents every command and subcommand. (`make docs` builds the whole site with --strict in CI;
these are the seconds-long checks of the same promises.)"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
yaml = pytest.importorskip("yaml", reason="pyyaml is in the test extras (pip install -e '.[dev]')")


class _Loader(yaml.SafeLoader):
    """mkdocs.yml may carry python tags (material's emoji); the nav does not need them."""


_Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def _nav_files(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, list):
        return [f for item in node for f in _nav_files(item)]
    if isinstance(node, dict):
        return [f for v in node.values() for f in _nav_files(v)]
    return []


def test_nav_and_pages_agree() -> None:
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=_Loader)
    nav = _nav_files(config["nav"])
    missing = [f for f in nav if not (DOCS / f).is_file()]
    assert not missing, f"nav entries without a page: {missing}"
    excluded = ("scripts/", "hooks/")
    pages = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")
                   if not p.relative_to(DOCS).as_posix().startswith(excluded))
    orphans = [p for p in pages if p not in nav]
    assert not orphans, f"pages not in mkdocs.yml's nav: {orphans}"


def test_command_reference_documents_every_command() -> None:
    import typer

    from certirank.cli import app

    spec = importlib.util.spec_from_file_location("cli_reference", DOCS / "hooks" / "cli_reference.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    text, names = hook.command_reference()
    root = typer.main.get_command(app)
    expected = {f"certirank {name}" for name in root.commands}
    expected |= {f"certirank {g} {sub}" for g, cmd in root.commands.items() if hasattr(cmd, "commands")
                 for sub in cmd.commands}
    assert expected <= set(names)
    for name in expected:
        assert f"## `{name}`" in text
    assert "`--alpha`" in text and "`--json`" in text
    page = (DOCS / "reference" / "cli.md").read_text()
    assert hook.MARK in page

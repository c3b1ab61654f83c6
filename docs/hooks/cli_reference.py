"""mkdocs hook: the command-line reference page is written from the CLI itself, so it cannot drift from it.

`docs/reference/cli.md` holds the marker below; at build time it is replaced by every command and subcommand of
`certirank` (usage, help text, arguments and options with their defaults), read from the typer app. The same
function serves the test that every command is documented (`tests/test_docs_site.py`).
"""

from __future__ import annotations

from typing import Any

MARK = "<!-- certirank: command reference -->"


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ").strip()


def _commands(group: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    out = []
    for name in group.commands:
        cmd = group.commands[name]
        if getattr(cmd, "hidden", False):
            continue
        here = (*path, name)
        out.append((here, cmd))
        if hasattr(cmd, "commands"):
            out.extend(_commands(cmd, here))
    return out


def command_reference() -> tuple[str, list[str]]:
    """(the Markdown of the reference, the full names of the commands it documents)."""
    import typer

    from certirank.cli import app

    root = typer.main.get_command(app)
    parts = ["The commands below are generated from the `certirank` command itself at build time "
             "(`certirank COMMAND --help` prints the same).", ""]
    names = []
    for path, cmd in _commands(root):
        full = "certirank " + " ".join(path)
        names.append(full)
        parts.append(f"## `{full}`\n")
        helptext = (cmd.help or "").strip()
        if helptext:
            parts.append(helptext.split("\n\n")[0] + "\n")
        if hasattr(cmd, "commands"):
            subs = ", ".join(f"`{s}`" for s in cmd.commands if not getattr(cmd.commands[s], "hidden", False))
            parts.append(f"Subcommands: {subs}.\n")
            continue
        ctx = cmd.make_context(full, [], resilient_parsing=True)
        usage = " ".join(cmd.collect_usage_pieces(ctx))
        parts.append(f"```\n{full} {usage}\n```\n")
        rows = []
        for p in cmd.params:
            if getattr(p, "hidden", False):
                continue
            if p.param_type_name == "argument":
                what = f"`{(p.metavar or p.name).upper()}`"
            else:
                what = ", ".join(f"`{o}`" for o in (*p.opts, *p.secondary_opts))
            default = p.default if p.param_type_name == "option" and not p.is_flag else None
            shown = "" if default in (None, (), []) or callable(default) else f"`{default}`"
            rows.append(f"| {what} | {_escape(getattr(p, 'help', None) or '')} | {shown} |")
        if rows:
            parts.append("| argument / option | meaning | default |\n| --- | --- | --- |")
            parts.extend(rows)
            parts.append("")
    return "\n".join(parts), names


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:  # noqa: ARG001 - mkdocs hook
    if MARK not in markdown:
        return markdown
    return markdown.replace(MARK, command_reference()[0])

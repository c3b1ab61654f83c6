"""Output safety (issue 33 item 4): the hostile names of the findings through every output format — Markdown,
HTML, DOT, Mermaid, JSON, SVG, terminal and CSV. Each format is checked by parsing what was written, not by
searching for one expected string."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import certirank
from certirank._escape import visible_controls
from hostile_support import explain, invoke

# Names a data file may hold (a policy name with a control character is refused by every reader and by the
# parameter contract, see test_control_characters_in_names_are_refused; a bidi override is a format character and
# stays, shown escaped). The console and the SVG writer still escape controls, tested on their own below.
NAME_SETS = {
    "markup": ["<script>alert(1)</script>", 'x" onload="alert(1)', "[link](javascript:alert(1))", "a|b`c`*d*",
               "-2", "D &amp; #lt;x#gt;"],
    "injection": ['"];evil[', "E\u202eF", "=1+2", "@SUM(1)", "\u540d\u524d\U0001F600", "#lt;&amp;\\x z"],
}
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069]")


def _table(names: list[str]) -> pd.DataFrame:
    rng = np.random.default_rng(11)
    rows = [(n, f"e{i}", float(rng.random() < p)) for n, p in zip(names, np.linspace(0.02, 0.98, len(names)))
            for i in range(60)]
    return pd.DataFrame(rows, columns=["policy", "env", "score"])


@pytest.fixture(scope="module", params=list(NAME_SETS))
def hostile(request, tmp_path_factory):
    names = NAME_SETS[request.param]
    root = tmp_path_factory.mktemp(f"names-{request.param}")
    long = root / "long.csv"
    _table(names).to_csv(long, index=False)
    board = pd.concat([_table(names).assign(replicate=r) for r in range(2)]).rename(columns={"env": "item"})
    board_path = root / "board.csv"
    board.to_csv(board_path, index=False)
    return names, root, long, board_path


def _ok(args: list[str]):
    res = invoke(args)
    assert res.exit_code == 0, explain(res)
    assert "Glyph" not in res.stderr and "Traceback" not in res.stderr, res.stderr
    return res


def test_the_names_are_read_back_exactly(hostile):
    names, _, long, _ = hostile
    assert list(dict.fromkeys(certirank.load(long)["policy"])) == names


def test_json_round_trips_every_name(hostile):
    names, _, long, _ = hostile
    data = json.loads(_ok(["rank", str(long), "--json"]).stdout)
    assert sorted(p["name"] for p in data["ranking"]["policies"]) == sorted(names)


def test_terminal_output_has_no_control_and_no_split_line(hostile):
    names, _, long, board = hostile
    for args in (["rank", str(long), "--all"], ["leaderboard", str(board), "--all"]):
        out = _ok(args).stdout
        assert not CONTROL.search(out), repr(out)
        flat = " ".join(out.split())  # undo rich's wrapping at spaces (80 columns in a pipe)
        for n in names:  # every name whole, its controls shown as \x.. / \u....
            assert " ".join(visible_controls(n).split()) in flat, (n, out)
        lines = out.splitlines()
        head = next(i for i, line in enumerate(lines) if line.startswith("#   policy"))
        rows = lines[head + 2:next(i for i, line in enumerate(lines) if line.startswith("Policies sharing"))]
        assert len(rows) == len(names) and all(re.match(r"^\d+\s", r) for r in rows), out  # none split


def _md_tables(text: str) -> list[list[list[str]]]:
    from markdown_it import MarkdownIt
    md = MarkdownIt("gfm-like")
    tokens = md.parse(text)
    assert not [t for t in tokens if t.type in ("html_block",)], "raw HTML block"
    inline = [c for t in tokens if t.type == "inline" for c in (t.children or [])]
    assert not [c for c in inline if c.type == "html_inline"], "raw inline HTML"
    assert not [c for c in inline if c.type == "link_open" and "javascript:" in (c.attrs.get("href") or "")]
    tables, cur, row = [], None, None
    for t in tokens:
        if t.type == "table_open":
            cur = []
        elif t.type == "tr_open":
            row = []
        elif t.type in ("th_open", "td_open"):
            row.append("")
        elif t.type == "tr_close":
            cur.append(row)
        elif t.type == "table_close":
            tables.append(cur)
    return tables


def test_markdown_tables_keep_their_columns(hostile):
    _, _, long, board = hostile
    for args in (["rank", str(long), "--markdown"], ["leaderboard", str(board), "--markdown"]):
        tables = _md_tables(_ok(args).stdout)
        assert tables
        for table in tables:
            assert len({len(r) for r in table}) == 1, table


class _Scan(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.bad: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "iframe", "object", "embed"):
            self.bad.append(tag)
        for k, v in attrs:
            if k.startswith("on") or (v and "javascript:" in v.lower()):
                self.bad.append(f"{tag} {k}={v}")


def test_html_report_has_no_active_content(hostile):
    _, root, long, _ = hostile
    res = _ok(["rank", str(long), "--json"])
    result = root / "rank.json"
    result.write_text(res.stdout)
    _ok(["report", str(result), "--html", str(root / "r.html"), "--data", str(long), "--title", "<b>x</b>\x1b"])
    scan = _Scan()
    scan.feed((root / "r.html").read_text())
    assert scan.bad == []


def test_dot_and_mermaid_strings_stay_closed(hostile):
    names, _, _, board = hostile
    dot = _ok(["leaderboard", str(board), "--graph", "dot"]).stdout
    body = dot[dot.index("digraph"):]
    for line in body.splitlines():
        assert not CONTROL.search(line)
        assert len(re.findall(r'(?<!\\)"', line)) % 2 == 0, line  # every string closed on its own line
    mer = _ok(["leaderboard", str(board), "--graph", "mermaid"]).stdout
    start = re.search(r"^(flowchart|graph) ", mer, flags=re.M)
    assert start, mer
    nodes = 0
    for line in mer[start.start():].splitlines():
        labels = re.findall(r'\["(.*?)"\]', line)
        nodes += len(labels)
        # the renderer's own line break is the only markup left in a label
        assert all(not re.search(r'[<>"`]', lab.replace("<br/>", "")) for lab in labels), line
        assert not CONTROL.search(line)
    assert nodes == len(names)


@pytest.mark.parametrize("command", ["rank", "leaderboard"])
def test_svg_plots_are_well_formed_xml_without_glyph_warnings(hostile, command):
    names, root, long, board = hostile
    out = root / f"{command}.svg"
    res = _ok([command, str(long if command == "rank" else board), "--plot", str(out)])
    assert "Glyph" not in res.stderr and "warn" not in res.stderr.lower(), res.stderr
    tree = ET.parse(out)  # raises on a character XML forbids
    assert not [e for e in tree.iter() if e.tag.endswith("script")]


def test_order_svg_of_the_page_is_well_formed(hostile):
    from certirank.report.svg import order_svg
    names, *_ = hostile
    svg = order_svg(names, [(names[0], names[1]), (names[1], names[2])], captions=names, title=names[3])
    root = ET.fromstring(svg)
    assert not [e for e in root.iter() if e.tag.endswith("script")]
    assert not CONTROL.search(svg.replace("\n", ""))


def test_csv_cells_never_start_a_formula_and_round_trip(hostile, tmp_path):
    names, *_ = hostile
    t = certirank.load(_table(names))
    out = certirank.data.write_table(t, tmp_path / "t.csv")
    raw = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert not [v for v in raw["policy"] if v[:1] in ("=", "+", "-", "@", "\t", "\r")]
    assert sorted(set(certirank.load(out)["policy"])) == sorted(names)


def test_csv_guarded_guards_headers_and_cells():
    from certirank._escape import csv_guarded, csv_uncell
    frame = pd.DataFrame({"=cmd": ["=1+2", "@x", "ok", "'=y"], "n": [1, -2, 3, 4]})
    out = csv_guarded(frame)
    assert list(out.columns) == ["'=cmd", "n"] and list(out["n"]) == [1, -2, 3, 4]
    assert [csv_uncell(v) for v in out["=cmd" if "=cmd" in out else "'=cmd"]] == list(frame["=cmd"])
    assert all(v[:1] not in "=+-@" for v in out["'=cmd"])


def test_reader_messages_show_controls_not_act_on_them(tmp_path):
    f = tmp_path / "c.csv"
    f.write_text("policy,env,score\nA\x1b[2J,e,1\nB,e,0.5x\n")
    res = invoke(["rank", str(f)])
    assert res.exit_code == 2 and "\x1b" not in res.stderr and "'A\\x1b[2J'" in res.stderr
    f.write_text("policy,env,score\nA,e,1\nB,e,0.5x\x1b\n")
    res = invoke(["rank", str(f)])
    assert res.exit_code == 2 and "\x1b" not in res.stderr and "'0.5x\\x1b'" in res.stderr
    assert Path(f).exists()


@pytest.mark.parametrize("name", ["A\nB", "D\x1b[2J", "tab\tinside", "nul\x00"])
def test_control_characters_in_names_are_refused(tmp_path, name):
    """One rule for names: readers refuse what the parameter contract refuses in Ranker/Leaderboard/campaigns."""
    f = tmp_path / "c.csv"
    pd.DataFrame({"policy": [name, "B"], "env": ["e", "e"], "score": [1, 0]}).to_csv(f, index=False)
    res = invoke(["rank", str(f)])
    assert res.exit_code == 2 and "control character" in res.stderr and len(res.stderr.splitlines()) == 1
    assert "\x1b" not in res.stderr and "\x00" not in res.stderr


def test_the_console_never_lets_a_name_split_a_line_or_drive_the_terminal():
    """Names that reach a renderer some other way (a result file, an operator, a note) are still shown escaped."""
    from rich.text import Text

    from certirank.cli._common import _SafeConsole
    from certirank.report.text import table_renderables
    con = _SafeConsole(markup=False, width=100, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    for thing in (Text("Top of the table: A\nB (rank 1), D\x1b[2J (rank 2)."), "Recorded by eve\n\x1b[2J.",
                  *table_renderables(["#", "policy"], [["1", "A\nB"], ["2", "E\u202eF"]])):
        con.print(thing)
    out = con.export_text()
    assert "A\\x0aB" in out and "D\\x1b[2J" in out and "eve\\x0a\\x1b[2J" in out and "E\\u202eF" in out
    assert not CONTROL.search(out)
    assert [line for line in out.splitlines() if line.startswith(("1 ", "2 "))] == [
        line for line in out.splitlines() if re.match(r"^[12]\s", line)] and len(out.splitlines()) == 6


def test_figures_with_control_characters_are_well_formed_svg_without_warnings():
    import warnings

    from certirank.report._mpl import figure_png, figure_svg, new_figure, rc, wrap_label
    with rc():
        fig = new_figure(3, 2)
        ax = fig.add_subplot()
        ax.set_yticks([0, 1], [wrap_label("D\x1b[2J", 20), "E\u202eF"])
        ax.set_title("title\x07 \u540d\U0001F600")
        ax.text(0.5, 0.5, "A\x00B")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        svg = figure_svg(fig)
        png = figure_png(fig)
    assert not [w for w in seen if "Glyph" in str(w.message)], [str(w.message) for w in seen]
    root = ET.fromstring(svg)
    text = " ".join(root.itertext())
    assert "D\\x1b[2J" in text and "\\x07" in text and "A\\x00B" in text and png[:4] == b"\x89PNG"

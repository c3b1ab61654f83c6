"""certirank.report: every figure renders to SVG that parses and names every policy and letter; layouts stay
legible with 30 long names; the HTML page parses, holds each section and needs no network; the CLI wires it."""

from __future__ import annotations

import itertools
import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.patches import FancyArrowPatch

import certirank
from certirank.errors import ParameterError
from certirank.order import make_ranking
from certirank.report import (curves_plot, detect_kind, figure_png, figure_svg, graph_plot, html_report,
                              rank_interval_plot, ranking_of, score_plot, summary_plot, write_report)
from certirank.report._mpl import wrap_label


# ----------------------------------------------------------------------------------------------- helpers

def svg_texts(svg: str) -> list[str]:
    """Parse the SVG (fails on malformed XML) and return the content of every <text> element, in order."""
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    return ["".join(el.itertext()) for el in root.iter() if el.tag.endswith("}text") or el.tag == "text"]


def joined(svg: str) -> str:
    # a wrapped label is one <text> per line; joining the lines gives the name back (wrap_label keeps separators)
    return "".join(svg_texts(svg))


def rendered_texts(fig):
    canvas = FigureCanvasAgg(fig)
    fig.draw_without_rendering()  # runs the layout (constrained layout, ticks) without rasterising glyphs
    renderer = canvas.get_renderer()
    out = []
    for ax in fig.axes:
        if not ax.axison:
            out += [(t.get_text(), t.get_window_extent(renderer)) for t in ax.texts if t.get_text().strip()]
            continue
        lo_x, hi_x = sorted(ax.get_xlim())
        lo_y, hi_y = sorted(ax.get_ylim())
        # tick labels outside the view limits exist as objects but are never drawn
        texts = list(ax.texts) + [t for t in ax.get_xticklabels() if lo_x <= t.get_position()[0] <= hi_x] + [
            t for t in ax.get_yticklabels() if lo_y <= t.get_position()[1] <= hi_y]
        for t in texts:
            if t.get_visible() and t.get_text().strip():
                out.append((t.get_text(), t.get_window_extent(renderer)))
    return out, fig.bbox


def assert_no_overlap(items, fig_bbox, tol=0.5):
    for (ta, a), (tb, b) in itertools.combinations(items, 2):
        w = min(a.x1, b.x1) - max(a.x0, b.x0)
        h = min(a.y1, b.y1) - max(a.y0, b.y0)
        assert not (w > tol and h > tol), f"labels overlap: {ta!r} and {tb!r}"
    for t, bb in items:
        assert bb.x0 >= -tol and bb.y0 >= -tol and bb.x1 <= fig_bbox.x1 + tol and bb.y1 <= fig_bbox.y1 + tol, \
            f"label {t!r} is cut off by the figure edge"


def scores_for(names, n=60, seed=0):
    rng = np.random.default_rng(seed)
    return {name: np.round(rng.beta(1 + k % 4, 2, size=n) * 20) / 20 for k, name in enumerate(names)}


SPEC_ITEMS = ["A", "B", "C", "D", "E"]
SPEC_MEANS = [0.9, 0.7, 0.5, 0.4, 0.3]
SPEC_RELATIONS = [("A", "B"), ("B", "C"), ("A", "D")]


# ----------------------------------------------------------------------------------------------- scores

def test_wrap_label_round_trips_and_respects_width():
    for name in ["paligemma_fast_specialist_droid", "x" * 50, "a-b/c.d e_f", "short"]:
        wrapped = wrap_label(name, 12)
        assert wrapped.replace("\n", "") == name
        assert all(len(line) <= 12 for line in wrapped.split("\n"))


def test_score_plot_svg_has_every_policy_and_letter():
    names = ["pi0_fast_droid", "paligemma_fast_specialist_droid", "paligemma_vq_droid", "pi0_droid", "scripted"]
    scores = scores_for(names)
    scores["scripted"] = scores["scripted"][:7]  # few trials -> strip + box
    means = [float(np.mean(scores[n])) for n in names]
    lett = certirank.letters(names, [("pi0_fast_droid", "pi0_droid"), ("paligemma_vq_droid", "scripted")], means=means)
    fig = score_plot(scores, lett, title="t", caption="c")
    svg = figure_svg(fig)
    texts = svg_texts(svg)
    text = "".join(texts)
    for name in names:
        assert name in text
    for name, let in lett.items():
        assert let in texts  # each letter string is drawn as its own label
    # ordered by mean, best first: tick labels left to right
    ticks = [t.get_text().split("\nn = ")[0].replace("\n", "") for t in fig.axes[0].get_xticklabels()]
    assert ticks == sorted(names, key=lambda n: -np.mean(scores[n]))
    # the few-trial policy is a strip (its 7 points drawn), the others violins (PolyCollection bodies)
    from matplotlib.collections import PathCollection, PolyCollection
    ax = fig.axes[0]
    assert sum(isinstance(c, PolyCollection) and not isinstance(c, PathCollection) for c in ax.collections) == 4
    assert any(isinstance(c, PathCollection) and len(c.get_offsets()) == 7 for c in ax.collections)


def test_score_plot_binary_bars_and_table_input():
    rng = np.random.default_rng(3)
    rows = [{"policy": p, "env": str(i), "score": float(rng.random() < q)}
            for p, q in (("good", 0.8), ("bad", 0.2)) for i in range(40)]
    fig = score_plot(pd.DataFrame(rows), {"good": "a", "bad": "b"})
    ax = fig.axes[0]
    heights = sorted(round(p.get_height(), 6) for p in ax.patches)
    expected = sorted(round(float(np.mean([r["score"] for r in rows if r["policy"] == p])), 6) for p in ("good", "bad"))
    assert heights == expected
    assert ax.get_ylabel() == "success rate"
    texts = svg_texts(figure_svg(fig))
    assert {"a", "b"} <= set(texts)


def test_score_plot_rejects_unknown_order_and_kind():
    with pytest.raises(ParameterError):
        score_plot({"a": [0.1, 0.2]}, order=["zzz"])
    with pytest.raises(ParameterError):
        score_plot({"a": [0.1, 0.2]}, kind="pie")


def test_score_plot_thirty_long_names_no_overlap():
    names = [f"policy-{k:02d}-" + "x" * 30 for k in range(30)]  # 40 characters each
    assert all(len(n) == 40 for n in names)
    scores = scores_for(names, n=25)
    means = [float(np.mean(scores[n])) for n in names]
    different = [(names[i], names[j]) for i in range(30) for j in range(i + 5, 30)]
    lett = certirank.letters(names, different, means=means)
    fig = score_plot(scores, lett)
    items, bbox = rendered_texts(fig)
    assert len([t for t, _ in items if t in set(lett.values())]) == 30
    assert_no_overlap(items, bbox)
    text = joined(figure_svg(fig))
    assert all(n in text for n in names)


def test_score_plot_vertical_long_names_no_overlap():
    names = ["pi0_droid", "paligemma_vq_droid", "paligemma_fast_specialist_droid", "pi0_fast_droid",
             "paligemma_fast_droid", "paligemma_diffusion_droid", "paligemma_binning_droid"]
    fig = score_plot(scores_for(names), {n: "ab"[k % 2] for k, n in enumerate(names)})
    items, bbox = rendered_texts(fig)
    assert_no_overlap(items, bbox)


def test_score_plot_on_roboarena(shared_data):
    table = certirank.load(shared_data / "roboarena" / "per_trial_progress_data.csv")
    names = certirank.data.table.policies(table)
    lett = {n: "abc"[k % 3] for k, n in enumerate(names)}
    svg = figure_svg(score_plot(table, lett))
    assert all(n in joined(svg) for n in names) and len(names) == 7
    png = figure_png(score_plot(table, lett), dpi=80)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) < 200_000


# ----------------------------------------------------------------------------------------------- graph

def test_graph_plot_spec_vector():
    pr = make_ranking(SPEC_ITEMS, SPEC_RELATIONS, kind="spec07", means=SPEC_MEANS)
    fig = graph_plot(pr, title="g")
    ax = fig.axes[0]
    arrows = [p for p in ax.get_children() if isinstance(p, FancyArrowPatch)]
    assert len(arrows) == len(pr.reduction) == 3
    svg = figure_svg(fig)
    texts = svg_texts(svg)
    for name in SPEC_ITEMS:  # node label: name, then "mean | letters | [lo,hi]" (spec 07 golden values)
        assert name in texts
    for line in ["0.900 | a | [1,2]", "0.700 | b | [2,4]", "0.500 | c | [3,5]", "0.400 | bc | [2,5]",
                 "0.300 | abc | [1,5]"]:
        assert line in texts
    # layered by tier: A above B above C (y grows downward in this drawing)
    y = {t.get_text().split("\n")[0]: t.get_position()[1] for t in ax.texts if "|" in t.get_text()}
    assert y["A"] < y["B"] < y["C"] and y["A"] == y["E"] and y["B"] == y["D"]
    # E has no certified relation: dashed box
    from matplotlib.patches import FancyBboxPatch
    styles = [p.get_linestyle() for p in ax.patches if isinstance(p, FancyBboxPatch)]
    assert sum(s not in ("-", "solid") for s in styles) == 1
    # unresolved groups are written out (letter groups with two or more members)
    assert "a = {A, E}" in "".join(texts).replace("\n", " ") or "a = {A, E}" in " ".join(texts)


def test_graph_plot_cycle_is_drawn_and_flagged():
    pr = make_ranking(["A", "B", "C"], [("A", "B"), ("B", "C"), ("C", "A")], kind="x", means=[0.3, 0.2, 0.1])
    assert pr.inconsistent
    fig = graph_plot(pr)
    arrows = [p for p in fig.axes[0].get_children() if isinstance(p, FancyArrowPatch)]
    assert len(arrows) == 3
    assert "cycle" in " ".join(svg_texts(figure_svg(fig)))


def test_graph_plot_thirty_long_names_no_overlap():
    names = [f"model-{k:02d}-" + "y" * 31 for k in range(30)]  # 40 characters each
    group = [k // 6 for k in range(30)]  # five tiers of six, some pairs across neighbouring tiers certified
    rels = [(names[i], names[j]) for i in range(30) for j in range(30) if group[j] == group[i] + 1 and (i + j) % 3 == 0]
    pr = make_ranking(names, rels, kind="x", means=np.linspace(0.9, 0.1, 30))
    fig = graph_plot(pr, title="thirty")
    items, bbox = rendered_texts(fig)
    assert_no_overlap(items, bbox)
    assert len([p for p in fig.axes[0].get_children() if isinstance(p, FancyArrowPatch)]) == len(pr.reduction)
    text = joined(figure_svg(fig))
    for n in names:
        assert n in text
        assert pr.letters[n] in text
    fig = rank_interval_plot(pr)
    items, bbox = rendered_texts(fig)
    assert_no_overlap(items, bbox)


def test_ranking_of_results_and_dicts_agree_with_letters():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"alpha_pol": rng.beta(4, 2, 300), "beta_pol": rng.beta(2, 2, 300),
                       "gamma_pol": rng.beta(2, 2.1, 300)})
    res = certirank.anyrank(df, alpha=0.1)
    for source in (res, res.to_dict(), json.loads(res.to_json())):
        pr = ranking_of(source)
        assert pr.letters == res.letters
        assert {(a, b) for a, b in res.better_pairs()} == {(r.better, r.worse) for r in pr.relations}
    svg = figure_svg(graph_plot(res))
    assert all(n in joined(svg) for n in df.columns)
    with pytest.raises(ParameterError):
        ranking_of({"something": 1})


# ----------------------------------------------------------------------------------------------- curves

def _curves_frame():
    x = np.arange(0, 1000, 50.0)
    rows = []
    for method, rate in (("anyrank0", 1 / 200), ("bonferroni", 1 / 400)):
        rows.append(pd.DataFrame({"method": method, "axis": "evals", "x": x, "power": 1 - np.exp(-rate * x),
                                  "full_ranking": 1 - np.exp(-rate * x / 2), "fwer": np.minimum(0.03, x / 1e4),
                                  "topk_certified": 0.0, "topk_false": 0.0}))
    return pd.concat(rows, ignore_index=True)


def test_curves_plot_one_line_per_method_and_alpha_line():
    fig = curves_plot(_curves_frame(), alpha=0.05)
    axes = fig.axes
    assert len(axes) == 3
    for ax in axes:
        labelled = [ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]
        assert sorted(ln.get_label() for ln in labelled) == ["anyrank0", "bonferroni"]
    fwer_ax = axes[2]
    hlines = [ln for ln in fwer_ax.get_lines() if np.allclose(ln.get_ydata(), 0.05) and ln.get_label().startswith("_")]
    assert len(hlines) == 1
    assert all(len([ln for ln in ax.get_lines() if np.allclose(ln.get_ydata(), 0.05)]) == 0 for ax in axes[:2])
    texts = svg_texts(figure_svg(fig))
    assert "anyrank0" in texts and "bonferroni" in texts and any("alpha = 0.05" in t for t in texts)


def test_summary_plot_from_json_summary():
    summary = {"anyrank0": {"fwer": 0.04, "fwer_ci": [0.02, 0.07], "power": 0.9, "full_ranking_rate": 0.7,
                            "mean_samples": 900.0},
               "a-method-with-a-rather-long-label": {"fwer": 0.0, "fwer_ci": [0.0, 0.02], "power": 0.6,
                                                     "full_ranking_rate": 0.3, "mean_samples": 1200.0}}
    fig = summary_plot(summary, alpha=0.05)
    texts = svg_texts(figure_svg(fig))
    assert all(m in texts for m in summary) and any("alpha = 0.05" in t for t in texts)
    assert any(np.allclose(ln.get_xdata(), 0.05) for ln in fig.axes[0].get_lines())
    items, bbox = rendered_texts(fig)
    assert_no_overlap([(t, b) for t, b in items if t in summary], bbox)


# ----------------------------------------------------------------------------------------------- HTML

class _Sections(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.h2, self.stack, self.bad = [], [], [], []
        self.in_h2 = False
        self.fetching = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section":
            self.ids.append(a.get("id"))
        if tag in ("section", "figure", "table", "details", "html", "body", "head"):
            self.stack.append(tag)
        if tag == "h2":
            self.in_h2 = True
            self.h2.append("")
        if tag in ("script", "link", "img", "iframe") or any(k in ("src",) for k in a):
            self.fetching.append(tag)

    def handle_endtag(self, tag):
        if tag in ("section", "figure", "table", "details", "html", "body", "head"):
            if not self.stack or self.stack[-1] != tag:
                self.bad.append(tag)
            else:
                self.stack.pop()
        if tag == "h2":
            self.in_h2 = False

    def handle_data(self, data):
        if self.in_h2:
            self.h2[-1] += data


def parse_page(text):
    p = _Sections()
    p.feed(text)
    p.close()
    assert not p.bad and not p.stack, f"unbalanced tags: {p.bad} {p.stack}"
    assert not p.fetching, f"page loads external resources: {p.fetching}"
    assert not re.search(r'(?:src|href)\s*=\s*"(?!#)', text)
    for svg in re.findall(r"<svg.*?</svg>", text, flags=re.S):
        ET.fromstring(svg)
    return p


def _rank_result():
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"p_high": rng.beta(5, 2, 200), "p_mid": rng.beta(2, 2, 200), "p_low": rng.beta(1, 5, 200)})
    return df, certirank.anyrank(df, alpha=0.1)


def test_html_rank_page_sections_letters_and_guarantee(tmp_path):
    df, res = _rank_result()
    data = tmp_path / "wide.csv"
    df.to_csv(data, index=False)
    text, page = html_report(res.to_dict(), data=data)
    p = parse_page(text)
    # "warnings": the record says which test ran (spec 09 §6) and what the reader did
    assert p.ids == ["guarantee", "summary", "decisions", "graph", "rank-intervals", "scores", "warnings"] == page.sections
    assert len(p.h2) == len(p.ids)
    assert "alpha = <b>0.1</b>" in text and "i.i.d." in text and res.statement.split(",")[0] in text
    for name, let in res.letters.items():
        assert f'<td class="l">{name}</td>' in text and f"<td>{let}</td>" in text
    assert "digraph certirank" in text and "flowchart TD" in text
    assert page.figures == 3


def test_html_leaderboard_compare_baseline_pages():
    rng = np.random.default_rng(2)
    rows = [{"model": f"m{l}", "item": f"i{i}", "replicate": r, "score": float(rng.random() < 0.3 + 0.15 * l)}
            for r in range(2) for i in range(80) for l in range(4)]
    lb = certirank.leaderboard(pd.DataFrame(rows), alpha=0.05)
    text, page = html_report(json.loads(lb.to_json()))
    parse_page(text)
    assert page.sections == ["guarantee", "summary", "decisions", "graph", "rank-intervals"]
    assert "assumes" in text and lb.blocks["statement"][:40] in text.replace("&#x27;", "'")
    for m in lb.models:
        assert m in text

    x, y = rng.beta(4, 2, 120), rng.beta(2, 4, 120)
    cmp = certirank.compare(x, y, alpha=0.05)
    text, page = html_report(cmp.to_dict())
    parse_page(text)
    assert page.sections == ["guarantee", "summary"] and "independent across t" in text
    text, _ = html_report(cmp)  # the object knows its alpha
    assert "alpha = 0.05" in text
    # a comparison of a table's policies names them; the page then uses the names
    named = certirank.compare(pd.DataFrame({"ours": x, "theirs": y}), a="ours", b="theirs")
    text, _ = html_report(named.to_dict())
    assert "ours is certified better than theirs" in text

    long = certirank.load(pd.DataFrame({"a": x, "b": y}), format="wide")
    bt = certirank.baseline("bt", long)
    text, page = html_report(bt.to_dict())
    parse_page(text)
    assert page.kind == "baseline" and "graph" in page.sections


def test_html_simulation_page_with_and_without_curves(tmp_path):
    out = tmp_path / "runs.parquet"
    sim = certirank.simulate("HO-I", "anyrank0,bonferroni", reps=2, seed=0, n_max=100, out=out)
    d = json.loads(sim.to_json())
    text, page = html_report(d)
    parse_page(text)
    assert page.sections == ["guarantee", "scenario", "summary"] and page.notes
    text, page = html_report(d, data=out)
    parse_page(text)
    assert page.sections == ["guarantee", "scenario", "summary", "curves"]
    assert "alpha = 0.05" in text and "anyrank0" in text and "bonferroni" in text


def test_html_compose_and_designs_pages():
    rng = np.random.default_rng(4)
    m = pd.DataFrame(rng.random((6, 5)), index=[f"case{i}" for i in range(6)], columns=[f"pol{j}" for j in range(5)])
    comp = certirank.compose_test(m, m=2, rounds=50)
    text, page = html_report(comp.to_dict())
    parse_page(text)
    assert page.kind == "compose-test" and all(c in text for c in comp.test_cases)
    assert "not a statistical certificate" in text
    ev = certirank.evaluate_test_designs(m, m=2, sets=2, rounds=30)
    text, page = html_report(json.loads(ev.to_json()))
    parse_page(text)
    assert page.kind == "test-designs" and page.figures == 1
    from certirank.methods.rposst import evaluate_item_designs
    items = evaluate_item_designs(rng.random((30, 12)), m=3, sets=2, methods=["miniaverage", "random-regression"])
    text, page = html_report(json.loads(items.to_json()))
    parse_page(text)
    assert page.kind == "item-evaluation" and page.sections == ["guarantee", "summary"]
    assert f"{items.table['mae'].iloc[0]:.4f}" in text and "random-regression" in text


def test_detect_kind_rejects_other_json():
    with pytest.raises(ParameterError, match="no 'kind'"):
        detect_kind({"hello": 1})
    # the kind decides; a kind-less comparison of before 0.2 is read as one (certirank.report.records.migrate)
    assert detect_kind({"decision": None, "pvalue": 1.0, "decided_at": None, "n": 0}) == "compare"
    assert detect_kind({"kind": "compare"}) == "compare"
    assert detect_kind({"kind": "check"}) == "check"  # no page of its own: a generic page of its fields
    with pytest.raises(ParameterError, match="no 'kind'"):
        detect_kind({"kind": 5})
    with pytest.raises(ParameterError, match="unknown result kind 'nope'"):
        detect_kind({"kind": "nope"})


# ----------------------------------------------------------------------------------------------- CLI


def test_write_report_file(tmp_path):
    _, res = _rank_result()
    out = write_report(res, tmp_path / "r.html")
    assert Path(out.path).is_file() and out.bytes == len(Path(out.path).read_bytes())


def test_score_plot_ten_policies_all_different_letters_fit():
    names = [f"p{k}" for k in range(10)]
    scores = scores_for(names, n=30)
    # every letter string as long as possible for ten items
    lett = {n: "abcdefghij"[: k + 1] if k < 9 else "abcdefghij" for k, n in enumerate(names)}
    fig = score_plot(scores, lett, orientation="vertical")
    items, bbox = rendered_texts(fig)
    assert_no_overlap(items, bbox)

"""Audit of the inspect_ai integration: arguments refused at construction, errored and retried samples,
out-of-order completion, dict scorers, and the `certirank check` CI gate's exit codes.

Runs are offline: inspect's ``mockllm/model`` with ``custom_outputs`` that carry ``usage``.
"""

from __future__ import annotations

import asyncio
import importlib.util
import random
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from certirank.errors import ParameterError
from certirank.integrations.inspect import CertifiedStopping, UnshuffledWarning

HAVE_INSPECT = sys.version_info >= (3, 11) and importlib.util.find_spec("inspect_ai") is not None


@pytest.fixture
def inspect_ai():
    if sys.version_info < (3, 11):
        pytest.skip("inspect_ai needs Python >= 3.11 (optional extra 'inspect')")
    return pytest.importorskip("inspect_ai", reason="optional extra 'inspect' (inspect-ai) is not installed")


needs_inspect = pytest.mark.usefixtures("inspect_ai")


# -- `certirank check`: the CI gate (no inspect_ai needed) ------------------------------------------------

def _long(tmp_path):
    rng = np.random.default_rng(0)
    rows = [{"policy": m, "env": f"e{i}", "score": float(rng.random() < p)}
            for i in range(200) for m, p in (("A", 0.85), ("B", 0.35), ("C", 0.85))]
    path = tmp_path / "long.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


# -- CertifiedStopping: arguments (importing it does not import inspect_ai) ------------------------------

@pytest.mark.parametrize("kw, match_", [
    ({"threshold": 0.5, "alpha": 1.0}, "alpha"),
    ({"threshold": 0.5, "alpha": 0}, "alpha"),
    ({"threshold": 1.2}, "outside the score range"),
    ({"threshold": 40, "score_range": (50, 100)}, "outside the score range"),
    ({"threshold": "0.5"}, "threshold must be a number"),
    ({"threshold": 0.5, "precision": 0.1}, "exactly one goal"),
    ({}, "exactly one goal"),
    ({"threshold": 0.5, "margin": 0.1}, "margin applies to the reference goal only"),
    ({"precision": 0.1, "reference_model": "m"}, "reference_model applies to the reference goal only"),
    ({"reference": {1: 1.0}, "margin": -0.1}, "margin must be >= 0"),
    ({"reference": {1: 1.0}, "margin": float("nan")}, "finite"),
    ({"reference": 42}, "reference must be a path"),
    ({"threshold": 0.5, "score_range": (0, float("inf"))}, "two finite numbers"),
    ({"threshold": 0.5, "grid": 1}, "grid"),
    ({"threshold": 0.5, "scorer": 3}, "scorer must be a scorer name"),
])
def test_bad_arguments_are_refused_when_the_manager_is_built(kw, match_):
    with pytest.raises(ParameterError, match=match_):
        CertifiedStopping(**kw)


def test_a_missing_reference_file_is_refused_at_construction(tmp_path):
    with pytest.raises(ParameterError, match="no such file"):
        CertifiedStopping(reference=tmp_path / "nope.eval")


# -- CertifiedStopping inside offline inspect runs ----------------------------------------------------

N = 60

if HAVE_INSPECT:
    from inspect_ai import Task, eval as inspect_eval
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import Score, match, mean, scorer
    from inspect_ai.solver import generate, solver


    def mock(p: float, seed: int, *, jitter: bool = False):
        rng = random.Random(seed)

        async def out(input, tools, tool_choice, config):  # noqa: ANN001, ARG001 - inspect's custom_outputs signature
            if jitter:  # completion order differs from scheduling order
                await asyncio.sleep(rng.random() * 0.005)
            o = ModelOutput.from_content(model="mockllm", content="A" if rng.random() < p else "B")
            o.usage = ModelUsage(input_tokens=10, output_tokens=1, total_tokens=11)
            return o

        return get_model("mockllm/model", custom_outputs=out)


    def dataset(n: int = N) -> MemoryDataset:
        ds = MemoryDataset([Sample(input=f"q{i}", target="A", id=i) for i in range(1, n + 1)])
        ds.shuffle(seed=3)
        return ds


    @solver
    def fails_on(bad: set, once: bool):
        failed: set = set()

        async def solve(state, generate):  # noqa: ANN001, ARG001
            if state.sample_id in bad and not (once and state.sample_id in failed):
                failed.add(state.sample_id)
                raise RuntimeError(f"boom {state.sample_id}")
            return state

        return solve


    def run(task: Task, tmp_path, **kw):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnshuffledWarning)
            (log,) = inspect_eval(task, display="none", log_dir=str(tmp_path), **kw)
        return log


    class Spy(CertifiedStopping):
        """Records what inspect scheduled and, at each schedule call, how many scores the test had seen."""

        def __init__(self, **kw) -> None:
            super().__init__(**kw)
            self.completed: list = []
            self.fed_when_stopped: list[int] = []

        async def schedule_sample(self, id, epoch):  # noqa: ANN001, A002
            r = await super().schedule_sample(id, epoch)
            if r is not None:
                self.fed_when_stopped.append(self._core.passes[epoch - 1].n)
            return r

        async def complete_sample(self, id, epoch, scores):  # noqa: ANN001, A002
            self.completed.append(id)
            await super().complete_sample(id, epoch, scores)


    @scorer(metrics={"acc": [mean()], "len": [mean()]})
    def two_values():
        async def score(state, target):  # noqa: ANN001, ARG001
            return Score(value={"acc": 1.0 if state.output.completion == "A" else 0.0, "len": 0.5})

        return score


@needs_inspect
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_out_of_order_completion_never_decides_on_unseen_scores(cli, tmp_path):
    mgr = Spy(threshold=0.5)
    ds = dataset()
    log = run(Task(dataset=ds, solver=generate(), scorer=match(), early_stopping=mgr), tmp_path,
              model=mock(0.95, 1, jitter=True), max_samples=4)
    meta = log.results.early_stopping.metadata
    order = [s.id for s in ds]
    assert mgr.completed != order[:len(mgr.completed)]  # the jitter did reorder completions
    assert meta["decision"] == "above"
    p = meta["passes"][0]
    # every stop came after the decision, which rests on the first decided_at samples in shuffled order
    assert mgr.fed_when_stopped and min(mgr.fed_when_stopped) >= p["decided_at"]
    scores = {s.id: 1.0 if s.scores["match"].value == "C" else 0.0 for s in log.samples}
    assert set(order[:p["samples_used"]]) == set(scores)
    # samples past the decision ran because they were scheduled before it: all of them are fed
    assert p["decided_at"] <= meta["samples_used"] == len(log.samples)
    assert meta["samples_saved"] == meta["samples_stopped"] == N - len(log.samples) > 0
    # `certirank inspect` says when the test decided, beside the samples that ran
    text = " ".join(cli(["inspect", str(tmp_path)]).output.split())
    assert f"above after {meta['samples_used']} of {N} sample-epochs (decided at {p['decided_at']})" in text


@needs_inspect
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_an_errored_sample_holds_the_test_and_the_summary_says_so(cli, tmp_path):
    ds = dataset()
    bad = [s.id for s in ds][2]
    mgr = CertifiedStopping(threshold=0.5)
    log = run(Task(dataset=ds, solver=[fails_on({bad}, once=False), generate()], scorer=match(),
                   early_stopping=mgr), tmp_path, model=mock(0.95, 1), max_samples=2, fail_on_error=False)
    meta = log.results.early_stopping.metadata
    # the later scores are never used without the errored one: nothing decided, nothing stopped
    assert meta["decision"] is None and meta["samples_used"] == 2
    assert meta["samples_saved"] == meta["samples_stopped"] == 0
    assert meta["samples_unscored"] == 1 and meta["samples_held"] == N - 3
    assert f"{bad} (epoch 1)" in meta["note"] and "score_on_error" in meta["note"]
    text = " ".join(cli(["inspect", str(tmp_path)]).output.split())
    assert "Note: 1 scheduled sample(s) got no score (errors)" in text


@needs_inspect
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_a_retried_sample_keeps_its_place_and_is_fed_once(tmp_path):
    ds = dataset()
    bad = [s.id for s in ds][2]
    mgr = CertifiedStopping(threshold=0.5)
    log = run(Task(dataset=ds, solver=[fails_on({bad}, once=True), generate()], scorer=match(),
                   early_stopping=mgr), tmp_path, model=mock(0.95, 1), max_samples=2, retry_on_error=1)
    meta = log.results.early_stopping.metadata
    assert log.status == "success" and meta["decision"] == "above"
    assert meta["samples_unscored"] == 0 and meta["samples_held"] == 0 and "note" not in meta
    # the retry was scheduled twice but fed once: every scheduled sample counted exactly once
    assert meta["samples_used"] == len(log.samples) == N - meta["samples_stopped"]


@needs_inspect
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_a_dict_scorer_needs_name_slash_key(tmp_path):
    log = run(Task(dataset=dataset(), solver=generate(), scorer=two_values(),
                   early_stopping=CertifiedStopping(threshold=0.5)), tmp_path / "a", model=mock(0.95, 2), max_samples=1)
    assert log.status == "error" and "scorer='two_values/acc'" in log.error.message
    mgr = CertifiedStopping(threshold=0.5, scorer="two_values/acc")
    log = run(Task(dataset=dataset(), solver=generate(), scorer=two_values(), early_stopping=mgr), tmp_path / "b",
              model=mock(0.95, 2), max_samples=1)
    meta = log.results.early_stopping.metadata
    assert meta["decision"] == "above" and meta["scorer"] == "two_values/acc"
    mgr = CertifiedStopping(threshold=0.5, scorer="two_values/nope")
    log = run(Task(dataset=dataset(), solver=generate(), scorer=two_values(), early_stopping=mgr), tmp_path / "c",
              model=mock(0.95, 2), max_samples=1)
    assert log.status == "error" and "no value 'nope' (acc, len)" in log.error.message


@needs_inspect
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_the_reference_is_read_with_the_chosen_scorer_and_this_task(tmp_path):
    from inspect_ai.scorer import includes

    @scorer(metrics=[mean()])
    def always_right():
        async def score(state, target):  # noqa: ANN001, ARG001
            return Score(value=1.0)

        return score

    # the reference folder: this task scored by [always_right, match], and another task with the same ids
    ref = tmp_path / "ref"
    run(Task(dataset=dataset(30), solver=generate(), scorer=[always_right(), match()], name="mine"), ref,
        model=mock(0.3, 5), max_samples=10)
    run(Task(dataset=dataset(30), solver=generate(), scorer=match(), name="other"), ref, model=mock(0.3, 6),
        max_samples=10)
    mgr = CertifiedStopping(reference=ref, scorer="match")
    log = run(Task(dataset=dataset(30), solver=generate(), scorer=[includes(), match()], early_stopping=mgr,
                   name="mine"), tmp_path / "run", model=mock(0.95, 7), max_samples=1)
    meta = log.results.early_stopping.metadata
    assert log.status == "success", log.error
    # read with its default scorer (always 1) the reference would be unbeatable; here it is the weak mock
    assert meta["reference_mean"] < 0.5 and meta["decision"] == "better" and meta["scorer"] == "match"


@needs_inspect
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_a_failed_run_does_not_lock_the_manager_for_the_next_eval(tmp_path):
    mgr = CertifiedStopping(threshold=0.5)
    task = Task(dataset=dataset(30), solver=generate(), scorer=two_values(), early_stopping=mgr)
    log = run(task, tmp_path / "a", model=mock(0.95, 2), max_samples=1)
    assert log.status == "error"  # a dict scorer without scorer='NAME/KEY': no complete_task
    mgr.scorer = "two_values/acc"
    log = run(task, tmp_path / "b", model=mock(0.95, 2), max_samples=1)
    assert log.status == "success", log.error
    assert log.results.early_stopping.metadata["decision"] == "above"

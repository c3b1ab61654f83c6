"""CertifiedStopping inside real inspect_ai evals, fully offline.

The model is inspect's ``mockllm/model`` with ``custom_outputs``: a callable returning `ModelOutput`s that
carry ``usage`` (so no tokenizer is needed), answering correctly with a fixed probability from a seeded
generator. ``max_samples=1`` makes the schedule sequential, so the stopping point is exact.
"""

from __future__ import annotations

import random
import sys
import warnings

import numpy as np
import pytest

if sys.version_info < (3, 11):
    pytest.skip("inspect_ai needs Python >= 3.11 (optional extra 'inspect')", allow_module_level=True)
pytest.importorskip("inspect_ai", reason="optional extra 'inspect' (inspect-ai) is not installed")

from inspect_ai import Task, eval as inspect_eval  # noqa: E402
from inspect_ai.dataset import MemoryDataset, Sample  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402
from inspect_ai.scorer import includes, match  # noqa: E402
from inspect_ai.solver import generate  # noqa: E402

from certirank.data.readers import load  # noqa: E402
from certirank.data.summary import summarize  # noqa: E402
from certirank.evidence import finite_confidence_sequence  # noqa: E402
from certirank.integrations.inspect import CertifiedStopping, UnshuffledWarning  # noqa: E402

# inspect_ai's own retry helper uses a deprecated tenacity argument; not ours to fix
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

N = 200


def mock(p: float, seed: int, name: str = "model"):
    rng = random.Random(seed)

    def out(input, tools, tool_choice, config):  # noqa: ANN001, ARG001 - inspect's custom_outputs signature
        o = ModelOutput.from_content(model="mockllm", content="A" if rng.random() < p else "B")
        o.usage = ModelUsage(input_tokens=10, output_tokens=1, total_tokens=11)
        return o

    return get_model(f"mockllm/{name}", custom_outputs=out)


def dataset(n: int = N, *, shuffle: bool = True) -> MemoryDataset:
    ds = MemoryDataset([Sample(input=f"question {i}", target="A", id=i) for i in range(1, n + 1)])
    if shuffle:
        ds.shuffle(seed=19)
    return ds


def run(ds, model, log_dir, *, manager=None, epochs: int = 1, scorer=None):
    task = Task(dataset=ds, solver=generate(), scorer=scorer or match(), early_stopping=manager, epochs=epochs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnshuffledWarning)
        logs = inspect_eval(task, model=model, display="none", max_samples=1, log_dir=str(log_dir))
    (log,) = logs
    assert log.status == "success", log.error
    return log


@pytest.fixture(scope="module")
def reference_log(tmp_path_factory):
    """A complete run of a weak mock (accuracy about 0.45): the reference for the paired goal."""
    folder = tmp_path_factory.mktemp("weak")
    run(dataset(), mock(0.45, seed=1, name="weak"), folder)
    return folder


def test_threshold_stops_early_with_the_right_decision(tmp_path):
    for p, expected in ((0.92, "above"), (0.3, "below")):
        mgr = CertifiedStopping(threshold=0.6, alpha=0.05, scorer="includes")
        log = run(dataset(), mock(p, seed=2), tmp_path / expected, manager=mgr, scorer=[match(), includes()])
        meta = log.results.early_stopping.metadata
        assert meta["decision"] == expected
        assert meta["scorer"] == "includes"
        used = meta["samples_used"]
        assert used == len(log.samples) < N // 2
        assert len(log.results.early_stopping.early_stops) == N - used
        assert meta["evalue"] >= 1 / 0.05 or meta["passes"][0]["pvalue"] <= 0.05
        # the importer reads the stopped run: stopped samples are absent, not errors, and the summary is kept
        table = load(tmp_path / expected)
        assert len(table) == used and table.attrs["skipped_errors"] == 0
        summary = summarize(table)
        assert summary.early_stopping[0]["metadata"]["decision"] == expected
        assert summary.early_stopping[0]["stopped"] == N - used


def test_precision_stops_at_the_first_sample_narrower_than_epsilon(tmp_path):
    eps = 0.3
    ds = dataset()
    log = run(ds, mock(0.7, seed=3), tmp_path, manager=CertifiedStopping(precision=eps))
    meta = log.results.early_stopping.metadata
    k = meta["samples_used"]
    assert meta["decision"] == "narrow" and k == len(log.samples) < N
    by_id = {s.id: 1.0 if s.scores["match"].value == "C" else 0.0 for s in log.samples}
    order = [s.id for s in ds][:k]  # max_samples=1: samples run in dataset order
    cs = finite_confidence_sequence([by_id[i] for i in order], N, 0.05)
    assert cs.width[k - 1] < eps <= cs.width[k - 2]
    assert meta["confidence_sequence"]["width"] == pytest.approx(cs.width[k - 1])
    assert meta["confidence_sequence"]["lower"] <= np.mean(list(by_id.values())) + 0.2


def test_reference_certifies_the_better_of_two_mocks(tmp_path, reference_log):
    mgr = CertifiedStopping(reference=reference_log)
    log = run(dataset(), mock(0.9, seed=4, name="strong"), tmp_path, manager=mgr)
    meta = log.results.early_stopping.metadata
    assert meta["decision"] == "better"
    assert meta["reference_model"] == "mockllm/weak"
    assert meta["samples_used"] < N
    # the paired difference strong - weak: certified by the test (its sequence, a separate statement, need not
    # exclude 0 yet)
    first = meta["passes"][0]
    assert first["pvalue"] <= 0.05 and first["mean"] > 0 and first["decided_at"] == meta["samples_used"]
    assert meta["confidence_sequence"]["upper"] > 0


def test_epochs_and_the_unshuffled_warning(tmp_path):
    mgr = CertifiedStopping(threshold=0.5)
    task = Task(dataset=dataset(60, shuffle=False), solver=generate(), scorer=match(), early_stopping=mgr, epochs=2)
    with pytest.warns(UnshuffledWarning, match="not shuffled") as record:
        (log,) = inspect_eval(task, model=mock(0.97, seed=5), display="none", max_samples=1, log_dir=str(tmp_path))
    assert sum(issubclass(w.category, UnshuffledWarning) for w in record) == 1
    meta = log.results.early_stopping.metadata
    assert meta["epochs"] == 2 and [p["decision"] for p in meta["passes"]] == ["above", "above"]
    assert meta["decision"] == "above" and meta["samples_used"] < 120 and meta["shuffled"] is False
    assert "not shuffled" in meta["guarantee"]

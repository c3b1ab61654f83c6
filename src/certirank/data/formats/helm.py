"""HELM run folders: ``<run>/per_instance_stats.json`` (+ ``run_spec.json``), one run per (scenario, model).

``per_instance_stats.json`` is a list of ``{"instance_id", "train_trial_index", "stats": [{"name": {"name",
"split", "perturbation"?}, "mean", "count", …}]}``. One observation per instance and train trial: the
``mean`` of the stat named ``stat=`` (default ``exact_match``) on split ``split=`` (default ``test``) without
perturbation (``perturbation=NAME`` selects a perturbed copy instead). The model comes from
``run_spec.json`` (``adapter_spec.model``) or the ``model=`` part of the run folder's name; runs of several
scenarios get environment labels ``<run>/<instance>`` and a ``run`` column (for ``--group-by run``).
Train trials (different in-context examples) are replicates.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from ...errors import DataError
from ..files import read_json
from ._common import finish

_FILE = "per_instance_stats.json"


def run_folders(p: Path) -> list[Path]:
    if p.is_file():
        return [p.parent] if p.name == _FILE else []
    if not p.is_dir():
        return []
    if (p / _FILE).is_file():
        return [p]
    return sorted(d for d in p.iterdir() if d.is_dir() and (d / _FILE).is_file())


def suites(p: Path) -> list[Path]:
    """The suite folders under ``benchmark_output`` or ``benchmark_output/runs`` (HELM's ``runs/<suite>/<run>``)."""
    if not p.is_dir():
        return []
    base = p / "runs" if (p / "runs").is_dir() else p
    return sorted(d for d in base.iterdir() if d.is_dir() and run_folders(d))


def detect(p: Path) -> bool:
    return bool(run_folders(p)) or bool(suites(p))


def _json(f: Path) -> Any:
    return read_json(f, hint="; truncated file?")


def _run_name(d: Path) -> tuple[str, str]:
    """(model, run label without the model) from run_spec.json, else from the folder name."""
    name = d.name
    model = None
    spec_f = d / "run_spec.json"
    if spec_f.is_file():
        spec = _json(spec_f)
        if isinstance(spec, dict):
            name = str(spec.get("name") or name)
            ad = spec.get("adapter_spec")
            if isinstance(ad, dict) and ad.get("model"):
                model = str(ad["model"])
    scen, _, args = name.partition(":")
    parts = [a for a in args.split(",") if a]
    rest = [a for a in parts if not a.startswith("model=")]
    if model is None:
        found = [a.split("=", 1)[1] for a in parts if a.startswith("model=")]
        if not found:
            raise DataError("cannot tell the model: no run_spec.json with adapter_spec.model and no 'model=' in the "
                            "run folder's name", source=str(d))
        model = found[0]
    return model, scen + (":" + ",".join(rest) if rest else "")


def read(p: Path, *, score_range: tuple[float, float] | None = None, stat: str = "exact_match",
         split: str = "test", perturbation: str | None = None) -> pd.DataFrame:
    source = str(p)
    runs = run_folders(p)
    found = [] if runs else suites(p)
    if found:
        if len(found) > 1:
            # runs of different suites may repeat a (scenario, model) run; which one is meant is the user's call
            raise DataError(f"holds {len(found)} HELM suites ({', '.join(d.name for d in found)}); pass one suite "
                            f"folder, e.g. {found[0]}", source=source)
        runs = run_folders(found[0])
    if not runs:
        raise DataError(f"no HELM run here: expected a run folder holding {_FILE}, a folder of such run folders, "
                        f"or the {_FILE} file itself", source=source)
    want_pert = None if perturbation in (None, "", "none") else str(perturbation)
    infos = [(_run_name(d), d) for d in runs]
    labels = {lab for (_, lab), _ in infos}
    rows: dict[str, list[Any]] = {"policy": [], "env": [], "replicate": [], "score": [], "run": []}
    where: list[tuple[Any, Any]] = []
    lacking: dict[str, int] = {}  # run -> instances on the split without the stat
    for (model, lab), d in infos:
        f = d / _FILE
        fsrc = str(f)
        data = _json(f)
        if not isinstance(data, list):
            raise DataError(f"expected a JSON list of per-instance records ({{instance_id, stats}}), got "
                            f"{type(data).__name__}", source=fsrc)
        available: set[str] = set()
        splits: set[str] = set()
        n_before = len(rows["score"])
        for k, rec in enumerate(data, start=1):
            if not isinstance(rec, dict) or "instance_id" not in rec or not isinstance(rec.get("stats"), list):
                raise DataError("expected an object with 'instance_id' and a 'stats' list", source=fsrc, row=k)
            hit, selected = None, False
            for s in rec["stats"]:
                nm = s.get("name") if isinstance(s, dict) else None
                if not isinstance(nm, dict):
                    raise DataError("a stat without a 'name' object ({name, split})", source=fsrc, row=k)
                pert = nm.get("perturbation")
                pert_name = pert.get("name") if isinstance(pert, dict) else None
                if pert_name == want_pert and nm.get("name") == stat:
                    splits.add(str(nm.get("split")))
                if nm.get("split") != split or pert_name != want_pert:
                    continue
                available.add(str(nm.get("name")))
                selected = True
                if nm.get("name") == stat:
                    hit = s
            if hit is None:
                # perturbed copies and other splits are not this selection; an instance of it without the stat is
                if selected:
                    lacking[d.name] = lacking.get(d.name, 0) + 1
                continue
            if "mean" not in hit:
                raise DataError(f"stat {stat!r} has no 'mean'", source=fsrc, row=k)
            iid = str(rec["instance_id"])
            rows["policy"].append(model)
            rows["env"].append(iid if len(labels) == 1 else f"{lab}/{iid}")
            rows["replicate"].append(int(rec.get("train_trial_index", 0) or 0))
            rows["score"].append(hit["mean"])
            rows["run"].append(lab)
            where.append((f"{f.parent.name}/{_FILE}, record {k}", "mean"))
        if len(rows["score"]) == n_before:
            what = f"split {split!r}" + (f", perturbation {want_pert!r}" if want_pert else ", no perturbation")
            if splits:
                # many HELM scenarios are evaluated on the valid split only
                raise DataError(f"no per-instance stat {stat!r} ({what}); it is logged on split(s) "
                                f"{', '.join(sorted(splits))} (choose with --read-option split=NAME)", source=fsrc)
            avail = ", ".join(sorted(available)[:12]) or "none"
            raise DataError(f"no per-instance stat {stat!r} ({what}); stats available: {avail} (choose with "
                            "--read-option stat=NAME)", source=fsrc)
    notes = [f"helm: {len(runs)} run(s); stat {stat!r}, split {split!r}, "
             + (f"perturbation {want_pert!r}" if want_pert else "no perturbation")
             + "; train trials are replicates"]
    notes += [f"helm: {n} instance(s) of {run} have no stat {stat!r} on this split; left out"
              for run, n in lacking.items()]
    return finish(rows, where, source=source, score_range=score_range, notes=notes)

"""The campaign's design: what is locked at ``init`` beside the engine's settings (tags, rig checklist, launch
template and checkpoints, the schedule's seed), reading it from a ``design.toml``, and the rules for amending it.

A design is locked by the configuration's SHA-256, which starts the log's hash chain. An amendment is an
``amend`` entry of that chain (who, when, why, and each change as ``{"from", "to"}``); the design in force is
the locked one with every amendment applied in log order. Only changes that keep the guarantee are accepted:

* the budget ``n_max`` may grow (stopping is free for anytime-valid tests, spec 03 §9.3) unless the exact budget
  test was declared final (spec 08 §4);
* environments may be added and the schedule re-seeded (from the next block boundary after every trial handed
  out, so no rollout's environment changes);
* tags may be added, a closed tag list opened, the checklist, launch template and checkpoint paths changed
  (they are how the day is run, not what is tested).

Everything the tests were planned with is refused with the reason, and nothing is written: α, the scale
(``bins``, ``score_range``), the estimand (``about``), the policies of an AnyRank campaign (its graph of
comparisons is pre-registered over them, spec 03 §9.3), the method and its settings, and blinding.
"""

from __future__ import annotations

import os
import shlex
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ParameterError, StateError
from ._util import _has_control, _sha

__all__ = ["DESIGN_KEYS", "AMENDABLE", "check_design", "read_design", "refusal", "launch_words",
           "check_tags_given"]

#: the keys of a design.toml (the keyword arguments of Campaign.init)
DESIGN_KEYS = ("kind", "policies", "models", "alpha", "method", "prior", "gamma", "n_max", "ties", "guarantee",
               "bins", "budget", "arms", "environments", "seed", "blind", "score_range", "blocks", "tau", "top_k",
               "margin", "label_rate", "about", "tags", "open_tags", "checklist", "launch", "checkpoints", "items",
               "difficulty")
#: what an amendment may change, and how
AMENDABLE = {"n_max": "raise the budget per comparison (never lower)",
             "environments": "add environments (from the next block on)",
             "seed": "re-draw the schedule's block orders (from the next block on)",
             "tags": "add tags to the declared list", "open_tags": "open a closed tag list",
             "checklist": "replace the rig checklist", "launch": "replace the launch command template",
             "checkpoints": "replace checkpoint paths"}
_WHY = {
    "alpha": "alpha is the level the whole sequence of tests was planned at; changing it after results were seen "
             "voids the guarantee",
    "bins": "the scale decides which test runs and how a score is read (spec 08 §5); it is fixed before the data",
    "metric": "the scale (bins) decides which test runs and how a score is read (spec 08 §5); it is fixed before the "
              "data",
    "score_range": "the scale decides how every recorded score is read; it is fixed before the data",
    "about": "the estimand is what every certified claim is about (spec 09 §2); it is fixed before the data",
    "policies": "AnyRank's graph of comparisons is pre-registered over its policies (spec 03 §9.3): a policy "
                "cannot join a running campaign",
    "models": "models join a leaderboard only where alpha was reserved for additions (spec 04 §9.2), which a "
              "campaign does not do yet",
    "blind": "blinding is decided before the first rollout (unblind a blind campaign with `campaign unblind`)",
    "kind": "the kind of campaign decides which method runs",
}
_PLANNED = ("method", "prior", "gamma", "ties", "guarantee", "budget", "arms", "blocks", "tau", "top_k")
MAX_TAG, MAX_TAGS, MAX_CHECK, MAX_CHECKS, MAX_PATH = 40, 100, 200, 50, 1000
LAUNCH_FIELDS = ("checkpoint", "policy", "trial", "environment")


def refusal(key: str) -> str:
    """Why ``key`` cannot be amended (one line, ending with what to do instead)."""
    if key in _WHY:
        why = _WHY[key]
    elif key in _PLANNED:
        why = f"{key} is part of the pre-registered tests (spec 03 §9.3, spec 04)"
    else:
        return (f"{key!r} is not a design setting; an amendment may change: "
                + ", ".join(f"{k} ({v})" for k, v in AMENDABLE.items()))
    return f"{key} cannot be amended: {why}. Start a new campaign file for a new design"


# ---------------------------------------------------------------------------------------------- the fields
def _text_list(value: Any, what: str, limit: int, count: int) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise ParameterError(f"{what} must be a list of text, got {value!r}")
    out = []
    for v in value:
        if not isinstance(v, str) or not v.strip():
            raise ParameterError(f"{what}: every entry must be non-empty text, got {v!r}")
        v = v.strip()
        if len(v) > limit:
            raise ParameterError(f"{what}: {v[:20]!r}... is {len(v)} characters long; keep entries under {limit}")
        if _has_control(v):
            raise ParameterError(f"{what}: {v!r} contains a control character (newline, escape, ...)")
        out.append(v)
    if len(out) > count:
        raise ParameterError(f"{what} has {len(out)} entries; at most {count}")
    return out


def check_tags(tags: Any) -> list[str]:
    out = _text_list(tags, "tags", MAX_TAG, MAX_TAGS)
    for t in out:
        if "," in t:
            raise ParameterError(f"tag {t!r} contains a comma (tags are listed comma-separated)")
    dup = sorted({t for t in out if out.count(t) > 1})
    if dup:
        raise ParameterError(f"tag {dup[0]!r} is listed twice")
    return out


def check_tags_given(tags: Any, declared: Sequence[str], open_tags: bool) -> list[str]:
    """The tags given with one record or fault: each checked, sorted, once; refused when the declared list is
    closed and a tag is not on it."""
    if tags is None:
        return []
    if isinstance(tags, str):
        tags = [tags]
    if not isinstance(tags, Sequence):
        raise ParameterError(f"tags must be a list of text, got {tags!r}")
    out = check_tags(sorted(set(_text_list(list(tags), "tags", MAX_TAG, MAX_TAGS))))
    if not open_tags:
        unknown = [t for t in out if t not in declared]
        if unknown:
            listed = ", ".join(declared) if declared else "none"
            raise ParameterError(f"unknown tag {unknown[0]!r}; this campaign's tag list is closed (tags: {listed}); "
                                 "add it with `campaign amend DB tags=...` or declare an open list at init")
    return out


def check_launch(launch: Any) -> str | None:
    if launch is None:
        return None
    if not isinstance(launch, str) or not launch.strip():
        raise ParameterError(f"launch must be a command template such as 'python serve.py {{checkpoint}}', got "
                             f"{launch!r}")
    launch = launch.strip()
    if len(launch) > MAX_PATH or _has_control(launch):
        raise ParameterError("launch must be one line of at most 1000 characters")
    try:
        words = shlex.split(launch)
        fields = [f for w in words for _, f, _, _ in string.Formatter().parse(w) if f is not None]
    except ValueError as exc:
        raise ParameterError(f"launch template {launch!r} cannot be read ({exc}); quote it as a shell command "
                             "with {checkpoint} where the checkpoint path goes") from None
    bad = [f for f in fields if f not in LAUNCH_FIELDS]
    if bad:
        raise ParameterError(f"launch template: unknown field {{{bad[0]}}}; the fields are "
                             + ", ".join(f"{{{f}}}" for f in LAUNCH_FIELDS))
    return launch


def check_checkpoints(checkpoints: Any, names: Sequence[str]) -> dict[str, str] | None:
    if checkpoints is None:
        return None
    if not isinstance(checkpoints, Mapping):
        raise ParameterError(f"checkpoints must map each policy to its checkpoint path, got {checkpoints!r}")
    out = {}
    for k, v in checkpoints.items():
        if k not in names:
            raise ParameterError(f"checkpoints: {k!r} is not one of the policies ({', '.join(names)})")
        if not isinstance(v, (str, os.PathLike)) or not str(v).strip():
            raise ParameterError(f"checkpoints: the path of {k!r} must be non-empty text, got {v!r}")
        v = str(v).strip()
        if len(v) > MAX_PATH or _has_control(v):
            raise ParameterError(f"checkpoints: the path of {k!r} must be one line of at most {MAX_PATH} characters")
        out[str(k)] = v
    return {n: out[n] for n in names if n in out}


def check_design(kind: str, names: Sequence[str], *, tags: Any, open_tags: Any, checklist: Any, launch: Any,
                 checkpoints: Any) -> dict[str, Any]:
    """The design block of a configuration, every field checked."""
    if kind in ("leaderboard", "items") and any(v not in (None, False, [])
                                                for v in (tags, open_tags, launch, checkpoints)):
        raise ParameterError(f"tags, launch and checkpoints are for robot campaigns (--kind anyrank); a {kind} "
                             "campaign records " + ("whole runs" if kind == "leaderboard" else "scores of drawn items"))
    if not isinstance(open_tags, (bool, type(None))):
        raise ParameterError(f"open_tags must be true or false, got {open_tags!r}")
    design = {"tags": check_tags(tags), "open_tags": bool(open_tags) or tags is None,
              "checklist": _text_list(checklist, "checklist", MAX_CHECK, MAX_CHECKS),
              "launch": check_launch(launch), "checkpoints": check_checkpoints(checkpoints, names)}
    _check_launch_has_paths(design, names)
    return design


def _check_launch_has_paths(design: Mapping[str, Any], names: Sequence[str]) -> None:
    launch, paths = design.get("launch"), design.get("checkpoints") or {}
    if launch and "{checkpoint}" in launch:
        missing = [n for n in names if n not in paths]
        if missing:
            raise ParameterError(f"the launch template uses {{checkpoint}} but {missing[0]!r} has no checkpoint "
                                 "path (checkpoints: policy = path, one per policy)")
    elif paths and not launch:
        raise ParameterError("checkpoints are given without a launch template (e.g. --launch 'python serve.py "
                             "{checkpoint}'), so nothing would use them")


def launch_words(template: str, *, checkpoint: str | None, policy: str, trial: int | None,
                 environment: str | None) -> list[str]:
    """The command a launch template gives for one rollout, as argv words (each field filled inside its word,
    so a path with spaces or quotes stays one argument and nothing is interpreted by a shell)."""
    values = {"checkpoint": checkpoint or "", "policy": policy, "trial": "" if trial is None else str(trial),
              "environment": environment or ""}
    return [w.format(**values) for w in shlex.split(template)]


# ---------------------------------------------------------------------------------------------- design.toml
def read_design(path: Any) -> tuple[dict[str, Any], dict[str, str]]:
    """The keyword arguments of Campaign.init in a design file, and its source (file name, SHA-256 of its
    bytes). Unknown keys and unreadable files are one-line errors naming the file."""
    if not isinstance(path, (str, os.PathLike)):
        raise ParameterError(f"design must be the path of a design.toml file, got {path!r}")
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ParameterError(f"cannot read design file {p}: {exc.strerror or exc}") from None
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        values = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ParameterError(f"design file {p} is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ParameterError(f"design file {p} is not valid TOML ({exc})") from None
    unknown = [k for k in values if k not in DESIGN_KEYS]
    if unknown:
        raise ParameterError(f"design file {p}: unknown key {unknown[0]!r}; the keys are: {', '.join(DESIGN_KEYS)}")
    if isinstance(values.get("tags"), Mapping):  # [tags] names = [...], open = true
        table = dict(values.pop("tags"))
        extra = [k for k in table if k not in ("names", "open")]
        if extra:
            raise ParameterError(f"design file {p}: [tags] takes 'names' and 'open', got {extra[0]!r}")
        values["tags"] = table.get("names", [])
        if "open" in table:
            values["open_tags"] = table["open"]
    for key in ("items", "difficulty"):  # an item campaign's files: beside the design file, as its author sees them
        v = values.get(key)
        if isinstance(v, str) and not (key == "items" and v.strip().isdigit()) and not Path(v).is_absolute():
            values[key] = str(p.parent / v)
    return values, {"file": p.name, "sha256": _sha(data)}


def merged(values: Mapping[str, Any], given: Mapping[str, Any], source: str) -> dict[str, Any]:
    """The design file's values with the keyword arguments given beside it; a key set in both is refused (a
    locked design has one home for each setting)."""
    both = sorted(k for k, v in given.items() if v is not None and k in values)
    if both:
        raise ParameterError(f"{both[0]} is set both in {source} and as an argument; set it in one place")
    return {**values, **{k: v for k, v in given.items() if v is not None}}


def locked_error(key: str) -> StateError:
    return StateError(refusal(key))


# ---------------------------------------------------------------------------------------------- the design in force
@dataclass(frozen=True)
class Design:
    """The design in force: the locked one with every amendment applied (``amendments``: their entry ids)."""

    about: str
    tags: tuple[str, ...]
    open_tags: bool
    checklist: tuple[str, ...]
    launch: str | None
    checkpoints: dict[str, str] | None
    source: dict[str, str] | None
    schedule: Any  # a Schedule (AnyRank) or None (leaderboard)
    amendments: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"about": self.about, "tags": list(self.tags), "open_tags": self.open_tags,
                "checklist": list(self.checklist), "launch": self.launch, "source": self.source,
                "amendments": list(self.amendments)}


def default_about(kind: str) -> str:
    return "benchmark" if kind in ("leaderboard", "items") else "policy"


def design_now(config: Mapping[str, Any], amendments: Sequence[tuple[int, Mapping[str, Any]]]) -> Design:
    """The design of ``config`` (campaigns made before designs get the defaults) with ``amendments`` applied."""
    from ._plan import Schedule
    d = dict(config.get("design") or {})
    fields = {"tags": list(d.get("tags") or []), "open_tags": bool(d.get("open_tags", True)),
              "checklist": list(d.get("checklist") or []), "launch": d.get("launch"),
              "checkpoints": d.get("checkpoints")}
    plans = []
    for entry, payload in amendments:
        for key, change in payload["changes"].items():
            if key in fields:
                fields[key] = change["to"]
        if payload.get("plan"):
            plans.append((entry, payload["plan"]))
    schedule = Schedule.from_config(config, plans) if config["kind"] not in ("leaderboard", "items") else None
    return Design(about=config.get("about") or default_about(config["kind"]), tags=tuple(fields["tags"]),
                  open_tags=bool(fields["open_tags"]), checklist=tuple(fields["checklist"]),
                  launch=fields["launch"], checkpoints=fields["checkpoints"], source=d.get("source"),
                  schedule=schedule, amendments=tuple(e for e, _ in amendments))

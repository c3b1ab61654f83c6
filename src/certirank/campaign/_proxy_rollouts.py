"""What a proxy campaign's ``record`` checks before the write: the proxy on every rollout, the real score exactly
on the trials the campaign drew for a real label, both in the score range (one line each, file unchanged)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import ParameterError
from ._proxy import label_drawn
from ._util import _canon

__all__ = ["proxy_entry", "label_text"]


def drawn(camp: Any, trial: int) -> bool:
    e = camp.config["engine"]
    return label_drawn(e["label_seed"], trial, e["label_rate"])


def label_text(camp: Any, trial: int) -> str:
    """What `next` shows for a rollout of a proxy campaign."""
    return "real + proxy" if drawn(camp, trial) else "proxy only"


def _checked(camp: Any, value: Any, what: str, check_score: Callable[[Any, Any], Any]) -> tuple[float | None, float]:
    try:
        raw, v = check_score(camp, value)
    except ParameterError as exc:
        text = str(exc)
        raise ParameterError(what + text[len("score"):] if text.startswith("score") else text) from None
    if v is None:
        raise ParameterError(f"{what} is 'missing': a proxy campaign records a number (a rollout that could not be "
                             "judged is a fault: --fault REASON)")
    return raw, v


def proxy_entry(camp: Any, trial: int, score: Any, proxy: Any, tags: Any, check_score: Callable[[Any, Any], Any]
                ) -> tuple[float | None, float | None, str, dict[str, Any]]:
    """(raw score, score in [0, 1] or None, payload, request fields) of one proxy-campaign rollout; ``check_score``
    is the campaign's own score check (range and spelling), applied to the proxy too."""
    if proxy is None:
        raise ParameterError(f"trial {trial}: a proxy campaign records the proxy score (simulator / world model) of "
                             "every rollout: give --proxy P (proxy=)")
    raw_proxy, p = _checked(camp, proxy, "proxy", check_score)
    if drawn(camp, trial):
        if score is None:
            raise ParameterError(f"trial {trial} was drawn for a real label: give the real score beside the proxy "
                                 "(campaign next shows 'real + proxy')")
        raw, value = _checked(camp, score, "score", check_score)
    else:
        if score is not None:
            rate = camp.config["engine"]["label_rate"]
            raise ParameterError(f"trial {trial} was not drawn for a real label (proxy only): record the proxy alone; "
                                 f"a real score here would bias the test (labels are drawn at random with π = "
                                 f"{rate:g}, independent of the outcomes)")
        raw, value = None, None
    payload: dict[str, Any] = {"proxy": p}
    if raw_proxy is not None:
        payload["raw_proxy"] = raw_proxy
    if tags:
        payload["tags"] = tags
    return raw, value, _canon(payload), {"proxy": p, "raw_proxy": raw_proxy}

"""The worked example of an item campaign (``campaign init --kind items``) in docs/adaptive-items.md and
docs/campaigns.md.

Usage::

    .venv/bin/python docs/scripts/item_campaign_example.py [OUTDIR]

Five models of the GSM8K table (``../shared/data/llm/helm_lite_gsm8k.csv``, one run of 83 models on 1,000 items),
drawn with a seed; each item's success rate from the other 78 models is the campaign's ``--difficulty``, fixed at
init. The campaign (``--about table --seed 1 --n-max 3000``) draws the items; the script scores each drawn item on
exactly the models ``campaign next`` lists (looked up in the table, as a cached evaluation would be), until the
campaign stops, then prints what it cost against scoring every model on every item, the certified edges, and
whether ``campaign verify`` replays it. Seeded: the same output on every run.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from certirank import Campaign

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "llm" / "helm_lite_gsm8k.csv"


def main(outdir: Path) -> None:
    wide = pd.read_csv(DATA).pivot(index="model", columns="item", values="score")
    rng = np.random.default_rng(0)
    models = sorted(rng.choice(wide.index.to_numpy(), size=5, replace=False).tolist())
    others = wide.drop(index=models)
    items = [str(i) for i in wide.columns]
    (outdir / "items.txt").write_text("\n".join(items) + "\n")
    rates = others.mean(axis=0)
    (outdir / "rates.csv").write_text("item,rate\n" + "".join(f"{i},{r!r}\n" for i, r in zip(items, rates)))
    db = outdir / "gsm8k.campaign"
    if db.exists():
        db.unlink()
    print(f"models: {', '.join(models)} (their means on the 1,000 items: "
          + ", ".join(f"{m} {wide.loc[m].mean():.3f}" for m in models) + ")")
    c = Campaign.init(db, kind="items", models=models, items=str(outdir / "items.txt"),
                      difficulty=outdir / "rates.csv", about="table", seed=1, n_max=3000)
    first = c.next()[0]
    print(f"first draw: item {first.item} on {', '.join(first.models)}, probability {first.probability:.6g} "
          f"(uniform: {1 / len(items):.6g})")
    start = time.perf_counter()
    while True:
        todo = c.next()
        if not todo:
            break
        s = todo[0]
        c.record_item(s.item, {m: float(wide.loc[m, int(s.item)]) for m in s.models}, draw=s.trial)
    took = time.perf_counter() - start
    st = c.status()
    it = st.items
    print(f"stopped: {st.termination} after {it['draws']} draws; item evaluations {it['evaluations']} "
          f"against {len(models) * len(items)} for every model on every item "
          f"({100 * (1 - it['evaluations'] / (len(models) * len(items))):.0f} % fewer)")
    print("evaluations per model:", ", ".join(f"{m} {n}" for m, n in st.rollouts.items()))
    for v in st.verdicts:
        print("  ", v["sentence"])
    c.close()
    t0 = time.perf_counter()
    with Campaign.open(db) as again:
        ok = again.verify().ok
    print(f"verify (replays every draw): {'ok' if ok else 'FAILED'} in {time.perf_counter() - t0:.1f} s; "
          f"recording took {took:.1f} s ({1000 * took / it['draws']:.0f} ms per draw)")


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp())
    out.mkdir(parents=True, exist_ok=True)
    main(out)

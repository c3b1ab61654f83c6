"""Time certirank's data layer on the shared real data: load, and write/read round trips.

Run from the project root:  .venv/bin/python benchmarks/speed/data_layer.py
Prints a Markdown table (median of repeated runs, wall time).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from certirank.data import load, summarize, write_table

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"


def _median_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> None:
    if not DATA.is_dir():
        raise SystemExit(f"shared data folder not found at {DATA}")
    rows = []
    for name, kw in [("llm/helm_lite_gsm8k.csv", {}), ("roboarena/per_trial_progress_data.csv", {}),
                     ("roboarena/policy_preferences.csv", {}),
                     ("games/rrps_bots_43x43.csv", {"score_range": (-1000, 1000)})]:
        table = load(DATA / name, **kw)
        rows.append((f"load {name}", len(table), _median_time(lambda: load(DATA / name, **kw), 5)))
    helm = load(DATA / "llm/helm_lite_gsm8k.csv")
    rows.append(("summarize helm", len(helm), _median_time(lambda: summarize(helm), 5)))
    with tempfile.TemporaryDirectory() as tmp:
        for ext in ("csv", "parquet", "jsonl"):
            p = Path(tmp) / f"helm.{ext}"
            rows.append((f"write_table helm .{ext}", len(helm), _median_time(lambda: write_table(helm, p), 3)))
            rows.append((f"load helm .{ext}", len(helm), _median_time(lambda: load(p), 3)))
    print("| operation | rows | median time |")
    print("|---|---:|---:|")
    for op, n, t in rows:
        print(f"| {op} | {n} | {t * 1000:.0f} ms |")


if __name__ == "__main__":
    main()

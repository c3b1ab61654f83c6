"""Latency of a live campaign (certirank.Campaign, SQLite) as its history grows, and open time vs Ranker.load.

Run from the project root:

    .venv/bin/python benchmarks/speed/campaign_latency.py                 # 10 policies, up to 3,000 rollouts
    .venv/bin/python benchmarks/speed/campaign_latency.py --ops 15 --sizes 100,1000   # quicker

A 10-policy campaign of exactly tied Bernoulli(0.5) policies (so it never finishes) with n_max = 100,000 is
recorded through the public API (``next`` then ``record`` of every suggested rollout). When the history
reaches each size, ``--ops`` further rollouts are timed one by one as ``record`` + ``status`` (what an
operator's loop does after each rollout), in this process, with the file's default durability (WAL,
synchronous=FULL: every record is fsync'ed). At the same sizes the same history saved with ``Ranker.save``
is timed with ``Ranker.load`` (today's route, a replay) against ``Campaign.open`` + ``status`` (a checkpoint
read), and today's one-rollout-per-invocation loop (``Ranker.load`` + ``record`` + ``save``) against
``Campaign.record``. Prints Markdown tables.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from certirank import Campaign, Ranker


def _score(policy: int, trial: int) -> float:
    return float(np.random.default_rng([policy, trial]).random() < 0.5)


def _advance(c: Campaign, names: list[str], target: int, count: int) -> int:
    """Record suggested rollouts until the history holds ``target`` live records."""
    while count < target:
        for s in c.next():
            if count >= target:
                break
            c.record(s.policy, s.trial, _score(names.index(s.policy), s.trial), by="bench")
            count += 1
    return count


def _timed_ops(c: Campaign, names: list[str], ops: int) -> tuple[list[float], list[float], list[float]]:
    rec_t, stat_t, both = [], [], []
    done = 0
    while done < ops:
        for s in c.next():
            if done >= ops:
                break
            t0 = time.perf_counter()
            c.record(s.policy, s.trial, _score(names.index(s.policy), s.trial), by="bench")
            t1 = time.perf_counter()
            c.status()
            t2 = time.perf_counter()
            rec_t.append(t1 - t0)
            stat_t.append(t2 - t1)
            both.append(t2 - t0)
            done += 1
    return rec_t, stat_t, both


def _median(xs: list[float]) -> float:
    return statistics.median(xs)


def _p90(xs: list[float]) -> float:
    return float(np.quantile(xs, 0.9))


def _ranker_from(c: Campaign) -> Ranker:
    r = Ranker(c.policies, alpha=0.05, n_max=100_000)
    for rec in c.records():
        r.record(rec.policy, rec.trial, rec.score, ahead=True)
    return r


def _cli(args: list[str]) -> tuple[float, float]:
    """(wall time, CPU time) of one `certirank ...` process; CPU time is what a busy shared machine inflates least."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2] / "src") + os.pathsep + env.get("PYTHONPATH", "")
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "certirank", *args], check=True, env=env, capture_output=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def _cli_record_time(db: Path, names: list[str], repeats: int) -> tuple[float, ...]:
    """Median (wall, CPU) of one `certirank campaign record` process and of one `certirank campaign status`
    process (each a new interpreter: start-up and imports included)."""
    rec, stat = [], []
    for _ in range(repeats):
        c = Campaign.open(db)
        s = c.next()[0]
        c.close()
        rec.append(_cli(["campaign", "record", str(db), s.policy, str(s.trial),
                         str(_score(names.index(s.policy), s.trial))]))
        stat.append(_cli(["campaign", "status", str(db), "--json"]))
    return (_median([w for w, _ in rec]), _median([c for _, c in rec]), _median([w for w, _ in stat]),
            _median([c for _, c in stat]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--policies", type=int, default=10)
    ap.add_argument("--sizes", default="100,300,1000,3000", help="History sizes (recorded rollouts) to time at.")
    ap.add_argument("--ops", type=int, default=40, help="Timed record+status operations per size.")
    ap.add_argument("--open-repeats", type=int, default=5)
    ap.add_argument("--cli-repeats", type=int, default=3, help="CLI processes timed per size.")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    names = [f"policy{i:02d}" for i in range(args.policies)]
    rows, open_rows, loop_rows, cli_rows = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.campaign"
        c = Campaign.init(db, names, alpha=0.05, n_max=100_000)
        count = 0
        t_build = time.perf_counter()
        for size in sizes:
            count = _advance(c, names, size, count)
            rec_t, stat_t, both = _timed_ops(c, names, args.ops)
            count += args.ops
            rows.append((size, _median(rec_t), _median(stat_t), _median(both), _p90(both)))
            # open time: the campaign file vs the same history saved as a Ranker JSON
            ranker = _ranker_from(c)
            js = Path(tmp) / f"ranker_{size}.json"
            ranker.save(js)
            t_open, t_load = [], []
            for _ in range(args.open_repeats):
                t0 = time.perf_counter()
                c2 = Campaign.open(db)
                c2.status()
                t_open.append(time.perf_counter() - t0)
                c2.close()
                t0 = time.perf_counter()
                Ranker.load(js).result()
                t_load.append(time.perf_counter() - t0)
            open_rows.append((count, _median(t_load), _median(t_open)))
            # today's one-rollout-per-invocation loop: load (replay), record one rollout, save
            todo = ranker.suggest()
            t_loop = []
            for p, r in todo[:3]:
                t0 = time.perf_counter()
                rr = Ranker.load(js)
                rr.record(p, r, _score(names.index(p), r), ahead=True)
                rr.save(js)
                t_loop.append(time.perf_counter() - t0)
            loop_rows.append((count, _median(t_loop), rows[-1][1]))
            cli_rows.append((count, *_cli_record_time(db, names, args.cli_repeats)))
            count += args.cli_repeats
        build = time.perf_counter() - t_build
        vs = [_cli(["--version"]) for _ in range(args.cli_repeats)]
        version = (_median([w for w, _ in vs]), _median([c for _, c in vs]))
    print(f"{args.policies} policies, tied Bernoulli(0.5), n_max = 100,000; {args.ops} timed operations per size; "
          f"history built through the API in {build:.0f} s.\n")
    print("| recorded rollouts | record median | status median | record + status median | record + status p90 |")
    print("|---:|---:|---:|---:|---:|")
    for size, r, s, b, p in rows:
        print(f"| {size:,} | {r * 1e3:.1f} ms | {s * 1e3:.1f} ms | {b * 1e3:.1f} ms | {p * 1e3:.1f} ms |")
    print("\n| recorded rollouts | `Ranker.load` + `result()` (replay) | `Campaign.open` + `status()` (checkpoint) "
          "| ratio |")
    print("|---:|---:|---:|---:|")
    for n, lo, op in open_rows:
        print(f"| {n:,} | {lo * 1e3:.0f} ms | {op * 1e3:.1f} ms | {lo / op:.0f}x |")
    print("\n| recorded rollouts | `Ranker.load` + `record` + `save` | `Campaign.record` | ratio |")
    print("|---:|---:|---:|---:|")
    for n, lo, rc in loop_rows:
        print(f"| {n:,} | {lo * 1e3:.0f} ms | {rc * 1e3:.1f} ms | {lo / rc:.0f}x |")
    print("\n| recorded rollouts | `campaign record` process: wall | CPU | `campaign status --json` process: wall "
          "| CPU |")
    print("|---:|---:|---:|---:|---:|")
    for n, rw, rc, sw, sc in cli_rows:
        print(f"| {n:,} | {rw * 1e3:.0f} ms | {rc * 1e3:.0f} ms | {sw * 1e3:.0f} ms | {sc * 1e3:.0f} ms |")
    print(f"\n`certirank --version` (interpreter start and the CLI's own imports): {version[0] * 1e3:.0f} ms wall, "
          f"{version[1] * 1e3:.0f} ms CPU.")


if __name__ == "__main__":
    main()

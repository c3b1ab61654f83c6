"""How fast is `compare` on a long binary stream with the default bettor? Ratios against plain numpy, same run.

Usage::

    .venv/bin/python benchmarks/speed/compare_fast_path.py --pairs 200000

Streams of `--pairs` binary pairs: ``undecidable, no discordant pair`` (x = y), ``undecidable tie`` (two
independent fair coins: half the pairs discordant, no decision), ``decided at pair 8`` (x = 0, y = 1 throughout).
For each: pairs per second of ``compare(x, y, bins="binary")`` (the vectorised path of the calibrated bettor), of
the previous pair-by-pair path (timed on the first `--loop-pairs` pairs), and of a plain numpy reference doing the
least any bettor must do, one constant-stake log-wealth pass (``np.cumsum(np.log1p(0.5 * (y - x)))``); the
ratios compare the first with the other two. Times are process CPU, best of `--repeat`.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from certirank.evidence import PairedTest, compare


def best(fn, repeat: int) -> float:
    out = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        out.append(time.process_time() - t0)
    return min(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=200000)
    ap.add_argument("--loop-pairs", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    n = args.pairs
    coin = (rng.random(n) < 0.5).astype(float)
    streams = {"undecidable, no discordant pair": (coin, coin.copy()),
               "undecidable tie": (coin, (rng.random(n) < 0.5).astype(float)),
               "decided at pair 8": (np.zeros(n), np.ones(n))}
    compare(coin[:10], coin[:10], bins="binary")  # imports and tables once
    print("| stream | compare, pairs/s | pair by pair, pairs/s | numpy reference, pairs/s | vs pair by pair | "
          "vs numpy |\n|---|---:|---:|---:|---:|---:|")
    for name, (x, y) in streams.items():
        fast = best(lambda: compare(x, y, bins="binary"), args.repeat)
        m = args.loop_pairs

        def loop() -> None:
            t = PairedTest(bins="binary")
            for a, b in zip(x[:m], y[:m]):
                t.update(a, b)

        slow = best(loop, 1) / m
        ref = best(lambda: np.cumsum(np.log1p(0.5 * (y - x))), args.repeat)
        print(f"| {name} | {n / fast:,.0f} | {1 / slow:,.0f} | {n / ref:,.0f} | {slow * n / fast:.0f}x faster | "
              f"{fast / ref:.0f}x slower |", flush=True)


if __name__ == "__main__":
    main()

"""Run the STEP and Lai tests of `sequentialized-barnard-tests` on saved streams (benchmark helper).

This file is executed by benchmarks/studies/budget_tests_vs_step.py with the interpreter of a throw-away virtualenv in
which that package (licence CC BY-NC 4.0) was installed at benchmark time. It is never imported by
certirank or its tests. Input: an .npz with binary arrays x, y of shape (runs, n_max); output: an .npz with
per-run ``decision`` (+1 y better, -1 x better, 0 none) and ``stop`` (1-based trial of the decision, 0).

Usage: python _step_runner.py IN.npz OUT.npz METHOD N_MAX ALPHA MODE   (METHOD step|lai, MODE ranking|...)
"""

import sys
import warnings

import numpy as np
from sequentialized_barnard_tests import Decision, Hypothesis, MirroredLaiTest, MirroredStepTest


def main() -> None:
    src, dst, method, n_max, alpha, mode = sys.argv[1:7]
    n_max, alpha = int(n_max), float(alpha)
    data = np.load(src)
    x, y = data["x"], data["y"]
    cls = MirroredStepTest if method == "step" else MirroredLaiTest
    test = cls(Hypothesis.P0LessThanP1, n_max, alpha, inference_mode=mode)
    if method == "lai" and hasattr(test, "calibrate_c"):
        pass  # Lai ships its own calibration table for common settings
    runs = x.shape[0]
    decision = np.zeros(runs, dtype=np.int64)
    stop = np.zeros(runs, dtype=np.int64)
    warnings.simplefilter("ignore")
    for r in range(runs):
        test.reset()
        for t in range(x.shape[1]):
            res = test.step(int(x[r, t]), int(y[r, t]))
            if res.decision == Decision.AcceptAlternative:
                decision[r], stop[r] = 1, t + 1
                break
            if res.decision == Decision.AcceptNull:
                decision[r], stop[r] = -1, t + 1
                break
    np.savez(dst, decision=decision, stop=stop)


if __name__ == "__main__":
    main()

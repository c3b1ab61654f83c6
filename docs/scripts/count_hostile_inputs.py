"""Count the hostile inputs one run of the hostile-input suite tries (docs/hostile-inputs.md, issue 33 item 1).

Runs the suite once with hypothesis' statistics and counts

* every test case that is not a hypothesis test as one input (a CLI command line, a file, a finding's case), and
* every example a hypothesis test ran (passing + failing, over all its phases; invalid draws are not counted) —
  the API and parser suites and schemathesis' generated requests to the page (each example is sent twice, with and
  without the token, and counted once).

A run only counts if it is clean: no failure, no error, no xfail, no skip (each would be an input that did not
get its one-line refusal or its answer). Prints one JSON object.

Run:  .venv/bin/python docs/scripts/count_hostile_inputs.py
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FILES = ["tests/hostile", "tests/test_web_schema.py", "tests/test_web_security.py", "tests/test_hardening_inputs.py",
         "tests/test_hardening_io.py", "tests/test_hardening_state.py"]
_HEADER = re.compile(r"^(tests/\S+::\S.*):$")
_EXAMPLES = re.compile(r"(\d+) passing examples?, (\d+) failing examples?")
_OUTCOME = re.compile(r"(\d+) (passed|failed|errors?|xfailed|xpassed|skipped|deselected)")


def main() -> int:
    cmd = [sys.executable, "-m", "pytest", *FILES, "-q", "-p", "no:cacheprovider", "-rfEsxX",
           "--hypothesis-show-statistics"]
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    examples: dict[str, int] = {}
    current = None
    for line in run.stdout.splitlines():
        head = _HEADER.match(line.strip())
        if head:
            current = head.group(1)
            continue
        found = _EXAMPLES.search(line)
        if found and current is not None:
            examples[current] = examples.get(current, 0) + int(found.group(1)) + int(found.group(2))
    tail = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else ""
    outcomes = {kind.rstrip("s") if kind.startswith("error") else kind: int(n) for n, kind in _OUTCOME.findall(tail)}
    cases = sum(outcomes.values()) - outcomes.get("deselected", 0)
    plain = cases - len(examples)
    clean = run.returncode == 0 and not any(outcomes.get(k) for k in ("failed", "error", "xfailed", "xpassed",
                                                                     "skipped"))
    by_file: dict[str, int] = {}
    for test, n in examples.items():
        by_file[test.split("::")[0]] = by_file.get(test.split("::")[0], 0) + n
    print(json.dumps({"command": " ".join(["pytest", *cmd[3:]]), "outcomes": outcomes, "clean": clean,
                      "plain_cases": plain, "hypothesis_tests": len(examples),
                      "hypothesis_examples": sum(examples.values()), "hypothesis_examples_by_file": by_file,
                      "hostile_inputs": plain + sum(examples.values())}, indent=2))
    if not clean:
        print(run.stdout[-4000:], file=sys.stderr)
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())

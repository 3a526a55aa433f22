#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The runner's own check (make check): tools/run/runner.py on a list of
small programs that pass, fail, skip, die halfway through their KTAP,
print nothing, exit with a failure no result of theirs shows, or write
fewer results than their plan with the harness' KTAP writers
(tools/lib/ktap.sh, harness/ktap.py). Prints KTAP: the summary counts
each as it must, and the run fails.

    test-runner.py [--out DIR]      (default build/results/runner-selftest)
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
from harness import BUILD, TOOLS, results  # noqa: E402
from harness.ktap import Ktap  # noqa: E402

# name, program (sh -c), what the summary must count for it:
# (passed, failed, skipped), and whether the runner names it as exiting
# with no failed result.
CASES = [
    ("passes", 'printf "KTAP version 1\\n1..2\\nok 1 one\\nok 2 two\\n"', (2, 0, 0), False),
    ("fails", 'printf "KTAP version 1\\n1..2\\nok 1 one\\nnot ok 2 two\\n"; exit 1',
     (1, 1, 0), False),
    ("skips", 'printf "KTAP version 1\\n1..1\\nok 1 one # SKIP not here\\n"', (0, 0, 1), False),
    # Killed after one result of three: the two missing ones fail.
    ("dies_halfway", 'printf "KTAP version 1\\n1..3\\nok 1 one\\n"; kill -9 $$', (1, 2, 0), False),
    ("prints_nothing", "exit 1", (0, 1, 0), False),
    ("exits_1_all_passed", 'printf "KTAP version 1\\n1..1\\nok 1 one\\n"; exit 1', (1, 0, 0), True),
    # The writers: a plan of three, two results written.
    ("shell_writer_short", ". tools/lib/ktap.sh; ktap_start; ktap_result 0 one; "
     "ktap_result 1 two; ktap_end 3", (1, 2, 0), False),
    ("python_writer_short", "/usr/bin/python3 -c \"import sys; sys.path.insert(0, \\\"tools\\\"); "
     "from harness.ktap import Ktap; t = Ktap(3); t.result(True, \\\"one\\\"); "
     "t.result(False, \\\"two\\\"); sys.exit(t.status())\"", (1, 2, 0), False),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(BUILD, "results", "runner-selftest"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    listing = os.path.join(args.out, "selftest.list")
    with open(listing, "w") as f:
        for name, script, _, _ in CASES:
            f.write(f"{name} sh -c '{script}'\n")
    r = subprocess.run([os.path.join(TOOLS, "run", "runner.py"), "--list", listing,
                        "--kernel", args.out, "--out", args.out],
                       capture_output=True, text=True)
    summary = r.stdout.splitlines()
    try:
        found = results.cases(os.path.join(args.out, "results.json"))
    except (OSError, ValueError):
        found = []

    t = Ktap(len(CASES) + 2)
    t.result(r.returncode == 1, "the run fails", summary[-3:])
    total = [0, 0, 0]
    for name, _, (passed, failed, skipped), problem in CASES:
        got = [st for suite, _, st in found if suite == name]
        counts = (got.count("PASS"), sum(st in results.FAILED for st in got), got.count("SKIP"))
        named = any(line.strip() == f"error: {name} exited 1 with no failed result"
                    for line in summary)
        total = [a + b for a, b in zip(total, counts)]
        t.result(counts == (passed, failed, skipped) and named == problem,
                 f"{name}: {passed} passed, {failed} failed, {skipped} skipped"
                 + (", and the exit status named" if problem else ""),
                 [f"got {counts[0]} passed, {counts[1]} failed, {counts[2]} skipped"
                  + (f", named: {named}" if problem else "")])
    want = f"kunit: {total[0]} passed, {total[1] + sum(c[3] for c in CASES)} failed"
    t.result(summary[-1:] == [want], f"the last line counts them all ({want})", summary[-1:])
    return t.status()


if __name__ == "__main__":
    sys.exit(main())

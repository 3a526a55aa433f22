#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The runner's own check (make check): tools/run/runner.py on a list of
small programs that pass, fail, skip, die halfway through their KTAP,
print nothing, exit with a failure no result of theirs shows, write
fewer results than their plan with the harness' KTAP writers
(tools/lib/ktap.sh, harness/ktap.py), or print text at which kunit_parser
stops reading; then on kernel consoles (--kernel-log) that are whole, cut
short by a crash, or without KTAP. Prints KTAP: the summary counts each
as it must, and the runs fail where they must.

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
# (passed, failed, skipped), and the line the summary must have for it
# beyond its results, if any.
CASES = [
    ("passes", 'printf "KTAP version 1\\n1..2\\nok 1 one\\nok 2 two\\n"', (2, 0, 0), None),
    ("fails", 'printf "KTAP version 1\\n1..2\\nok 1 one\\nnot ok 2 two\\n"; exit 1',
     (1, 1, 0), None),
    # Every case must run: a skip is a failure.
    ("skips", 'printf "KTAP version 1\\n1..1\\nok 1 one # SKIP not here\\n"', (0, 0, 1),
     "skipped where every case must run: 1 cases of skips"),
    # Killed after one result of three: the two missing ones fail.
    ("dies_halfway", 'printf "KTAP version 1\\n1..3\\nok 1 one\\n"; kill -9 $$', (1, 2, 0), None),
    ("prints_nothing", "exit 1", (0, 1, 0), None),
    ("exits_1_all_passed", 'printf "KTAP version 1\\n1..1\\nok 1 one\\n"; exit 1', (1, 0, 0),
     "error: exits_1_all_passed exited 1 with no failed result"),
    # The writers: a plan of three, two results written.
    ("shell_writer_short", ". tools/lib/ktap.sh; ktap_start; ktap_result 0 one; "
     "ktap_result 1 two; ktap_end 3", (1, 2, 0), None),
    ("python_writer_short", "/usr/bin/python3 PYTHON_SHORT", (1, 2, 0), None),
    # More results than the plan: written, and the program fails.
    ("shell_writer_long", ". tools/lib/ktap.sh; ktap_start; ktap_result 0 one; "
     "ktap_result 0 two; ktap_end 1", (2, 0, 0),
     "error: shell_writer_long exited 1 with no failed result"),
    # Killed, with a child of its own still running: the child is ended
    # with it (checked below).
    ("leaves_a_child", 'sleep 299.75 2>/dev/null & printf "KTAP version 1\\n1..1\\nok 1 one\\n"; kill -9 $$',
     (1, 0, 0), "error: leaves_a_child exited -9 with no failed result"),
    # Text at which kunit_parser stops reading, in a diagnostic: the
    # results after it still count.
    ("diagnostic_stops_parser", 'printf "KTAP version 1\\n1..2\\n# reboot: System halted\\n'
     'ok 1 one\\nok 2 two\\n"', (2, 0, 0), None),
]
# The plans cut short make the stream malformed, which the summary says.
STREAM_ERRORS = "error: the stream has"
# PYTHON_SHORT, the Python writer with a plan of three and two results.
PYTHON_SHORT = """import sys
sys.path.insert(0, "tools")
from harness.ktap import Ktap
t = Ktap(3)
t.result(True, "one")
t.result(False, "two")
sys.exit(t.status())
"""


# Consoles of a kernel's KUnit run (--kernel-log): whole, cut short by a
# crash in its second suite, without KTAP. Each run has the same check
# after the suites, whose result must stay its own.
SUITES = """[    1.000000] KTAP version 1
[    1.000000] 1..2
[    1.000000]     KTAP version 1
[    1.000000]     # Subtest: suite_a
[    1.000000]     1..1
[    1.000000]     ok 1 a1
[    1.000000] ok 1 suite_a
[    1.000000]     KTAP version 1
[    1.000000]     # Subtest: suite_b
[    1.000000]     1..2
[    1.000000]     ok 1 b1
"""
CONSOLES = [
    ("whole", SUITES + "[    1.000000]     ok 2 b2\n[    1.000000] ok 2 suite_b\n",
     {"suite_a": (1, 0), "suite_b": (2, 0), "after": (1, 0)}, None),
    ("crashed", SUITES + "[    1.000000] Unable to handle kernel NULL pointer dereference\n"
     "[    1.000000] Kernel panic - not syncing: Oops: Fatal exception\n",
     {"suite_a": (1, 0), "suite_b": (1, 1), "after": (1, 0)}, "the kernel's KTAP is cut short"),
    ("no-ktap", "[    1.000000] Kernel panic - not syncing: Oops: Fatal exception\n",
     {"after": (1, 0)}, "the kernel printed no KTAP"),
]


def kernel_runs(t, out):
    """The runner on each console of CONSOLES: results to @t."""
    for name, console, want, problem in CONSOLES:
        d = os.path.join(out, f"kernel-{name}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "console.log"), "w") as f:
            f.write(console)
        with open(os.path.join(d, "suites"), "w") as f:
            f.write("suite_a\nsuite_b\n")
        with open(os.path.join(d, "checks.list"), "w") as f:
            f.write("kunit kunit.py\n"
                    "after sh -c 'printf \"KTAP version 1\\n1..1\\nok 1 one\\n\"'\n")
        r = subprocess.run([os.path.join(TOOLS, "run", "runner.py"), "--list",
                            os.path.join(d, "checks.list"), "--kernel", d, "--out", d,
                            "--suites", os.path.join(d, "suites"),
                            "--kernel-log", os.path.join(d, "console.log")],
                           capture_output=True, text=True)
        try:
            found = results.cases(os.path.join(d, "results.json"))
        except (OSError, ValueError):
            found = []
        got = {}
        for suite, _, st in found:
            p, f = got.get(suite, (0, 0))
            got[suite] = (p + (st == "PASS"), f + (st in results.FAILED))
        said = problem is None or any(problem in line for line in r.stdout.splitlines())
        t.result(got == want and said and (r.returncode == 0) == (problem is None),
                 f"a kernel console {name}: each suite's and the check's own results"
                 + (f", and \"{problem}\"" if problem else ""),
                 [f"got {got}", f"exit {r.returncode}"] + r.stdout.splitlines()[-4:])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(BUILD, "results", "runner-selftest"))
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    listing = os.path.join(args.out, "selftest.list")
    python_short = os.path.join(args.out, "python-short.py")
    with open(python_short, "w") as f:
        f.write(PYTHON_SHORT)
    with open(listing, "w") as f:
        for name, script, _, _ in CASES:
            script = script.replace("PYTHON_SHORT", python_short)
            f.write(f"{name} sh -c '{script}'\n")
    r = subprocess.run([os.path.join(TOOLS, "run", "runner.py"), "--list", listing,
                        "--kernel", args.out, "--out", args.out],
                       capture_output=True, text=True)
    summary = r.stdout.splitlines()
    try:
        found = results.cases(os.path.join(args.out, "results.json"))
    except (OSError, ValueError):
        found = []

    t = Ktap(len(CASES) + 4 + len(CONSOLES))
    t.result(r.returncode == 1, "the run fails", summary[-3:])
    lines = [line.strip() for line in summary]
    total = [0, 0, 0]
    for name, _, (passed, failed, skipped), problem in CASES:
        got = [st for suite, _, st in found if suite == name]
        counts = (got.count("PASS"), sum(st in results.FAILED for st in got), got.count("SKIP"))
        total = [a + b for a, b in zip(total, counts)]
        t.result(counts == (passed, failed, skipped) and (problem is None or problem in lines),
                 f"{name}: {passed} passed, {failed} failed, {skipped} skipped"
                 + (f", and the summary says \"{problem}\"" if problem else ""),
                 [f"got {counts[0]} passed, {counts[1]} failed, {counts[2]} skipped"])
    t.result(any(line.startswith(STREAM_ERRORS) for line in lines),
             "the summary says the stream is malformed")
    left = subprocess.run(["pgrep", "-f", "sleep 299.75"], capture_output=True, text=True)
    t.result(not left.stdout.strip(), "a killed check's own children are ended with it",
             left.stdout.splitlines())
    # Each line beyond the results counts one failure.
    failed = total[1] + sum(1 for c in CASES if c[3]) + 1
    want = f"kunit: {total[0]} passed, {failed} failed"
    t.result(summary[-1:] == [want], f"the last line counts them all ({want})", summary[-1:])
    kernel_runs(t, args.out)
    return t.status()


if __name__ == "__main__":
    sys.exit(main())

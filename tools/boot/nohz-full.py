#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Scaled CPU time with full dynticks accounting, on the test kernel itself
(NO_HZ_FULL and VIRT_CPU_ACCOUNTING_GEN are compiled in; without
nohz_full= every CPU accounts at the tick). Boot it with nohz_full=1-3 and
run the cputime_scaled suite (kunit.py exec), then boot it with the
taskstats check (tools/boot/taskstats.sh), whose busy threads run on CPUs
1 and 2. Prints KTAP: the kernel's word that CPUs 1-3 ran without the
tick, each case of the suite as "nohz_full: SUITE.CASE", and the
taskstats check as a subtest.

    nohz-full.py --kernel DIR --out DIR --consoles DIR [--machine NAME]

The consoles go to CONSOLES/nohz_full_suite.log and nohz_full_taskstats.log.
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
from harness import TOOLS, rel, kunit, machine, proc  # noqa: E402
from harness.ktap import Ktap  # noqa: E402

CPUS = "1-3"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernel", required=True, help="the test kernel's build directory")
    ap.add_argument("--out", required=True, help="where this check's files go")
    ap.add_argument("--consoles", required=True, help="where the consoles go")
    ap.add_argument("--machine", default="test", choices=sorted(machine.MACHINES),
                    help="the machine (harness/machine.py; default test)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.consoles, exist_ok=True)
    proc.stop_on_signals()
    console = os.path.join(args.consoles, "nohz_full_suite.log")
    log = os.path.join(args.out, "kunit.py.log")
    lines, _ = kunit.exec_suites(args.kernel, console, [f"--kernel_args=nohz_full={CPUS}",
                                                         "cputime_scaled"],
                                    log=log, machine=args.machine)
    # The suite's cases, as the kernel's parser reads the console.
    cases = [(path[0], ".".join(path[1:]), t.status.name)
             for path, t in kunit.leaves(kunit.parse(lines))]

    ktap = os.path.join(args.out, "taskstats.ktap")
    with open(ktap, "w") as f:
        rc = proc.run([os.path.join(TOOLS, "boot", "taskstats.sh"), "--kernel", args.kernel,
                       "--out", os.path.join(args.out, "taskstats"),
                       "--name", "taskstats-nohz-full", "--cmdline", f"nohz_full={CPUS}",
                       "--console", os.path.join(args.consoles, "nohz_full_taskstats.log"),
                       "--machine", args.machine],
                      group=True, stdout=f, stdin=subprocess.DEVNULL)
    with open(ktap) as f:
        taskstats = f.read().splitlines()

    t = Ktap(2 + max(len(cases), 1))
    # What the kernel says, not what was asked of it.
    t.result(any(f"NO_HZ: Full dynticks CPUs: {CPUS}." in line for line in lines),
             f"nohz_full: the suite ran on a kernel with full dynticks on CPUs {CPUS}")
    if not cases:
        t.result(False, "nohz_full: the cputime_scaled suite runs", [f"see {rel(console)}"])
    for suite, case, status in cases:
        name = f"nohz_full: {suite}.{case}"
        if status == "SKIPPED":
            t.skip(name, "skipped")
        else:
            t.result(status == "SUCCESS", name)
    t.nest("taskstats-nohz-full", taskstats, rc == 0)
    return t.status()


if __name__ == "__main__":
    sys.exit(main())

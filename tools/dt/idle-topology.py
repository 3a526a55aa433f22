#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Extract a board's CPU idle topology from its DTB and write it as a
topology source that harness/topology.py grafts onto QEMU's tree.

    idle-topology.py BOARD.dtb OUT.dtsi

What is taken: the CPUs of /cpus (in `reg` order, mapped onto QEMU's
cpu@0, cpu@1...), their `cpu-idle-states`, their PSCI power domain (the
`power-domains` entry named "psci", or the only one) and the domains above
it, and every domain's `domain-idle-states`. The idle states keep their
names and their PSCI and timing properties. What is changed to fit QEMU is
listed in the output's header ("changed:" lines) and printed.

A file that is not a DTB, a tree that has no PSCI power domains, or whose
topology is malformed (a phandle to nothing, a cycle, a state without
arm,psci-suspend-param, more CPUs than the test kernel boots), is refused
with a message that names the node; the exit status is then 2. The DTB
is read with pylibfdt; the extractor is harness.dtidle.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
from harness import dtidle  # noqa: E402

# The name the messages start with.
PROG = "idle-topology.py"


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dtb", metavar="BOARD.dtb", help="the board's device tree blob")
    parser.add_argument("out", metavar="OUT.dtsi", help="the topology source to write")
    args = parser.parse_args()
    try:
        text, changed, notes = dtidle.convert(args.dtb)
    except dtidle.Refused as e:
        print(f"{PROG}: {args.dtb}: {e}", file=sys.stderr)
        return 2
    with open(args.out, "w") as f:
        f.write(text)
    for c in changed:
        print(f"{PROG}: changed: {c}")
    for c in notes:
        print(f"{PROG}: note: {c}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The whole OS-initiated path at work: boot the test kernel (built by
make demo, as make test builds it) on a topology of kunit/topologies/
(default osi-1x4: one cluster of four CPUs, the firmware model in OSI
mode) with its CPU count, QEMU options and command line, KUnit off and
the idle workload as init, and print the report of
tools/report/idle-report.py. Exits 1 if a check of the report fails: the
model saw an invalid request, a domain never reached one of its states...

    demo.py --kernel DIR --out DIR [--topology NAME] [--policy timers|pending|learn]

--policy is the CPU governor's policy of PM domains (genpd.cpu_policy=).
The console is OUT/TOPOLOGY.log (tools/report/idle-report.py prints its
report again), the grafted tree OUT/TOPOLOGY.dtb.
"""
import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
from harness import PYTHON, TOOLS, die, kernel_base, note, rel, boot, proc, topology, workload  # noqa: E402

BOOT_TIMEOUT = 300


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernel", required=True, help="the test kernel's build directory")
    ap.add_argument("--out", required=True, help="where the tree and the console go")
    ap.add_argument("--topology", default="osi-1x4", help="a topology of kunit/topologies/")
    ap.add_argument("--policy", default="pending", choices=("timers", "pending", "learn"),
                    help="the CPU governor's policy of PM domains")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    try:
        topo = topology.find(args.topology, kernel_base(args.kernel))
        log = os.path.join(args.out, f"{topo.name}.log")
        initrd = boot.build_guest(os.path.join(args.out, "guest"))
        argv = boot.topology_command(topo, args.kernel, os.path.join(args.out, f"{topo.name}.dtb"),
                                     initrd, kunit=False,
                                     cmdline=[f"genpd.cpu_policy={args.policy}"])
    except (topology.TopologyError, boot.BootError) as err:
        die(str(err))
    note(f"booting {topo.name} with {topo.cpus} CPUs, the {args.policy} policy")
    proc.stop_on_signals()
    start = time.time()
    rc = boot.run(argv, log, BOOT_TIMEOUT)
    lines = workload.read(log)
    if not any("idle-workload: done" in line for line in lines):
        sys.stderr.write("\n".join(lines[-20:]) + "\n")
        die(f"the boot did not finish (QEMU exited {rc}; {rel(log)})")
    note(f"booted, ran the workload and powered off in {time.time() - start:.0f} s ({rel(log)})")
    print()
    return subprocess.run([PYTHON, os.path.join(TOOLS, "report", "idle-report.py"), log]).returncode


if __name__ == "__main__":
    sys.exit(main())

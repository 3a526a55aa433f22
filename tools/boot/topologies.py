#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Boot a built kernel on device-tree topologies, each grafted onto QEMU's
tree for its machine, with the idle workload as init, and print KTAP: a
subtest per topology, in the order given, with these results:

  - the graft adds no dtc warning;
  - the boot runs the KUnit suites, then the workload, to its end;
  - every "expect:" line of the topology's header is in the log;
  - nothing else warns or fails in the log;
  - the KUnit suites (as many as --suites names) pass on that topology
    too, as the kernel's KTAP parser reads them;
  - the end-to-end checks of harness/workload.py (OSI mode, the domain
    states entered, no invalid request, rejections are genuine denials,
    the PSCI checker...).

    topologies.py --kernel DIR --out DIR --consoles DIR [--label PREFIX]
                  [--guest DIR] [--suites FILE] [--jobs N] [--machine NAME]
                  TOPOLOGY...

Each console goes to CONSOLES/PREFIXNAME.log (PREFIX: topology_ by
default), the grafted tree to OUT/NAME.dtb and the QEMU command, one
argument a line, to OUT/NAME.argv; the workload is built into GUEST
(default OUT/guest). --jobs boots at a time (default 2, one per core
here). --machine: a machine of harness/machine.py's MACHINES (default
test; debug for the debug kernel).
"""
import argparse
import concurrent.futures
import os
import re
import sys
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
from harness import die, boot, fdt, kernel_base, kunit, machine, proc, topology, words, workload  # noqa: E402
from harness.ktap import Ktap  # noqa: E402

BOOT_TIMEOUT = 600
TROUBLE = re.compile(r"WARNING:|BUG:|Oops|Call trace:|failed to|probe of .* failed")


def suites_ok(lines, want):
    """The number of KUnit suites the console's KTAP holds, and whether
    there are @want of them and none failed or crashed."""
    test = kunit.parse(lines)
    c = test.counts
    return len(test.subtests), (len(test.subtests) == want and c.failed == 0
                                and c.crashed == 0 and c.errors == 0)


def boot_one(topo, args, initrd):
    """Boot @topo and judge it: [(ok, name, [diagnostic...])]."""
    n = topo.name
    out = []
    dtb = os.path.join(args.out, f"{n}.dtb")
    log = os.path.join(args.consoles, f"{args.label}{n}.log")
    command = os.path.join(args.out, f"{n}.argv")
    for stale in (dtb, log, command):
        if os.path.exists(stale):
            os.unlink(stale)
    try:
        argv = boot.topology_command(topo, args.kernel, dtb, initrd,
                                     base=machine.MACHINES[args.machine])
        with open(command, "w") as f:
            f.write("\n".join(argv) + "\n")
        out.append((True, f"{n}: grafted onto QEMU's tree without new dtc warnings", []))
    except (topology.TopologyError, boot.BootError, machine.MachineError) as err:
        out.append((False, f"{n}: grafted onto QEMU's tree without new dtc warnings",
                    str(err).splitlines()))
        return out
    rc = boot.run(argv, log, BOOT_TIMEOUT)
    lines = workload.read(log)
    done = any("idle-workload: done" in line for line in lines)
    out.append((done, f"{n}: the kernel boots, runs the suites and the workload to the end "
                f"({topo.cpus} CPUs)",
                [] if done else [f"QEMU exited {rc}" + (
                    f": timed out after {BOOT_TIMEOUT} s" if rc == 124 else ""),
                    "the console's last lines:"] + lines[-5:]))
    expect = topo.all("expect")
    for want in expect:
        out.append((any(want in line for line in lines), f'{n}: log has "{want}"', []))
    trouble = [line for line in lines
               if TROUBLE.search(line) and not any(w in line for w in expect)]
    out.append((not trouble, f"{n}: no other warning, oops or failure in the log", trouble[:5]))
    count, ok = suites_ok(lines, args.suites)
    out.append((ok, f"{n}: the {count} KUnit suites pass on this topology", []))
    try:
        idle_cpus = topo.idle_cpus(dtb)
    except (topology.TopologyError, fdt.Refused) as err:
        out.append((False, f"{n}: the tree's CPUs with idle states can be counted",
                    str(err).splitlines()))
        return out
    try:
        _, res = workload.judge(lines, idle_cpus, topo.firmware_invalid)
        out.append((True, f"{n}: the idle report reads the log to its end", []))
    except Exception:
        out.append((False, f"{n}: the idle report reads the log to its end",
                    traceback.format_exc().splitlines()))
        return out
    out += [(ok, f"{n}: {what}", []) for ok, what in res]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n    topologies.py")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernel", required=True, help="the kernel's build directory")
    ap.add_argument("--out", required=True, help="where the grafted trees go")
    ap.add_argument("--consoles", required=True, help="where the consoles go")
    ap.add_argument("--label", default="topology_", help="the consoles' name prefix")
    ap.add_argument("--guest", help="where the workload's initramfs is built (OUT/guest)")
    ap.add_argument("--suites", help="the KUnit suites that must pass, one a line")
    ap.add_argument("--jobs", type=int, default=2, help="boots at a time")
    ap.add_argument("--machine", default="test", choices=sorted(machine.MACHINES),
                    help="the machine (harness/machine.py; default test; tfa: "
                    "Trusted Firmware-A at EL3, built for each topology's CPU count)")
    ap.add_argument("topologies", nargs="+", metavar="TOPOLOGY")
    args = ap.parse_args()
    args.suites = len(words(args.suites)) if args.suites else 0
    args.base = kernel_base(args.kernel)
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.consoles, exist_ok=True)
    try:
        topos = [topology.find(t, args.base) for t in args.topologies]
        initrd = boot.build_guest(args.guest or os.path.join(args.out, "guest"))
        boot.kernel_image(args.kernel)
        for m in {t.machine(machine.MACHINES[args.machine]) for t in topos}:
            boot.build_firmware(m)
    except (topology.TopologyError, boot.BootError, machine.MachineError) as err:
        die(str(err))

    proc.stop_on_signals()
    t = Ktap(len(topos))
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs)
    try:
        futures = [pool.submit(boot_one, topo, args, initrd) for topo in topos]
        for topo, future in zip(topos, futures):
            try:
                res = future.result()
            except Exception:
                res = [(False, f"{topo.name}: the boot and all its checks ran",
                        traceback.format_exc().splitlines())]
            with t.subtest(topo.name, len(res)) as s:
                for ok, name, diag in res:
                    s.result(ok, name, diag)
    finally:
        # Told to stop: no boot still queued starts.
        pool.shutdown(cancel_futures=True)
    return t.status()


if __name__ == "__main__":
    sys.exit(main())

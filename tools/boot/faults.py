#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Fail each allocation of the PSCI domain probe and of the CPUs' attach to
their PM domains in turn, one boot per allocation, and print KTAP.

    faults.py --kernel DIR --out DIR [--machine NAME] [--jobs N]
              [--initcall NAME]... [--only N]... TOPOLOGY...

The kernel needs CONFIG_FAIL_INITCALL (the debug kernel has it, patch
test-harness/0008): fail_initcall=INITCALL,N with
failslab_ignore_gfp_reclaim=0 fails the N-th slab allocation that
INITCALL makes, whatever its depth, and the kernel says whether it did.
The initcalls (--initcall, default both): psci_idle_init_domains, the
PSCI domain probe with dt_idle_genpd under it (subsys_initcall), and
psci_idle_init, cpuidle-psci's probe, which attaches each CPU to its
domain (device_initcall). The firmware model's setup allocates nothing
(its nodes are a static table), so it has nothing to fail.

For each topology and initcall a first boot fails nothing and counts the
allocations, K; then boots 1 to K (--only: those) each fail one. A
subtest per topology and initcall holds a result per boot, which passes
when all of these hold:
  - the boot ran the short workload (idle_workload.short) to its end;
  - the kernel says the N-th allocation failed (the first boot: that
    none did), and where (the first callers in the fault's stack trace);
  - a line after the failure names it ("failed", "error", "cannot",
    "unable", or the errno), unless the initcall went on without the
    allocation's object and says nothing because nothing was lost: the
    boot is then judged by what follows;
  - the kernel's checkers reported nothing, and kmemleak, scanned twice
    at the end, found no leak (harness/reports.py);
  - every CPU entered its deepest cpuidle state (cpuidle is set up after
    the failure), and either every PM domain the firmware model knows
    entered a state in the 2 s idle period (OS-initiated mode, the full hierarchy), or the kernel
    is in platform-coordinated mode with no PSCI domain (the CPUs' own
    states): never a part of the hierarchy.
Consoles: OUT/TOPOLOGY-INITCALL-N.log (N = 0: the counting boot).
"""
import argparse
import concurrent.futures
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
from harness import boot, die, machine, note, topology, workload  # noqa: E402
from harness.ktap import Ktap  # noqa: E402
from harness.reports import KMEMLEAK_SCAN, scan  # noqa: E402

INITCALLS = ("psci_idle_init_domains", "psci_idle_init")
COUNT = 1000000
TIMEOUT = 600
# Frames of the fault's stack trace that are the fault machinery or the
# allocator, not the caller.
MACHINERY = re.compile(r"^(dump_backtrace|show_stack|dump_stack|fail_dump|should_fail|"
                       r"__should_failslab|should_failslab|slab_pre_alloc_hook|slab_alloc|"
                       r"kmem_cache_alloc|__kmem_cache_alloc|__kmalloc|kmalloc_trace|"
                       r"__do_kmalloc)")
FRAME = re.compile(r"^\s*(?:\[[ \d.]+\]\s*)?([\w.]+)\+0x[0-9a-f]+/0x[0-9a-f]+")
NAMES = re.compile(r"fail|error|cannot|can't|unable|-12\b|ENOMEM", re.I)


def fault(lines, initcall, n):
    """What the kernel said of fail_initcall: (failed, calls, site,
    message). calls is the count of a boot in which none failed; site the
    callers of the failed allocation; message the first line after the
    fault that names a failure."""
    failed, calls, site, message = False, None, "", ""
    done = re.compile(rf"fail_initcall: {initcall} returned (-?\d+) "
                      rf"(?:after (\d+) fault-injection calls: none failed|"
                      rf"with fault-injection call {n} failed)")
    trace_at = next((i for i, x in enumerate(lines) if "FAULT_INJECTION: forcing a failure" in x),
                    None)
    end = None
    for i, line in enumerate(lines):
        m = done.search(line)
        if m:
            end = i
            failed = m.group(2) is None
            calls = None if failed else int(m.group(2))
            break
    if trace_at is not None:
        frames, i = [], trace_at + 1
        while i < len(lines) and len(frames) < 40:
            m = FRAME.match(lines[i])
            if m:
                frames.append(m.group(1))
            elif frames:
                break
            i += 1
        callers = [f for f in frames if not MACHINERY.match(f)]
        site = " < ".join(callers[:3])
        for line in lines[i:end if end is not None else len(lines)]:
            if NAMES.search(line) and "fail_initcall:" not in line:
                message = re.sub(r"^\[[ \d.]+\]\s*", "", line).strip()
                break
    return failed, calls, site, message


def idle_checks(lines):
    """[(ok, what)]: every CPU's deepest state entered; the full hierarchy,
    each domain entering a state between the first dump and the last, or
    none of it."""
    dumps = workload.sections(lines)
    start = workload.files(dumps.get("start", []))
    end = workload.files(dumps.get("end", []))
    if not start or not end:
        return [(False, "the workload dumped the idle statistics at its start and end")]
    out = []
    after = workload.cpuidle(end)
    deepest = {}
    for (cpu, state) in after:
        deepest[cpu] = max(deepest.get(cpu, 0), state)
    # Since cpuidle was set up, after the failure; a CPU may stay in it
    # through the whole idle period, which no counter shows until it
    # leaves.
    idle = [cpu for cpu, s in sorted(deepest.items()) if after[(cpu, s)].get("usage", 0) > 0]
    out.append((bool(deepest) and len(idle) == len(deepest),
                f"every CPU entered its deepest state ({len(idle)} of {len(deepest)})"))
    mod = workload.model(end)
    domains, dom_before = workload.domains(end), workload.domains(start)
    if mod and mod.get("mode") == "OSI":
        grew = [d for d in sorted(domains)
                if sum(r[2] for r in domains[d]) > sum(r[2] for r in dom_before.get(d, []))
                or workload.genpd_off(end, d) and workload.genpd_off(start, d)]
        nodes = [n for n, v in mod["nodes"].items() if v["level"] > 0]
        missing = [n for n in nodes if n.rsplit("/", 1)[-1] not in domains]
        out.append((domains and len(grew) == len(domains) and not missing,
                    f"OS-initiated mode: every PM domain entered a state "
                    f"({len(grew)} of {len(domains)}; nodes above the cores without "
                    f"a domain: {', '.join(missing) or 'none'})"))
    else:
        out.append((not domains, f"platform-coordinated mode, no PM domain left "
                                 f"({len(domains)} registered)"))
    return out


def one(topo, initcall, n, args, initrd):
    """Boot @topo failing allocation @n of @initcall (0: none, count
    them): (ok, name, diagnostics, calls)."""
    label = f"{topo.name}-{initcall}-{n}"
    log = os.path.join(args.out, f"{label}.log")
    dtb = os.path.join(args.out, f"{label}.dtb")
    cmdline = ["idle_workload.short", "failslab_ignore_gfp_reclaim=0",
               f"fail_initcall={initcall},{n or COUNT}"]
    try:
        b = boot.topology_boot(topo, args.kernel, dtb, initrd, kunit=False, cmdline=cmdline,
                               base=machine.MACHINES[args.machine])
    except (topology.TopologyError, boot.BootError) as err:
        return False, f"{label}: boots", str(err).splitlines(), None
    rc = boot.run(b.argv, log, TIMEOUT)
    lines = workload.read(log)
    checks = [(any("idle-workload: done" in x for x in lines),
               f"the short workload ran to its end (QEMU exited {rc})")]
    failed, calls, site, message = fault(lines, initcall, n)
    idle = idle_checks(lines)
    if n:
        checks.append((failed, f"allocation {n} failed"))
        # Nothing to name when the boot ended as the one that failed
        # nothing: OSI, the full hierarchy (a failed __GFP_NOWARN
        # allocation the caller could do without).
        whole = all(c for c, _ in idle) and any("OS-initiated mode" in w for _, w in idle)
        checks.append((message or whole,
                       f"a line names the failure: {message}" if message else
                       "nothing lost, nothing to name: OS-initiated mode, the full hierarchy"
                       if whole else "a line names the failure: none"))
    else:
        checks.append((calls is not None, f"no allocation failed, {calls} made"))
    clean, what, reports = scan(label, log, [KMEMLEAK_SCAN])
    checks.append((clean, what))
    checks += idle
    ok = all(c for c, _ in checks)
    where = (f" at {site}" if site else
             " (no stack trace: __GFP_NOWARN)" if n and failed else "")
    name = (f"{initcall}: allocation {n}{where}" if n else
            f"{initcall}: {calls} allocations, none failed")
    diag = [f"{'ok' if c else 'not ok'}: {w}" for c, w in checks]
    diag += [f"  {x}" for r in reports for x in r[2]]
    return ok, name.replace("#", "no."), diag + [f"console: {log}"], calls


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernel", required=True, help="the kernel's build directory")
    ap.add_argument("--out", required=True, help="where the consoles and trees go")
    ap.add_argument("--machine", default="debug", choices=sorted(machine.MACHINES),
                    help="the base machine (harness/machine.py; default debug)")
    ap.add_argument("--jobs", type=int, default=1, help="boots at a time (default 1)")
    ap.add_argument("--initcall", action="append", choices=INITCALLS,
                    help="the initcall to fail in (default: both)")
    ap.add_argument("--only", action="append", type=int, default=[],
                    help="fail only these allocations (default: each)")
    ap.add_argument("topologies", nargs="+", metavar="TOPOLOGY")
    args = ap.parse_args()
    with open(os.path.join(args.kernel, ".config")) as f:
        if "CONFIG_FAIL_INITCALL=y\n" not in f.read():
            die(f"{args.kernel} has no CONFIG_FAIL_INITCALL: build the debug kernel")
    os.makedirs(args.out, exist_ok=True)
    initrd = boot.build_guest(os.path.join(args.out, "guest"))
    try:
        topos = [topology.find(t) for t in args.topologies]
    except topology.TopologyError as err:
        die(str(err))
    initcalls = args.initcall or list(INITCALLS)
    t = Ktap(len(topos) * len(initcalls))
    for topo in topos:
        for initcall in initcalls:
            first = one(topo, initcall, 0, args, initrd)
            calls = first[3] or 0
            todo = [n for n in range(1, calls + 1) if not args.only or n in args.only]
            note(f"{topo.name}, {initcall}: {calls} allocations; booting {len(todo)}")
            with t.subtest(f"{topo.name}: {initcall}", 1 + len(todo)) as sub:
                sub.result(*first[:3])
                with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
                    for ok, name, diag, _ in pool.map(
                            lambda n: one(topo, initcall, n, args, initrd), todo):
                        sub.result(ok, name, diag)
    return t.status()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Fail each allocation of the PSCI domain probe and of the CPUs' attach to
their PM domains in turn, one boot per allocation, and print KTAP.

    faults.py --kernel DIR --out DIR [--machine NAME] [--jobs N]
              [--initcall NAME]... [--only N]... TOPOLOGY...
    faults.py --recheck --out DIR [--initcall NAME]... [--only N]... TOPOLOGY...

The kernel needs CONFIG_FAIL_INITCALL (the debug kernel has it, patch
test-harness/0008): fail_initcall=INITCALL,N[,SCOPE] with
failslab_ignore_gfp_reclaim=0 fails the N-th slab allocation that
INITCALL makes, whatever its depth (with SCOPE, counting only those made
within that function), and the kernel says whether it did. The
initcalls (--initcall, default both): psci_idle_init_domains, the PSCI
domain probe with dt_idle_genpd under it (subsys_initcall), every
allocation; and psci_idle_init, cpuidle-psci's probe (device_initcall),
the allocations within dt_idle_attach_cpu, each CPU's attach to its
domain: the rest of that initcall registers cpuidle's devices and sysfs,
about 280 allocations of code outside the series. The firmware model's
setup allocates nothing (its nodes are a static table), so it has
nothing to fail.

For each topology and initcall a first boot fails nothing and counts the
calls, K; then boots 1 to K (--only: those) each fail one. A subtest per
topology and initcall holds a result per boot, which passes when all of
these hold:
  - the boot ran the short workload (idle_workload.short) to its end;
  - the kernel says the N-th call failed (the first boot: that none did),
    and the fault's stack trace names its first callers;
  - a line names a failure ("failed", "error", "cannot", "unable", the
    errno), first looked for from the arming of the fault to the
    initcall's return, then on to the workload's start; it is no line of
    the fault's report, no stack frame and no line of the boot that
    failed nothing; unless the boot ended as that one did (OSI, the full
    hierarchy): a caller that could do without the allocation lost
    nothing to name;
  - the kernel's checkers reported nothing, and kmemleak, scanned twice
    at the end, more than 5 s after the initcalls, found no leak
    (harness/reports.py);
  - every CPU entered its deepest cpuidle state (the usage at the end:
    cpuidle is set up after the domain probe), with as many states as
    the device tree gives it (WFI and its cpu-idle-states); and either
    the kernel is in OS-initiated mode, says so, and every node of the
    firmware model above the cores with states entered one in the 2 s
    of idle (or was down all along: in a state for the model and off for
    genpd at both dumps, no stay ended) and has its PM domain, or it is
    in platform-coordinated mode with no PM domain left,
    or (a CPU's attach failed after the switch to OS-initiated mode) in
    OS-initiated mode with no PM domain left, saying so, and no node
    above the cores entered a state: never a part of the hierarchy,
    never an unknown mode.
Consoles: OUT/TOPOLOGY-INITCALL-N.log (N = 0: the counting boot), trees
OUT/TOPOLOGY-INITCALL-N.dtb. --recheck boots nothing and judges those of
an earlier run in OUT again, as a change to these rules needs.
"""
import argparse
import concurrent.futures
import os
import re
import sys
import threading
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
from harness import boot, die, dtidle, kernel_base, machine, note, topology, workload  # noqa: E402
from harness.fdt import Refused  # noqa: E402
from harness.ktap import Ktap  # noqa: E402
from harness.reports import KMEMLEAK_SCAN, scan, strip_time  # noqa: E402

# Each initcall, and the function its allocations are counted within.
INITCALLS = {"psci_idle_init_domains": None, "psci_idle_init": "dt_idle_attach_cpu"}
COUNT = 1000000
SCAN = threading.Lock()
TIMEOUT = 600
# Frames of the fault's stack trace that are the fault machinery or the
# allocator, not the caller.
MACHINERY = re.compile(r"^(dump_backtrace|show_stack|dump_stack|fail_dump|fail_initcall_nowarn|should_fail|"
                       r"__should_failslab|should_failslab|slab_pre_alloc_hook|slab_alloc|"
                       r"kmem_cache_alloc|__kmem_cache_alloc|__kmalloc|kmalloc_trace|"
                       r"__do_kmalloc|kmalloc_node_trace)")
FRAME = re.compile(r"^\s*(?:\[[ \d.]+\]\s*)?([\w.]+)\+0x[0-9a-f]+/0x[0-9a-f]+")
NAMES = re.compile(r"fail|error|cannot|can't|unable|(?:[=\s(])-12\b(?![-\d])|ENOMEM", re.I)


def fault(lines, initcall, n, usual=frozenset()):
    """What the kernel said of fail_initcall: (failed, calls, site,
    message). calls is the count of a boot in which none failed; site the
    first callers of the failed allocation, from the fault's stack trace
    (fault-inject's report, or fail_initcall's for a __GFP_NOWARN
    call); message the first line that
    names a failure, outside the fault's own report (no stack frame) and
    not among the @usual lines (those of the boot that failed nothing):
    from the arming of the fault to the initcall's return, else from
    there to the workload's start (a deferred probe, a later initcall)."""
    failed, calls, site, message = False, None, "", ""
    done = re.compile(rf"fail_initcall: {re.escape(initcall)} returned (-?\d+) "
                      rf"(?:after (\d+) fault-injection calls: none failed|"
                      rf"with fault-injection call {n} failed)")
    armed = next((i for i, x in enumerate(lines) if "fail_initcall: failing" in x), None)
    start = next((i for i, x in enumerate(lines) if "idle-workload: start" in x), len(lines))
    returned = start
    for i, line in enumerate(lines):
        m = done.search(line)
        if m:
            failed = m.group(2) is None
            calls = None if failed else int(m.group(2))
            returned = i
            break
    if armed is None:
        return failed, calls, site, message
    trace = set()
    at = next((i for i in range(armed, start) if "FAULT_INJECTION: forcing a failure" in lines[i]
               or "fail_initcall: forcing a failure" in lines[i]), None)
    if at is not None:
        trace.add(at)
        frames, i = [], at + 1
        while i < start:
            m = FRAME.match(lines[i])
            if m:
                frames.append(m.group(1))
            elif frames:
                break
            trace.add(i)
            i += 1
        callers = [f for f in frames if not MACHINERY.match(f)]
        site = " < ".join(callers[:3])
    for i in list(range(armed + 1, returned)) + list(range(returned + 1, start)):
        text = strip_time(lines[i]).strip()
        if (i not in trace and not FRAME.match(lines[i]) and NAMES.search(text)
                and "fail_initcall:" not in text and text not in usual):
            message = text
            break
    return failed, calls, site, message


def states_per_cpu(cpuidle):
    """{cpu: its number of cpuidle states} of workload.cpuidle()'s view."""
    out = {}
    for (cpu, state) in cpuidle:
        out[cpu] = max(out.get(cpu, 0), state + 1)
    return out


def dt_states(dtb):
    """{cpu: its number of cpuidle states} that the device tree @dtb
    gives: WFI and the CPU's cpu-idle-states (the domains' states are
    genpd's), CPUs numbered in reg order; or the reason it cannot tell."""
    try:
        _, cpus = dtidle.extract(dtidle.Board(dtb), with_domains=True)
    except (Refused, OSError) as err:
        return str(err)
    return {i: 1 + len(states) for i, (_, states, _) in enumerate(cpus)}


def idle_checks(lines, states):
    """([(ok, what)], how the boot ended: "OSI", "OSI without domains",
    "PC" or None): every CPU entered its deepest state, with as many
    states as @states {cpu: count} (dt_states()) gives; in OS-initiated
    mode the kernel says so and every node of the firmware model above
    the cores, and every PM domain, entered a state between the first
    dump and the last (or was down all along), in platform-coordinated
    mode no PM domain is left. Anything else fails."""
    dumps = workload.sections(lines)
    start = workload.files(dumps.get("start", []))
    end = workload.files(dumps.get("end", []))
    if not start or not end:
        return [(False, "the workload dumped the idle statistics at its start and end")], None
    out = []
    after = workload.cpuidle(end)
    counts = states_per_cpu(after)
    # The total at the end: cpuidle is set up after the domain probe, and
    # a CPU may stay in its deepest state through the whole idle period,
    # which no counter shows until it leaves.
    idle = [cpu for cpu, n in sorted(counts.items()) if after[(cpu, n - 1)].get("usage", 0) > 0]
    same = counts == states
    out.append((bool(counts) and len(idle) == len(counts) and same,
                f"every CPU entered its deepest state ({len(idle)} of {len(counts)}"
                + ("" if same else f"; states per CPU {counts}, the device tree gives "
                                   f"{states}") + ")"))
    mod = workload.model(end)
    mod_before = workload.model(start)
    domains = workload.domains(end)
    if mod and mod.get("mode") == "OSI" and not domains:
        # A CPU could not join its domain after OSI mode was set: the
        # firmware keeps OSI (leaving it needs every other core off), the
        # CPUs use their own states, and no node above them is asked for.
        said = any("using the CPUs' idle states only, without PM domains" in x for x in lines)
        nodes = [n for n, v in mod["nodes"].items() if v["level"] > 0]
        asked = [n for n in nodes if workload.node_entries(mod, n) >
                 workload.node_entries(mod_before or mod, n)]
        out.append((said and not asked and not mod.get("mode_refused"),
                    f"OS-initiated mode without PM domains{'' if said else ' (the kernel did not say so)'}: "
                    f"no node above the cores entered a state ({', '.join(asked) or 'none'} did)"))
        return out, "OSI without domains"
    if mod and mod.get("mode") == "OSI":
        said = any("topology using OSI mode" in x for x in lines)
        nodes = [n for n, v in mod["nodes"].items() if v["level"] > 0
                 and workload.declared(mod, n) != set()]
        grew = [n for n in nodes if mod_before and workload.node_down(start, end, n)[0]]
        missing = [n for n in nodes if n.rsplit("/", 1)[-1] not in domains]
        out.append((said and nodes and len(grew) == len(nodes) and not missing
                    and not mod.get("mode_refused"),
                    f"OS-initiated mode{'' if said else ' (the kernel did not say so)'}: "
                    f"every node above the cores entered a state ({len(grew)} of "
                    f"{len(nodes)}; without a PM domain: {', '.join(missing) or 'none'})"))
        return out, "OSI"
    if mod and mod.get("mode") == "PC":
        out.append((not domains, f"platform-coordinated mode, no PM domain left "
                                 f"({len(domains)} registered)"))
        return out, "PC"
    out.append((False, "the firmware model's mode is known (OSI or PC)"))
    return out, None


def one(topo, initcall, n, args, initrd, usual=frozenset()):
    """Boot @topo failing allocation @n of @initcall (0: none, count
    them), or with --recheck read that boot's console of an earlier run,
    and judge it: (ok, name, diagnostics, calls, the console's lines)."""
    label = f"{topo.name}-{initcall}-{n}"
    log = os.path.join(args.out, f"{label}.log")
    dtb = os.path.join(args.out, f"{label}.dtb")
    try:
        if args.recheck:
            rc = None
        else:
            scope = INITCALLS[initcall]
            cmdline = ["idle_workload.short", "failslab_ignore_gfp_reclaim=0",
                       f"fail_initcall={initcall},{n or COUNT}" + (f",{scope}" if scope else "")]
            try:
                b = boot.topology_boot(topo, args.kernel, dtb, initrd, kunit=False,
                                       cmdline=cmdline, base=machine.MACHINES[args.machine])
            except (topology.TopologyError, boot.BootError) as err:
                return False, f"{label}: boots", str(err).splitlines(), None, []
            rc = boot.run(b.argv, log, TIMEOUT)
        return judge(label, initcall, n, log, dtb, rc, usual)
    except Exception:  # a result for every boot: the plan holds
        return (False, f"{initcall}: allocation {n}", traceback.format_exc().splitlines(),
                None, [])


def judge(label, initcall, n, log, dtb, rc, usual):
    """one()'s verdict on the console @log of the boot of tree @dtb."""
    lines = workload.read(log)
    checks = [(any("idle-workload: done" in x for x in lines),
               "the short workload ran to its end ("
               + ("an earlier run's console" if rc is None else f"QEMU exited {rc}") + ")")]
    failed, calls, site, message = fault(lines, initcall, n, usual)
    states = dt_states(dtb)
    if isinstance(states, str):
        checks.append((False, f"the device tree gives each CPU's states: {states}"))
        states = None
    idle, ended = idle_checks(lines, states)
    if n:
        checks.append((failed, f"allocation {n} failed"))
        checks.append((bool(site), f"the fault's stack trace names its callers: {site or 'none'}"))
        # Nothing to name when the boot ended as the one that failed
        # nothing: OSI, the full hierarchy (a caller that could do
        # without the allocation lost nothing).
        whole = ended == "OSI" and all(c for c, _ in idle)
        checks.append((message or whole,
                       f"a line names the failure: {message}" if message else
                       "nothing lost, nothing to name: OS-initiated mode, the full hierarchy"
                       if whole else "a line names the failure: none"))
    else:
        checks.append((calls is not None, f"no allocation failed, {calls} made"))
    with SCAN:  # kunit_parser redirects sys.stdout while it reads
        clean, what, reports = scan(label, log, [KMEMLEAK_SCAN])
    checks.append((clean, what))
    checks += idle
    ok = all(c for c, _ in checks)
    name = (f"{initcall}: allocation {n}{f' at {site}' if site else ''}" if n else
            f"{initcall}: {calls} allocations, none failed")
    diag = [f"{'ok' if c else 'not ok'}: {w}" for c, w in checks]
    diag += [f"  {x}" for r in reports for x in r[2]]
    return ok, name.replace("#", "no."), diag + [f"console: {log}"], calls, lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernel", help="the kernel's build directory, e.g. build/kunit-arm64-debug "
                    "(needed unless --recheck)")
    ap.add_argument("--out", required=True, help="where the consoles and trees go")
    ap.add_argument("--recheck", action="store_true",
                    help="boot nothing: judge the consoles and trees in OUT of an earlier run")
    ap.add_argument("--machine", default="debug", choices=sorted(machine.MACHINES),
                    help="the base machine (harness/machine.py; default debug)")
    ap.add_argument("--jobs", type=int, default=1, help="boots at a time (default 1)")
    ap.add_argument("--initcall", action="append", choices=INITCALLS,
                    help="the initcall to fail in (default: both)")
    ap.add_argument("--only", action="append", type=int, default=[],
                    help="fail only allocation N, repeatable (default: each; the counting "
                    "boot always runs, --only 0 runs only it)")
    ap.add_argument("topologies", nargs="+", metavar="TOPOLOGY")
    args = ap.parse_args()
    initrd = None
    if not args.recheck:
        if not args.kernel:
            die("--kernel is needed (or --recheck)")
        with open(os.path.join(args.kernel, ".config")) as f:
            if "CONFIG_FAIL_INITCALL=y\n" not in f.read():
                die(f"{args.kernel} has no CONFIG_FAIL_INITCALL: build the debug kernel")
        os.makedirs(args.out, exist_ok=True)
        initrd = boot.build_guest(os.path.join(args.out, "guest"))
    try:
        topos = [topology.find(t, kernel_base(args.kernel) if args.kernel else None)
                 for t in args.topologies]
    except topology.TopologyError as err:
        die(str(err))
    initcalls = args.initcall or list(INITCALLS)
    t = Ktap(len(topos) * len(initcalls))
    for topo in topos:
        for initcall in initcalls:
            first = one(topo, initcall, 0, args, initrd)
            calls = first[3] or 0
            usual = frozenset(strip_time(x).strip() for x in first[4])
            todo = [n for n in range(1, calls + 1) if not args.only or n in args.only]
            note(f"{topo.name}, {initcall}: {calls} allocations; "
                 f"{'judging' if args.recheck else 'booting'} {len(todo)}")
            scope = f" within {INITCALLS[initcall]}" if INITCALLS[initcall] else ""
            with t.subtest(f"{topo.name}: {initcall}{scope}", 1 + len(todo)) as sub:
                sub.result(*first[:3])
                with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
                    for ok, name, diag, *_ in pool.map(
                            lambda n: one(topo, initcall, n, args, initrd, usual), todo):
                        sub.result(ok, name, diag)
    return t.status()


if __name__ == "__main__":
    sys.exit(main())

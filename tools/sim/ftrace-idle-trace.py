#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Turn an ftrace text trace of a topology boot into an idle trace for
tools/sim/governor-sim.py (the format of docs/simulator.md).

    ftrace-idle-trace.py TOPOLOGY.dtb FTRACE [OUT.trace]
    ftrace-idle-trace.py --check FIXTURE   (KTAP, as make test runs it)

A fixture (kunit/sim/ftrace.fixture) holds
a "deepest N" line (the CPUs' deepest idle state index), ftrace lines, and
"# expect: idle ..." lines: the converter's idle lines must be those.

The domains and their states come from the DTB the boot ran on (its PSCI
power domains with domain-idle-states: entry, exit latency and minimum
residency, read by harness.dtidle from the PSCI node that holds the
domains), the CPUs' idle periods from these events:

  power:cpu_idle            idle entry (state=N) and exit (state=4294967295)
  timer:hrtimer_start,      the hrtimers armed on each CPU: at idle entry
  timer:hrtimer_cancel,     the earliest of them is the CPU's next timer,
  timer:hrtimer_expire_entry  what cpuidle stores in next_hrtimer
  irq:irq_handler_entry     the first interrupt on a CPU after its idle
                            exit says what woke it: arch_timer (timer), IPI
                            (ipi), anything else (irq)
  ipi:ipi_raise             when the IPI that woke a CPU was sent, and
                            its kind, from the reason arm64 gives: a
                            queued call ("Function call interrupts"), a
                            reschedule request ("Rescheduling
                            interrupts") or another kind

The trace must use trace_clock=mono, so that event times and hrtimer
expiry times are on the same clock: the converter checks that
hrtimer_expire_entry's now= matches the event's time. Only the periods a
CPU spent in its deepest idle state, the one that lets its PM domains go
down (cpuidle-psci's last state: index = the CPU's number of
cpu-idle-states in the DTB, WFI being 0), are written: in a shallower one
the CPU keeps its domains on, which the simulator takes as running.
Assumptions, counted on stderr:
- an hrtimer belongs to the CPU that armed it (a timer armed for another
  CPU is missed); timers far beyond CLOCK_MONOTONIC (REALTIME) are
  ignored, BOOTTIME ones are taken as MONOTONIC (they differ by the time
  spent suspended);
- a CPU's periods are written only once its tick (tick_sched_timer) has
  been seen armed or run: hrtimers armed before the trace started are
  unknown, and the tick, which idle entry re-arms at the CPU's next
  event, bounds them; periods that a timer interrupt ended more than
  50 us before the recorded timer (a timer the trace did not see) are
  counted;
- a timer wakeup delivered as an IPI (a broadcast timer, on boards whose
  idle states stop the local timer) is written as an IPI;
- the IPIs in flight to a CPU that an IPI woke are those raised for it
  since its last IPI was handled, one per kind, at the first raise of
  that kind;
- a CPU that woke with no interrupt before its next idle entry is written
  as woken by an IRQ;
- a CPU still idle when the trace stops has that period closed at the
  trace's last event, as if a timer had ended it there;
- logical CPU numbers follow the DTB's /cpus in reg order, as in QEMU's
  virt machine.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
from harness import dtidle, ktap  # noqa: E402

EXIT = 4294967295
EVENT = re.compile(r"^\s*.*?\[(\d+)\]\s+\S+\s+(\d+\.\d+):\s+(\w+):\s*(.*)$")
FIELD = re.compile(r"(\w+)=(\S+)")
# Expiry times beyond this (ns) are not CLOCK_MONOTONIC (a REALTIME timer).
MONO_MAX_NS = 10 ** 15
NO_TIMER_US = 10 ** 9
# The reasons of arm64's IPIs (arch/arm64/kernel/smp.c) that both the
# series' and mainline's peeks see (a queued call), or only the series'.
IPI_KINDS = {
    "Function call interrupts": "call",
    "Single function call interrupts": "call",
    "Rescheduling interrupts": "resched",
}


def die(msg):
    sys.exit(f"ftrace-idle-trace.py: {msg}")


def domains(dtb):
    """[(name, [cpu...], [(state, entry_us, exit_us, residency_us)])] of
    the DTB's PSCI power domains that have idle states, and each CPU's
    deepest idle state index. A topology boot's DTB has QEMU's /psci and
    the grafted /firmware/psci: the domains are those of the one that
    holds them, which Linux's PSCI domain driver probes."""
    try:
        board = dtidle.Board(dtb)
        _, cpus = dtidle.extract(board, with_domains=True)
    except dtidle.Refused as err:
        die(f"{dtb}: {err}")
    deepest = {i: len(states) for i, (_, states, _) in enumerate(cpus)}
    found = {}
    for index, (_, _, chain) in enumerate(cpus):
        for pd, _ in chain:
            found.setdefault(pd.path, (pd, set()))[1].add(index)
    out, names = [], set()
    for path, (pd, members) in found.items():
        states = []
        for st in board.phandles(pd, "domain-idle-states"):
            nums = []
            for prop in ("entry-latency-us", "exit-latency-us",
                         "min-residency-us"):
                cells = st.cells(prop)
                if not cells:
                    die(f"{dtb}: {st.path}: no {prop}")
                nums.append(cells[0])
            states.append((st.name.split("@")[0], *nums))
        if states:
            states.sort(key=lambda s: s[3])
            name = re.sub(r"[^A-Za-z0-9_-]", "-", pd.name)
            while name in names:
                name += "_"
            names.add(name)
            out.append((name, sorted(members), states))
    if not out:
        die(f"{dtb}: no PSCI power domain has domain-idle-states")
    return out, deepest


def cpus_of(text):
    return [i for i in range(len(text) * 4) if int(text, 16) >> i & 1]


def convert(lines, deepest):
    """Idle periods (cpu, start, end, timer, wake, sent) in us, and
    counts of what was assumed."""
    armed = {}                  # hrtimer -> (cpu, expires ns)
    entry = {}                  # cpu -> (time us, state, next timer us)
    woke = {}                   # cpu -> period waiting for its interrupt
    unserved = {}               # cpu -> first IPI raised since the last served
    seen = set()                # CPUs whose tick was seen armed or run
    skew = []                   # hrtimer_expire_entry now= - event time, us
    periods = []
    counts = dict(events=0, other_clock=0, no_irq=0, unseen=0, early_timer=0,
                  migrated=0, open=0)
    last = 0.0
    started_on = {}             # hrtimer -> CPU that armed it
    for line in lines:
        m = EVENT.match(line)
        if not m:
            continue
        cpu, t, name, rest = int(m.group(1)), float(m.group(2)) * 1e6, \
            m.group(3), m.group(4)
        last = t
        f = dict(FIELD.findall(rest))
        counts["events"] += 1
        if name == "hrtimer_start":
            if f.get("function") == "tick_sched_timer":
                seen.add(cpu)
            started_on[f["hrtimer"]] = cpu
            exp = int(f["expires"])
            if exp > MONO_MAX_NS:
                counts["other_clock"] += 1
                armed.pop(f["hrtimer"], None)
            else:
                armed[f["hrtimer"]] = (cpu, exp)
        elif name in ("hrtimer_cancel", "hrtimer_expire_entry"):
            armed.pop(f["hrtimer"], None)
            if name == "hrtimer_expire_entry":
                if f.get("function") == "tick_sched_timer":
                    seen.add(cpu)
                if started_on.get(f["hrtimer"], cpu) != cpu:
                    counts["migrated"] += 1
                skew.append(int(f["now"]) / 1000 - t)
        elif name == "ipi_raise":
            mask = re.match(r"target_mask=([0-9a-f,]+) \((.*)\)", rest)
            if mask:
                kind = IPI_KINDS.get(mask.group(2), "other")
                for c in cpus_of(mask.group(1).replace(",", "")):
                    unserved.setdefault(c, {}).setdefault(kind, t)
        elif name == "cpu_idle":
            c, state = int(f["cpu_id"]), int(f["state"])
            if state != EXIT:
                p = woke.pop(c, None)
                if p:
                    counts["no_irq"] += 1
                    periods.append(p + ("irq", None))
                if c not in seen:
                    counts["unseen"] += 1
                    continue
                mine = [e for k, e in armed.values() if k == c]
                timer = min(mine) / 1000 if mine else t + NO_TIMER_US
                entry[c] = (t, state, timer)
            elif c in entry:
                start, state, timer = entry.pop(c)
                woke[c] = (c, start, t, timer, state)
        elif name == "irq_handler_entry" and cpu in woke:
            p = woke.pop(cpu)
            irq = f.get("name", "")
            if irq == "arch_timer":
                if p[2] < p[3] - 50:
                    counts["early_timer"] += 1
                periods.append(p + ("timer", None))
            elif irq == "IPI":
                periods.append(p + ("ipi", ipi_in_flight(unserved.pop(cpu, None),
                                                         p[2])))
            else:
                periods.append(p + ("irq", None))
        elif name == "irq_handler_entry" and f.get("name") == "IPI":
            unserved.pop(cpu, None)
    for p in woke.values():
        counts["no_irq"] += 1
        periods.append(p + ("irq", None))
    # Still idle when the trace stops: closed at its last event, as if a
    # timer had ended them there (how long they went on is unknown).
    for c, (start, state, timer) in entry.items():
        counts["open"] += 1
        periods.append((c, start, last, min(timer, last), state, "timer",
                        None))
    if skew:
        skew.sort()
        mid = skew[len(skew) // 2]
        if abs(mid) > 1000:
            die(f"hrtimer expiry times and event times differ by {mid:.0f} us: "
                "the trace was not taken with trace_clock=mono")
    out = [(c, s, e, tm, w, sent) for c, s, e, tm, st, w, sent in periods
           if st == deepest.get(c)]
    counts["periods"], counts["deepest"] = len(periods), len(out)
    return sorted(out, key=lambda p: (p[1], p[0])), counts


def write(out, title, doms, periods):
    out.write(f"# governor-sim trace v1: recorded, {title}\n")
    for name, members, states in doms:
        out.write(f"domain {name} {','.join(map(str, members))} "
                  + " ".join(f"{s}:{e}:{x}:{r}" for s, e, x, r in states)
                  + "\n")
    for line in idle_lines(periods):
        out.write(line + "\n")


def ipi_in_flight(raised, end):
    """The IPIs @raised for a CPU since it last served one ({kind: first
    raise} or None) up to @end, when it left idle: [(first raise, kind)]
    in the order they were sent."""
    if raised is None:
        return None
    return sorted((t, k) for k, t in raised.items() if t <= end) or None


def idle_lines(periods):
    for c, s, e, tm, wake, sent in periods:
        if wake == "ipi" and sent is not None:
            wake = "ipi:" + ",".join(f"{t:.3f}:{k}" for t, k in sent)
        elif wake == "ipi":
            wake = "irq"
        yield f"idle {c} {s:.3f} {e:.3f} {tm:.3f} {wake}"


def check(path):
    """KTAP: the idle lines converted from @path's ftrace lines against
    its "# expect: idle" lines; returns the exit status."""
    deepest, lines, want = {}, [], []
    for line in open(path):
        if line.startswith("# expect: "):
            want.append(line[len("# expect: "):].strip())
        elif line.startswith("deepest "):
            n = int(line.split()[1])
            deepest = {c: n for c in range(64)}
        elif not line.startswith(("#", "domain ")):
            lines.append(line)
    periods, _ = convert(lines, deepest)
    got = list(idle_lines(periods))
    results = []
    for n, w in enumerate(want):
        line = got[n] if n < len(got) else "nothing"
        results.append((line == w, w, [] if line == w else [f"got {line}"]))
    ok = len(got) == len(want)
    results.append((ok, "no other idle line",
                    [] if ok else [f"{len(got)} idle lines, {len(want)} expected"]))
    return ktap.buffered(results)


def main():
    parser = argparse.ArgumentParser(
        usage="%(prog)s TOPOLOGY.dtb FTRACE [OUT.trace]\n"
              "       %(prog)s --check FIXTURE",
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", metavar="FIXTURE",
                        help="check the converter against a fixture (KTAP)")
    parser.add_argument("dtb", nargs="?", metavar="TOPOLOGY.dtb",
                        help="the DTB the boot ran on")
    parser.add_argument("ftrace", nargs="?", metavar="FTRACE",
                        help="the boot's ftrace text trace")
    parser.add_argument("out", nargs="?", metavar="OUT.trace",
                        help="the idle trace to write (default: stdout)")
    args = parser.parse_args()
    if args.check is not None:
        if args.dtb is not None:
            parser.error("--check takes no other argument")
        sys.exit(check(args.check))
    if args.ftrace is None:
        parser.error("TOPOLOGY.dtb and FTRACE are required")
    dtb, ftrace = args.dtb, args.ftrace
    doms, deepest = domains(dtb)
    try:
        lines = open(ftrace, errors="replace").read().splitlines()
    except OSError as err:
        die(f"cannot read {ftrace}: {err}")
    ncpus = next((int(m.group(1)) for m in map(
        re.compile(r"#.*#P:(\d+)").match, lines[:10]) if m), None)
    if ncpus is not None and ncpus != len(deepest):
        die(f"{ftrace} has {ncpus} CPUs, {dtb} {len(deepest)}: not the "
            "DTB the trace was taken on")
    if not any("trace_clock=mono" in l or "cpu_idle" in l for l in lines):
        die(f"{ftrace}: no cpu_idle event")
    periods, counts = convert(lines, deepest)
    if not periods:
        die(f"{ftrace}: no idle period in a CPU's deepest state")
    try:
        out = open(args.out, "w") if args.out is not None else sys.stdout
    except OSError as err:
        die(f"cannot write {args.out}: {err}")
    write(out, f"{os.path.basename(ftrace)} on {os.path.basename(dtb)}",
          doms, periods)
    print(f"ftrace-idle-trace.py: {counts['events']} events, "
          f"{counts['periods']} idle periods, {counts['deepest']} in the "
          f"CPUs' deepest state written; {counts['unseen']} idle entries "
          f"dropped before their CPU was seen with an hrtimer; "
          f"{counts['no_irq']} without an interrupt after them (written as "
          f"irq); {counts['open']} still open at the end, closed there; "
          f"{counts['early_timer']} ended by a timer interrupt over "
          f"50 us before their recorded timer; {counts['migrated']} hrtimers "
          f"run on another CPU than the one that armed them; "
          f"{counts['other_clock']} hrtimers on other clocks ignored",
          file=sys.stderr)


if __name__ == "__main__":
    main()

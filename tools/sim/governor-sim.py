#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Replay per-CPU idle traces through the CPU PM domain governor's decision
and compare each policy with the oracle.

The decision is the kernel's own, extracted from the tree (--tree, default
build/linux) and compiled into shared objects, then called for every
domain idle period. On 6.1 (drivers/base/power/domain_governor.c),
genpd_cpu_pick_state() and the "learn" policy's genpd_cpu_predict_idle()
and genpd_cpu_learn_period(), with tools/sim/pick-shim.c:

  timers   6.1's policy: the time to the earliest next timer of the
           domain's CPUs, as they recorded it on idle entry;
  pending  the same, and the domain stays on if one of its CPUs was sent
           an IPI that has not arrived yet, a queued call or a reschedule
           request (genpd.cpu_policy=pending; modelled here);
  learn    "pending", with the timers' forecast shortened by the rate of
           recent periods cut short, as the kernel learns it from the
           periods it has seen (genpd.cpu_policy=learn);
  informed a reference, not a kernel policy: "pending" with the forecast
           (1 - exp(-lambda T)) / lambda, where lambda is the rate of
           periods cut short over the whole trace, known in advance. For
           wakeups that come at random (Poisson) no policy that does not
           know when they come does better on average;
  oracle   the true length of the period, known afterwards: the deepest
           state that fits it and the latency limit.

On 7.3 (drivers/pmdomain/governor.c) the whole cpu_power_down_ok() and
the wakeup checks it calls, with tools/sim/power-down-shim.c, which hands
them each CPU's pending calls and reschedule requests: "timers",
"pending", "informed" and "oracle" as above, from the series' code under
its genpd.cpu_policy switch, and

  ipi      mainline's governor: cpu_power_down_ok() of the tree's
           pristine base, whose peek sees queued calls only.

A domain idle period starts when the last CPU of the domain goes idle and
ends when the first of them wakes up. Energy follows the model of
docs/simulator.md: staying on costs 1 per unit of time; state i costs its
transition, lat_i = off + on latency, at power 1, plus P_i over the period,
with P_i set so that state i breaks even with the next shallower one where
the kernel's rule starts to choose it, T_i = residency_i + off_i
(P_i = P_{i-1} - (lat_i - lat_{i-1}) / T_i, P_-1 = 1, lat_-1 = 0): the
oracle's choice is then also the cheapest. The IPIs in flight come from
the IPI that ended each CPU's idle period; genpd's rule that a domain is
considered only while its subdomains are off in their deepest states is
modelled here.

Traces are text (docs/simulator.md has the format): recorded ones are
given as files; --synthetic writes and replays the synthetic families
with a fixed seed. Usage:

  governor-sim.py [--tree DIR] [--out DIR] [--seed N] [--synthetic] [TRACE...]
  governor-sim.py --check TRACE... (KTAP against each TRACE's
      "# expect: [DOMAIN] POLICY KEY VALUE" lines; KEY: periods, too_deep,
      too_shallow, entries, violations, blocked, energy_pct, latency_us)
"""
import argparse
import bisect
import ctypes
import heapq
import math
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
from harness import BUILD, TOP, TREE, ktap  # noqa: E402

S64_MAX = (1 << 63) - 1
IPI_KINDS = ("call", "resched", "other")


def die(msg):
    sys.exit(f"governor-sim.py: {msg}")


# --- the kernel's decision -------------------------------------------------

def extract(path, start_re, end_re, text=None, optional=False):
    """The lines of @path (or of @text, read from @path) from the first
    match of @start_re to the next line matching @end_re, inclusive; ""
    when nothing matches and @optional."""
    try:
        lines = (open(path).read() if text is None else text).splitlines()
    except OSError as err:
        die(f"cannot read {path}: {err} (run make tree first)")
    for i, line in enumerate(lines):
        if re.match(start_re, line):
            for j in range(i, len(lines)):
                if re.match(end_re, lines[j]):
                    return "\n".join(lines[i:j + 1]) + "\n"
    if optional:
        return ""
    die(f"{path}: nothing matches {start_re!r}")


def compile_shim(out, shim, incs, name, defines=()):
    """Write the extracted @incs ({file name: text}) into @out and build
    tools/sim/@shim with them into @out/@name; return the library."""
    os.makedirs(out, exist_ok=True)
    so = os.path.join(out, name)
    stamp = os.path.getmtime(so) if os.path.exists(so) else -1
    src = os.path.join(TOP, "tools/sim", shim)
    inc_dir = os.path.join(out, name + ".inc.d")
    os.makedirs(inc_dir, exist_ok=True)
    stale = stamp < max(os.path.getmtime(src), os.path.getmtime(
        os.path.join(TOP, "tools/sim/sim-states.h")))
    for fname, text in incs.items():
        text = "/* Extracted by governor-sim.py: do not edit. */\n" + text
        inc = os.path.join(inc_dir, fname)
        if not os.path.exists(inc) or open(inc).read() != text:
            with open(inc, "w") as f:
                f.write(text)
        stale = stale or stamp < os.path.getmtime(inc)
    if stale:
        cmd = (["cc", "-O2", "-Wall", "-Werror", "-shared", "-fPIC",
                "-I", inc_dir] + [f"-D{d}" for d in defines]
               + ["-o", so, src])
        if subprocess.run(cmd).returncode:
            die("the kernel's decision does not build in user space: "
                + " ".join(cmd))
    return ctypes.CDLL(so)


class PickKernel:
    """6.1 and the series on it: genpd_cpu_pick_state(), the decision
    of cpu_power_down_ok(), and the "learn" policy's forecast and history,
    compiled with tools/sim/pick-shim.c. "pending" is modelled here: the
    domain stays on when a CPU of it has a queued call or a reschedule
    request, as cpu_wakeup_pending() sees them."""

    policies = ("timers", "pending", "learn", "informed", "oracle")

    def __init__(self, tree, out):
        header = os.path.join(tree, "include/linux/pm_domain.h")
        gov = os.path.join(tree, "drivers/base/power/domain_governor.c")
        text = (extract(header, r"^struct genpd_power_state \{", r"^\};")
                + extract(header, r"^struct genpd_cpu_history \{", r"^\};")
                + extract(gov, r"^VISIBLE_IF_KUNIT int genpd_cpu_pick_state\(",
                          r"^\}")
                + extract(gov, r"^#define GENPD_HISTORY_DECAY",
                          r"^#define GENPD_HISTORY_MAX_NS")
                + extract(gov, r"^VISIBLE_IF_KUNIT s64 genpd_cpu_predict_idle\(",
                          r"^\}")
                + extract(gov, r"^VISIBLE_IF_KUNIT void genpd_cpu_learn_period\(",
                          r"^\}"))
        lib = compile_shim(out, "pick-shim.c", {"kernel-pick.inc": text},
                           "pick.so")
        arr = ctypes.POINTER(ctypes.c_int64)
        lib.sim_pick.argtypes = [ctypes.c_int, arr, arr, arr, ctypes.c_int,
                                 ctypes.c_int64, ctypes.c_int64]
        lib.sim_pick.restype = ctypes.c_int
        lib.sim_predict.argtypes = [ctypes.c_uint64, ctypes.c_uint32,
                                    ctypes.c_int64]
        lib.sim_predict.restype = ctypes.c_int64
        lib.sim_learn.argtypes = [ctypes.POINTER(ctypes.c_uint64),
                                  ctypes.POINTER(ctypes.c_uint32),
                                  ctypes.c_int64, ctypes.c_int64]
        lib.sim_learn.restype = None
        self._pick = lib.sim_pick
        self._predict, self._learn = lib.sim_predict, lib.sim_learn

    def new_history(self):
        return [ctypes.c_uint64(0), ctypes.c_uint32(0)]

    def pick(self, d, idle_ns, limit_ns):
        i = self._pick(len(d.states), d.off, d.on, d.res, len(d.states) - 1,
                       int(idle_ns), int(limit_ns))
        if i < -1:
            die(f"domain {d.name}: the shim refused its states")
        return i

    def choose(self, d, pol, t, true, limit, kinds, hist, mean):
        """The state @pol picks for a period of length @true whose timers
        are @t away, while the CPUs of @kinds ({index in the domain: set
        of kinds}) have IPIs of those kinds in flight; -1: stays on."""
        if pol == "timers":
            return self.pick(d, t, limit)
        if ({"call", "resched"} & set().union(*kinds.values())
                or self.pick(d, t, limit) < 0):
            return -1
        if pol == "pending":
            return self.pick(d, t, limit)
        if pol == "informed":
            return self.pick(d, mean, limit)
        # learn: as the kernel does, forecast, choose, then learn the
        # period from its true length (even if it stays on).
        i = self.pick(d, self._predict(hist[0], hist[1], int(t)), limit)
        self._learn(ctypes.byref(hist[0]), ctypes.byref(hist[1]), int(t),
                    int(true))
        return i


class PowerDownKernel:
    """7.3 and mainline: the whole cpu_power_down_ok(), with the wakeup
    checks it calls, compiled with tools/sim/power-down-shim.c, from the
    tree's files (the series, with its policy switch) and from its
    pristine base, git's "base" (mainline's governor, whose peek sees
    queued calls only):

      timers   the series' cpu_power_down_ok() under genpd.cpu_policy=timers
      ipi      the base's cpu_power_down_ok(): mainline's governor
      pending  the series' under genpd.cpu_policy=pending
      informed the series' under "pending", with the forecast of
               PickKernel's "informed" for the CPUs' timers
      oracle   the series' under "timers", with the true length"""

    policies = ("timers", "ipi", "pending", "informed", "oracle")
    GOV = "drivers/pmdomain/governor.c"

    def __init__(self, tree, out):
        self.libs = {}
        for rev in ("HEAD", "base"):
            files = {}
            for path in ("include/linux/pm_domain.h", self.GOV,
                         "kernel/smp.c"):
                if rev == "HEAD":
                    try:
                        files[path] = open(os.path.join(tree, path)).read()
                    except OSError as err:
                        die(f"cannot read {err.filename}: {err.strerror}")
                    continue
                r = subprocess.run(["git", "-C", tree, "show",
                                    f"{rev}:{path}"],
                                   capture_output=True, text=True)
                if r.returncode:
                    die(f"{tree}: no {rev}:{path}: {r.stderr.strip()}")
                files[path] = r.stdout

            def cut(path, start, end, optional=False):
                return extract(f"{tree} {rev}:{path}", start, end,
                               files[path], optional)
            types = (cut("include/linux/pm_domain.h",
                         r"^struct genpd_governor_data \{", r"^\};")
                     + cut("include/linux/pm_domain.h",
                           r"^struct genpd_power_state \{", r"^\};"))
            policy = cut(self.GOV, r"^#ifdef CONFIG_PM_GENPD_CPU_POLICY",
                         r"^#endif", optional=True)
            code = (cut("kernel/smp.c",
                        r"^bool cpus_peek_for_pending_ipi\(", r"^\}")
                    + cut(self.GOV,
                          r"^static bool genpd_cpus_wakeup_pending\(",
                          r"^\}", optional=True)
                    + policy
                    + cut(self.GOV, r"^static bool cpu_power_down_ok\(",
                          r"^\}"))
            if rev == "HEAD" and not policy:
                die(f"{tree}: the series has no genpd.cpu_policy switch "
                    "(CONFIG_PM_GENPD_CPU_POLICY) to simulate its policies")
            if rev == "base" and (policy or "genpd_cpus_wakeup_pending"
                                  in files[self.GOV]):
                die(f"{tree}: its base's governor has the series' wakeup "
                    "check: base is not the pristine tree")
            lib = compile_shim(
                os.path.join(out, rev), "power-down-shim.c",
                {"kernel-power-down-types.inc": types,
                 "kernel-power-down.inc": code}, "power-down.so",
                ["CONFIG_PM_GENPD_CPU_POLICY", "SIM_HAS_POLICY"]
                if policy else [])
            arr = ctypes.POINTER(ctypes.c_int64)
            iarr = ctypes.POINTER(ctypes.c_int)
            lib.sim_power_down.argtypes = [ctypes.c_int, arr, arr, arr,
                                           ctypes.c_int, arr, iarr, iarr,
                                           ctypes.c_int64]
            lib.sim_power_down.restype = ctypes.c_int
            lib.sim_set_policy.argtypes = [ctypes.c_char_p]
            lib.sim_set_policy.restype = ctypes.c_int
            self.libs[rev] = lib

    def new_history(self):
        return None

    def decide(self, rev, policy, d, t, limit, kinds):
        lib = self.libs[rev]
        if policy and lib.sim_set_policy(policy.encode()):
            die(f"{rev}: the series refused genpd.cpu_policy={policy}")
        n = len(d.cpus)
        flags = [ctypes.c_int * n, ctypes.c_int * n]
        call = flags[0](*["call" in kinds.get(k, ()) for k in range(n)])
        resched = flags[1](*["resched" in kinds.get(k, ()) for k in range(n)])
        timers = (ctypes.c_int64 * n)(*[int(t)] * n)
        i = lib.sim_power_down(len(d.states), d.off, d.on, d.res, n, timers,
                               call, resched, int(limit))
        if i < -1:
            die(f"domain {d.name}: the shim refused its states or CPUs")
        return i

    def pick(self, d, idle_ns, limit_ns):
        return self.decide("HEAD", "timers", d, idle_ns, limit_ns, {})

    def choose(self, d, pol, t, true, limit, kinds, hist, mean):
        if pol == "timers":
            return self.decide("HEAD", "timers", d, t, limit, kinds)
        if pol == "ipi":
            return self.decide("base", None, d, t, limit, kinds)
        if pol == "pending":
            return self.decide("HEAD", "pending", d, t, limit, kinds)
        if self.decide("HEAD", "pending", d, t, limit, kinds) < 0:
            return -1
        return self.decide("HEAD", "pending", d, mean, limit, kinds)


def build_decision(tree, out):
    """The kernel's decision as the tree holds it."""
    if os.path.exists(os.path.join(tree, "drivers/base/power/domain_governor.c")):
        return PickKernel(tree, out)
    if os.path.exists(os.path.join(tree, PowerDownKernel.GOV)):
        return PowerDownKernel(tree, out)
    die(f"{tree}: no CPU PM domain governor (run make tree first)")


class Domain:
    def __init__(self, name, cpus, states):
        self.name, self.cpus, self.states = name, cpus, states
        n = len(states)
        vec = ctypes.c_int64 * n
        self.off = vec(*[s[1] for s in states])
        self.on = vec(*[s[2] for s in states])
        self.res = vec(*[s[3] for s in states])
        # Energy model: the power of each state, from its break-even at
        # the length from which the kernel's rule lets it fit.
        self.lat = [s[1] + s[2] for s in states]
        self.power = []
        prev_p, prev_lat = 1.0, 0
        for (sname, off, on, res), lat in zip(states, self.lat):
            even = res + off
            p = prev_p - (lat - prev_lat) / even if even else prev_p
            if p < 0:
                die(f"domain {name}: state {sname} breaks even with a "
                    f"negative power ({p:.3f}): residency too short for "
                    f"its latencies")
            self.power.append(p)
            prev_p, prev_lat = p, lat

    def energy(self, i, t):
        """Energy of a period of length @t in state @i (-1: stays on)."""
        if i < 0:
            return float(t)
        return self.lat[i] + self.power[i] * t


# --- traces ----------------------------------------------------------------

def parse_cpus(text):
    cpus = set()
    for part in text.split(","):
        a, _, b = part.partition("-")
        cpus.update(range(int(a), int(b or a) + 1))
    return sorted(cpus)


def number(text, what):
    """@text as a float, or a ValueError that says which field it was."""
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{what} {text!r} is not a number") from None


def fields(f, n, form):
    """Stop unless record @f has @n fields; @form is its form."""
    if len(f) != n:
        raise ValueError(f"{f[0]} takes {n - 1} fields ({form}), not {len(f) - 1}")


def read_trace(path):
    """Domains, latency limit and per-CPU idle periods of a trace file."""
    domains, idles, limit = [], [], S64_MAX
    last_end = {}
    for n, line in enumerate(open(path), 1):
        f = line.split("#")[0].split()
        if not f:
            continue
        try:
            if f[0] == "domain":
                if len(f) < 4:
                    raise ValueError("domain takes NAME CPUS STATE... "
                                     "(STATE: name:entry:exit:residency)")
                states = []
                for s in f[3:]:
                    parts = s.split(":")
                    if len(parts) != 4:
                        raise ValueError(f"state {s!r} is not "
                                         "name:entry:exit:residency")
                    name, off, on, res = parts
                    states.append((name, int(number(off, "entry latency") * 1000),
                                   int(number(on, "exit latency") * 1000),
                                   int(number(res, "residency") * 1000)))
                domains.append((f[1], parse_cpus(f[2]), states))
            elif f[0] == "latency_limit_us":
                fields(f, 2, "N")
                limit = int(number(f[1], "latency limit") * 1000)
                if limit < 0:
                    raise ValueError("the latency limit is negative")
            elif f[0] == "idle":
                fields(f, 6, "CPU START END TIMER WAKE")
                cpu = int(number(f[1], "CPU"))
                start, end, timer = (number(f[2], "start"),
                                     number(f[3], "end"),
                                     number(f[4], "timer"))
                if end < start:
                    raise ValueError("the period ends before it starts")
                if start < last_end.get(cpu, start):
                    raise ValueError(f"CPU {cpu} is still idle until "
                                     f"{last_end[cpu]} us")
                last_end[cpu] = end
                wake, colon, sent = f[5].partition(":")
                if wake not in ("timer", "irq", "ipi"):
                    raise ValueError(f"wake {wake!r} is not timer, irq or ipi")
                if wake == "ipi" and not sent:
                    raise ValueError("ipi needs the time its IPI was sent "
                                     "(ipi:SENT[:KIND])")
                if wake != "ipi" and colon:
                    raise ValueError("only an ipi wake has a send time")
                ipis = []
                for item in sent.split(",") if sent else []:
                    when, _, kind = item.partition(":")
                    if kind and kind not in IPI_KINDS:
                        raise ValueError(f"IPI kind {kind!r} is not one of "
                                         + ", ".join(IPI_KINDS))
                    when = number(when, "IPI send time")
                    if when > end:
                        raise ValueError(f"an IPI sent at {when} us, after "
                                         "the period it ended")
                    ipis.append((int(when * 1000), kind or "call"))
                idles.append((cpu, int(start * 1000), int(end * 1000),
                              int(timer * 1000), wake, ipis))
            else:
                raise ValueError(f"unknown record {f[0]!r}")
        except (ValueError, IndexError) as err:
            die(f"{path}:{n}: {err}: {line.strip()}")
    if not domains:
        die(f"{path}: no domain")
    known = set().union(*(set(cpus) for _, cpus, _ in domains))
    stray = sorted({p[0] for p in idles} - known)
    if stray:
        die(f"{path}: CPU {', '.join(map(str, stray))} in no domain")
    return domains, limit, idles


def domain_periods(cpus, idles):
    """The domain's idle periods: (start, end, earliest timer, in flight),
    in flight: {index of the CPU in @cpus: kinds of the IPIs sent to it
    before the period started}."""
    mine = [p for p in idles if p[0] in cpus]
    ev = []
    for k, p in enumerate(mine):
        ev.append((p[1], 1, k))
        ev.append((p[2], 0, k))
    ev.sort()
    current, out, start = {}, [], None
    for t, kind, k in ev:
        p = mine[k]
        if kind == 1:
            current[p[0]] = p
            if len(current) == len(cpus):
                start = t
        else:
            if start is not None and len(current) == len(cpus):
                timer = min(q[3] for q in current.values())
                order = sorted(cpus)
                pending = {}
                for q in current.values():
                    kinds = {k for sent, k in q[5] if sent <= start}
                    if kinds:
                        pending[order.index(q[0])] = kinds
                out.append((start, t, timer, pending))
                start = None
            current.pop(p[0], None)
    return out


def cut_short_rate(periods):
    """Periods that ended before their timer, per ns spent in periods."""
    time = sum(end - start for start, end, _, _ in periods)
    early = sum(1 for start, end, timer, _ in periods if end < timer)
    return early / time if time else 0.0


def simulate(path, kernel):
    domains, limit, idles = read_trace(path)
    # Subdomains first: as in genpd_power_off(), a domain is considered
    # only while each of its subdomains (the largest domains of the trace
    # strictly inside it) is off in its deepest state; else it stays on,
    # and under "learn" nothing is learned.
    order = sorted(range(len(domains)), key=lambda k: len(domains[k][1]))
    done, rows = [], {}
    for k in order:
        name, cpus, states = domains[k]
        d = Domain(name, cpus, states)
        cpuset = set(cpus)
        inner = [c for c in done if c["cpus"] < cpuset]
        children = [c for c in inner
                    if not any(c["cpus"] < o["cpus"] for o in inner)]
        periods = domain_periods(cpuset, idles)
        rate = cut_short_rate(periods)
        hist = kernel.new_history()
        res = {}
        for pol in kernel.policies:
            res[pol] = dict(energy=0.0, deep=0, shallow=0, latency=0,
                            violations=0, entries=0, periods=len(periods),
                            blocked=0)
        record = dict(cpus=cpuset, deepest=len(states) - 1, starts=[],
                      choices=[])
        for start, end, timer, pending in periods:
            true = end - start
            t = timer - start
            mean = (1 - math.exp(-rate * t)) / rate if rate else t
            choice = {}
            for pol in kernel.policies:
                if not all(child_choice(c, start, pol) == c["deepest"]
                           for c in children):
                    choice[pol] = None
                elif pol == "oracle":
                    choice[pol] = kernel.pick(d, true, limit)
                else:
                    choice[pol] = kernel.choose(d, pol, t, true, limit,
                                                pending, hist, mean)
            best = choice["oracle"] if choice["oracle"] is not None else -1
            record["starts"].append(start)
            record["choices"].append(choice)
            for pol, i in choice.items():
                r = res[pol]
                r["blocked"] += i is None
                if i is None:
                    i = choice[pol] = -1
                r["energy"] += d.energy(i, true)
                # Too deep or shallow against the oracle's own choice.
                if i > best:
                    r["deep"] += 1
                elif i < best:
                    r["shallow"] += 1
                if i >= 0:
                    r["entries"] += 1
                    added = states[i][2] + max(0, states[i][1] - true)
                    r["latency"] += added
                    if added > limit:
                        r["violations"] += 1
        done.append(record)
        rows[k] = (os.path.basename(path), name, res)
    return [rows[k] for k in range(len(domains))]


def child_choice(child, start, pol):
    """The state @child was in under @pol at time @start: its choice for
    its idle period that covers @start (all its CPUs are idle then, so
    one does), or -1."""
    j = bisect.bisect_right(child["starts"], start) - 1
    return child["choices"][j][pol] if j >= 0 else -1


# --- synthetic families ----------------------------------------------------

FAMILIES = {
    # name: (timer period range in us, IRQs per second, IPI probability,
    #        share of the IPIs that are reschedule requests, the others
    #        being queued calls)
    "periodic": ((2000, 20000), 0, 0.0, 0.0),
    "poisson-irq": ((20000, 100000), 400, 0.0, 0.0),
    "bursty-ipi": ((20000, 100000), 0, 0.5, 0.0),
    "mix": ((4000, 50000), 200, 0.3, 0.0),
    "bursty-resched": ((20000, 100000), 0, 0.5, 1.0),
    "mix-kinds": ((4000, 50000), 200, 0.3, 0.5),
}
TOPOLOGY = [
    ("cluster0", "0-3", "ret:50:50:500 off:300:500:3000"),
    ("cluster1", "4-7", "ret:50:50:500 off:300:500:3000"),
    ("system", "0-7", "off:1000:1500:10000"),
]


def synthesize(family, seed, path, seconds=2.0, ncpus=8, cluster=4):
    """Write a trace of @family: each CPU runs for an exponential time
    (mean 100 us) after each wakeup, then idles until its next periodic
    timer, an IRQ (Poisson, random CPU), or an IPI (sent, with the
    family's probability, to another CPU of its cluster while it runs,
    arriving 5 us later; a reschedule request with the family's share,
    else a queued call)."""
    (pmin, pmax), irq_rate, ipi_p, resched_p = FAMILIES[family]
    rnd = random.Random(seed)
    end_ns = int(seconds * 1e9)
    period = [rnd.randint(pmin, pmax) * 1000 for _ in range(ncpus)]
    phase = [rnd.randrange(period[c]) for c in range(ncpus)]
    irqs = [[] for _ in range(ncpus)]
    t = 0.0
    while irq_rate:
        t += rnd.expovariate(irq_rate) * 1e9
        if t >= end_ns:
            break
        irqs[rnd.randrange(ncpus)].append(int(t))

    def next_timer(c, t):
        k = (t - phase[c]) // period[c] + 1
        return phase[c] + k * period[c]

    idle_since = [None] * ncpus
    timer_at = [0] * ncpus
    wake_gen = [0] * ncpus
    wake_at = [None] * ncpus
    ipis = [[] for _ in range(ncpus)]   # (arrival, sent, kind) not served
    heap, out = [], []
    for c in range(ncpus):
        heapq.heappush(heap, (int(rnd.expovariate(1 / 100e3)), 1, c, 0, None))
    while heap:
        t, kind, c, gen, extra = heapq.heappop(heap)
        if t >= end_ns:
            break
        if kind == 1:                       # goes idle
            ipis[c] = [x for x in ipis[c] if x[0] > t]
            j = bisect.bisect_right(irqs[c], t)
            cand = [(next_timer(c, t), "timer", None)]
            if j < len(irqs[c]):
                cand.append((irqs[c][j], "irq", None))
            cand += [(a, "ipi", (s, k)) for a, s, k in ipis[c]]
            w = min(cand)
            idle_since[c], timer_at[c] = t, cand[0][0]
            wake_gen[c] += 1
            wake_at[c] = w
            heapq.heappush(heap, (w[0], 0, c, wake_gen[c], w))
        elif kind == 0:                     # wakes up
            if gen != wake_gen[c] or idle_since[c] is None:
                continue
            _, why, sent = extra
            out.append((c, idle_since[c], t, timer_at[c], why, sent))
            if why == "ipi":
                ipis[c] = [x for x in ipis[c] if x[0] != t]
            idle_since[c] = None
            busy = int(rnd.expovariate(1 / 100e3)) + 1000
            heapq.heappush(heap, (t + busy, 1, c, 0, None))
            if rnd.random() < ipi_p:
                base = c - c % cluster
                dst = base + rnd.choice([k for k in range(cluster)
                                         if base + k != c])
                send = t + int(rnd.random() * busy)
                ipi_kind = ("resched"
                            if resched_p and rnd.random() < resched_p
                            else "call")
                heapq.heappush(heap, (send, 2, dst, 0, ipi_kind))
        else:                               # an IPI is sent to c
            arrival = t + 5000
            ipis[c].append((arrival, t, extra))
            if idle_since[c] is not None and arrival < wake_at[c][0]:
                wake_gen[c] += 1
                wake_at[c] = (arrival, "ipi", (t, extra))
                heapq.heappush(heap, (arrival, 0, c, wake_gen[c],
                                      wake_at[c]))
    with open(path, "w") as f:
        f.write(f"# governor-sim trace v1: synthetic family {family}, "
                f"seed {seed}, {seconds} s, {ncpus} CPUs\n")
        for name, cpus, states in TOPOLOGY:
            f.write(f"domain {name} {cpus} {states}\n")
        for c, s, e, tm, why, sent in sorted(out, key=lambda p: (p[1], p[0])):
            wake = (f"ipi:{sent[0] / 1000:.3f}:{sent[1]}" if why == "ipi"
                    else why)
            f.write(f"idle {c} {s / 1000:.3f} {e / 1000:.3f} "
                    f"{tm / 1000:.3f} {wake}\n")


# --- report ----------------------------------------------------------------

def report(rows, kernel):
    if "ipi" in kernel.policies:
        print("Policies: timers, pending and informed run the series' "
              "cpu_power_down_ok(); ipi runs mainline's (the tree's base); "
              "oracle knows each period's length.\n")
    print("| trace | domain | periods | policy | energy vs oracle "
          "| gap closed | too deep | too shallow | entries "
          "| added latency, mean us | limit violations "
          "| kept on by a subdomain |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for trace, dom, res in rows:
        best = res["oracle"]["energy"] or 1.0
        gap = res["timers"]["energy"] - res["oracle"]["energy"]
        for pol in res:
            r = res[pol]
            mean = r["latency"] / r["entries"] / 1000 if r["entries"] else 0
            closed = (f"{100 * (res['timers']['energy'] - r['energy']) / gap:.0f} %"
                      if gap > 1e-6 * best else "-")
            print(f"| {trace} | {dom} | {r['periods']} | {pol} "
                  f"| {100 * r['energy'] / best:.2f} % | {closed} | {r['deep']} "
                  f"| {r['shallow']} | {r['entries']} | {mean:.1f} "
                  f"| {r['violations']} | {r['blocked']} |")


def check(paths, kernel):
    """KTAP: the figures of each trace of @paths against its
    "# expect: [DOMAIN] POLICY KEY VALUE" lines (energy_pct and latency_us
    to 0.01; DOMAIN may be left out in a trace of one domain)."""
    cases = []
    for path in paths:
        rows = simulate(path, kernel)
        got = {}
        for trace, dom, res in rows:
            best = res["oracle"]["energy"] or 1.0
            for pol, r in res.items():
                for key, value in (
                        ("periods", r["periods"]), ("too_deep", r["deep"]),
                        ("too_shallow", r["shallow"]),
                        ("entries", r["entries"]),
                        ("violations", r["violations"]),
                        ("blocked", r["blocked"]),
                        ("energy_pct", round(100 * r["energy"] / best, 2)),
                        ("latency_us", round(r["latency"] / r["entries"] / 1000, 1)
                         if r["entries"] else 0)):
                    got[(dom, pol, key)] = value
        expect = [line.split()[2:] for line in open(path)
                  if line.startswith("# expect: ")]
        if not expect:
            die(f"{path}: no expect line")
        for e in expect:
            if len(e) == 3 and len(rows) == 1:
                e = [rows[0][1]] + e
            if len(e) != 4:
                die(f"{path}: expect line {' '.join(e)}: name the domain")
            cases.append((os.path.basename(path), *e, got.get(tuple(e[:3]))))
    results = []
    for trace, dom, pol, key, want, value in cases:
        ok = value is not None and abs(value - float(want)) < 0.011
        results.append((ok, f"{trace} {dom} {pol} {key} {want}",
                        [] if ok else [f"{trace}: {dom} {pol} {key}: got "
                                       f"{value}, want {want}"]))
    return ktap.buffered(results)


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", default=TREE,
                    help="the generated kernel tree: 6.1's or 7.3's (default build/linux)")
    ap.add_argument("--out", default=os.path.join(BUILD, "sim"),
                    help="where the decision's objects and the synthetic traces go "
                    "(default build/sim)")
    ap.add_argument("--seed", type=int, default=1,
                    help="the synthetic families' seed (default 1)")
    ap.add_argument("--synthetic", action="store_true",
                    help="write and replay the synthetic families")
    ap.add_argument("--check", metavar="TRACE", nargs="+",
                    help="KTAP: each TRACE's figures against its expect lines")
    ap.add_argument("traces", nargs="*", metavar="TRACE",
                    help="trace files to replay (format: docs/simulator.md)")
    args = ap.parse_args()
    kernel = build_decision(args.tree, args.out)
    if args.check:
        sys.exit(check(args.check, kernel))
    traces = list(args.traces)
    if args.synthetic:
        for fam in FAMILIES:
            path = os.path.join(args.out, f"{fam}.trace")
            synthesize(fam, args.seed, path)
            traces.append(path)
    if not traces:
        die("no trace: give files or --synthetic")
    rows = []
    for path in traces:
        rows += simulate(path, kernel)
    report(rows, kernel)


if __name__ == "__main__":
    main()

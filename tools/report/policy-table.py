#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Compare CPU governor policies from repeated topology boots.

    policy-table.py DIR...

Each DIR holds the boot logs of one policy (TOPOLOGY-N.log, as
tools/boot/compare-policies.sh leaves them). For each topology, policy and phase
of the guest workload, it prints the firmware model's domain-state requests
(level 1 and up), and per 1000 of them the firmware denials, genpd's above
and below counts and the entries, with the spread over the boots:
mean [min-max]. The phases run between the workload's dumps:

    boot     up to "start": the kernel's boot, with its KUnit suites
    steady   "start" to "before hotplug": idle, periodic timers, bursts
    hotplug  "before hotplug" to "before s2idle": one CPU, one cluster,
             then a 10 s storm of CPU hotplug
    s2idle   "before s2idle" to "end": suspend-to-idle (2 s, longer if retried)
"""
import argparse
import os
import re
import sys
from statistics import mean

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
from harness import workload  # noqa: E402

PHASES = [("boot", None, "start"),
          ("steady", "start", "before hotplug"),
          ("hotplug", "before hotplug", "before s2idle"),
          ("s2idle", "before s2idle", "end")]


def counts(dump):
    """Cumulative counts of one dump: domain requests, denials, entries,
    genpd above and below."""
    m = workload.model(dump)
    if m is None:
        return None
    dom = [r for r in m["requests"] if r["level"] >= 1]
    rows = [r for rs in workload.domains(dump).values() for r in rs]
    return {"requests": sum(r["accepted"] + r["denied"] + r["invalid"] for r in dom),
            "denied": sum(r["denied"] for r in dom),
            "entries": sum(r["accepted"] for r in dom),
            "above": sum(r[4] for r in rows),
            "below": sum(r[5] for r in rows)}


def boot(path):
    """{phase: counts in that phase} of one boot log, and its policy."""
    log = workload.read(path)
    dumps = {when: workload.files(lines) for when, lines in workload.sections(log).items()}
    policy = dumps.get("start", {}).get("/sys/module/genpd/parameters/cpu_policy",
                                        ["timers"])[0].strip()
    out = {}
    for phase, a, b in PHASES:
        cb = counts(dumps.get(b, {}))
        ca = counts(dumps.get(a, {})) if a else dict.fromkeys(cb or {}, 0)
        if ca and cb:
            out[phase] = {k: cb[k] - ca[k] for k in ca}
    return policy, out


def spread(values, fmt="%.1f"):
    if not values:
        return "-"
    return (fmt + " [" + fmt + "-" + fmt + "]") % (mean(values), min(values), max(values))


def per_mille(c, key):
    return 1000.0 * c[key] / c["requests"] if c["requests"] else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+", metavar="DIR", help="the boot logs of one policy")
    args = ap.parse_args()
    runs = {}   # (topology, policy) -> [boot phases]
    for d in args.dirs:
        for name in sorted(os.listdir(d)):
            m = re.match(r"(.+)-(\d+)\.log$", name)
            if not m:
                continue
            policy, phases = boot(os.path.join(d, name))
            if phases:
                runs.setdefault((m.group(1), policy), []).append(phases)
    if not runs:
        sys.exit("policy-table.py: no boot log with the workload's dumps in "
                 + " ".join(args.dirs))
    print("%-16s %-8s %-8s %5s %22s %22s %22s %22s %22s" % (
        "topology", "policy", "phase", "boots", "domain requests",
        "denied per 1000", "above per 1000", "below per 1000", "entries"))
    for (topo, policy), boots in sorted(runs.items()):
        for phase, _, _ in PHASES:
            cs = [b[phase] for b in boots if phase in b]
            if not cs:
                continue
            print("%-16s %-8s %-8s %5d %22s %22s %22s %22s %22s" % (
                topo, policy, phase, len(cs),
                spread([c["requests"] for c in cs], "%.0f"),
                spread([per_mille(c, "denied") for c in cs]),
                spread([per_mille(c, "above") for c in cs]),
                spread([per_mille(c, "below") for c in cs]),
                spread([c["entries"] for c in cs], "%.0f")))


if __name__ == "__main__":
    main()

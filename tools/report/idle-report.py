#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Read the console log of a boot with tools/guest/idle-workload.c as init
and print a readable report of it (the default: the modes, the firmware
model's requests and states, genpd's and cpuidle's statistics, and the
checks of harness/workload.py), the checks as KTAP (--ktap), or the
checks that failed (--failed). Exits 1 when a check fails.

    idle-report.py [--ktap | --failed] CONSOLE.log
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
from harness import die, ktap  # noqa: E402
from harness.workload import (cpuidle, domains, files, judge, model,  # noqa: E402
                              read)

def report(log, dumps, res):
    end = files(dumps.get("end", []))
    print("== Topology and mode")
    for line in log:
        if re.search(r"firmware model: |OSI mode supported|CPU PM domain topology"
                     r"|CPUidle PSCI: |psci_checker: .*(passed|error)", line):
            print("  " + line)
    mod = model(end)
    if mod:
        print("\n== Firmware model (PSCI, %s mode, %s power_state format)"
              % (mod["mode"], mod["format"]))
        print(f"  suspend requests {mod['suspends']}, denied {mod['denied']}, "
              f"invalid {mod['invalid']}")
        print(f"  cores turned on {mod.get('cpu_ons')}, denied while a core was "
              f"booting {mod.get('denied_booting')} (caused by "
              f"{mod.get('booting_blockers')} of them); longest "
              f"run of a core behind another denial: {mod.get('window_us')} us")
        print(f"  denied over a child node's state {mod.get('denied_child_state')}; "
              f"denied with no race to explain it: {mod.get('denied_unexplained')}")
        print(f"  invalid over a child node's state {mod.get('invalid_child_state')}; "
              f"of them with no race to explain it: {mod.get('invalid_unexplained')}")
        print(f"  last denied: {mod['last denied']}")
        print(f"  last invalid: {mod['last invalid']}")
        print("  %-40s %5s %10s %14s" % ("node", "state", "entries", "residency_ms"))
        for (node, state), (entries, res_us) in sorted(
                mod["states"].items(), key=lambda kv: (-mod["nodes"][kv[0][0]]["level"], kv[0])):
            kind = "retention" if state < 4 else "powerdown"
            print("  %-40s %2d %-9s %7d %14.1f" % (node, state, kind, entries, res_us / 1000))
    policy = end.get("/sys/module/genpd/parameters/cpu_policy", ["timers (6.1)"])
    print("\n== PM domains (genpd): usage, residency, above/below; "
          f"CPU governor policy: {policy[0].strip()}")
    print("  %-24s %-5s %10s %8s %8s %8s %8s" % ("domain", "state", "time_ms", "usage",
                                               "rejected", "above", "below"))
    for dom, rows in sorted(domains(end).items()):
        for r in rows:
            print("  %-24s %-5s %10d %8d %8d %8d %8d" % ((dom,) + r))
    print("\n== CPU idle states (cpuidle): usage, rejected, residency")
    print("  %-4s %-16s %8s %8s %12s %7s %7s" % ("cpu", "state", "usage", "rejected",
                                              "time_ms", "above", "below"))
    for (cpu, st), s in sorted(cpuidle(end).items()):
        print("  %-4d %-16s %8d %8d %12.1f %7d %7d" % (
            cpu, s.get("name", "?"), s.get("usage", 0), s.get("rejected", 0),
            s.get("time", 0) / 1000, s.get("above", 0), s.get("below", 0)))
    print("\n== Checks")
    for ok, what in res:
        print(("  ok      " if ok else "  FAILED  ") + what)
    failed = sum(not ok for ok, _ in res)
    print(f"\n{'FAIL' if failed else 'PASS'}: {len(res) - failed} of {len(res)} checks passed")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("log", help="the console log of a boot with the idle workload")
    how = ap.add_mutually_exclusive_group()
    how.add_argument("--ktap", action="store_true", help="the checks as KTAP")
    how.add_argument("--failed", action="store_true",
                     help="only the checks that failed, one a line")
    args = ap.parse_args()
    try:
        log = read(args.log)
    except OSError as err:
        die(f"cannot read {args.log}: {err.strerror}")
    dumps, res = judge(log)
    if args.ktap:
        return ktap.buffered([(ok, what, []) for ok, what in res])
    if args.failed:
        for ok, what in res:
            if not ok:
                print(what)
    else:
        report(log, dumps, res)
    return 0 if all(ok for ok, _ in res) else 1


if __name__ == "__main__":
    sys.exit(main())


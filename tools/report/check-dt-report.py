#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Print the report of `make check-dt`: a board's idle topology booted in
QEMU with the firmware model and the workload.

    check-dt-report.py BOARD.dtb TOPOLOGY.dtsi BOOT.log BOOT.ktap

Sections: what was changed in the tree to boot it; the requests Linux made
per domain and state (value, accepted, denied, invalid) with the model's
reasons; the states reached (genpd, cpuidle, the model); the checks of the
boot; and a one-line verdict. Exits 1 when a check failed.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
from harness import fdt, kunit, topology, workload  # noqa: E402


def tree_states(dtb, dtsi):
    """{power_state: [idle state node names]} of the board's DTB, and the
    header's lines of its extracted topology."""
    states = {}
    for node in fdt.walk(fdt.Tree(dtb).root):
        param = node.cells("arm,psci-suspend-param")
        if param:
            states.setdefault(param[0], []).append(node.name)
    topo = topology.Topology(dtsi)
    return states, [(k, v) for k, v in topo.header if k in ("changed", "note", "cpus")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dtb", help="the board's DTB")
    ap.add_argument("dtsi", help="its idle topology, extracted")
    ap.add_argument("log", help="the boot's console")
    ap.add_argument("ktap", help="the boot's checks (tools/boot/topologies.py)")
    args = ap.parse_args()
    dtb, dtsi, log_path, ktap = args.dtb, args.dtsi, args.log, args.ktap
    states, header = tree_states(dtb, dtsi)
    try:
        log = workload.read(log_path)
    except OSError:
        log = []    # no boot: the checks say why (the graft failed)
    dumps = workload.sections(log)
    end = workload.files(dumps.get("end", []))
    mod = workload.model(end)
    cpus = next((v for k, v in header if k == "cpus"), "?")

    print(f"== check-dt: {os.path.basename(dtb)}, {cpus} CPUs "
          f"(topology: {os.path.relpath(dtsi)}, log: {os.path.relpath(log_path)})")
    print("\n== What was changed to boot it in QEMU")
    for kind, text in header:
        if kind != "cpus":
            print(f"  {kind}: {text}")

    print("\n== Modes")
    for line in log:
        if re.search(r"firmware model: |OSI mode supported|CPU PM domain topology", line):
            print("  " + line)

    if mod:
        print("\n== Requests Linux made, per domain and state (firmware model)")
        print("  %-28s %-34s %10s %8s %8s" % ("node", "state (power_state)", "accepted",
                                            "denied", "invalid"))
        rows = {}
        for r in mod["requests"]:
            node = r["node"]
            who = "CPUs" if node.startswith("/cpus/cpu@") else node.rsplit("/", 1)[-1]
            value = int(r["value"], 16)
            key = (who, value)
            row = rows.setdefault(key, {"accepted": 0, "denied": 0, "invalid": 0,
                                        "cpus": []})
            for k in ("accepted", "denied", "invalid"):
                row[k] += r[k]
            if who == "CPUs":
                row["cpus"].append(node.rsplit("@", 1)[-1])
        for (who, value), row in sorted(rows.items(), key=lambda kv: (kv[0][0] == "CPUs", kv[0])):
            names = "/".join(states.get(value, ["(composed)"]))
            if row["cpus"]:
                who = f"CPUs {','.join(row['cpus'])}"
            print("  %-28s %-34s %10d %8d %8d" % (who, f"{names} ({value:#010x})",
                                                row["accepted"], row["denied"], row["invalid"]))
        print(f"  requests the tree does not declare: {mod.get('undeclared', 0)} "
              f"(accepted {mod.get('undeclared_accepted', 0)})")
        print(f"  in all: {mod['suspends']} requests, {mod['denied']} denied, "
              f"{mod['invalid']} invalid")
        print(f"  last denied: {mod['last denied']}")
        print(f"  last invalid: {mod['last invalid']}")

        print("\n== States reached (firmware model: entries, residency)")
        for (node, state), (entries, res_us) in sorted(
                mod["states"].items(), key=lambda kv: (-mod["nodes"][kv[0][0]]["level"], kv[0])):
            kind = "retention" if state < 4 else "powerdown"
            print("  %-40s %2d %-9s %8d %12.1f ms" % (node, state, kind, entries, res_us / 1000))
    print("\n== PM domains (genpd): state, time_ms, usage, rejected, above, below")
    for dom, rows in sorted(workload.domains(end).items()):
        for r in rows:
            print("  %-24s %-5s %10d %8d %8d %8d %8d" % ((dom,) + r))

    # The boot's checks, as the kernel's KTAP parser reads them.
    with open(ktap, errors="replace") as f:
        test = kunit.parse(f.read().splitlines())
    results = [(t.status.name in ("SUCCESS", "SKIPPED"), t.name)
               for _, t in kunit.leaves(test)]
    print("\n== Checks")
    for ok, what in results:
        print(("  ok      " if ok else "  FAILED  ") + what)

    failed = [what for ok, what in results if not ok]
    name = os.path.basename(dtb)
    if not log:
        verdict = f"FAIL {name}: no boot" + (f" ({failed[0]})" if failed else "")
    elif not results:
        verdict = f"FAIL {name}: the boot produced no check"
    elif failed:
        verdict = f"FAIL {name}: {len(failed)} of {len(results)} checks failed, first: {failed[0]}"
    else:
        entered = sum(1 for (n, s) in (mod or {}).get("states", {}) if
                      mod["nodes"][n]["level"] > 0)
        verdict = (f"PASS {name}: {len(results)} checks; {mod.get('mode', '?')} mode, "
                   f"{entered} domain states "
                   f"entered in the firmware, {mod['invalid']} invalid and {mod['denied']} "
                   f"denied of {mod['suspends']} requests" if mod else
                   f"PASS {name}: {len(results)} checks")
    print("\n" + verdict)
    return 1 if failed or not results or not log else 0


if __name__ == "__main__":
    sys.exit(main())

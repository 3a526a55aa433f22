#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Extract a board's CPU idle topology from its DTB and write it as a
topology source that tools/graft-topology.sh grafts onto QEMU's tree.

    dt-idle-topology.py BOARD.dtb OUT.dtsi

What is taken: the CPUs of /cpus (in `reg` order, mapped onto QEMU's
cpu@0, cpu@1...), their `cpu-idle-states`, their PSCI power domain (the
`power-domains` entry named "psci", or the only one) and the domains above
it, and every domain's `domain-idle-states`. The idle states keep their
names and their PSCI and timing properties. What is changed to fit QEMU is
listed in the output's header ("changed:" lines) and printed.

A tree that has no PSCI power domains, or whose topology is malformed (a
phandle to nothing, a cycle, a state without arm,psci-suspend-param, more
CPUs than the test kernel boots), is refused with a message that names the
node; the exit status is then 2.
"""
import os
import re
import subprocess
import sys

MAX_CPUS = 8
STATE_PROPS = ("compatible", "idle-state-name", "arm,psci-suspend-param",
               "entry-latency-us", "exit-latency-us", "min-residency-us",
               "wakeup-latency-us", "status")


class Refused(Exception):
    """The tree cannot be checked; the message names the node."""


class Node:
    def __init__(self, name, parent):
        self.name, self.parent = name, parent
        self.props, self.children = {}, []

    @property
    def path(self):
        if self.parent is None:
            return "/"
        up = self.parent.path
        return (up if up != "/" else "") + "/" + self.name

    def cells(self, prop):
        """A property's cells, or None when it has none."""
        value = self.props.get(prop)
        if value is None:
            return None
        out = []
        for kind, item in value:
            if kind != "cells":
                raise Refused(f"{self.path}: {prop} is not a list of cells")
            out += item
        return out

    def strings(self, prop):
        """A string list: dtc writes "a", "b" from a DTB as "a\\0b"."""
        out = []
        for kind, item in self.props.get(prop, []):
            if kind == "string":
                out += item.split("\\0")
        return out

    def disabled(self):
        status = self.strings("status")
        return bool(status) and status[0] not in ("okay", "ok")


def parse_value(text, where):
    """dtc's canonical value: <cells>, "strings" and [bytes], comma-separated."""
    items, i = [], 0
    while i < len(text):
        c = text[i]
        if c in " ,\t":
            i += 1
        elif c == "<":
            j = text.index(">", i)
            items.append(("cells", [int(x, 0) for x in text[i + 1:j].split()]))
            i = j + 1
        elif c == '"':
            j, s = i + 1, ""
            while text[j] != '"':
                if text[j] == "\\":
                    s += text[j:j + 2]
                    j += 2
                else:
                    s += text[j]
                    j += 1
            items.append(("string", s))
            i = j + 1
        elif c == "[":
            j = text.index("]", i)
            items.append(("bytes", text[i + 1:j].split()))
            i = j + 1
        else:
            raise Refused(f"{where}: cannot read the value {text!r}")
    return items


def load(dtb):
    """The tree of a DTB, through dtc's canonical source output."""
    try:
        src = subprocess.run(["dtc", "-q", "-I", "dtb", "-O", "dts", dtb],
                             check=True, capture_output=True, text=True).stdout
    except subprocess.CalledProcessError as e:
        raise Refused(f"dtc cannot read it as a DTB: {e.stderr.strip()}")
    root, node = None, None
    for line in src.splitlines():
        line = line.strip()
        if not line or line.startswith(("/dts-v1/", "/memreserve/")):
            continue
        if line.endswith("{"):
            name = line[:-1].strip().split(":")[-1].strip()
            child = Node(name, node)
            if node is None:
                root = child
            else:
                node.children.append(child)
            node = child
        elif line == "};":
            node = node.parent
        else:
            m = re.match(r"([^=;\s]+)\s*(?:=\s*(.*))?;$", line)
            if not m or node is None:
                raise Refused(f"cannot read dtc's line {line!r}")
            node.props[m.group(1)] = (parse_value(m.group(2), f"{node.path}: {m.group(1)}")
                                      if m.group(2) is not None else [])
    if root is None:
        raise Refused("the DTB has no root node")
    return root


def walk(node):
    yield node
    for c in node.children:
        yield from walk(c)


class Board:
    def __init__(self, dtb):
        self.dtb = dtb
        self.root = load(dtb)
        self.by_phandle = {}
        for n in walk(self.root):
            for prop in ("phandle", "linux,phandle"):
                cells = n.cells(prop)
                if cells:
                    self.by_phandle[cells[0]] = n

    def deref(self, node, prop, phandle):
        target = self.by_phandle.get(phandle)
        if target is None:
            raise Refused(f"{node.path}: {prop} names phandle {phandle:#x}, which no node has")
        return target

    def phandles(self, node, prop):
        return [self.deref(node, prop, p) for p in node.cells(prop) or []]

    def power_domains(self, node):
        """[(provider, args)] of @node's power-domains, parsed with each
        provider's #power-domain-cells."""
        cells, out = node.cells("power-domains") or [], []
        while cells:
            provider = self.deref(node, "power-domains", cells[0])
            n = provider.cells("#power-domain-cells")
            if n is None or len(n) != 1:
                raise Refused(f"{node.path}: power-domains names {provider.path}, "
                              "which has no #power-domain-cells of one cell")
            if len(cells) < 1 + n[0]:
                raise Refused(f"{node.path}: power-domains is shorter than "
                              f"{provider.path}'s #power-domain-cells ({n[0]})")
            out.append((provider, cells[1:1 + n[0]]))
            cells = cells[1 + n[0]:]
        return out


def psci_node(board):
    for n in walk(board.root):
        if any(c.startswith("arm,psci") for c in n.strings("compatible")):
            return n
    raise Refused("no PSCI node (compatible \"arm,psci...\"): the tree has no "
                  "PSCI idle topology to check")


def under(node, ancestor):
    while node is not None:
        if node is ancestor:
            return True
        node = node.parent
    return False


def label(prefix, name, taken):
    base = prefix + re.sub(r"[^A-Za-z0-9]", "_", name).upper()
    out, k = base, 1
    while out in taken:
        k += 1
        out = f"{base}_{k}"
    taken.add(out)
    return out


def extract(board):
    """CPUs in reg order with their states and PSCI domain chains."""
    cpus_node = next((c for c in board.root.children if c.name == "cpus"), None)
    if cpus_node is None:
        raise Refused("no /cpus node")
    cpus = [c for c in cpus_node.children if c.strings("device_type") == ["cpu"]]
    if not cpus:
        raise Refused("/cpus: no CPU node (device_type = \"cpu\")")
    if len(cpus) > MAX_CPUS:
        raise Refused(f"/cpus: {len(cpus)} CPUs; the test kernel and QEMU boot "
                      f"at most {MAX_CPUS}")
    for c in cpus:
        if c.cells("reg") is None:
            raise Refused(f"{c.path}: no reg")
    cpus.sort(key=lambda c: c.cells("reg"))
    psci = psci_node(board)
    out = []
    for cpu in cpus:
        states = board.phandles(cpu, "cpu-idle-states")
        pds = board.power_domains(cpu)
        # As Linux (dev_pm_domain_attach_by_name(dev, "psci")) and the
        # model: the entry named "psci"; without names, the only entry.
        names = cpu.strings("power-domain-names")
        if names:
            pds = ([pds[names.index("psci")]]
                   if "psci" in names and names.index("psci") < len(pds) else [])
        elif len(pds) > 1:
            pds = []
        chain = []
        if pds and under(pds[0][0], psci):
            pd, args = pds[0]
            while pd is not None:
                if any(pd is p for p, _ in chain):
                    raise Refused(f"{cpu.path}: its power domains form a cycle at {pd.path}")
                if not under(pd, psci):
                    raise Refused(f"{chain[-1][0].path}: its parent {pd.path} is not a "
                                  f"PSCI power domain (below {psci.path})")
                if pd.parent is not psci:
                    raise Refused(f"{pd.path}: a PSCI power domain that is not a child "
                                  f"of {psci.path} (Linux registers only those)")
                chain.append((pd, args))
                parents = board.power_domains(pd)
                if len(parents) > 1:
                    raise Refused(f"{pd.path}: more than one parent power domain")
                pd, args = parents[0] if parents else (None, None)
        out.append((cpu, states, chain))
    if not any(chain for _, _, chain in out):
        raise Refused(f"no CPU of /cpus has a PSCI power domain (power-domains to a "
                      f"node below {psci.path}): the tree describes no hierarchical "
                      "idle topology (platform-coordinated only)")
    missing = [c.path for c, _, chain in out if not chain]
    if missing:
        raise Refused(f"{missing[0]}: no PSCI power domain, while other CPUs have one")
    # The firmware model takes a CPU's own PSCI domain for the core; a
    # domain that several CPUs attach to directly (a cluster without CPU
    # domains, which Linux accepts) is not modelled yet.
    for cpu, _, chain in out:
        shared = [c.name for c, _, ch in out if ch[0][0] is chain[0][0]]
        if len(shared) > 1:
            raise Refused(f"{chain[0][0].path}: the PSCI domain of several CPUs "
                          f"({', '.join(shared)}); the firmware model needs a domain "
                          "of its own for each CPU (a cluster without CPU domains "
                          "is not modelled yet)")
    return psci, out


def state_body(board, st, dropped):
    lines = []
    for prop in STATE_PROPS:
        if prop in st.props:
            lines.append(f"{prop} = {render(st.props[prop])};")
    # A disabled state is skipped by Linux, whatever it lacks.
    if "arm,psci-suspend-param" not in st.props and not st.disabled():
        raise Refused(f"{st.path}: no arm,psci-suspend-param")
    if "local-timer-stop" in st.props:
        dropped.append(st.name)
    return lines


def render(value):
    parts = []
    for kind, item in value:
        if kind == "cells":
            parts.append("<" + " ".join(f"{x:#x}" for x in item) + ">")
        elif kind == "string":
            parts.append(f'"{item}"')
        else:
            parts.append("[" + " ".join(item) + "]")
    return ", ".join(parts)


def convert(dtb):
    board = Board(dtb)
    psci, cpus = extract(board)
    taken, labels = set(), {}
    cpu_states, domain_states, domains = [], [], []

    def state_label(st):
        if id(st) not in labels:
            labels[id(st)] = label("S_", st.name, taken)
            kind = domain_states if "domain-idle-state" in st.strings("compatible") else cpu_states
            kind.append(st)
        return labels[id(st)]

    for cpu, states, chain in cpus:
        for st in states:
            state_label(st)
        for pd, _ in chain:
            if id(pd) not in labels:
                labels[id(pd)] = label("PD_", pd.name, taken)
                domains.append(pd)
                for st in board.phandles(pd, "domain-idle-states"):
                    state_label(st)

    dropped, changed, notes = [], [], []
    body = ["/ {", "\tfirmware {", "\t\tpsci {", '\t\t\tcompatible = "arm,psci-1.0";',
            '\t\t\tmethod = "hvc";']
    for pd in domains:
        body.append("")
        body.append(f"\t\t\t{labels[id(pd)]}: {pd.name} {{")
        body.append(f"\t\t\t\t#power-domain-cells = <{pd.cells('#power-domain-cells')[0]:#x}>;")
        parents = board.power_domains(pd)
        if parents:
            p, args = parents[0]
            cells = " ".join([f"&{labels[id(p)]}"] + [f"{a:#x}" for a in args])
            body.append(f"\t\t\t\tpower-domains = <{cells}>;")
        sts = board.phandles(pd, "domain-idle-states")
        if sts:
            body.append("\t\t\t\tdomain-idle-states = "
                        + ", ".join(f"<&{labels[id(s)]}>" for s in sts) + ";")
        body.append("\t\t\t};")
    body += ["\t\t};", "\t};", "", "\tcpus {"]
    names = set()
    for container, sts in (("idle-states", cpu_states), ("domain-idle-states", domain_states)):
        if not sts:
            continue
        body.append(f"\t\t{container} {{")
        if container == "idle-states":
            body.append('\t\t\tentry-method = "psci";')
        for st in sts:
            name = st.name
            k = 1
            while (container, name) in names:
                k += 1
                name = f"{st.name}-{k}"
            names.add((container, name))
            body.append("")
            body.append(f"\t\t\t{labels[id(st)]}: {name} {{")
            body += ["\t\t\t\t" + line for line in state_body(board, st, dropped)]
            body.append("\t\t\t};")
        body.append("\t\t};")
    body += ["\t};", "};"]
    for i, (cpu, states, chain) in enumerate(cpus):
        body.append("")
        body.append(f"&{{/cpus/cpu@{i}}} {{")
        if states:
            body.append("\tcpu-idle-states = "
                        + ", ".join(f"<&{labels[id(s)]}>" for s in states) + ";")
        pd, args = chain[0]
        cells = " ".join([f"&{labels[id(pd)]}"] + [f"{a:#x}" for a in args])
        body.append(f"\tpower-domains = <{cells}>;")
        body.append('\tpower-domain-names = "psci";')
        body.append("};")

    method = (psci.strings("method") or ["none"])[0]
    compat = ", ".join(psci.strings("compatible"))
    changed.append(f"PSCI node {psci.path} ({compat}, method {method}) becomes "
                   "/firmware/psci (arm,psci-1.0, method hvc, QEMU's conduit)")
    changed.append("CPUs mapped in reg order: " + ", ".join(
        f"{cpu.name} -> cpu@{i}" for i, (cpu, _, _) in enumerate(cpus))
        + "; QEMU's CPU nodes get only cpu-idle-states and the PSCI power-domains")
    disabled = [st.name for st in cpu_states + domain_states if st.disabled()]
    if disabled:
        notes.append(f"status \"disabled\" kept on {', '.join(disabled)}: Linux and "
                     "the model skip them (a domain left without a state is never "
                     "powered down)")
    if dropped:
        changed.append(f"local-timer-stop dropped from {len(dropped)} idle states "
                       f"({', '.join(dropped)}): QEMU's virt machine has no always-on "
                       "broadcast timer and its local timer keeps running")
    model = (board.root.strings("model") or [os.path.basename(dtb)])[0]
    header = ["// SPDX-License-Identifier: GPL-2.0",
              "/*",
              f" * The CPU idle topology of {os.path.basename(dtb)} ({model}),",
              " * extracted by tools/dt-idle-topology.py.",
              " *",
              f" * cpus: {len(cpus)}",
              " * expect: psci: firmware model: OS-initiated mode",
              " * expect: CPUidle PSCI: Initialized CPU PM domain topology using OSI mode"]
    header += [f" * changed: {c}" for c in changed]
    header += [f" * note: {c}" for c in notes]
    header += [" */", ""]
    return "\n".join(header + body) + "\n", changed, notes


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    dtb, out = sys.argv[1:]
    try:
        text, changed, notes = convert(dtb)
    except Refused as e:
        print(f"dt-idle-topology: {dtb}: {e}", file=sys.stderr)
        return 2
    with open(out, "w") as f:
        f.write(text)
    for c in changed:
        print(f"dt-idle-topology: changed: {c}")
    for c in notes:
        print(f"dt-idle-topology: note: {c}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: GPL-2.0
"""A board's CPU idle topology, read from its DTB and written as a
topology source that harness/topology.py grafts onto QEMU's tree (the
extractor of tools/dt/idle-topology.py, which also serves
tools/sim/ftrace-idle-trace.py).

    board = Board("board.dtb")
    psci, cpus = extract(board)         # [(cpu, [state...], [(domain, args)...])]
    text, changed, notes = convert("board.dtb")

What is taken: the CPUs of /cpus (in `reg` order, mapped onto QEMU's
cpu@0, cpu@1...), their `cpu-idle-states`, their PSCI power domain (the
`power-domains` entry named "psci", or the only one) and the domains above
it, and every domain's `domain-idle-states`. The idle states keep their
names and their PSCI and timing properties. What is changed to fit QEMU is
listed in the output's header ("changed:" lines).

A tree that is not a DTB, has no PSCI power domains, or whose topology is
malformed (a phandle to nothing, a cycle, a state without
arm,psci-suspend-param, more CPUs than the test kernel boots) raises
Refused with a message that names the node.
"""
import os
import re
import struct

from harness.fdt import Refused, Tree, is_string_list, walk
from harness.machine import TEST_KERNEL_CPUS

# The properties of an idle state that the output keeps, in its order.
STATE_PROPS = ("compatible", "idle-state-name", "arm,psci-suspend-param",
               "entry-latency-us", "exit-latency-us", "min-residency-us",
               "wakeup-latency-us", "status")


class Board:
    """A DTB's nodes, with the lookups of phandles and power domains."""

    def __init__(self, dtb):
        self.dtb = dtb
        self.tree = Tree(dtb)
        self.root = self.tree.root

    def deref(self, node, prop, phandle):
        target = self.tree.phandle(phandle)
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


def psci_node(board, with_domains=False):
    """The tree's PSCI node: the first one, or with @with_domains the
    first that holds power domains (a child with #power-domain-cells),
    else the first. A topology boot's DTB has two: QEMU's /psci and the
    grafted /firmware/psci, the one Linux's PSCI domain driver probes."""
    nodes = [n for n in walk(board.root)
             if any(c.startswith("arm,psci") for c in n.strings("compatible"))]
    if not nodes:
        raise Refused("no PSCI node (compatible \"arm,psci...\"): the tree has no "
                      "PSCI idle topology to check")
    if with_domains:
        for n in nodes:
            if any(c.cells("#power-domain-cells") is not None for c in n.children):
                return n
    return nodes[0]


def under(node, ancestor):
    """Whether @node is @ancestor or below it."""
    while node is not None:
        if node is ancestor:
            return True
        node = node.parent
    return False


def label(prefix, name, taken):
    """A source label for node @name, not in @taken (which gets it)."""
    base = prefix + re.sub(r"[^A-Za-z0-9]", "_", name).upper()
    out, k = base, 1
    while out in taken:
        k += 1
        out = f"{base}_{k}"
    taken.add(out)
    return out


def extract(board, with_domains=False):
    """The PSCI node and the CPUs in reg order with their states and
    PSCI domain chains: (psci, [(cpu, [state...], [(domain, args)...])]),
    each CPU's chain from its own domain up. The PSCI node whose domains
    count is psci_node(board, @with_domains)."""
    cpus_node = next((c for c in board.root.children if c.name == "cpus"), None)
    if cpus_node is None:
        raise Refused("no /cpus node")
    cpus = [c for c in cpus_node.children if c.strings("device_type") == ["cpu"]]
    if not cpus:
        raise Refused("/cpus: no CPU node (device_type = \"cpu\")")
    if len(cpus) > TEST_KERNEL_CPUS:
        raise Refused(f"/cpus: {len(cpus)} CPUs; the test kernel is built for at most "
                      f"{TEST_KERNEL_CPUS} (CONFIG_NR_CPUS)")
    for c in cpus:
        if c.cells("reg") is None:
            raise Refused(f"{c.path}: no reg")
    cpus.sort(key=lambda c: c.cells("reg"))
    psci = psci_node(board, with_domains)
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
    """The output's lines of idle state @st: its STATE_PROPS. Adds its
    name to @dropped when it has local-timer-stop, which is left out."""
    lines = []
    for prop in STATE_PROPS:
        if prop in st.props:
            value = render(st.props[prop])
            lines.append(f"{prop} = {value};" if value else f"{prop};")
    # A disabled state is skipped by Linux, whatever it lacks.
    if "arm,psci-suspend-param" not in st.props and not st.disabled():
        raise Refused(f"{st.path}: no arm,psci-suspend-param")
    if "local-timer-stop" in st.props:
        dropped.append(st.name)
    return lines


# How dtc writes the characters of a string that need an escape.
ESCAPES = {"\0": "\\0", "\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n",
           "\v": "\\v", "\f": "\\f", "\r": "\\r", "\\": "\\\\", '"': '\\"'}


def escape(text):
    """@text as between the quotes of a dtc source string."""
    return "".join(ESCAPES.get(c, c) for c in text)


def render(value):
    """A property's value (bytes) in source form, as dtc -O dts writes a
    DTB's: a string ("a\\0b" for a list) when it reads as strings, else
    cells in hexadecimal (<0x0 0x1f>) when it is a whole number of them,
    else bytes ([01 02 03])."""
    if is_string_list(value):
        return '"' + escape(value[:-1].decode("ascii")) + '"'
    if value and len(value) % 4 == 0:
        cells = struct.unpack(f">{len(value) // 4}I", value)
        return "<" + " ".join(f"{x:#x}" for x in cells) + ">"
    if value:
        return "[" + " ".join(f"{b:02x}" for b in value) + "]"
    # An empty value (a flag) has no source form after "=".
    return ""


def convert(dtb, expect=()):
    """The topology source of @dtb, its "changed:" lines and its notes;
    @expect: more lines its boot's log must have (its header's "expect:")."""
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
    models = board.root.strings("model")
    model = escape(models[0]) if models else os.path.basename(dtb)
    header = ["// SPDX-License-Identifier: GPL-2.0",
              "/*",
              f" * The CPU idle topology of {os.path.basename(dtb)} ({model}),",
              " * extracted by tools/dt/idle-topology.py.",
              " *",
              f" * cpus: {len(cpus)}"]
    header += [f" * expect: {e}" for e in list(expect) + [
        "psci: firmware model: OS-initiated mode",
        "CPUidle PSCI: Initialized CPU PM domain topology using OSI mode"]]
    header += [f" * changed: {c}" for c in changed]
    header += [f" * note: {c}" for c in notes]
    header += [" */", ""]
    return "\n".join(header + body) + "\n", changed, notes

# SPDX-License-Identifier: GPL-2.0
"""Topology sources (kunit/topologies/NAME.dtsi, a board's extracted
NAME.dtsi, a hand-written board's .dts) and their graft onto the device
tree QEMU generates for the machine they boot on.

A source's first comment may hold header lines " * KEY: VALUE":

  cpus: N        boot N CPUs (default: the test machine's 8)
  source: FILE   graft FILE (of the same folder) first, this file's body on top
  cmdline: ARGS  add ARGS to the kernel command line
  qemu: ARGS     add ARGS to QEMU's command line
  expect: TEXT   the boot log must have TEXT (exempt from the warning check)
  idle-cpus: N   N CPUs must have a cpuidle state beyond WFI (default: the
                 CPUs the tree gives idle states, fdt.idle_cpus()); for a
                 tree whose states Linux refuses
  refused: TEXT  (a malformed board) the extractor refuses it saying TEXT
  firmware-invalid: VALUE...
                 (booted through a real firmware) the requests of these
                 power_state values are not in the firmware's table: it
                 must answer each with INVALID_PARAMETERS
  changed: TEXT, note: TEXT
                 what the extractor changed to boot a board in QEMU

A key followed by a base ("expect 7.3: TEXT", "cmdline 7.3: ARGS") gives
that key's lines on that base (base_of(): where its series prints
otherwise, or an initcall has another name), in place of the plain key's.

This module is the one reader of that header.
"""
import dataclasses
import os
import shlex
import subprocess
import tempfile

from . import TOP, fdt, rel
from .machine import TEST_MACHINE

TOPOLOGIES = os.path.join(TOP, "kunit", "topologies")
KEYS = ("cpus", "source", "cmdline", "qemu", "expect", "idle-cpus", "refused", "changed",
        "note", "firmware-invalid")


class TopologyError(Exception):
    """A topology that cannot be read or grafted; the message says why."""


class Topology:
    def __init__(self, path, base=None):
        """@path's topology, as booted on kernel base @base ("7.3")."""
        self.path = os.path.abspath(path)
        self.base = base
        base = os.path.basename(path)
        self.name = base.rsplit(".", 1)[0] if base.endswith((".dtsi", ".dts")) else base
        try:
            with open(path) as f:
                self.text = f.read()
        except OSError as err:
            raise TopologyError(f"{rel(path)}: {err.strerror}") from None
        self.header = []
        if self.text.lstrip().startswith(("/*", "//")):
            start = self.text.find("/*")
            end = self.text.find("*/", start)
            for line in self.text[start:end].splitlines():
                if line.startswith(" * ") and ": " in line:
                    key, value = line[3:].split(": ", 1)
                    if key.split(" ")[0] in KEYS:
                        self.header.append((key, value))

    def get(self, key, default=None):
        values = self.all(key)
        return values[0] if values else default

    def all(self, key):
        """The header's lines of @key: those of "@key BASE" if it has any
        for its base, else the plain key's."""
        own = [v for k, v in self.header if self.base and k == f"{key} {self.base}"]
        return own or [v for k, v in self.header if k == key]

    @property
    def cpus(self):
        value = self.get("cpus")
        try:
            return int(value) if value is not None else TEST_MACHINE.cpus
        except ValueError:
            raise TopologyError(f"{rel(self.path)}: cpus: {value!r} is not a number") from None

    def idle_cpus(self, dtb):
        """How many CPUs must have a cpuidle state beyond WFI when this
        topology boots as @dtb: its idle-cpus line, else the CPUs of @dtb
        that have idle states, at most the CPUs it boots."""
        value = self.get("idle-cpus")
        if value is None:
            return min(len(fdt.idle_cpus(fdt.load(dtb))), self.cpus)
        try:
            return int(value)
        except ValueError:
            raise TopologyError(f"{rel(self.path)}: idle-cpus: {value!r} is not a number") from None

    @property
    def firmware_invalid(self):
        """The power_state values of the firmware-invalid line, as the
        firmware model prints them ("0x01000011")."""
        try:
            return {f"0x{int(v, 16):08x}" for v in self.get("firmware-invalid", "").split()}
        except ValueError:
            raise TopologyError(f"{rel(self.path)}: firmware-invalid: "
                                f"{self.get('firmware-invalid')!r} is not hexadecimal") from None

    @property
    def cmdline(self):
        return self.get("cmdline", "").split()

    @property
    def qemu(self):
        return shlex.split(self.get("qemu", ""))

    def machine(self, base=TEST_MACHINE, cpus=None):
        """The machine this topology boots on: @base with its CPU count
        (or @cpus) and QEMU options."""
        return dataclasses.replace(base, cpus=cpus or self.cpus,
                                   extra=tuple(base.extra) + tuple(self.qemu))

    def source_text(self):
        """What is grafted: the named source's text, then this file's."""
        base = self.get("source")
        if not base:
            return self.text
        try:
            with open(os.path.join(os.path.dirname(self.path), base)) as f:
                return f.read() + self.text
        except OSError as err:
            raise TopologyError(f"{rel(self.path)}: source: {base}: {err.strerror}") from None


def find(name, base=None):
    """kunit/topologies/NAME.dtsi, or else the file NAME (for kernel base
    @base)."""
    path = os.path.join(TOPOLOGIES, f"{name}.dtsi")
    if not os.path.isfile(path):
        path = name
    if not os.path.isfile(path):
        raise TopologyError(f"no topology {name} in kunit/topologies/ and no file {name}")
    return Topology(path, base)


def topologies():
    """Every topology of kunit/topologies/, by name."""
    return [Topology(os.path.join(TOPOLOGIES, f))
            for f in sorted(os.listdir(TOPOLOGIES)) if f.endswith(".dtsi")]


def _dtc_warnings(stderr):
    """dtc's warnings without their line numbers, which the graft shifts."""
    out = []
    for line in stderr.splitlines():
        head, sep, rest = line.partition(": Warning")
        if sep and ":" in head:
            out.append("Warning" + rest)
    return sorted(out)


def check_firmware_psci(topology, out):
    """A tree booted through Trusted Firmware-A must hold one PSCI node,
    /psci, with method "smc": TF-A's BL2 adds a /psci of its own, without
    PSCI domains, unless one is there (dt_add_psci_node(), which looks at
    that path only), and TF-A answers SMCs only."""
    found = [n for n in fdt.walk(fdt.load(out))
             if any(c.startswith("arm,psci") for c in n.strings("compatible") or [])]
    where = " ".join(n.path for n in found) or "none"
    if [n.path for n in found] != ["/psci"]:
        raise TopologyError(f"{rel(topology.path)}: PSCI nodes: {where}; Trusted Firmware-A "
                            f"boots need one, at /psci (its BL2 adds a /psci otherwise)")
    if found[0].strings("method") != ["smc"]:
        raise TopologyError(f"{rel(topology.path)}: /psci: method "
                            f"{found[0].strings('method')}; Trusted Firmware-A answers \"smc\"")


def graft(topology, machine, out, chosen=""):
    """Write @out: QEMU's device tree for @machine with @topology's source
    on top, so that CPU nodes, MPIDRs and everything else stay QEMU's own,
    and @chosen (dts text) last. Returns the dtc warnings of the grafted
    tree; raises TopologyError when QEMU or dtc fail, when the graft adds
    a warning QEMU's own tree does not have, or when a tree booted through
    firmware does not have the PSCI node it needs."""
    with tempfile.TemporaryDirectory() as work:
        qdtb = os.path.join(work, "qemu.dtb")
        r = subprocess.run(machine.dumpdtb_command(qdtb), stdin=subprocess.DEVNULL,
                           capture_output=True, text=True)
        if r.returncode or not os.path.isfile(qdtb):
            raise TopologyError(f"QEMU could not dump its device tree: {r.stderr.strip()}")
        r = subprocess.run(["dtc", "-q", "-I", "dtb", "-O", "dts", qdtb],
                           capture_output=True, text=True)
        if r.returncode:
            raise TopologyError(f"dtc cannot read QEMU's tree: {r.stderr.strip()}")
        qemu_dts = r.stdout
        own = subprocess.run(["dtc", "-I", "dts", "-O", "dtb", "-o", os.devnull, "-"],
                             input=qemu_dts, capture_output=True, text=True)
        if own.returncode:
            raise TopologyError(f"dtc fails on QEMU's own tree: {own.stderr.strip()}")
        grafted = subprocess.run(["dtc", "-I", "dts", "-O", "dtb", "-o", out, "-"],
                                 input=qemu_dts + topology.source_text() + chosen,
                                 capture_output=True, text=True)
        if grafted.returncode:
            raise TopologyError(f"dtc fails on {rel(topology.path)}:\n{grafted.stderr.strip()}")
        # The warnings of the grafted tree that QEMU's own lacks, as a
        # multiset difference (comm -13).
        left, new = _dtc_warnings(own.stderr), []
        for w in _dtc_warnings(grafted.stderr):
            if w in left:
                left.remove(w)
            else:
                new.append(w)
        if new:
            os.unlink(out)
            raise TopologyError(f"{rel(topology.path)} adds dtc warnings:\n" + "\n".join(new))
        if machine.firmware:
            try:
                check_firmware_psci(topology, out)
            except TopologyError:
                os.unlink(out)
                raise
        return _dtc_warnings(grafted.stderr)

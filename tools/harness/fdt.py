# SPDX-License-Identifier: GPL-2.0
"""A device tree blob as a read-only tree of nodes, read with pylibfdt
(Debian's python3-libfdt).

    tree = Tree("board.dtb")
    for node in walk(tree.root):
        if node.strings("device_type") == ["cpu"]:
            print(node.path, node.cells("reg"))
    target = tree.phandle(0x2d)

A node has its name (the root's is "/"), path, parent, children in the
blob's order and its properties as the blob holds them: name -> bytes.
A blob that is not a flattened device tree, or that libfdt cannot walk,
raises Refused.
"""
import struct

import libfdt

# The magic number and the size of a version 17 header (struct fdt_header).
MAGIC = b"\xd0\x0d\xfe\xed"
HEADER_SIZE = 40
NOTFOUND = (libfdt.NOTFOUND,)
# The control characters dtc writes in a string with an escape.
STRING_CONTROLS = b"\a\b\t\n\v\f\r"


class Refused(Exception):
    """The tree cannot be read or checked; the message names the node."""


def is_string_list(value):
    """Whether @value reads as NUL-terminated strings, by dtc's rule
    (treesource.c: guess_value_type()): it ends with a NUL, holds only
    printable characters, NULs and escapable controls, and no more NULs
    than other characters."""
    if not value or value[-1] != 0:
        return False
    nuls = value.count(0)
    if nuls > len(value) - nuls:
        return False
    return all(0x20 <= b < 0x7f or b == 0 or b in STRING_CONTROLS for b in value)


class Node:
    def __init__(self, name, parent):
        self.name, self.parent = name, parent
        self.props = {}
        self.children = []

    @property
    def path(self):
        if self.parent is None:
            return "/"
        up = self.parent.path
        return (up if up != "/" else "") + "/" + self.name

    def cells(self, prop):
        """A property's big-endian 32-bit cells, or None when the node
        does not have it."""
        value = self.props.get(prop)
        if value is None:
            return None
        if len(value) % 4:
            raise Refused(f"{self.path}: {prop} is not a list of cells")
        return list(struct.unpack(f">{len(value) // 4}I", value))

    def strings(self, prop):
        """A string list ("a", "b" is stored as "a\\0b\\0"), or [] when the
        node does not have the property or it is not strings."""
        value = self.props.get(prop)
        if value is None or not is_string_list(value):
            return []
        return value[:-1].decode("ascii").split("\0")

    def disabled(self):
        status = self.strings("status")
        return bool(status) and status[0] not in ("okay", "ok")


def walk(node):
    """@node and every node below it, depth first in the blob's order."""
    yield node
    for c in node.children:
        yield from walk(c)


def _name(name, node):
    """@name, of a property or subnode of @node, when it is text (pylibfdt
    decodes the bytes of one that is not UTF-8 as surrogates)."""
    if not name.isprintable():
        raise Refused(f"not a flattened device tree (a name in {node.path} "
                      f"is not text: {name!a})")
    return name


def _read(blob, offset, node):
    """@node's properties and subnodes from @blob's node at @offset."""
    prop = blob.first_property_offset(offset, NOTFOUND)
    while prop >= 0:
        p = blob.get_property_by_offset(prop)
        node.props[_name(p.name, node)] = bytes(p)
        prop = blob.next_property_offset(prop, NOTFOUND)
    sub = blob.first_subnode(offset, NOTFOUND)
    while sub >= 0:
        child = Node(_name(blob.get_name(sub), node), node)
        node.children.append(child)
        _read(blob, sub, child)
        sub = blob.next_subnode(sub, NOTFOUND)


def load(path):
    """The root node of the DTB at @path."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as err:
        raise Refused(f"cannot read it: {err.strerror}")
    if data[:4] != MAGIC:
        raise Refused("not a flattened device tree (no FDT magic number)")
    if len(data) < HEADER_SIZE:
        raise Refused(f"not a flattened device tree ({len(data)} bytes, "
                      "shorter than its header)")
    try:
        blob = libfdt.Fdt(data)
        if blob.totalsize() > len(data):
            raise Refused(f"not a flattened device tree ({len(data)} bytes, "
                          f"its header says {blob.totalsize()}: cut short)")
        # The whole structure, before pylibfdt reads names: it takes a
        # property's name offset on trust.
        libfdt.check_err(libfdt.fdt_check_full(bytearray(data), len(data)))
        root = Node("/", None)
        _read(blob, 0, root)
    except libfdt.FdtException as err:
        raise Refused("not a flattened device tree "
                      f"(libfdt: {libfdt.strerror(err.err)})")
    except SystemError:
        # pylibfdt fails so on a property name that is not UTF-8.
        raise Refused("not a flattened device tree (a property name is not text)")
    return root


class Tree:
    """The nodes of the DTB at @path, with their phandles."""

    def __init__(self, path):
        self.path = path
        self.root = load(path)
        self.by_phandle = {}
        for n in walk(self.root):
            for prop in ("phandle", "linux,phandle"):
                cells = n.cells(prop)
                if cells:
                    self.by_phandle[cells[0]] = n

    def phandle(self, number):
        """The node whose phandle is @number, or None."""
        return self.by_phandle.get(number)



def idle_cpus(root):
    """The paths of the enabled CPU nodes for which Linux's
    dt_init_idle_driver() finds idle states: for each index, the node
    of_get_cpu_state_node() returns (the domain-idle-states entry of the
    first PM domain in power-domains, else the cpu-idle-states entry) until
    there is none; a node not compatible with "arm,idle-state" fails the
    CPU's driver, a disabled one is skipped."""
    nodes = {}
    for node in walk(root):
        for prop in ("phandle", "linux,phandle"):
            if prop in node.props:
                nodes[node.cells(prop)[0]] = node

    def entry(node, prop, index):
        cells = node.cells(prop) if node is not None and prop in node.props else []
        return nodes.get(cells[index]) if index < len(cells) else None

    out = []
    cpus = next((c for c in root.children if c.name == "cpus"), None)
    for cpu in cpus.children if cpus else []:
        if cpu.strings("device_type") != ["cpu"] or cpu.disabled():
            continue
        pds = cpu.cells("power-domains") if "power-domains" in cpu.props else []
        pd = nodes.get(pds[0]) if pds else None
        found = 0
        for index in range(64):
            state = entry(pd, "domain-idle-states", index) or \
                entry(cpu, "cpu-idle-states", index)
            if state is None:
                break
            if "arm,idle-state" not in state.strings("compatible"):
                found = 0
                break
            found += not state.disabled()
        if found:
            out.append(cpu.path)
    return out

# SPDX-License-Identifier: GPL-2.0
"""The test harness' shared Python: where things are (this module), the
QEMU machine (machine), the boots on it (boot) and its monitor
(monitor), KTAP output (ktap),
topology sources (topology), device trees read with pylibfdt (fdt) and
the board extractor (dtidle), the idle workload's console (workload), the
kernel's own KUnit tool (kunit) and the policy over a run's results
(results).

A program of tools/FOLDER/ imports it after putting tools/ on its path:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
    from harness import ktap
"""
import glob
import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOLS = os.path.join(TOP, "tools")
BUILD = os.path.join(TOP, "build")
# The default base's generated tree; another base's is build/BASE/linux
# (tools/lib/common.sh). A program given --tree or --kernel uses that
# kernel's own (tree_of).
TREE = os.path.join(BUILD, "linux")
# The interpreter every program runs under: Debian's, which sees the
# modules Debian packages (libfdt, yaml, jinja2, lava_common).
PYTHON = "/usr/bin/python3"


def rel(path):
    """@path relative to the checkout when it is inside it."""
    path = os.path.abspath(path)
    return os.path.relpath(path, TOP) if path.startswith(TOP + os.sep) else path


def a_tree():
    """A generated tree, for what every base's does alike (the KTAP
    parser, gen_init_cpio): TREE, else another base's."""
    others = sorted(glob.glob(os.path.join(BUILD, "*", "linux", "")))
    return next((t for t in [TREE] + others if os.path.isdir(t)), TREE).rstrip(os.sep)


def tree_of(kernel):
    """The tree @kernel (a build directory) was built from: its "source"
    link, which kbuild makes for a build outside the tree; else a_tree()."""
    src = os.path.join(kernel, "source")
    return os.path.realpath(src) if os.path.isdir(src) else a_tree()


def base_of(tree):
    """The base @tree is: "6.1" or "7.3", from its Makefile's VERSION and
    PATCHLEVEL."""
    v = {}
    with open(os.path.join(tree, "Makefile")) as f:
        for line in f:
            key, _, value = line.partition("=")
            if key.strip() in ("VERSION", "PATCHLEVEL"):
                v[key.strip()] = value.strip()
            if len(v) == 2:
                break
    return f"{v.get('VERSION')}.{v.get('PATCHLEVEL')}"


def kernel_base(kernel):
    """The base of the tree build directory @kernel was built from."""
    return base_of(tree_of(kernel))


def die(msg, prog=None):
    """Exit with status 2 and a message naming the program."""
    sys.stderr.write(f"{prog or os.path.basename(sys.argv[0])}: {msg}\n")
    sys.exit(2)


def note(msg, prog=None):
    sys.stderr.write(f"{prog or os.path.basename(sys.argv[0])}: {msg}\n")
    sys.stderr.flush()


def words(path):
    """The entries of a list file (kunit/suites, kunit/boards/corpus): one
    a line, blank lines and "#" to the end of a line left out."""
    with open(path) as f:
        return [w for w in (line.split("#")[0].strip() for line in f) if w]

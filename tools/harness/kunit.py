# SPDX-License-Identifier: GPL-2.0
"""The kernel's own KUnit tool (tools/testing/kunit of the generated tree):
its command line, and its KTAP parser for reading results in Python.
Nothing else in the harness reads KTAP."""
import contextlib
import inspect
import io
import os
import subprocess
import sys

from . import BUILD, PYTHON, TOP, a_tree, proc, tree_of
from .machine import MACHINES

# The default base's test kernel (tools/kernel/build-kernel.py).
TEST_KERNEL = os.path.join(BUILD, "kunit-arm64")

QEMU_CONFIG = os.path.join(TOP, "kunit", "qemu_configs", "arm64_smp8.py")
# kunit.py's QEMU config of each machine of harness/machine.py:
# arm64_smp8.py for "test", arm64_smp8_NAME.py for the others.
QEMU_CONFIGS = {name: QEMU_CONFIG if name == "test" else
                os.path.join(TOP, "kunit", "qemu_configs", f"arm64_smp8_{name}.py")
                for name in MACHINES}
# The test kernel's configuration: the series' own .kunitconfig files
# (those that exist in the tree at hand) and the harness' fragment.
SERIES_KUNITCONFIGS = ("drivers/base/power", "drivers/cpuidle",
                       "drivers/firmware/psci", "drivers/pmdomain", "kernel/sched")
HARNESS_KUNITCONFIG = os.path.join(TOP, "kunitconfig")


def tool_dir(tree=None):
    return os.path.join(tree or a_tree(), "tools", "testing", "kunit")


def command(subcommand, kernel, tree=None, kunitconfigs=(), machine="test"):
    """kunit.py SUBCOMMAND for arm64 on @machine (harness/machine.py),
    building into or running from @kernel; run it with cwd=@tree
    (default: @kernel's own, for parse any)."""
    argv = [PYTHON, os.path.join(tool_dir(tree or (kernel and tree_of(kernel))), "kunit.py"),
            subcommand]
    if subcommand == "parse":
        return argv
    argv += ["--arch=arm64", "--cross_compile=aarch64-linux-gnu-",
             f"--qemu_config={QEMU_CONFIGS[machine]}", f"--build_dir={kernel}"]
    return argv + [f"--kunitconfig={k}" for k in kunitconfigs]


def kunitconfigs(tree, variant=None):
    """The --kunitconfig files of the test kernel (of @variant: debug,
    trace) in @tree."""
    out = [d for d in SERIES_KUNITCONFIGS if os.path.isfile(os.path.join(tree, d, ".kunitconfig"))]
    out.append(HARNESS_KUNITCONFIG)
    if variant:
        out.append(os.path.join(TOP, "kunit", f"{variant}.kunitconfig"))
    for name, variants, kconfigs, option in OPTIONAL_KUNITCONFIGS:
        if (variants is None or variant in variants) and \
                any(has_option(tree, k, option) for k in kconfigs):
            out.append(os.path.join(TOP, "kunit", name))
    return out


# Fragments of the test-harness series' options, each added where the
# tree declares its option (not on a base whose test-harness series lacks
# it): file, the variants it is for (None: all), the Kconfig files that
# may declare it (one per base), the option.
OPTIONAL_KUNITCONFIGS = (
    ("fail-initcall.kunitconfig", ("debug",), ("lib/Kconfig.debug",), "FAIL_INITCALL"),
    ("test-provider.kunitconfig", None, ("kernel/power/Kconfig", "drivers/pmdomain/Kconfig"),
     "PM_GENERIC_DOMAINS_TEST_PROVIDER"),
    ("cpu-policy.kunitconfig", None, ("drivers/pmdomain/Kconfig",), "PM_GENPD_CPU_POLICY"),
)


def has_option(tree, kconfig, name):
    """Whether @tree's Kconfig file @kconfig declares option @name."""
    try:
        with open(os.path.join(tree, kconfig)) as f:
            return any(line.split() == ["config", name] for line in f)
    except OSError:
        return False


def parser(tree=None):
    """The kunit_parser module of @tree (default: any generated tree's;
    the first one imported stays). Its progress lines go to the
    standard output it finds when first imported (kunit_printer), which
    is then a buffer: a reader of results prints what it chooses."""
    path = tool_dir(tree)
    if path not in sys.path:
        sys.path.insert(0, path)
    with contextlib.redirect_stdout(io.StringIO()):
        import kunit_parser
    return kunit_parser


def printer(kp):
    """What kunit_parser's printing functions take after their own
    arguments: a silent Printer for 7.x's (kunit_printer.null_printer),
    nothing for 6.1's, which print to the buffer parser() set up."""
    if "printer" not in inspect.signature(kp.parse_run_tests).parameters:
        return ()
    import kunit_printer
    return (kunit_printer.null_printer,)


def parse(lines, tree=None):
    """The kunit_parser Test of the KTAP in console @lines."""
    kp = parser(tree)
    return kp.parse_run_tests((line if line.endswith("\n") else line + "\n" for line in lines),
                              *printer(kp))


def exec_suites(kernel, console, args=(), tree=None, log=None, machine="test"):
    """kunit.py exec of @kernel on @machine with @args, the whole
    console (--raw_output=all: kunit.py's own lines and the kernel's)
    into @console; kunit.py's standard error into @log. Returns the
    console's lines and kunit.py's exit status."""
    tree = tree or tree_of(kernel)
    argv = command("exec", kernel, tree, machine=machine) + ["--timeout=600",
                                                            "--raw_output=all"] + list(args)
    # kunit.py does not pass a signal on to its QEMU: both go in a
    # process group of their own, ended whole (harness/proc.py).
    with open(console, "w") as out, open(log or os.devnull, "w") as err:
        rc = proc.run(argv, group=True, cwd=tree, stdout=out, stderr=err,
                      stdin=subprocess.DEVNULL)
    with open(console, errors="replace") as f:
        return f.read().splitlines(), rc


def leaves(test, path=()):
    """(path, test) of every result without subtests below @test: a
    KUnit case, a check of a nested program; @path names the tests
    above it, outermost first."""
    for sub in test.subtests:
        if sub.subtests:
            yield from leaves(sub, path + (sub.name,))
        else:
            yield path + (sub.name,), sub

# SPDX-License-Identifier: GPL-2.0
"""Boots of a built kernel on the test machine (harness/machine.py): the
files a boot needs, its command, and QEMU run with a time limit."""
import dataclasses
import os
import subprocess
import sys

from . import BUILD, TOOLS, a_tree, proc, rel
from . import machine as qemu
from .topology import graft

GUEST = os.path.join(BUILD, "guest")


class BootError(Exception):
    """A boot that cannot start; the message says why."""


def kernel_image(kernel, must_exist=True, image=qemu.KERNEL_IMAGE):
    """The arm64 image of build directory (or image file) @kernel: @image
    in the directory (Machine.kernel_image)."""
    path = os.path.join(kernel, image) if os.path.isdir(kernel) else kernel
    if must_exist and not os.path.isfile(path):
        raise BootError(f"no kernel image {rel(path)}: build the kernel first")
    return path


def kernel_cpus(kernel):
    """The CPUs kernel build directory @kernel is built for
    (CONFIG_NR_CPUS), or None when it has no .config."""
    try:
        with open(os.path.join(kernel, ".config")) as f:
            for line in f:
                if line.startswith("CONFIG_NR_CPUS="):
                    return int(line.split("=", 1)[1])
    except (OSError, ValueError):
        pass
    return None


def build_guest(out=GUEST, init_c=None, programs=()):
    """tools/kernel/build-guest.sh into @out: an initramfs whose /init is
    @init_c (default: the idle workload); returns its cpio."""
    init_c = init_c or os.path.join(TOOLS, "guest", "idle-workload.c")
    argv = [os.path.join(TOOLS, "kernel", "build-guest.sh"), "--tree", a_tree(), init_c, out]
    argv += list(programs)
    r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=sys.stderr)
    if r.returncode:
        raise BootError("cannot build the guest's init")
    return os.path.join(out, "initramfs.cpio")


def build_firmware(machine):
    """Build the firmware @machine boots, if it has any of ours
    (tools/firmware/build-tfa.sh, which rebuilds only what changed)."""
    if machine.firmware != "tfa":
        return
    r = subprocess.run([os.path.join(TOOLS, "firmware", "build-tfa.sh"), "--cores",
                        str(machine.cpus)], stdin=subprocess.DEVNULL, stdout=sys.stderr)
    if r.returncode:
        raise BootError(f"cannot build Trusted Firmware-A for {machine.cpus} cores")


@dataclasses.dataclass(frozen=True)
class Boot:
    """A boot: the machine, and what it starts with."""
    machine: qemu.Machine
    kernel: str
    cmdline: str
    initrd: str = None
    dtb: str = None

    @property
    def argv(self):
        return self.machine.command(self.kernel, self.cmdline, self.initrd, self.dtb)


def topology_boot(topology, kernel, dtb, initrd, kunit=True, cmdline=(),
                  base=qemu.TEST_MACHINE, must_exist=True, cpus=None):
    """Graft @topology into @dtb (raises TopologyError) and return the
    Boot of @kernel on it: the topology's machine (its CPU count, or
    @cpus, and its QEMU options), the suites when @kunit, the workload of
    @initrd, the topology's command line and @cmdline."""
    machine = topology.machine(base, cpus)
    most = kernel_cpus(kernel) if os.path.isdir(kernel) else None
    if most and machine.cpus > most:
        raise BootError(f"{topology.name}: {machine.cpus} CPUs; {rel(kernel)} is built for "
                        f"at most {most} (CONFIG_NR_CPUS)")
    line = qemu.cmdline(kunit, extra=topology.cmdline + list(cmdline))
    graft(topology, machine, dtb, machine.chosen_dts(line, initrd))
    return Boot(machine, kernel_image(kernel, must_exist, machine.kernel_image), line, initrd,
                dtb)


def topology_command(*args, **kwargs):
    """The argv of topology_boot()."""
    return topology_boot(*args, **kwargs).argv


def run(argv, log, timeout):
    """Run QEMU @argv with its console in @log, for at most @timeout
    seconds; returns its exit status, 124 when it timed out."""
    with open(log, "w") as out:
        return proc.run(argv, timeout=timeout, stdin=subprocess.DEVNULL, stdout=out,
                        stderr=subprocess.STDOUT)

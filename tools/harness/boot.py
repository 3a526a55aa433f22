# SPDX-License-Identifier: GPL-2.0
"""Boots of a built kernel on the test machine (harness/machine.py): the
files a boot needs, its command, and QEMU run with a time limit."""
import os
import signal
import subprocess
import threading

from . import BUILD, TOOLS, rel
from . import machine as qemu
from .topology import graft

GUEST = os.path.join(BUILD, "guest")
# QEMU processes running, ended together when the program is told to stop.
_running = set()
_lock = threading.Lock()


class BootError(Exception):
    """A boot that cannot start; the message says why."""


def kernel_image(kernel, must_exist=True):
    """The arm64 image of build directory (or image file) @kernel."""
    path = os.path.join(kernel, "arch/arm64/boot/Image.gz") if os.path.isdir(kernel) else kernel
    if must_exist and not os.path.isfile(path):
        raise BootError(f"no kernel image {rel(path)}: build the kernel first")
    return path


def build_guest(init_c=None, out=GUEST, programs=()):
    """tools/kernel/build-guest.sh: an initramfs whose /init is @init_c
    (default: the idle workload); returns its cpio."""
    argv = [os.path.join(TOOLS, "kernel", "build-guest.sh")]
    if init_c:
        argv += [init_c, out] + list(programs)
    r = subprocess.run(argv, stdin=subprocess.DEVNULL)
    if r.returncode:
        raise BootError("cannot build the guest's init")
    return os.path.join(out, "initramfs.cpio")


def topology_command(topology, kernel, dtb, initrd, kunit=True, cmdline=(),
                     base=qemu.TEST_MACHINE, must_exist=True):
    """Graft @topology into @dtb (raises TopologyError) and return the
    command that boots @kernel on it: the topology's machine (its CPU
    count and QEMU options), the suites when @kunit, the workload of
    @initrd, the topology's command line and @cmdline."""
    machine = topology.machine(base)
    graft(topology, machine, dtb)
    return machine.command(kernel_image(kernel, must_exist),
                           qemu.cmdline(kunit, extra=topology.cmdline + list(cmdline)),
                           initrd=initrd, dtb=dtb)


def run(argv, log, timeout, extra=()):
    """Run QEMU @argv (+@extra) with its console in @log, for at most
    @timeout seconds; returns its exit status, 124 when it timed out."""
    with open(log, "w") as out:
        proc = subprocess.Popen(list(argv) + list(extra), stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
        with _lock:
            _running.add(proc)
        try:
            return proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            return 124
        finally:
            with _lock:
                _running.discard(proc)


def stop_all(*_):
    """End every QEMU still running (a signal handler)."""
    with _lock:
        for proc in _running:
            proc.kill()
    raise SystemExit(130)


def stop_on_signals():
    signal.signal(signal.SIGTERM, stop_all)
    signal.signal(signal.SIGINT, stop_all)

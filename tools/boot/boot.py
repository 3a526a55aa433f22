#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Boot a built kernel on a machine of harness/machine.py (--machine: test,
the default, or debug), or print the command without booting.

    boot.py [--topology NAME|FILE --dtb OUT.dtb] [--kernel DIR|IMAGE]
            [--initrd FILE | --no-initrd] [--no-kunit] [--cmdline ARGS | --append ARGS]
            [--cpus N] [--gic 2|3] [--memory MIB] [--secure --bios FILE]
            [--qemu OPTIONS] [--machine NAME]
            (--print | --argv | --log FILE [--timeout S])

With a topology (kunit/topologies/NAME.dtsi or a file), its header gives
the CPU count, QEMU options and command line, and it is grafted onto QEMU's
tree for the machine into OUT.dtb (also with --print and --argv: the
command names it). --print writes the command on one line,
shell-quoted; --argv one argument a line (for `mapfile -t`); --log boots
it, its console into FILE, and exits with QEMU's status (124: timed out).
The kernel command line is KUnit's (its suites run first, unless
--no-kunit), the initramfs' /init, then --cmdline; --append replaces all
of it but the console (for kernels without KUnit: the benchmarks).
"""
import argparse
import dataclasses
import os
import shlex
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
from harness import die, kernel_base, note, boot, kunit, machine as qemu, proc, topology  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--topology", help="a topology of kunit/topologies/, or a topology file")
    ap.add_argument("--dtb", help="where the grafted device tree goes (with --topology)")
    ap.add_argument("--kernel", default=kunit.TEST_KERNEL,
                    help="the kernel's build directory or image (default build/kunit-arm64)")
    ap.add_argument("--initrd", default=os.path.join(boot.GUEST, "initramfs.cpio"),
                    help="the initramfs (default: the idle workload's, build/guest)")
    ap.add_argument("--no-initrd", action="store_true", help="boot without an initramfs")
    ap.add_argument("--no-kunit", action="store_true", help="do not run the KUnit suites first")
    ap.add_argument("--cmdline", default="", help="more kernel command line")
    ap.add_argument("--append", help="the kernel command line after the console, alone")
    ap.add_argument("--cpus", type=int, help="CPUs (default: the topology's, else 8)")
    ap.add_argument("--gic", type=int, default=0, choices=(2, 3),
                    help="GIC version (default: 2 up to 8 CPUs, else 3)")
    ap.add_argument("--memory", type=int, default=qemu.KUNIT_MEMORY, help="MiB of memory")
    ap.add_argument("--secure", action="store_true", help="EL3 and secure memory (secure=on)")
    ap.add_argument("--bios", default="", help="firmware at EL3 (needs --secure)")
    ap.add_argument("--qemu", default="", help="more QEMU options")
    ap.add_argument("--machine", default="test", choices=sorted(qemu.MACHINES),
                    help="the base machine (harness/machine.py; default test)")
    ap.add_argument("--arch", default="arm64", choices=("arm64", "x86_64"),
                    help="x86_64: the PC of make x86 (with --append, without a topology)")
    how = ap.add_mutually_exclusive_group(required=True)
    how.add_argument("--print", action="store_true", help="print the command, shell-quoted")
    how.add_argument("--argv", action="store_true", help="print the command, an argument a line")
    how.add_argument("--log", help="boot, the console into this file")
    ap.add_argument("--timeout", type=int, default=600, help="seconds a boot may take")
    args = ap.parse_args()

    try:
        base = dataclasses.replace(qemu.MACHINES[args.machine], gic=args.gic,
                                   secure=args.secure, bios=args.bios, memory=args.memory,
                                   extra=tuple(shlex.split(args.qemu)))
        if args.cpus:
            base = dataclasses.replace(base, cpus=args.cpus)
        initrd = None if args.no_initrd else args.initrd
        cmdline = args.cmdline.split()
        if args.arch == "x86_64":
            if args.topology or args.append is None:
                die("--arch x86_64 takes --append and no topology")
            argv = qemu.x86_command(args.kernel, args.append.split(), args.cpus or 2,
                                    args.memory)
        elif args.topology:
            if not args.dtb:
                die("--topology needs --dtb OUT.dtb, where the grafted tree goes")
            topo = topology.find(args.topology, kernel_base(args.kernel))
            argv = boot.topology_command(topo, args.kernel, args.dtb, initrd,
                                         kunit=not args.no_kunit, cmdline=cmdline, base=base,
                                         must_exist=args.log is not None, cpus=args.cpus)
        else:
            line = (" ".join([qemu.CONSOLE] + args.append.split()) if args.append is not None
                    else qemu.cmdline(not args.no_kunit, "/init" if initrd else None, cmdline))
            argv = base.command(boot.kernel_image(args.kernel, must_exist=args.log is not None),
                                line, initrd=initrd)
    except (qemu.MachineError, topology.TopologyError, boot.BootError) as err:
        die(str(err))
    most = boot.kernel_cpus(args.kernel) if os.path.isdir(args.kernel) else None
    if most and args.cpus and args.cpus > most and args.arch == "arm64":
        if args.log:
            die(f"{args.cpus} CPUs; {args.kernel} is built for at most {most} (CONFIG_NR_CPUS)")
        note(f"{args.kernel} is built for at most {most} CPUs (CONFIG_NR_CPUS): it would boot "
             f"{most} of the {args.cpus}")
    if args.print:
        print(" ".join(shlex.quote(a) for a in argv))
    elif args.argv:
        print("\n".join(argv))
    else:
        boot.kernel_image(args.kernel)
        proc.stop_on_signals()
        return boot.run(argv, args.log, args.timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())

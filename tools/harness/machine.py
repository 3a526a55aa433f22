# SPDX-License-Identifier: GPL-2.0
"""The QEMU machine every boot of the harness runs on, defined once.

kunit.py's QEMU configs (kunit/qemu_configs/arm64_smp8.py, and
arm64_smp8_debug.py for the debug kernel) are built from TEST_MACHINE and
DEBUG_MACHINE; the topology boots, the demo, the graft's dumpdtb, the
benchmarks and the LAVA job build their commands with Machine.command(),
so that they all boot the machine kunit.py boots:

    qemu-system-aarch64 -nodefaults -m MEMORY -kernel K -append CMDLINE
        -no-reboot -nographic -serial stdio
        -machine virt[,gic-version=3][,secure=on] -cpu cortex-a57 -smp N
        -rtc clock=vm [-accel tcg,thread=single] [-bios FIRMWARE]
        [EXTRA...] [-initrd I] [-dtb D]

The first two lines are kunit.py's own (kunit_kernel.py starts QEMU so,
with -m 1024); the rest is this definition's. QEMU's virt machine has GICv2
by default, which serves at most 8 CPUs: with more, the machine takes
GICv3, which also changes QEMU's device tree (the graft's base) and lays
MPIDRs out 16 CPUs to a cluster (Aff0 0-15). secure=on adds EL3 and
secure memory, for firmware given with -bios (Trusted Firmware-A's bl1).
The real-time clock (the PL031, whose alarm wakes the guest from
suspend-to-idle) counts the guest's own time (clock=vm) rather than the
host's: a guest that QEMU stops, or that runs under -icount, sees its
alarm after the guest time it asked for. (Without icount the guest's time
is the host's while it runs, so a host that merely runs it slowly is not
helped.)

Three machines are named (MACHINES, topologies.py --machine): "test", on
which QEMU runs each vCPU in a host thread of its own (multi-threaded
TCG), "debug", the same machine with all vCPUs in one host thread, for
the debug kernel (DEBUG_MACHINE says why), and "tfa", the test machine
with Trusted Firmware-A at EL3 (TFA_MACHINE).

A machine with firmware boots otherwise. QEMU runs the firmware from
flash (-bios) and gives the kernel neither -kernel, -append nor -initrd
(QEMU refuses -initrd without -kernel): it preloads the raw kernel Image
and the initramfs into RAM with its generic loader, and the kernel's
command line and initramfs are in the device tree's /chosen
(chosen_dts(), grafted with the topology). TF-A's BL31 enters the kernel
at TFA_KERNEL_BASE with the tree QEMU placed at TFA_DTB_BASE:

    ... -machine virt,gic-version=3,secure=on,acpi=off ... -bios qemu_fw.bios
        -device loader,file=Image,addr=TFA_KERNEL_BASE,force-raw=on
        [-device loader,file=I,addr=TFA_INITRD_BASE,force-raw=on] -dtb D
"""
import dataclasses
import os

QEMU = "qemu-system-aarch64"
CONSOLE = "console=ttyAMA0"
# The kernel image in an arm64 build directory, and the raw one that a
# firmware enters.
KERNEL_IMAGE = "arch/arm64/boot/Image.gz"
RAW_KERNEL_IMAGE = "arch/arm64/boot/Image"
# kunit.py starts QEMU with this much memory (MiB).
KUNIT_MEMORY = 1024
GICV2_MAX_CPUS = 8
# QEMU's virt machine takes at most 512 CPUs (with GICv3).
MAX_CPUS = 512
# The CPUs the test kernel is built for (CONFIG_NR_CPUS, from the QEMU
# config): a topology with more is refused.
TEST_KERNEL_CPUS = 8

# Trusted Firmware-A (tools/firmware/build-tfa.sh, docs/tfa.md), built
# into BUILD/tfa/obj-CORES for a machine of CORES CPUs: 4, 8 and 16 are
# one cluster, 32 two (TF-A switches to OS-initiated mode only with every
# core of its platform on). QEMU places the device tree at the start of
# RAM when it boots firmware; the kernel (at most 126 MiB) and the
# initramfs follow it.
TFA_BUILD = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "build", "tfa")
TFA_CORES = (4, 8, 16, 32)
TFA_DTB_BASE = 0x40000000
TFA_KERNEL_BASE = 0x40200000
TFA_INITRD_BASE = 0x48000000


def image_size(path):
    """The memory an arm64 kernel Image takes (its header's image_size,
    Documentation/arm64/booting.rst), or the file's size when the header
    gives none."""
    with open(path, "rb") as f:
        header = f.read(64)
    size = int.from_bytes(header[16:24], "little") if len(header) >= 24 else 0
    return size or os.path.getsize(path)


def tfa_bios(cores):
    """The firmware image QEMU boots (-bios) for a machine of @cores."""
    return os.path.join(TFA_BUILD, f"obj-{cores}", "qemu", "release", "qemu_fw.bios")


class MachineError(ValueError):
    """A machine QEMU cannot start; the message says why."""


@dataclasses.dataclass(frozen=True)
class Machine:
    cpus: int = 8
    cpu: str = "cortex-a57"
    memory: int = KUNIT_MEMORY
    gic: int = 0            # 0: GICv2 up to 8 CPUs, GICv3 above
    secure: bool = False    # EL3, for firmware given as bios
    bios: str = ""
    single_thread: bool = False  # all vCPUs in one host thread (TCG thread=single)
    extra: tuple = ()       # further options, e.g. ("-icount", "shift=0")
    firmware: str = ""      # "tfa": Trusted Firmware-A built for the CPU count (bios)

    def __post_init__(self):
        if not 1 <= self.cpus <= MAX_CPUS:
            raise MachineError(f"{self.cpus} CPUs: QEMU's virt machine takes 1 to {MAX_CPUS}")
        if self.gic not in (0, 2, 3):
            raise MachineError(f"gic-version={self.gic}: the harness knows 2 and 3")
        if self.gic == 2 and self.cpus > GICV2_MAX_CPUS:
            raise MachineError(f"{self.cpus} CPUs on GICv2, which serves at most {GICV2_MAX_CPUS}")
        if self.bios and not self.secure:
            raise MachineError("firmware (bios) for EL3 needs secure=on")
        if self.firmware not in ("", "tfa"):
            raise MachineError(f"firmware {self.firmware!r}: the harness knows tfa")
        if self.firmware == "tfa":
            if not self.secure or self.gic_version != 3:
                raise MachineError("Trusted Firmware-A runs at EL3 (secure=on) with its GICv3 driver")
            if self.cpus not in TFA_CORES:
                raise MachineError(f"{self.cpus} CPUs: Trusted Firmware-A is built for "
                                   f"{', '.join(map(str, TFA_CORES))}")

    @property
    def firmware_image(self):
        """What QEMU boots with -bios, if anything."""
        return tfa_bios(self.cpus) if self.firmware == "tfa" else self.bios

    @property
    def kernel_image(self):
        """The kernel image of a build directory that this machine boots."""
        return RAW_KERNEL_IMAGE if self.firmware else KERNEL_IMAGE

    @property
    def gic_version(self):
        return self.gic or (3 if self.cpus > GICV2_MAX_CPUS else 2)

    def machine_option(self):
        opts = ["virt"]
        if self.gic_version != 2:
            opts.append(f"gic-version={self.gic_version}")
        if self.secure:
            opts.append("secure=on")
        if self.firmware_image:
            # With firmware and ACPI (virt's default), QEMU puts the ACPI
            # GED where the non-secure PL061 is, while its device tree
            # still describes the PL061: Linux's probe of it takes an
            # external abort (docs/tfa.md).
            opts.append("acpi=off")
        return ",".join(opts)

    def hardware(self):
        """The options after kunit.py's own: machine, CPUs, firmware, extra."""
        args = ["-machine", self.machine_option(), "-cpu", self.cpu, "-smp", str(self.cpus),
                "-rtc", "clock=vm"]
        if self.single_thread:
            args += ["-accel", "tcg,thread=single"]
        if self.firmware_image:
            args += ["-bios", self.firmware_image]
        return args + list(self.extra)

    def command(self, kernel, cmdline, initrd=None, dtb=None):
        """The whole argv of a boot. With firmware, @cmdline and @initrd
        must also be in @dtb's /chosen (chosen_dts())."""
        if self.firmware:
            if not dtb:
                raise MachineError("a boot through firmware takes its command line from "
                                   "a device tree")
            size = image_size(kernel)
            if size > TFA_INITRD_BASE - TFA_KERNEL_BASE:
                raise MachineError(f"{kernel}: the kernel takes {size >> 20} MiB, more than "
                                   f"the {(TFA_INITRD_BASE - TFA_KERNEL_BASE) >> 20} MiB "
                                   f"before the initramfs")
            argv = [QEMU, "-nodefaults", "-m", str(self.memory), "-no-reboot", "-nographic",
                    "-serial", "stdio"] + self.hardware()
            argv += ["-device", f"loader,file={kernel},addr={TFA_KERNEL_BASE:#x},force-raw=on"]
            if initrd:
                argv += ["-device",
                         f"loader,file={initrd},addr={TFA_INITRD_BASE:#x},force-raw=on"]
            return argv + ["-dtb", dtb]
        argv = [QEMU, "-nodefaults", "-m", str(self.memory), "-kernel", kernel,
                "-append", cmdline, "-no-reboot", "-nographic", "-serial", "stdio"]
        argv += self.hardware()
        if initrd:
            argv += ["-initrd", initrd]
        if dtb:
            argv += ["-dtb", dtb]
        return argv

    def chosen_dts(self, cmdline, initrd=None):
        """The /chosen a boot through firmware needs in its device tree:
        the command line, and where the initramfs @initrd is loaded."""
        if not self.firmware:
            return ""
        quoted = cmdline.replace("\\", "\\\\").replace('"', '\\"')
        props = [f'bootargs = "{quoted}";']
        if initrd:
            end = TFA_INITRD_BASE + os.path.getsize(initrd)
            props += [f"linux,initrd-start = <0x0 {TFA_INITRD_BASE:#x}>;",
                      f"linux,initrd-end = <0x0 {end:#x}>;"]
        return "\n/ {\n\tchosen {\n" + "".join(f"\t\t{p}\n" for p in props) + "\t};\n};\n"

    def dumpdtb_command(self, path):
        """QEMU writing the device tree it generates for this machine to
        @path, and exiting."""
        argv = [QEMU, "-nodefaults", "-machine", f"{self.machine_option()},dumpdtb={path}",
                "-cpu", self.cpu, "-smp", str(self.cpus), "-m", str(self.memory)]
        if self.firmware_image:
            argv += ["-bios", self.firmware_image]
        return argv

    def kunit_params(self, nr_cpus=TEST_KERNEL_CPUS):
        """The fields of kunit.py's QemuArchParams for this machine (its
        QEMU config, kunit/qemu_configs/arm64_smp8.py), for a kernel built
        for @nr_cpus CPUs. kunit.py gives QEMU -m 1024: another memory
        size follows it, and QEMU takes the last."""
        if self.cpus > nr_cpus:
            raise MachineError(f"{self.cpus} CPUs for a kernel built for {nr_cpus}")
        more = ["-m", str(self.memory)] if self.memory != KUNIT_MEMORY else []
        return {
            "linux_arch": "arm64",
            "kconfig": "\nCONFIG_SERIAL_AMBA_PL011=y\nCONFIG_SERIAL_AMBA_PL011_CONSOLE=y"
                       f"\nCONFIG_SMP=y\nCONFIG_NR_CPUS={nr_cpus}",
            "qemu_arch": "aarch64",
            "kernel_path": KERNEL_IMAGE,
            "kernel_command_line": CONSOLE,
            "extra_qemu_params": self.hardware() + more,
        }

    def lava_context(self):
        """The context of a job for LAVA's "qemu" device type, whose
        template (qemu.jinja2) gives -machine, -cpu, -m and -nographic,
        then these extra options: the command() LAVA's dispatcher runs is
        ours."""
        if self.firmware_image:
            raise MachineError("firmware (bios) is an image of a LAVA job, which the "
                               "qemu job does not deploy")
        extra = ["-nodefaults", "-no-reboot", "-serial stdio", f"-smp {self.cpus}",
                 "-rtc clock=vm"]
        if self.single_thread:
            extra.append("-accel tcg,thread=single")
        if self.extra:
            extra.append(" ".join(self.extra))
        return {"arch": "arm64", "memory": self.memory, "machine": self.machine_option(),
                "cpu": self.cpu, "extra_options": extra}


# The machine of kunit.py's runs and, with a topology's CPU count and
# options, of every boot of the test kernel: eight CPUs, so that the
# suites can attach CPUs 0-3 to CPU, cluster and system PM domains and
# run OS-initiated sequences on a cluster of eight.
TEST_MACHINE = Machine()

# The machine of every boot of the debug kernel: the test machine with all
# vCPUs in one host thread. With a host thread per vCPU, QEMU translates
# WFE as a no-op (target/arm/translate-a64.c), so vCPUs that wait for a
# spinlock keep their threads busy; more of them than host cores starve
# the vCPU that holds the lock, and the debug kernel's long lock sections
# turn that into RCU stalls (docs/reliability.md). In one thread WFE
# yields to the next vCPU. The test kernel keeps a thread per vCPU, so
# that its OS-initiated races run on vCPUs that run at once.
DEBUG_MACHINE = dataclasses.replace(TEST_MACHINE, single_thread=True)

# The test machine with Trusted Firmware-A at EL3 answering PSCI (smc):
# GICv3, which TF-A's QEMU platform is built for, and EL3.
TFA_MACHINE = dataclasses.replace(TEST_MACHINE, cpus=4, gic=3, secure=True, firmware="tfa")

MACHINES = {"test": TEST_MACHINE, "debug": DEBUG_MACHINE, "tfa": TFA_MACHINE}

# The x86-64 machine of make x86 (the scaled CPU time suite on x86): QEMU's
# default PC, two CPUs, the serial console.
X86_QEMU = "qemu-system-x86_64"
X86_CONSOLE = "console=ttyS0"


def x86_command(kernel, cmdline, cpus=2, memory=KUNIT_MEMORY):
    return [X86_QEMU, "-nodefaults", "-m", str(memory), "-kernel", kernel,
            "-append", " ".join([X86_CONSOLE] + list(cmdline)), "-no-reboot", "-nographic",
            "-serial", "stdio", "-machine", "pc", "-cpu", "qemu64", "-smp", str(cpus)]


def cmdline(kunit=True, init="/init", extra=()):
    """A boot's kernel command line: kunit.py's (its suites run first, with
    @kunit), then the initramfs' @init instead of kunit.py's reboot."""
    words = (["kunit.enable=1", CONSOLE, "kunit_shutdown=none"] if kunit
             else ["kunit.enable=0", CONSOLE])
    if init:
        words.append(f"rdinit={init}")
    return " ".join(words + [w for w in extra if w])

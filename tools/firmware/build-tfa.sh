#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build Trusted Firmware-A for QEMU's virt machine in PSCI OS-initiated
# mode, from Debian's source package, as real firmware for the series'
# test kernels (docs/tfa.md):
#
# - the source is Debian's arm-trusted-firmware 2.12.1+dfsg-1 (trixie), fetched
#   with apt-get through a deb-src list and package lists of its own in a
#   scratch directory (the machine's sources stay as they are), unpacked
#   with its Debian patches into build/tfa/src, once;
# - the test fixtures of kunit/firmware/tfa/*.patch, if any, go on top;
# - bl1, bl2, bl31 and the FIP are built for PLAT=qemu with
#   PSCI_OS_INIT_MODE=1, the GICv3 driver and the PSCI_STAT calls
#   (ENABLE_PSCI_STAT, ENABLE_PMF), for a machine of --cores CPUs (4, 8
#   or 16: one cluster; 32: TF-A's own two clusters of 16). BL33 is a
#   Linux kernel that the machine preloads, booted with the device tree
#   QEMU places at the start of RAM (the addresses are the machine
#   definition's, tools/harness/machine.py), so that one firmware build
#   serves every kernel: build/tfa/obj-CORES/qemu/release/qemu_fw.bios is
#   what QEMU boots with -bios. make rebuilds only what changed.
#   make test-tfa's boots build what they need themselves
#   (tools/harness/boot.py, build_firmware()).
#
#   build-tfa.sh [--cores N]     (N: 4 by default)
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
help_on_request "$@"

version=2.12.1+dfsg-1
cores=4
while [ $# -gt 0 ]; do
	case $1 in
	--cores) [ $# -ge 2 ] || die "--cores needs a count"; cores=$2; shift 2 ;;
	*) die "usage: build-tfa.sh [--cores N]" ;;
	esac
done
read -r bl33_base dtb_base < <(cd "$top/tools" && /usr/bin/python3 -c \
	'from harness.machine import TFA_KERNEL_BASE as k, TFA_DTB_BASE as d; print(hex(k), hex(d))')
# TF-A switches to OS-initiated mode only with every core of its platform
# on, so the platform has the machine's cores: one cluster of 2^shift
# (QEMU's GICv3 virt puts 16 CPUs in each Aff1), or TF-A's default.
case $cores in
4) layout=(QEMU_CPU_PER_CLUSTER_SHIFT=2 QEMU_CLUSTER_COUNT=1) ;;
8) layout=(QEMU_CPU_PER_CLUSTER_SHIFT=3 QEMU_CLUSTER_COUNT=1) ;;
16) layout=(QEMU_CPU_PER_CLUSTER_SHIFT=4 QEMU_CLUSTER_COUNT=1) ;;
32) layout=() ;;
*) die "--cores $cores: 4, 8, 16 or 32 (one cluster of 4, 8 or 16, or two of 16)" ;;
esac

out="$top/build/tfa"
src="$out/src"
obj="$out/obj-$cores"
fixtures=("$top"/kunit/firmware/tfa/*.patch)
[ -e "${fixtures[0]}" ] || fixtures=()

# The source, unpacked with Debian's patches; ours are applied once, and
# a change of them unpacks again.
stamp=$(cat "${fixtures[@]}" /dev/null | sha256sum | cut -c1-16)
if [ "$(cat "$out/src.stamp" 2>/dev/null)" != "$version $stamp" ]; then
	rm -rf "$src" "$out"/obj-* "$out/src.stamp"
	apt=$(mktemp -d)
	trap 'rm -rf "$apt"' EXIT
	apt_scratch "$apt" deb-src trixie
	note "fetching arm-trusted-firmware $version from Debian's trixie"
	apt-get "${apt_opts[@]}" update -q >/dev/null
	(cd "$apt/archives" && apt-get "${apt_opts[@]}" source --download-only -q \
		"arm-trusted-firmware=$version" >/dev/null 2>&1) ||
		die "cannot fetch arm-trusted-firmware $version from trixie (the fixtures are written against it)"
	mkdir -p "$out"
	# apt checked the files against the signed suite; the .dsc signature
	# (a key the machine may not have) adds nothing.
	dpkg-source -q --no-check -x "$apt/archives/arm-trusted-firmware_$version.dsc" "$src" >/dev/null
	for p in "${fixtures[@]}"; do
		patch -s -p1 -d "$src" < "$p" || die "${p#"$top"/} does not apply to $version"
		note "applied ${p#"$top"/}"
	done
	echo "$version $stamp" > "$out/src.stamp"
fi

# BUILD_STRING: else TF-A takes git describe of this repository. TF-A's
# make does not track its options: a build of other options starts anew.
args=(CROSS_COMPILE=aarch64-linux-gnu- PLAT=qemu DEBUG=0 BUILD_BASE="$obj" BUILD_STRING="debian-$version"
      PSCI_OS_INIT_MODE=1 QEMU_USE_GIC_DRIVER=QEMU_GICV3 ENABLE_PSCI_STAT=1 ENABLE_PMF=1
      ARM_LINUX_KERNEL_AS_BL33=1 PRELOADED_BL33_BASE="$bl33_base" ARM_PRELOADED_DTB_BASE="$dtb_base"
      "${layout[@]}")
if [ "$(cat "$obj/options" 2>/dev/null)" != "${args[*]}" ]; then
	rm -rf "$obj"
	mkdir -p "$obj"
fi
make -s -C "$src" -j"$(nproc)" "${args[@]}" bl1 fip qemu_fw.bios >"$obj/build.log" 2>&1 ||
	die "the build failed: $(tail -3 "$obj/build.log")"
echo "${args[*]}" > "$obj/options"
note "built $(realpath --relative-to="$top" "$obj/qemu/release/qemu_fw.bios") for $cores cores"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build Trusted Firmware-A for QEMU's virt machine in PSCI OS-initiated
# mode, from Debian's source package, as real firmware for the series'
# test kernels (docs/tfa.md):
#
# - the source is Debian's arm-trusted-firmware $version (trixie), fetched
#   with apt-get through a deb-src list and package lists of its own in a
#   scratch directory (the machine's sources stay as they are), unpacked
#   with its Debian patches into BUILD/tfa/src, once;
# - the test fixtures of kunit/firmware/tfa/*.patch, if any, go on top;
# - bl1, bl2 and bl31 are built for PLAT=qemu with PSCI_OS_INIT_MODE=1
#   and the GICv3 driver, and, given a kernel Image, the FIP with it as
#   BL33 (ARM_LINUX_KERNEL_AS_BL33, the device tree QEMU places at the
#   start of RAM), for a machine of --cores CPUs (4, 8 or 16: one
#   cluster; 32, the default: TF-A's own two clusters of 16):
#   BUILD/tfa/obj-CORES/qemu/release/qemu_fw.bios is what QEMU boots with
#   -bios. make rebuilds only what changed.
#
#   build-tfa.sh [--cores N] [--bl33 IMAGE]
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
help_on_request "$@"

version=2.12.1+dfsg-1
bl33= cores=32
while [ $# -gt 0 ]; do
	case $1 in
	--bl33) [ $# -ge 2 ] || die "--bl33 needs a kernel Image"; bl33=$(realpath "$2"); shift 2 ;;
	--cores) [ $# -ge 2 ] || die "--cores needs a count"; cores=$2; shift 2 ;;
	*) die "usage: build-tfa.sh [--cores N] [--bl33 IMAGE]" ;;
	esac
done
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
[ -z "$bl33" ] || [ -f "$bl33" ] || die "no kernel Image $bl33"

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

# BUILD_STRING: else TF-A takes git describe of this repository.
args=(CROSS_COMPILE=aarch64-linux-gnu- PLAT=qemu DEBUG=0 BUILD_BASE="$obj" BUILD_STRING="debian-$version"
      PSCI_OS_INIT_MODE=1 QEMU_USE_GIC_DRIVER=QEMU_GICV3
      ARM_LINUX_KERNEL_AS_BL33=1 ARM_PRELOADED_DTB_BASE=0x40000000 "${layout[@]}")
if [ -n "$bl33" ]; then
	make -s -C "$src" -j"$(nproc)" "${args[@]}" BL33="$bl33" all fip >"$out/build.log" 2>&1 ||
		die "the build failed: $(tail -3 "$out/build.log")"
	note "built $(realpath --relative-to="$top" "$obj/qemu/release/qemu_fw.bios") for $cores cores (BL33: ${bl33#"$top"/})"
else
	make -s -C "$src" -j"$(nproc)" "${args[@]}" bl1 bl2 bl31 >"$out/build.log" 2>&1 ||
		die "the build failed: $(tail -3 "$out/build.log")"
	note "built bl1, bl2 and bl31 for $cores cores in $(realpath --relative-to="$top" "$obj/qemu/release")"
fi

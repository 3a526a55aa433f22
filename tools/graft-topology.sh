#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Graft a topology source (kunit/topologies/NAME.dtsi) onto the device tree
# QEMU generates for the machine the tests boot, so that CPU nodes, MPIDRs
# and everything else stay QEMU's own. Writes OUT.dtb; fails if the graft
# adds any dtc warning to those QEMU's own tree already has. A topology
# with "source: FILE" in its header is FILE with its own body added.
#
#   graft-topology.sh TOPOLOGY.dtsi OUT.dtb [QEMU machine options...]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -ge 2 ] || die "usage: graft-topology.sh TOPOLOGY.dtsi OUT.dtb [qemu options]"
src=$1 out=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

qemu-system-aarch64 -nodefaults -machine "virt,dumpdtb=$work/qemu.dtb" "$@" \
	>/dev/null 2>&1 || die "QEMU could not dump its device tree"
dtc -q -I dtb -O dts -o "$work/qemu.dts" "$work/qemu.dtb"
# A topology that names a source (" * source: FILE", of the same folder)
# is that file's tree with its own body on top (references to its labels).
base=$(sed -n 's/^ \* source: //p' "$src")
cat "$work/qemu.dts" ${base:+"$(dirname "$src")/$base"} "$src" > "$work/grafted.dts"

# Warnings without their line numbers, which the graft shifts.
warnings() { sed -n 's/^[^:]*:[0-9.-]*: Warning/Warning/p' "$1" | sort; }
dtc -I dts -O dtb -o "$work/qemu-again.dtb" "$work/qemu.dts" 2> "$work/qemu.warn" ||
	die "dtc fails on QEMU's own tree"
dtc -I dts -O dtb -o "$out" "$work/grafted.dts" 2> "$work/grafted.warn" || {
	cat "$work/grafted.warn" >&2
	die "dtc fails on ${src#$top/}"
}
new=$(comm -13 <(warnings "$work/qemu.warn") <(warnings "$work/grafted.warn"))
if [ -n "$new" ]; then
	printf '%s\n' "$new" >&2
	die "${src#$top/} adds dtc warnings"
fi

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The boards of kunit/boards/, each booted with the test kernel and the
# workload: the in-tree corpus (kunit/boards/corpus: DTB targets built from
# build/linux by tools/build-dtbs.sh) and the hand-written trees
# (handwritten-*.dts, compiled with dtc; their header's "expect:" lines
# must be in the log). Each board's CPU idle topology is extracted and
# grafted onto QEMU's tree (tools/dt-idle-topology.py) and booted with the
# checks of every topology boot (tools/boot-topologies.sh: OSI mode, no
# invalid request, every domain state entered, rejections are denials, the
# PSCI checker, no warning), then the kernel's checkers read each log
# (tools/kernel-reports.py). The malformed trees (refused-*.dts) must be
# refused with the message their header's "refused:" line gives. Results:
# build/boards/ (KERNEL_VARIANT=debug: the debug kernel, build/boards-debug/),
# the summary's last line "kunit: N passed, M failed".
set -uo pipefail
. "$(dirname "$0")/lib.sh"

out="$build/boards$sfx"
rm -rf "$out"
mkdir -p "$out"
"$top/tools/build-kernel.sh" || die "the test kernel does not build"
corpus=($(grep -v '^[[:space:]]*\(#\|$\)' "$top/kunit/boards/corpus"))
note "building ${#corpus[@]} board DTBs from the tree"
list=$("$top/tools/build-dtbs.sh" "${corpus[@]}") || die "the board DTBs do not build"
mapfile -t dtbs <<< "$list"
[ ${#dtbs[@]} -eq ${#corpus[@]} ] && [ -n "${dtbs[0]}" ] ||
	die "${#corpus[@]} corpus boards, ${#dtbs[@]} DTBs built"
# Compiled sources apart: a boot writes its grafted DTB as $out/NAME.dtb.
mkdir -p "$out/src"
for dts in "$top"/kunit/boards/handwritten-*.dts; do
	dtc -q -I dts -O dtb -o "$out/src/$(basename "$dts" .dts).dtb" "$dts" ||
		die "dtc fails on ${dts#$top/}"
	dtbs+=("$out/src/$(basename "$dts" .dts).dtb")
done

# Extraction: one KTAP line per board; the boards that extract are booted.
: > "$out/extract.ktap"
sources=() n=0
for dtb in "${dtbs[@]}"; do
	name=$(basename "$dtb" .dtb)
	n=$((n + 1))
	if "$top/tools/dt-idle-topology.py" "$dtb" "$out/$name.dtsi" \
		> "$out/$name.changes" 2>&1; then
		echo "ok $n $name: the idle topology extracts from the DTB" >> "$out/extract.ktap"
		dts="$top/kunit/boards/$name.dts"
		[ ! -f "$dts" ] || sed -i "/^ \* cpus: /r "<(grep '^ \* expect: ' "$dts") "$out/$name.dtsi"
		sources+=("$out/$name.dtsi")
	else
		sed 's/^/# /' "$out/$name.changes" >> "$out/extract.ktap"
		echo "not ok $n $name: the idle topology extracts from the DTB" >> "$out/extract.ktap"
	fi
done
# Malformed trees: refused (exit 2) with the message that names the node.
echo "not a device tree blob" > "$out/src/not-a-dtb.dtb"
for dts in "$top"/kunit/boards/refused-*.dts "$out/src/not-a-dtb.dtb"; do
	name=$(basename "${dts%.*}")
	n=$((n + 1))
	if [ "${dts##*.}" = dts ]; then
		want=$(sed -n 's/^ \* refused: //p' "$dts")
		dtc -q -I dts -O dtb -o "$out/src/$name.dtb" "$dts" || die "dtc fails on ${dts#$top/}"
	else
		want="dtc cannot read it as a DTB"
	fi
	"$top/tools/dt-idle-topology.py" "$out/src/$name.dtb" "$out/$name.dtsi" > "$out/$name.changes" 2>&1
	st=$?
	if [ $st -eq 2 ] && [ -n "$want" ] && grep -qF -- "$want" "$out/$name.changes" &&
		! grep -q Traceback "$out/$name.changes"; then
		echo "ok $n $name: refused: $want" >> "$out/extract.ktap"
	else
		sed 's/^/# /' "$out/$name.changes" >> "$out/extract.ktap"
		echo "not ok $n $name: refused (exit $st, want 2) with \"$want\"" >> "$out/extract.ktap"
	fi
done
[ ${#sources[@]} -gt 0 ] || die "no board extracted"
note "booting ${#sources[@]} boards, ${BOOT_JOBS:-2} at a time"
TOPOLOGY_OUT="$out" "$top/tools/boot-topologies.sh" "${sources[@]}" > "$out/boots.ktap"

logs=()
for src in "${sources[@]}"; do
	name=$(basename "$src" .dtsi)
	logs+=("board_$name=$out/$name.log")
done
# The debug kernel's workload boots must show their kmemleak scan.
req=()
[ "$variant" != debug ] || req=(--require "board_:=== idle-workload: kmemleak ===")
"$top/tools/kernel-reports.py" "${req[@]}" "${logs[@]}" > "$out/reports.ktap"
grep -A7 '^not ok' "$out/reports.ktap" >&2 || true
"$top/tools/kunit-summary.py" --ktap "board_dtbs=$out/extract.ktap" \
	--ktap "board_boots=$out/boots.ktap" --ktap "kernel_reports=$out/reports.ktap" \
	--out "$out/summary.txt"

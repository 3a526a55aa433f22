#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the kernel `make test` just built on each device-tree topology of
# kunit/topologies/, with exactly the QEMU command kunit.py used (taken from
# build/kunit-arm64/kunit.py.log) plus -dtb, and print KTAP lines: the graft
# adds no dtc warning, the boot completes, every "expect:" line of the
# topology source is in the log, nothing warns or fails, and the KUnit
# suites pass on that topology too. Logs: build/topologies/NAME.log.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

kout="$build/kunit-arm64"
out="$build/topologies"
mkdir -p "$out"
cmd=$(sed -n 's/^\$ \(qemu-system-aarch64 .*\)$/\1/p' "$kout/kunit.py.log" | tail -1)
[ -n "$cmd" ] || die "no QEMU command in build/kunit-arm64/kunit.py.log"
eval "qemu_args=($cmd)"

# The machine options, for QEMU to dump the same device tree.
machine=()
for ((i = 1; i < ${#qemu_args[@]}; i++)); do
	case "${qemu_args[i]}" in
	-m | -cpu | -smp) machine+=("${qemu_args[i]}" "${qemu_args[i + 1]}") ;;
	esac
done

n=0
check() { # <ok?> <description>
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fi
}

echo "KTAP version 1"
for src in "$top"/kunit/topologies/*.dtsi; do
	name=$(basename "$src" .dtsi)
	dtb="$out/$name.dtb" log="$out/$name.log"
	"$top/tools/graft-topology.sh" "$src" "$dtb" "${machine[@]}" 2> "$out/$name.graft"
	check $? "$name: grafted onto QEMU's tree without new dtc warnings"
	[ -f "$dtb" ] || continue

	timeout 300 "${qemu_args[@]}" -dtb "$dtb" < /dev/null > "$log" 2>&1
	grep -q 'reboot: Restarting system' "$log"
	check $? "$name: the kernel boots and finishes"

	while IFS= read -r want; do
		grep -qF -- "$want" "$log"
		check $? "$name: log has \"$want\""
	done < <(sed -n 's/^ \* expect: //p' "$src")

	! grep -qE 'WARNING:|BUG:|Oops|Call trace:|failed to|probe of .* failed' "$log"
	check $? "$name: no warning, oops or failure in the log"

	totals=$(grep -c '^# Totals: ' "$log")
	! grep -q '^# Totals: .*fail:[1-9]' "$log" && [ "$totals" -eq "$(grep -vc '^#' "$top/kunit/suites")" ]
	check $? "$name: the $totals KUnit suites pass on this topology"
done
echo "1..$n"

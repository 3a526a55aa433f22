#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot the kernel `make test` just built on each device-tree topology of
# kunit/topologies/, with the QEMU command kunit.py used (taken from
# build/kunit-arm64/kunit.py.log) plus -dtb, the topology's CPU count and
# command line, and tools/guest/idle-workload.c as init. Prints KTAP lines:
# the graft adds no dtc warning; the boot runs the KUnit suites, then the
# workload, to its end; every "expect:" line of the topology source is in
# the log; nothing else warns or fails; the KUnit suites pass on that
# topology too; and the end-to-end checks of tools/idle-report.py (OSI
# mode, domain states entered, no invalid request, rejections are genuine
# denials, the PSCI checker). Logs: build/topologies/NAME.log.
#
# A topology source may say, in its header comment:
#   cpus: N          boot N CPUs (default 8)
#   source: FILE     graft FILE (of kunit/topologies/) instead of this one
#   cmdline: ARGS    add ARGS to the kernel command line
#   qemu: ARGS       add ARGS to QEMU's command line
#   expect: TEXT     the log must have TEXT (exempt from the warning check)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

out="$build/topologies"
mkdir -p "$out"
"$top/tools/build-guest.sh" || die "cannot build the guest's init"

check() { ktap_check "$@"; }

echo "KTAP version 1"
for src in "$top"/kunit/topologies/*.dtsi; do
	name=$(basename "$src" .dtsi)
	dtb="$out/$name.dtb" log="$out/$name.log"
	cpus=$(sed -n 's/^ \* cpus: //p' "$src")
	cpus=${cpus:-8}
	kunit_qemu_args "$cpus" "$(sed -n 's/^ \* cmdline: //p' "$src")" "$build/guest/initramfs.cpio"
	read -ra extra <<< "$(sed -n 's/^ \* qemu: //p' "$src")"
	qemu_args+=("${extra[@]}")
	body=$(sed -n 's/^ \* source: //p' "$src")
	body=${body:+$top/kunit/topologies/$body}
	"$top/tools/graft-topology.sh" "${body:-$src}" "$dtb" -machine virt -cpu cortex-a57 \
		-smp "$cpus" -m 1024 2> "$out/$name.graft"
	check $? "$name: grafted onto QEMU's tree without new dtc warnings"
	[ -f "$dtb" ] || continue

	timeout 600 "${qemu_args[@]}" -dtb "$dtb" < /dev/null > "$log" 2>&1
	grep -q 'idle-workload: done' "$log"
	check $? "$name: the kernel boots, runs the suites and the workload to the end ($cpus CPUs)"

	sed -n 's/^ \* expect: //p' "$src" > "$out/$name.expect"
	while IFS= read -r want; do
		grep -qF -- "$want" "$log"
		check $? "$name: log has \"$want\""
	done < "$out/$name.expect"

	! grep -vF -f "$out/$name.expect" "$log" |
		grep -qE 'WARNING:|BUG:|Oops|Call trace:|failed to|probe of .* failed'
	check $? "$name: no other warning, oops or failure in the log"

	totals=$(grep -c '^# Totals: ' "$log")
	! grep -q '^# Totals: .*fail:[1-9]' "$log" && [ "$totals" -eq "$(grep -vc '^#' "$top/kunit/suites")" ]
	check $? "$name: the $totals KUnit suites pass on this topology"

	"$top/tools/idle-report.py" "$log" > "$out/$name.checks"
	while read -r verdict what; do
		if [ "$verdict" = SKIP ]; then
			check 0 "$name: $what # SKIP"
			continue
		fi
		[ "$verdict" = PASS ]
		check $? "$name: $what"
	done < "$out/$name.checks"
done
echo "1..$ktap_n"

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
# denials, the PSCI checker). Logs: build/topologies/NAME.log (with
# KERNEL_VARIANT=debug: build/topologies-debug/; TOPOLOGY_OUT=DIR: DIR).
#
#   boot-topologies.sh [TOPOLOGY.dtsi...]   (default: kunit/topologies/)
#
# A topology source may say, in its header comment:
#   cpus: N          boot N CPUs (default 8)
#   source: FILE     graft FILE (of kunit/topologies/), this file's body on top
#   cmdline: ARGS    add ARGS to the kernel command line
#   qemu: ARGS       add ARGS to QEMU's command line
#   expect: TEXT     the log must have TEXT (exempt from the warning check)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

out="${TOPOLOGY_OUT:-$build/topologies$sfx}"
mkdir -p "$out"
"$top/tools/build-guest.sh" || die "cannot build the guest's init"

# One topology's boot and checks, as lines "<status> <description>" in
# build/topologies/NAME.results (numbered into KTAP at the end, in order).
boot_one() { # <topology source>
	local src=$1 name dtb log totals want verdict what
	name=$(basename "$src" .dtsi)
	check() { echo "$1 $2" >> "$out/$name.results"; }
	: > "$out/$name.results"
	dtb="$out/$name.dtb" log="$out/$name.log"
	# No log of an earlier run may stand in for this one's.
	rm -f "$dtb" "$log"
	topology_boot "$src" "$dtb"
	check $? "$name: grafted onto QEMU's tree without new dtc warnings"
	[ -f "$dtb" ] || return 0

	# In the background, so that a TERM from the parent (Ctrl-C) ends it.
	timeout 600 "${qemu_args[@]}" < /dev/null > "$log" 2>&1 &
	trap 'kill $! 2>/dev/null' TERM
	wait $!
	grep -q 'idle-workload: done' "$log"
	check $? "$name: the kernel boots, runs the suites and the workload to the end ($topology_cpus CPUs)"

	topology_header "$src" expect > "$out/$name.expect"
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

	# Exit 1 is a failed check, which its lines say; a crash is not.
	"$top/tools/idle-report.py" "$log" > "$out/$name.checks" 2> "$out/$name.report-errors"
	[ $? -le 1 ] && ! grep -q Traceback "$out/$name.report-errors"
	check $? "$name: tools/idle-report.py reads the log to its end"
	while read -r verdict what; do
		[ "$verdict" = PASS ]
		check $? "$name: $what"
	done < "$out/$name.checks"
	echo "END" >> "$out/$name.results"
}

# BOOT_JOBS boots at a time (default 2, one per core here); the topologies
# that depend on host timing have -icount (see docs/topologies.md).
jobs=${BOOT_JOBS:-2}
trap 'kill $(jobs -p) 2>/dev/null; pkill -P $$ 2>/dev/null' EXIT
sources=("$@")
[ $# -gt 0 ] || sources=("$top"/kunit/topologies/*.dtsi)
rm -f "$out"/*.results
for src in "${sources[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
	boot_one "$src" &
done
wait
echo "KTAP version 1"
for src in "${sources[@]}"; do
	results="$out/$(basename "$src" .dtsi).results"
	# A boot whose subshell died part way has no END line.
	if [ "$(tail -1 "$results" 2>/dev/null)" != END ]; then
		ktap_check 1 "$(basename "$src" .dtsi): the boot and all its checks ran"
	fi
	while read -r status what; do
		[ "$status" = END ] || ktap_check "$status" "$what"
	done < <(cat "$results" 2>/dev/null)
done
echo "1..$ktap_n"

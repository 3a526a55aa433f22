#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot one topology of kunit/topologies/ COUNT times with the kernel `make
# test` built (as tools/boot-topologies.sh boots it: same QEMU command,
# graft, guest workload, topology header) and print, per boot, the firmware
# model's counts at the end of the workload and the end-to-end checks that
# failed. For races that show in one boot of many; not part of `make test`.
# Exits non-zero when any boot had an invalid request or a failed check.
#
#   boot-repeat.sh [-j JOBS] TOPOLOGY [COUNT [EXTRA KERNEL ARGS]]
#
# TOPOLOGY is a name of kunit/topologies/ or the path of a topology source,
# such as a board's build/boards/NAME.dtsi that make test-boards extracted.
# e.g. boot-repeat.sh osi-2x4-system 20. Logs: build/repeat/TOPOLOGY-N.log.
# BOOT_TIMEOUT (seconds, default 600) ends a boot that hangs; its vCPUs'
# registers are saved first, in build/repeat/TOPOLOGY-N.regs.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

jobs=2
if [ "${1:-}" = -j ]; then jobs=$2; shift 2; fi
[ $# -ge 1 ] || die "usage: boot-repeat.sh [-j JOBS] TOPOLOGY [COUNT [EXTRA KERNEL ARGS]]"
name=$1 count=${2:-20} extra=${3:-}
topology_source "$name"
[ -f "$kout/vmlinux" ] || die "no test kernel: run make test (or make kunit) first"
out="$build/repeat"
mkdir -p "$out"
"$top/tools/build-guest.sh" || die "cannot build the guest's init"

# Logs of an earlier, longer run of this topology would be read as this
# run's by tools/compare-policies.sh.
rm -f "$out/$name"-[0-9]*.{log,checks,regs,hang}
topology_boot "$src" "$out/$name.dtb" "$extra" ||
	die "graft of $name failed (see ${out#$top/}/$name.dtb.graft)"

# A boot that outlives BOOT_TIMEOUT has its vCPUs' registers saved to
# NAME-N.regs (QEMU monitor "info registers -a"), then BOOT_HANG_HOOK, if
# set, is run (at most 120 s) with the boot's gdbstub socket and vmlinux,
# its output in NAME-N.hang (e.g. a gdb-multiarch script that reads the
# timers), and the boot is ended. timeout(1) bounds QEMU as well, should
# this script be killed first.
boot() { # <n>
	local log="$out/$name-$1.log" mon="$out/$name-$1.mon" gdb="$out/$name-$1.gdb"
	local limit=${BOOT_TIMEOUT:-600} pid t=0
	rm -f "$mon" "$gdb"
	timeout -k 10 $((limit + 300)) "${qemu_args[@]}" \
		-monitor "unix:$mon,server=on,wait=off" \
		-gdb "unix:$gdb,server=on,wait=off" < /dev/null > "$log" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2> /dev/null; do
		if [ $t -ge "$limit" ]; then
			"$top/tools/qemu-monitor.py" "$mon" "info registers -a" \
				> "$out/$name-$1.regs" 2>&1
			[ -z "${BOOT_HANG_HOOK:-}" ] ||
				timeout 120 "$BOOT_HANG_HOOK" "$gdb" "$kout/vmlinux" \
					> "$out/$name-$1.hang" 2>&1
			kill "$pid"
			break
		fi
		sleep 1
		t=$((t + 1))
	done
	wait "$pid"
	rm -f "$mon" "$gdb"
	"$top/tools/idle-report.py" "$log" > "$out/$name-$1.checks" 2>&1
}

trap 'kill $(jobs -p) 2>/dev/null' EXIT
note "booting $name $count times, $jobs at a time${extra:+, with \"$extra\"}"
start=$(date +%s)
for ((n = 1; n <= count; n++)); do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
	boot "$n" &
done
wait

bad=0
for ((n = 1; n <= count; n++)); do
	log="$out/$name-$n.log"
	# The model's last dump: "suspend requests: N denied: N invalid: N".
	counts=$(grep "^suspend requests: " "$log" | tail -1 | tr -d "\r")
	fails=$(grep -c '^FAIL ' "$out/$name-$n.checks")
	grep -q 'idle-workload: done' "$log" || fails=$((fails + 1))
	invalid=$(awk '{print $7}' <<< "$counts")
	printf 'boot %2d: %s; %d failed checks\n' "$n" "${counts:-no model counts}" "$fails"
	grep '^FAIL ' "$out/$name-$n.checks" | sed 's/^/         /'
	[ "${invalid:-0}" = 0 ] && [ "$fails" = 0 ] || bad=$((bad + 1))
done
echo "$name: $((count - bad)) of $count boots without invalid requests or failed checks ($(minsec $(($(date +%s) - start))))"
[ "$bad" = 0 ]

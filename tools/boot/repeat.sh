#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot one topology COUNT times with a built kernel (as
# tools/boot/topologies.py boots it: the same machine, graft, guest
# workload and topology header) and print, per boot, the firmware model's
# counts at the end of the workload and the end-to-end checks that failed.
# For races that show in one boot of many; not part of `make test`.
# Exits non-zero when any boot had an invalid request or a failed check.
#
#   repeat.sh [-j JOBS] [--timeout S] [--hang-hook PROGRAM] [--kernel DIR]
#             [--out DIR] TOPOLOGY [COUNT [EXTRA KERNEL ARGS]]
#
# TOPOLOGY is a name of kunit/topologies/ or the path of a topology source,
# such as a board's build/results/boards/boards/NAME.dtsi that make
# test-boards extracted. e.g. repeat.sh osi-2x4-system 20. Logs:
# OUT/TOPOLOGY-N.log (OUT: build/repeat). --timeout (seconds, default 600)
# ends a boot that hangs; its vCPUs' registers are saved first, in
# OUT/TOPOLOGY-N.regs. KERNEL: build/kunit-arm64.
set -uo pipefail
. "$(dirname "$0")/../lib/common.sh"
help_on_request "$@"

jobs=2 limit=600 hook='' kernel=$(kernel_dir) out="$build/repeat"
while [ $# -gt 0 ]; do
	case $1 in
	-j) jobs=$2 ;;
	--timeout) limit=$2 ;;
	--hang-hook) hook=$2 ;;
	--kernel) kernel=$2 ;;
	--out) out=$2 ;;
	*) break ;;
	esac
	shift 2
done
[ $# -ge 1 ] || die "usage: repeat.sh [-j JOBS] [--timeout S] [--hang-hook PROGRAM] [--kernel DIR] [--out DIR] TOPOLOGY [COUNT [EXTRA KERNEL ARGS]]"
topology=$1 count=${2:-20} extra=${3:-}
name=$(basename "$topology" .dtsi)
[ -f "$kernel/vmlinux" ] || die "no kernel in ${kernel#"$top"/}: run make test (or make kunit) first"
mkdir -p "$out"
"$top/tools/kernel/build-guest.sh" "$top/tools/guest/idle-workload.c" "$out/guest" >&2 ||
	die "cannot build the guest's init"

# Logs of an earlier, longer run of this topology would be read as this
# run's by tools/boot/compare-policies.sh.
rm -f "$out/$name"-[0-9]*.{log,checks,regs,hang}
mapfile -t qemu_args < <("$top/tools/boot/boot.py" --argv --topology "$topology" \
	--dtb "$out/$name.dtb" --kernel "$kernel" --initrd "$out/guest/initramfs.cpio" \
	--cmdline "$extra")
[ ${#qemu_args[@]} -gt 0 ] || die "cannot graft or boot $topology"
# The boot's CPU count, for the hang hook.
for ((i = 0; i < ${#qemu_args[@]}; i++)); do
	[ "${qemu_args[i]}" != -smp ] || cpus=${qemu_args[i + 1]}
done

# A boot that outlives the time limit has its vCPUs' registers saved to
# NAME-N.regs (QEMU monitor "info registers -a"), then the hang hook, if
# given, is run (at most 120 s) with the boot's gdbstub socket, vmlinux and
# CPU count, its output in NAME-N.hang (e.g. tools/boot/hang-timers.sh,
# which reads the vCPUs' timers), and the boot is ended. timeout(1) bounds QEMU as well, should
# this script be killed first.
boot() { # <n>
	local log="$out/$name-$1.log" mon="$out/$name-$1.mon" gdb="$out/$name-$1.gdb"
	local pid t=0
	rm -f "$mon" "$gdb"
	timeout -k 10 $((limit + 300)) "${qemu_args[@]}" \
		-monitor "unix:$mon,server=on,wait=off" \
		-gdb "unix:$gdb,server=on,wait=off" < /dev/null > "$log" 2>&1 &
	pid=$!
	# Ended (the script stopped): QEMU too, through timeout(1).
	trap 'kill "$pid" 2>/dev/null' TERM
	while kill -0 "$pid" 2> /dev/null; do
		if [ $t -ge "$limit" ]; then
			"$top/tools/boot/qemu-monitor.py" "$mon" "info registers -a" \
				> "$out/$name-$1.regs" 2>&1
			[ -z "$hook" ] ||
				timeout 120 "$hook" "$gdb" "$kernel/vmlinux" "$cpus" \
					> "$out/$name-$1.hang" 2>&1
			kill "$pid"
			break
		fi
		sleep 1
		t=$((t + 1))
	done
	wait "$pid"
	rm -f "$mon" "$gdb"
	"$top/tools/report/idle-report.py" --failed "$log" > "$out/$name-$1.checks" 2>&1
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
	fails=$(grep -c . "$out/$name-$n.checks")
	grep -q 'idle-workload: done' "$log" || fails=$((fails + 1))
	invalid=$(awk '{print $7}' <<< "$counts")
	printf 'boot %2d: %s; %d failed checks\n' "$n" "${counts:-no model counts}" "$fails"
	sed 's/^/         /' "$out/$name-$n.checks"
	[ "${invalid:-0}" = 0 ] && [ "$fails" = 0 ] || bad=$((bad + 1))
done
echo "$name: $((count - bad)) of $count boots without invalid requests or failed checks ($(minsec $(($(date +%s) - start))))"
[ "$bad" = 0 ]

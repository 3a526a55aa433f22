#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot one topology COUNT times with a built kernel (as
# tools/boot/topologies.py boots it: the same machine, graft, guest
# workload and topology header) and print, per boot, the firmware model's
# counts at the end of the workload and the end-to-end checks that failed.
# For races that show in one boot of many; not part of `make test`.
# Exits non-zero when any boot had a malformed request (an invalid one not
# over a child node's newer state) or a failed check.
#
#   repeat.sh [-j JOBS] [--timeout S] [--machine NAME] [--qemu "OPTIONS"] [--qemu-hook PROGRAM]
#             [--hang-hook PROGRAM] [--revive S] [--pause-at TEXT [--pause S]]
#             [--kernel DIR] [--out DIR]
#             TOPOLOGY [COUNT [EXTRA KERNEL ARGS]]
#
# TOPOLOGY is a name of kunit/topologies/ or the path of a topology source,
# such as a board's build/results/boards/boards/NAME.dtsi that make
# test-boards extracted. e.g. repeat.sh osi-2x4-system 20. --machine: a
# machine of harness/machine.py (test; debug for the debug kernel). --qemu adds
# QEMU options after the topology's (QEMU merges a later -icount into an
# earlier one). --pause-at stops the whole VM for S seconds (3) once the
# console printed TEXT, as a host that does not run it would. Logs:
# OUT/TOPOLOGY-N.log (OUT: build/repeat). --timeout (seconds, default 600)
# ends a boot that hangs, after what the comment above boot() lists
# (--qemu-hook, e.g. tools/boot/qemu-state.py, which reads QEMU's timers
# with gdb; --hang-hook; whether the guest goes on within --revive seconds,
# default 20, of a monitor command). KERNEL: build/kunit-arm64.
set -uo pipefail
. "$(dirname "$0")/../lib/common.sh"
help_on_request "$@"

jobs=2 limit=600 revive=20 hook='' qemu_hook='' qemu_more='' pause_at='' pause=3 kernel=$(kernel_dir) out="$build/repeat" machine=test
while [ $# -gt 0 ]; do
	case $1 in
	-j) jobs=$2 ;;
	--timeout) limit=$2 ;;
	--hang-hook) hook=$2 ;;
	--qemu-hook) qemu_hook=$2 ;;
	--qemu) qemu_more=$2 ;;
	--machine) machine=$2 ;;
	--pause-at) pause_at=$2 ;;
	--pause) pause=$2 ;;
	--revive) revive=$2 ;;
	--kernel) kernel=$2 ;;
	--out) out=$2 ;;
	*) break ;;
	esac
	shift 2
done
[ $# -ge 1 ] || die "usage: repeat.sh [OPTIONS] TOPOLOGY [COUNT [EXTRA KERNEL ARGS]] (repeat.sh --help)"
topology=$1 count=${2:-20} extra=${3:-}
name=$(basename "$topology" .dtsi)
[ -f "$kernel/vmlinux" ] || die "no kernel in ${kernel#"$top"/}: run make test (or make kunit) first"
mkdir -p "$out"
"$top/tools/kernel/build-guest.sh" --tree "$tree" "$top/tools/guest/idle-workload.c" "$out/guest" >&2 ||
	die "cannot build the guest's init"

# Logs of an earlier, longer run of this topology would be read as this
# run's by tools/boot/compare-policies.sh.
rm -f "$out/$name"-[0-9]*.{log,checks,regs,hang,revive,qemu}
mapfile -t qemu_args < <("$top/tools/boot/boot.py" --argv --topology "$topology" \
	--dtb "$out/$name.dtb" --kernel "$kernel" --initrd "$out/guest/initramfs.cpio" \
	--cmdline "$extra" --machine "$machine" ${qemu_more:+--qemu "$qemu_more"})
[ ${#qemu_args[@]} -gt 0 ] || die "cannot graft or boot $topology"
# The boot's CPU count, for the hang hook.
for ((i = 0; i < ${#qemu_args[@]}; i++)); do
	[ "${qemu_args[i]}" != -smp ] || cpus=${qemu_args[i + 1]}
done

# A boot that outlives the time limit: if its console grew in the last
# 5 s, it is noted as still running at the limit (NAME-N.revive) and ended.
# Otherwise it stopped: the --qemu-hook program reads QEMU's own state
# (NAME-N.qemu), the vCPUs' registers are saved (NAME-N.regs, monitor
# "info registers -a"), the --hang-hook program, if given, runs (at most
# 120 s) with the boot's gdbstub socket, vmlinux and CPU count (NAME-N.hang,
# e.g. tools/boot/hang-timers.sh, which reads the vCPUs' timers), and then
# NAME-N.revive says whether the guest went on in the --revive seconds
# after the monitor's command woke QEMU's main loop; then the boot is
# ended. timeout(1) bounds QEMU as well, should this script be killed
# first.
boot() { # <n>
	local log="$out/$name-$1.log" mon="$out/$name-$1.mon" gdb="$out/$name-$1.gdb"
	local pid watcher='' t=0 size
	rm -f "$mon" "$gdb"
	timeout -k 10 $((limit + 300)) "${qemu_args[@]}" \
		-monitor "unix:$mon,server=on,wait=off" \
		-gdb "unix:$gdb,server=on,wait=off" < /dev/null > "$log" 2>&1 &
	pid=$!
	# Ended (the script stopped): QEMU too, through timeout(1).
	trap 'kill "$pid" $watcher 2>/dev/null' TERM
	if [ -n "$pause_at" ]; then
		# A host that stops running the guest: the whole VM paused.
		bash -c 'until grep -q -F -- "$2" "$1"; do
				kill -0 "$6" 2>/dev/null || exit 0; sleep 0.02; done &&
			"$3" "$4" stop && sleep "$5" && "$3" "$4" cont' _ \
			"$log" "$pause_at" "$top/tools/boot/qemu-monitor.py" "$mon" "$pause" "$pid" \
			> /dev/null 2>&1 &
		watcher=$!
	fi
	while kill -0 "$pid" 2> /dev/null; do
		if [ $t -ge "$limit" ]; then
			size=$(stat -c %s "$log")
			sleep 5
			if [ "$(stat -c %s "$log")" -gt "$size" ]; then
				echo "still running at the time limit ($limit s)" > "$out/$name-$1.revive"
				kill "$pid"
				break
			fi
			size=$(stat -c %s "$log")
			echo "stopped after console line $(wc -l < "$log"): $(tail -1 "$log" | tr -d '\r')" \
				> "$out/$name-$1.revive"
			# QEMU's own state first: the monitor wakes its main loop.
			[ -z "$qemu_hook" ] ||
				timeout 120 "$qemu_hook" "$(pgrep -P "$pid" | head -1)" \
					> "$out/$name-$1.qemu" 2>&1
			"$top/tools/boot/qemu-monitor.py" "$mon" "info registers -a" \
				> "$out/$name-$1.regs" 2>&1
			[ -z "$hook" ] ||
				timeout 120 "$hook" "$gdb" "$kernel/vmlinux" "$cpus" \
					> "$out/$name-$1.hang" 2>&1
			# The monitor's command woke QEMU's main loop: does the
			# guest go on? (A timer that nothing armed would now be.)
			sleep "$revive"
			if [ "$(stat -c %s "$log")" -gt "$size" ]; then
				echo "the guest went on after QEMU's main loop was woken" >> "$out/$name-$1.revive"
			else
				echo "the guest stayed stopped for ${revive} s after QEMU's main loop was woken" >> "$out/$name-$1.revive"
			fi
			kill "$pid"
			break
		fi
		sleep 1
		t=$((t + 1))
	done
	wait "$pid"
	[ -z "$watcher" ] || { kill "$watcher" 2> /dev/null; wait "$watcher" 2> /dev/null; }
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
	# Invalid over a child node's newer state: a race, which the checks judge.
	stale=$(grep "^invalid over a child node's state: " "$log" | tail -1 | tr -d "\r" | awk '{print $NF}')
	invalid=$((${invalid:-0} - ${stale:-0}))
	printf 'boot %2d: %s; %d failed checks\n' "$n" "${counts:-no model counts}" "$fails"
	sed 's/^/         /' "$out/$name-$n.checks"
	[ ! -f "$out/$name-$n.revive" ] || sed 's/^/         timed out: /' "$out/$name-$n.revive"
	[ "${invalid:-0}" = 0 ] && [ "$fails" = 0 ] || bad=$((bad + 1))
done
echo "$name: $((count - bad)) of $count boots without malformed requests or failed checks ($(minsec $(($(date +%s) - start))))"
[ "$bad" = 0 ]

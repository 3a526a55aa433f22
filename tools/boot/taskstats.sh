#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# End-to-end check of frequency-scaled CPU time: boot a built kernel
# (KUnit off) on the harness' machine (--machine: test, or debug) with 4
# CPUs, tools/guest/taskstats-check.c as init and the tree's tools/accounting/getdelays.c beside it. QEMU has
# no activity counters, so scaled time must equal CPU time exactly, per
# thread and per thread group, in taskstats and in getdelays' columns.
# Prints KTAP, each result named NAME: ... (default taskstats). With
# nohz_full= on the command line the guest must see those CPUs in
# /sys/devices/system/cpu/nohz_full, and the kernel must account CPU time
# with VIRT_CPU_ACCOUNTING_GEN.
#
#   taskstats.sh --kernel DIR --out DIR --console FILE [--name NAME] [--cmdline ARGS]
#                [--machine NAME]
set -uo pipefail
. "$(dirname "$0")/../lib/common.sh"
help_on_request "$@"
. "$top/tools/lib/ktap.sh"

name=taskstats cmdline= machine=test
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2 ;;
	--out) out=$2 ;;
	--console) log=$2 ;;
	--name) name=$2 ;;
	--cmdline) cmdline=$2 ;;
	--machine) machine=$2 ;;
	*) die "usage: taskstats.sh --kernel DIR --out DIR --console FILE [--name NAME] [--cmdline ARGS] [--machine NAME]" ;;
	esac
	shift 2
done
[ -n "${kernel:-}" ] && [ -n "${out:-}" ] && [ -n "${log:-}" ] || die "--kernel, --out and --console are needed"
tree=$(kernel_tree "$kernel")
mkdir -p "$out" "$(dirname "$log")"
rm -f "$log"	# no log of an earlier run may stand in for this one's
"$top/tools/kernel/build-guest.sh" --tree "$tree" "$top/tools/guest/taskstats-check.c" "$out" >&2 \
	"$tree/tools/accounting/getdelays.c" || die "cannot build the guest's programs"

check() { ktap_result "$1" "$name: $2"; }
ktap_start
want=(FREQ_SCALED_CPUTIME TASKSTATS)
nohz=$(sed -n 's/.*nohz_full=\([^ ]*\).*/\1/p' <<< "$cmdline")
[ -z "$nohz" ] || want+=(NO_HZ_FULL VIRT_CPU_ACCOUNTING_GEN)
ok=0
for opt in "${want[@]}"; do
	grep -qx "CONFIG_$opt=y" "$kernel/.config" || ok=1
done
check $ok "the kernel has ${want[*]/#/CONFIG_}"

"$top/tools/boot/boot.py" --kernel "$kernel" --machine "$machine" --cpus 4 --no-kunit \
	--initrd "$out/initramfs.cpio" --cmdline "$cmdline" --log "$log" --timeout 120
rc=$?
tr -d '\r' < "$log" > "$out/boot.txt"
grep -q '^taskstats-check: done' "$out/boot.txt"
check $? "the guest's check runs to its end"
[ $rc -eq 0 ] || ktap_diag "QEMU exited $rc$([ $rc -eq 124 ] && echo ': timed out after 120 s')"

if [ -n "$nohz" ]; then
	grep -qx "taskstats-check: nohz_full CPUs: $nohz" "$out/boot.txt"
	check $? "CPUs $nohz run without the tick (nohz_full), the busy threads on them"
fi

# The guest's checks, as many as it says it makes (or, if it died before
# saying, as many as it printed).
guest=0
while read -r verdict what; do
	[ "$verdict" = PASS ]
	check $? "$what"
	guest=$((guest + 1))
done < <(sed -n 's/^taskstats-check: \(PASS\|FAIL\) /\1 /p' "$out/boot.txt")
declared=$(sed -n 's/^taskstats-check: \([0-9]*\) checks$/\1/p' "$out/boot.txt")

# getdelays -d: under its "CPU TIME" header, utime, stime and the scaled
# pair, in microseconds. Each run (thread, then thread group) must show
# them, nonzero and pairwise equal.
for what in thread "thread group"; do
	opt=-p
	[ "$what" = thread ] || opt=-t
	row=$(sed -n "/^taskstats-check: \$ getdelays -d $opt /,/^taskstats-check: getdelays done/p" \
		"$out/boot.txt" | grep -A1 '^CPU TIME ' | tail -1)
	row=$(echo $row)
	read -r u s su ss rest <<< "$row"
	[ -n "$ss" ] && [ -z "$rest" ] && [ "$u" -gt 0 ] && [ "$s" -gt 0 ] &&
		[ "$u" = "$su" ] && [ "$s" = "$ss" ] 2>/dev/null
	check $? "getdelays -d $opt shows the $what's scaled times beside utime and stime (${row:-none})"
done

! grep -qE 'WARNING:|BUG:|Oops|Call trace:' "$out/boot.txt"
check $? "no warning or oops in the log"
# The config, the guest's end, its checks, getdelays twice, the warnings;
# with nohz_full, its CPUs.
nohz_checks=0
[ -z "$nohz" ] || nohz_checks=1
ktap_end $((5 + ${declared:-$guest} + nohz_checks))

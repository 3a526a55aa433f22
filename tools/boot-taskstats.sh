#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# End-to-end check of frequency-scaled CPU time: boot a kernel built by
# kunit.py (KUnit off) with tools/guest/taskstats-check.c as init and the
# tree's tools/accounting/getdelays.c beside it. QEMU has no activity
# counters, so scaled time must equal CPU time exactly, per thread and per
# thread group, in taskstats and in getdelays' columns. Prints KTAP lines
# named NAME; log: build/NAME/boot.log.
#
#   boot-taskstats.sh [BUILD_DIR NAME [KERNEL COMMAND LINE]]
#
# Default: build/kunit-arm64 (the kernel of `make test`), taskstats. With
# nohz_full= on the command line the guest must see those CPUs in
# /sys/devices/system/cpu/nohz_full, and the kernel must account CPU time
# with VIRT_CPU_ACCOUNTING_GEN.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

kout=${1:-$kout}
name=${2:-taskstats$sfx}
cmdline=${3:-}
out="$build/$name"
log="$out/boot.log"
mkdir -p "$out"
rm -f "$log"	# no log of an earlier run may stand in for this one's
"$top/tools/build-guest.sh" "$top/tools/guest/taskstats-check.c" "$out" \
	"$tree/tools/accounting/getdelays.c" || die "cannot build the guest's programs"

check() { ktap_check "$1" "$name: $2"; }

echo "KTAP version 1"
want=(FREQ_SCALED_CPUTIME TASKSTATS)
nohz=$(sed -n 's/.*nohz_full=\([^ ]*\).*/\1/p' <<< "$cmdline")
[ -z "$nohz" ] || want+=(NO_HZ_FULL VIRT_CPU_ACCOUNTING_GEN)
ok=0
for opt in "${want[@]}"; do
	grep -qx "CONFIG_$opt=y" "$kout/.config" || ok=1
done
check $ok "the kernel has ${want[*]/#/CONFIG_}"

kunit_qemu_args 4 "kunit.enable=0 $cmdline" "$out/initramfs.cpio" "$kout"
timeout 120 "${qemu_args[@]}" < /dev/null > "$log" 2>&1
tr -d '\r' < "$log" > "$out/boot.txt"
grep -q '^taskstats-check: done' "$out/boot.txt"
check $? "the guest's check runs to its end"

if [ -n "$nohz" ]; then
	grep -qx "taskstats-check: nohz_full CPUs: $nohz" "$out/boot.txt"
	check $? "CPUs $nohz run without the tick (nohz_full), the busy threads on them"
fi

while read -r verdict what; do
	[ "$verdict" = PASS ]
	check $? "$what"
done < <(sed -n 's/^taskstats-check: \(PASS\|FAIL\) /\1 /p' "$out/boot.txt")

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
echo "1..$ktap_n"

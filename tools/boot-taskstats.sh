#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# End-to-end check of frequency-scaled CPU time: boot the kernel `make test`
# just built (KUnit off) with tools/guest/taskstats-check.c as init and the
# tree's tools/accounting/getdelays.c beside it. QEMU has no activity
# counters, so scaled time must equal CPU time exactly, per thread and per
# thread group, in taskstats and in getdelays' columns. Prints KTAP lines;
# log: build/taskstats/boot.log.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

out="$build/taskstats"
log="$out/boot.log"
mkdir -p "$out"
"$top/tools/build-guest.sh" "$top/tools/guest/taskstats-check.c" "$out" \
	"$tree/tools/accounting/getdelays.c" || die "cannot build the guest's programs"

n=0
check() { # <ok?> <description>
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fi
}

echo "KTAP version 1"
config="$build/kunit-arm64/.config"
grep -qx 'CONFIG_FREQ_SCALED_CPUTIME=y' "$config" && grep -qx 'CONFIG_TASKSTATS=y' "$config"
check $? "taskstats: the kernel has CONFIG_FREQ_SCALED_CPUTIME and CONFIG_TASKSTATS"

kunit_qemu_args 4 "kunit.enable=0" "$out/initramfs.cpio"
timeout 120 "${qemu_args[@]}" < /dev/null > "$log" 2>&1
tr -d '\r' < "$log" > "$out/boot.txt"
grep -q '^taskstats-check: done' "$out/boot.txt"
check $? "taskstats: the guest's check runs to its end"

while read -r verdict what; do
	[ "$verdict" = PASS ]
	check $? "taskstats: $what"
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
	check $? "taskstats: getdelays -d $opt shows the $what's scaled times beside utime and stime (${row:-none})"
done

! grep -qE 'WARNING:|BUG:|Oops|Call trace:' "$out/boot.txt"
check $? "taskstats: no warning or oops in the log"
echo "1..$n"

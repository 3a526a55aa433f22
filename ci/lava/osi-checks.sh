#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The series' checks on a board or model with real PSCI firmware in
# OS-initiated mode (the firmware model off), run by a LAVA test shell
# (tools/lab/lava-jobs.py write: the board and FVP jobs; docs/lab.md).
# POSIX sh and busybox tools.
#
# Reads the boot log, then the statistics of genpd (debugfs pm_genpd) and
# cpuidle (sysfs) before and after an idle period, and the PSCI functions
# the firmware has (debugfs psci). Each check is a LAVA test case
# (lava-test-case) when run under LAVA, else a KTAP result (the harness'
# writer, tools/lib/ktap.sh, which the LAVA job writes beside this file);
# counts are LAVA measurements, or diagnostic lines before their result.
# Exits non-zero when a check fails.
#
#   osi-checks.sh [--root DIR] [--dmesg FILE] [--idle COMMAND]
#
# --root: a prefix for /sys (tests); --dmesg: a file with the boot log
# (default: dmesg's output); --idle: the idle period (default: sleep 30).
set -u

root='' dmesg_file='' idle="sleep 30"
while [ $# -ge 2 ]; do
	case $1 in
	--root) root=$2 ;;
	--dmesg) dmesg_file=$2 ;;
	--idle) idle=$2 ;;
	*) break ;;
	esac
	shift 2
done
[ $# -eq 0 ] || { echo "usage: osi-checks.sh [--root DIR] [--dmesg FILE] [--idle COMMAND]" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
genpd=$root/sys/kernel/debug/pm_genpd
cpus=$root/sys/devices/system/cpu
n=0
failed=0
[ -n "$root" ] || grep -qs ' /sys/kernel/debug debugfs ' /proc/mounts ||
	mount -t debugfs none /sys/kernel/debug

here=$(dirname "$0")
if [ -f "$here/ktap.sh" ]; then . "$here/ktap.sh"; else . "$here/../../tools/lib/ktap.sh"; fi
lava=
command -v lava-test-case > /dev/null && lava=yes
[ -n "$lava" ] || ktap_start

# case <name> <pass|fail|skip> [measurement units]
case_() {
	n=$((n + 1))
	[ "$2" = fail ] && failed=$((failed + 1))
	if [ -n "$lava" ]; then
		if [ $# -ge 4 ]; then
			lava-test-case "$1" --result "$2" --measurement "$3" --units "$4"
		else
			lava-test-case "$1" --result "$2"
		fi
		return
	fi
	[ $# -lt 4 ] || ktap_diag "$3 $4"
	case $2 in
	pass) ktap_result 0 "$1" ;;
	skip) ktap_skip "$1" "not supported" ;;
	*) ktap_result 1 "$1" ;;
	esac
}

check() { # <name> <command...>: pass when the command succeeds
	name=$1
	shift
	if "$@"; then case_ "$name" pass; else case_ "$name" fail; fi
}

if [ -n "$dmesg_file" ]; then cat "$dmesg_file"; else dmesg; fi > "$tmp/dmesg.txt"
has() { grep -q "$1" "$tmp/dmesg.txt"; }

# A log that wrapped would let the absence checks pass for nothing.
check boot-log-complete has 'Booting Linux on physical CPU'
check osi-mode has 'CPUidle PSCI: Initialized CPU PM domain topology using OSI mode'
# The test kernels' firmware model must not answer for the firmware: it
# is off, or beside it in shadow mode (in charge, it says so; before it
# said its role, it said only its mode).
not_in_charge() {
	! has "psci: firmware model: in charge" &&
		{ ! has "psci: firmware model: OS-initiated mode" || has "psci: firmware model: shadow"; }
}
check firmware-model-not-in-charge not_in_charge

# The PSCI functions the firmware has (debugfs psci, 6.1 and later, prints
# their names: "STAT_RESIDENCY is supported"). No kernel interface reads
# the statistics themselves (docs/lab.md); the case says whether the
# firmware has them.
psci_checks=1
if [ -r "$root/sys/kernel/debug/psci" ]; then
	psci_checks=3
	psci=$root/sys/kernel/debug/psci
	check firmware-osi-supported grep -q '^OSI is supported' "$psci"
	for fn in STAT_RESIDENCY STAT_COUNT; do
		if grep -q "^$fn is supported" "$psci"; then
			case_ "firmware-has-psci-$fn" pass
		else
			case_ "firmware-has-psci-$fn" skip
		fi
	done
else
	case_ firmware-osi-supported fail
fi

# The CPU PM domains: those with a CPU device attached, and, in turn, every
# domain with one of them as a subdomain. Other domains of the SoC are not
# ours to judge.
cpu_domains() {
	for d in "$genpd"/*/; do
		# A CPU's device shows as /devices/genpd:N:cpuM (the virtual device
		# cpuidle-psci attaches), or as the CPU itself; 7.x prints the
		# device's name alone (genpd:N:cpuM).
		grep -qsE '(^|/)(genpd:[0-9]+:)?cpu[0-9]+$' "$d/devices" && basename "$d"
	done > "$tmp/domains.txt"
	while :; do
		for d in "$genpd"/*/; do
			grep -qsxF -f "$tmp/domains.txt" "$d/sub_domains" && basename "$d"
		done | cat "$tmp/domains.txt" - | sort -u > "$tmp/domains.new"
		cmp -s "$tmp/domains.new" "$tmp/domains.txt" && break
		mv "$tmp/domains.new" "$tmp/domains.txt"
	done
}

# Snapshot: lines "<kind> <name> <usage> <time> <rejected>".
snapshot() {
	while read -r dom; do
		d=$genpd/$dom
		[ -r "$d/idle_states" ] || continue
		awk -v dom="$dom" 'NR > 1 && $1 ~ /^S[0-9]+$/ {
			print "genpd", dom "." $1, $3, $2, $4 }' "$d/idle_states"
	done < "$tmp/domains.txt"
	for s in "$cpus"/cpu[0-9]*/cpuidle/state[0-9]*; do
		[ -r "$s/usage" ] || continue
		cpu=$(basename "$(dirname "$(dirname "$s")")")
		echo "cpuidle $cpu.$(cat "$s/name" | tr -c 'A-Za-z0-9_.\n-' _) $(cat "$s/usage") $(cat "$s/time") $(cat "$s/rejected" 2>/dev/null || echo 0)"
	done
}

cpu_domains
snapshot > "$tmp/before.txt"
sh -c "$idle"
snapshot > "$tmp/after.txt"

domains=$(wc -l < "$tmp/domains.txt")
if [ "$domains" -gt 0 ]; then
	case_ genpd-cpu-domains-found pass "$domains" domains
else
	case_ genpd-cpu-domains-found fail
fi

# The deepest state of every CPU PM domain and of every CPU was entered
# during the idle period: that is what hierarchical idle is for. The
# entries, time and rejections of every state are measurements.
deepest() { # <kind>: the last state of each domain or CPU, as "<unit>.<state>"
	awk -v k="$1" '$1 == k { split($2, a, "."); last[a[1]] = $2 } END { for (u in last) print last[u] }' \
		$tmp/after.txt
}
deepest genpd > "$tmp/deepest.txt"
deepest cpuidle >> "$tmp/deepest.txt"
while read -r kind name usage time rejected; do
	before=$(awk -v k="$kind" -v s="$name" '$1 == k && $2 == s { print $3, $4, $5 }' "$tmp/before.txt")
	set -- ${before:-0 0 0}
	du=$((usage - $1)) dt=$((time - $2)) dr=$((rejected - $3))
	r=pass
	if grep -qxF "$name" "$tmp/deepest.txt" && [ "$du" -le 0 ]; then r=fail; fi
	case_ "$kind.$name.entered" "$r" "$du" entries
	unit=ms
	[ "$kind" = cpuidle ] && unit=us
	case_ "$kind.$name.time" pass "$dt" "$unit"
	[ "$kind" = genpd ] && case_ "$kind.$name.rejected" pass "$dr" requests
done < "$tmp/after.txt"

# The plan: the boot log's three, the firmware's, the domains found, and
# per state found after the idle period, three for a domain's and two for
# a CPU's.
states=$(awk '$1 == "genpd" { n += 3 } $1 == "cpuidle" { n += 2 } END { print n + 0 }' \
	"$tmp/after.txt")
[ -n "$lava" ] || ktap_end $((3 + psci_checks + 1 + states))
[ "$failed" -eq 0 ]

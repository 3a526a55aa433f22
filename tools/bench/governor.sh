#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Instructions per decision of the CPU PM domain governor, on the pristine
# base and on the series, measured the same way: tools/bench/genpd-gov-bench.c
# is built into each kernel (it is not part of the series) and counts with
# the PMU's "instructions" event, which QEMU provides in icount mode. Each
# kernel boots with CPUS CPUs in one domain (default "4 16 64 256").
# On 6.1: pristine 6.1 ("6.1"), the series under genpd.cpu_policy=timers
# (6.1's decision, "series"), "pending", and "learn" (measured with a
# history of one period cut short, so that its forecast is computed).
# On 7.3 (--base 7.3): pristine 7.3 ("7.3": mainline's governor, with its
# peek at queued calls), the series under "timers", "ipi" (its switch to
# mainline's peek) and "pending" (its own). The series' boots also print
# the domain's debugfs files (a transcript of the idle period counters).
# Results: build/[BASE/]bench/<kernel>-smp<N>.log, summary on stdout.
#
#   governor.sh [--base B] [CPUS...]
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
help_on_request "$@"

need_tree
out="$build/bench"
mkdir -p "$out"
use_ccache

"$top/tools/kernel/build-guest.sh" "$top/tools/bench/init.c" "$out"
sed "s|@INITRAMFS@|$out/initramfs.list|" "$top/tools/bench/bench.config" > "$out/bench.config"
case $base in
6.1)
	gov_dir=drivers/base/power
	policies="series:timers pending:pending learn:learn"
	;;
*)
	gov_dir=drivers/pmdomain
	policies="series:timers ipi:ipi pending:pending"
	# The series' policy switch (test-harness/0011) is a debug option.
	printf 'CONFIG_DEBUG_KERNEL=y\nCONFIG_PM_GENPD_CPU_POLICY=y\n' >> "$out/bench.config"
	;;
esac

build_kernel() { # <name> <commit>
	bench_kernel "$2" genpd-gov-bench.c "$gov_dir" "$out/bench.config" \
		"$out/kernel-$1"
}

boot() { # <name> <cpus> [kernel] [extra command line]
	local log="$out/$1-smp$2.log"
	local cmd
	# The test machine (harness/machine.py) with GICv3 at every CPU count.
	mapfile -t cmd < <("$top/tools/boot/boot.py" --argv --kernel "$out/kernel-${3:-$1}" \
		--cpus "$2" --gic 3 --qemu "-icount shift=0" --no-initrd \
		--append "rdinit=/init ${4:-}")
	timeout 900 "${cmd[@]}" < /dev/null > "$log" 2>&1 || true
	grep -q 'genpd-gov-bench: cpus=' "$log" || die "no result in ${log#"$top"/}"
	# The path measured is the one that lets the domain go down.
	grep -q 'genpd-gov-bench: cpus=.* ok=1 ' "$log" ||
		die "${log#"$top"/}: the decision measured kept the domain on"

	# The policy the series' kernel ran: the one asked for, else its default.
	if [ "$1" != "$base" ]; then
		local want=${4:-}
		want=${want#genpd.cpu_policy=}
		grep -A1 '^# cat /sys/module/genpd/parameters/cpu_policy' "$log" |
			grep -q "^${want:-pending}" ||
			die "${log#"$top"/}: the kernel did not run the ${want:-pending} policy"
	fi
	printf '%-8s %s\n' "$1" "$(grep -o 'genpd-gov-bench: cpus=.*' "$log" | tr -d '\r')"
}

build_kernel "$base" base
build_kernel series "$(tgit rev-parse HEAD)"
[ $# -gt 0 ] || set -- 4 16 64 256
for n in "$@"; do
	boot "$base" "$n"
	for p in $policies; do
		boot "${p%%:*}" "$n" series "genpd.cpu_policy=${p#*:}"
	done
done

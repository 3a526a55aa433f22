#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Instructions per decision of the CPU PM domain governor, on pristine 6.1
# and on the series, measured the same way: tools/bench/genpd-gov-bench.c is
# built into each kernel (it is not part of the series) and counts with the
# PMU's "instructions" event, which QEMU provides in icount mode. Each kernel
# boots with CPUS CPUs in one domain (default "4 16 64 256"); the
# series under genpd.cpu_policy=timers (6.1's decision, "series"), also
# under genpd.cpu_policy=pending ("pending") and
# genpd.cpu_policy=learn ("learn", measured with a history of one period
# cut short, so that its forecast is computed). The series' boot
# also prints the domain's debugfs files (a transcript of the idle period
# counters). Results: build/bench/<kernel>-smp<N>.log, summary on stdout.
#
#   governor.sh [CPUS...]
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
help_on_request "$@"

need_tree
out="$build/bench"
mkdir -p "$out"
use_ccache

"$top/tools/kernel/build-guest.sh" "$top/tools/bench/init.c" "$out"
sed "s|@INITRAMFS@|$out/initramfs.list|" "$top/tools/bench/bench.config" > "$out/bench.config"

build_kernel() { # <name> <commit>
	bench_kernel "$2" genpd-gov-bench.c drivers/base/power "$out/bench.config" \
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
	if [ "$1" != 6.1 ]; then
		local want=${4:-}
		want=${want#genpd.cpu_policy=}
		grep -A1 '^# cat /sys/module/genpd/parameters/cpu_policy' "$log" |
			grep -q "^${want:-pending}" ||
			die "${log#"$top"/}: the kernel did not run the ${want:-pending} policy"
	fi
	printf '%-8s %s\n' "$1" "$(grep -o 'genpd-gov-bench: cpus=.*' "$log" | tr -d '\r')"
}

build_kernel 6.1 base
build_kernel series "$(tgit rev-parse HEAD)"
[ $# -gt 0 ] || set -- 4 16 64 256
for n in "$@"; do
	boot 6.1 "$n"
	boot series "$n" series genpd.cpu_policy=timers
	boot pending "$n" series genpd.cpu_policy=pending
	boot learn "$n" series genpd.cpu_policy=learn
done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Instructions per tick of CPU time accounting: pristine 6.1, the series
# with CONFIG_FREQ_SCALED_CPUTIME off, and with it on, measured the same
# way: tools/bench/cputime-tick-bench.c is built into each kernel (it is
# not part of the series) and counts account_process_tick() with the PMU's
# "instructions" event, which QEMU provides in icount mode.
# Results: build/bench/cputime-<kernel>.log, summary on stdout.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
help_on_request "$@"

need_tree
out="$build/bench"
mkdir -p "$out"
use_ccache

run() { # <name> <commit> [extra config line]
	local kout="$out/kernel-cputime-$1" log="$out/cputime-$1.log"
	{ cat "$top/tools/bench/cputime-bench.config"; echo "${3:-}"; } > "$out/cputime-$1.config"
	bench_kernel "$2" cputime-tick-bench.c kernel "$out/cputime-$1.config" "$kout"
	local cmd
	mapfile -t cmd < <("$top/tools/boot/boot.py" --argv --kernel "$kout" --cpus 1 --gic 3 \
		--memory 512 --qemu "-icount shift=0" --no-initrd --append "panic=-1")
	timeout 600 "${cmd[@]}" < /dev/null > "$log" 2>&1 || true
	grep -q 'cputime-tick-bench: scaled=' "$log" || die "no result in ${log#"$top"/}"
	printf '%-11s %s\n' "$1" "$(grep -o 'cputime-tick-bench: .*' "$log" | tr -d '\r')"
}

head=$(tgit rev-parse HEAD)
run 6.1 base
run series-off "$head"
run series-on "$head" CONFIG_FREQ_SCALED_CPUTIME=y

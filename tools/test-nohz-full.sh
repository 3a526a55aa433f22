#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Scaled CPU time with full dynticks accounting: build a second arm64
# kernel (kunit/nohz-full.kunitconfig: NO_HZ_FULL, VIRT_CPU_ACCOUNTING_GEN)
# into build/kunit-nohz-full with kunit.py, run the cputime_scaled suite on
# it, then boot it with nohz_full=1-3 and the taskstats check, whose busy
# threads run on CPUs 1 and 2. Prints one KTAP list ("nohz_full: ...").
set -uo pipefail
. "$(dirname "$0")/lib.sh"

out="$build/kunit-nohz-full"
mkdir -p "$out"
use_ccache
rm -f "$out/results.json"
(cd "$tree" && python3 tools/testing/kunit/kunit.py run \
	--arch=arm64 --cross_compile=aarch64-linux-gnu- \
	--qemu_config="$top/kunit/qemu_configs/arm64_smp8.py" \
	--kunitconfig="$top/kunit/nohz-full.kunitconfig" \
	--build_dir="$out" --jobs="$(nproc)" --timeout=600 \
	--json="$out/results.json" 'cputime_scaled') > "$out/kunit.py.log" 2>&1

{
	"$top/tools/kunit-summary.py" "$out/results.json" --as-ktap "nohz_full" ||
		echo "not ok 1 nohz_full: the cputime_scaled suite runs (see build/kunit-nohz-full/kunit.py.log)"
	if grep -q '^\$ qemu-system-aarch64' "$out/kunit.py.log"; then
		"$top/tools/boot-taskstats.sh" "$out" taskstats-nohz-full "nohz_full=1-3"
	else
		echo "not ok 1 nohz_full: the kernel builds and boots (see build/kunit-nohz-full/kunit.py.log)"
	fi
} | awk 'BEGIN { print "KTAP version 1" }
	/^(not )?ok [0-9]+ / { n++; sub(/ok [0-9]+ /, "ok " n " "); print }
	END { print "1.." n }'

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build build/linux incrementally for arm64 and run the series' KUnit suites
# in QEMU (eight CPUs) with kunit.py. Keeps the raw log and the parsed results
# in build/kunit-arm64/, and ends with "kunit: N passed, M failed".
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out="$build/kunit-arm64"
mkdir -p "$out"

use_ccache

cd "$tree"
rc=0
rm -f "$out/results.json"
start=$(date +%s)
python3 tools/testing/kunit/kunit.py run \
	--arch=arm64 --cross_compile=aarch64-linux-gnu- \
	--qemu_config="$top/kunit/qemu_configs/arm64_smp8.py" \
	--kunitconfig="$top/kunitconfig" \
	--build_dir="$out" --jobs="$(nproc)" --timeout=600 \
	--json="$out/results.json" "$@" > "$out/kunit.py.log" 2>&1 || rc=$?
note "kunit.py exited $rc after $(($(date +%s) - start)) s (log: build/kunit-arm64/kunit.py.log, raw KTAP: build/kunit-arm64/test.log)"
if [ $rc -ne 0 ]; then
	# Show what went wrong: a build error, a crash or the failing cases.
	grep -E 'error:|ERROR|FAILED|\[FAILED\]|not ok|crashed|Kernel panic|timed out|Oops|WARNING' \
		"$out/kunit.py.log" | head -40 >&2 || tail -20 "$out/kunit.py.log" >&2
fi
# The same kernel once more for the taskstats check of scaled CPU time (a
# few seconds); a second kernel with nohz_full accounting, for its suite
# and the same check; and the first on each device-tree topology of
# kunit/topologies/. TOPOLOGY_BOOTS=no leaves out the last two
# (tools/check-mutants.py).
boots=()
if [ $rc -eq 0 ] || grep -q '^\$ qemu-system-aarch64' "$out/kunit.py.log"; then
	"$top/tools/boot-taskstats.sh" > "$out/taskstats.ktap"
	boots=(--ktap "taskstats_boot=$out/taskstats.ktap")
	if [ "${TOPOLOGY_BOOTS:-yes}" != no ]; then
		"$top/tools/test-nohz-full.sh" > "$out/nohz-full.ktap"
		"$top/tools/boot-topologies.sh" > "$out/topologies.ktap"
		boots+=(--ktap "nohz_full=$out/nohz-full.ktap"
			--ktap "topology_boots=$out/topologies.ktap")
	fi
fi
sum_rc=0
"$top/tools/kunit-summary.py" "$out/results.json" --expect "$top/kunit/suites" \
	"${boots[@]}" --out "$out/summary.txt" || sum_rc=$?
[ $rc -eq 0 ] && [ $sum_rc -eq 0 ]

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the test kernel incrementally (tools/build-kernel.sh) and run the
# series' KUnit suites in QEMU (eight CPUs) with `kunit.py exec`; then, in
# the same kernel, the guest checks: taskstats over netlink, the nohz_full
# boot (tools/test-nohz-full.sh) and one boot per device-tree topology
# (tools/boot-topologies.sh). Keeps the raw log and the parsed results in
# build/kunit-arm64/, and ends with "kunit: N passed, M failed".
#
#   run-kunit.sh [--suites-only] [kunit.py exec options, e.g. a filter]
#
# --suites-only (make kunit) stops after the KUnit suites; TOPOLOGY_BOOTS=no
# (tools/check-mutants.py) leaves out the nohz_full and topology boots.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out="$build/kunit-arm64"
boots=all
if [ "${1:-}" = --suites-only ]; then
	boots=none
	shift
elif [ "${TOPOLOGY_BOOTS:-yes}" = no ]; then
	boots=taskstats
fi
mkdir -p "$out"
rm -f "$out/results.json" "$out/kunit.py.log"

rc=0
"$top/tools/build-kernel.sh" || rc=$?
if [ $rc -eq 0 ]; then
	note "running the KUnit suites in QEMU, 8 CPUs"
	start=$(date +%s)
	(cd "$tree" && python3 tools/testing/kunit/kunit.py exec "${kunit_opts[@]}" \
		--timeout=600 --json="$out/results.json" "$@") > "$out/kunit.py.log" 2>&1 || rc=$?
	note "kunit.py exec exited $rc after $(($(date +%s) - start)) s (log: build/kunit-arm64/kunit.py.log, raw KTAP: build/kunit-arm64/test.log)"
	if [ $rc -ne 0 ]; then
		# Show what went wrong: a crash or the failing cases.
		grep -E 'ERROR|FAILED|\[FAILED\]|not ok|crashed|Kernel panic|timed out|Oops|WARNING' \
			"$out/kunit.py.log" | head -40 >&2 || tail -20 "$out/kunit.py.log" >&2
	fi
fi

ktaps=()
if [ $boots != none ] && grep -qs '^\$ qemu-system-aarch64' "$out/kunit.py.log"; then
	note "booting the guest check of scaled CPU time (taskstats)"
	"$top/tools/boot-taskstats.sh" > "$out/taskstats.ktap" || rc=1
	ktaps=(--ktap "taskstats_boot=$out/taskstats.ktap")
	if [ $boots = all ]; then
		note "booting with nohz_full=1-3: cputime_scaled suite and taskstats check"
		"$top/tools/test-nohz-full.sh" > "$out/nohz-full.ktap" || rc=1
		note "booting each device-tree topology of kunit/topologies/, two at a time"
		"$top/tools/boot-topologies.sh" > "$out/topologies.ktap" || rc=1
		ktaps+=(--ktap "nohz_full=$out/nohz-full.ktap"
			--ktap "topology_boots=$out/topologies.ktap")
	fi
fi
sum_rc=0
"$top/tools/kunit-summary.py" "$out/results.json" --expect "$top/kunit/suites" \
	"${ktaps[@]}" --out "$out/summary.txt" || sum_rc=$?
[ $rc -eq 0 ] && [ $sum_rc -eq 0 ]

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the test kernel incrementally (tools/build-kernel.sh) and run the
# series' KUnit suites in QEMU (eight CPUs) with `kunit.py exec`; then, in
# the same kernel, the guest checks: taskstats over netlink, the nohz_full
# boot (tools/test-nohz-full.sh) and one boot per device-tree topology
# (tools/boot-topologies.sh), and the checks of the domain governor's
# simulator (tools/governor-sim.py --check) and of the ftrace converter
# (tools/ftrace-idle-trace.py --check), and the LAVA jobs against our own
# QEMU command (tools/test-lava-jobs.sh). Then every console log of the run is searched
# for the reports of the kernel's checkers (tools/kernel-reports.py). Keeps
# the raw log and the parsed results in build/kunit-arm64/ (with
# KERNEL_VARIANT=debug, the debug kernel of make test-debug:
# build/kunit-arm64-debug/), and ends with "kunit: N passed, M failed".
#
#   run-kunit.sh [--suites-only] [kunit.py exec options, e.g. a filter]
#
# --suites-only (make kunit) stops after the KUnit suites; TOPOLOGY_BOOTS=no
# (tools/check-mutants.py) leaves out the nohz_full and topology boots.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out="$kout"
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
	note "kunit.py exec exited $rc after $(($(date +%s) - start)) s (log: ${out#$top/}/kunit.py.log, raw KTAP: ${out#$top/}/test.log)"
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
		note "replaying kunit/sim/check.trace and hierarchy.trace through the kernel's decision (governor-sim.py)"
		"$top/tools/governor-sim.py" --check "$top/kunit/sim/check.trace" \
			"$top/kunit/sim/hierarchy.trace" > "$out/sim.ktap" || rc=1
		note "converting kunit/sim/ftrace.fixture into an idle trace (ftrace-idle-trace.py)"
		"$top/tools/ftrace-idle-trace.py" --check "$top/kunit/sim/ftrace.fixture" \
			> "$out/ftrace-trace.ktap" || rc=1
		note "the LAVA jobs: validated, LAVA's QEMU command against ours, booted and read by the job's monitors"
		"$top/tools/test-lava-jobs.sh" > "$out/lava.ktap" || rc=1
		ktaps+=(--ktap "nohz_full=$out/nohz-full.ktap"
			--ktap "topology_boots=$out/topologies.ktap" --ktap "lava_jobs=$out/lava.ktap"
			--ktap "governor_sim=$out/sim.ktap" --ktap "ftrace_idle_trace=$out/ftrace-trace.ktap")
	fi
fi
# The kernel's checkers (lockdep, KASAN, UBSAN, kmemleak, WARN_ON...): any
# report in any console log of this run fails it, naming what ran.
logs=("suites=$out/test.log")
if [ ${#ktaps[@]} -gt 0 ]; then
	logs+=("taskstats_boot=$build/taskstats$sfx/boot.log")
	if [ $boots = all ]; then
		logs+=("nohz_full_suite=$build/kunit-nohz-full$sfx/test.log"
			"nohz_full_taskstats=$build/taskstats-nohz-full$sfx/boot.log")
		for f in "$top"/kunit/topologies/*.dtsi; do
			f=${f##*/}
			logs+=("topology_${f%.dtsi}=$build/topologies$sfx/${f%.dtsi}.log")
		done
		logs+=("lava_qemu_job=$build/lava-check$sfx/lava-boot.log")
	fi
fi
if grep -qs '^\$ qemu-system-aarch64' "$out/kunit.py.log"; then
	# The debug kernel's workload boots must show their kmemleak scan.
	req=()
	[ "$variant" != debug ] || req=(--require "topology_:=== idle-workload: kmemleak ===")
	"$top/tools/kernel-reports.py" "${req[@]}" "${logs[@]}" > "$out/reports.ktap" || rc=1
	ktaps+=(--ktap "kernel_reports=$out/reports.ktap")
	grep -A7 '^not ok' "$out/reports.ktap" >&2 || true
fi
sum_rc=0
"$top/tools/kunit-summary.py" "$out/results.json" --expect "$top/kunit/suites" \
	"${ktaps[@]}" --out "$out/summary.txt" || sum_rc=$?
[ $rc -eq 0 ] && [ $sum_rc -eq 0 ]

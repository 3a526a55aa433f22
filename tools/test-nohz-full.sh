#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Scaled CPU time with full dynticks accounting, on the test kernel itself
# (build/kunit-arm64: NO_HZ_FULL and VIRT_CPU_ACCOUNTING_GEN are compiled
# in; without nohz_full= every CPU accounts at the tick). Boot it with
# nohz_full=1-3, run the cputime_scaled suite with `kunit.py exec`, then
# boot it with the taskstats check, whose busy threads run on CPUs 1 and 2.
# Prints one KTAP list ("nohz_full: ..."); logs in build/kunit-nohz-full/
# (test.log: the console) and build/taskstats-nohz-full/.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

out="$build/kunit-nohz-full$sfx"
mkdir -p "$out"
rm -f "$out/results.json" "$out/test.log"
# kunit.py exec writes the console to test.log in the build directory:
# keep the main run's there, and this one's here.
cp "$kout/test.log" "$out/main-test.log" 2>/dev/null
(cd "$tree" && python3 tools/testing/kunit/kunit.py exec "${kunit_opts[@]}" \
	--timeout=600 --kernel_args=nohz_full=1-3 --json="$out/results.json" \
	'cputime_scaled') > "$out/kunit.py.log" 2>&1
mv "$kout/test.log" "$out/test.log" 2>/dev/null
mv "$out/main-test.log" "$kout/test.log" 2>/dev/null

{
	# What the kernel says, not what was asked of it.
	grep -q 'NO_HZ: Full dynticks CPUs: 1-3\.' "$out/test.log"
	ktap_check $? "nohz_full: the suite ran on a kernel with full dynticks on CPUs 1-3"
	"$top/tools/kunit-summary.py" "$out/results.json" --as-ktap "nohz_full" ||
		echo "not ok 1 nohz_full: the cputime_scaled suite runs (see ${out#$top/}/kunit.py.log)"
	"$top/tools/boot-taskstats.sh" "$kout" "taskstats-nohz-full$sfx" "nohz_full=1-3"
} | awk 'BEGIN { print "KTAP version 1" }
	/^(not )?ok [0-9]+ / { n++; sub(/ok [0-9]+ /, "ok " n " "); print }
	END { print "1.." n }'

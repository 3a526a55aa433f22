#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The suites as kernel developers run KUnit, in build/linux with nothing of
# ours: `kunit.py run --arch=arm64 --kunitconfig=DIR` for each directory
# that holds a suite of the series (its .kunitconfig), on kunit.py's own
# arm64 QEMU (one CPU), then the same kernel with --qemu_args='-smp 8';
# and with --alltests yes (a large build), `kunit.py run --arch=arm64
# --alltests`, and that kunit.py accepts --alltests with every directory's
# .kunitconfig added (--alltests only: those alone). Prints one line per run with the counts of our suites;
# fails if a suite of the directory did not run, or a case failed.
# Build directories: build/kunit-tree (shared by the directories, so each
# builds incrementally on the last), build/kunit-alltests(-dirs).
#
#   kunit-tree.sh [--alltests no|yes|only]
set -uo pipefail
. "$(dirname "$0")/../lib/common.sh"
help_on_request "$@"

alltests=no
if [ "${1:-}" = --alltests ]; then alltests=$2; shift 2; fi
case $alltests in no | yes | only) ;; *) die "usage: kunit-tree.sh [--alltests no|yes|only]" ;; esac

out="$build/kunit-tree"
mkdir -p "$out"
use_ccache
# directory: the suites it must run
declare -A suites=(
	[drivers/base/power]="genpd_cpus genpd_cpu_gov"
	[drivers/cpuidle]="psci_osi_composite psci_osi_sequences"
	[drivers/firmware/psci]="psci_fw_model"
	[kernel/sched]="cputime_scaled"
)
dirs=(drivers/base/power drivers/cpuidle drivers/firmware/psci kernel/sched)
common=(--arch=arm64 --cross_compile=aarch64-linux-gnu- --timeout=600)

# <label> <json> <suites...>: "ok" or "FAILED", per suite pass/skip/fail.
report() {
	local label=$1 json=$2 rc=0 line
	shift 2
	line=$("$top/tools/run/summary.py" "$json" --counts "$@") || rc=1
	echo "kunit-tree: $([ $rc -eq 0 ] && echo ok || echo FAILED): $label: $line"
	return $rc
}

# The skipped cases of the last run in <dir> (its JSON), and its console
# (kunit.py leaves it in test.log, with the reasons the kernel gave) kept
# beside the JSON as <name>.test.log.
skips() { # <build dir> <name>
	cp "$1/test.log" "$1/$2.test.log"
	"$top/tools/run/summary.py" "$1/$2.json" --skipped | sed 's/^/  skipped: /'
}

bad=0
dirs_all=("${dirs[@]}")
[ "$alltests" != only ] || dirs=()
for dir in "${dirs[@]}"; do
	name=${dir//\//-}
	start=$(date +%s)
	(cd "$tree" && /usr/bin/python3 tools/testing/kunit/kunit.py run "${common[@]}" \
		--jobs="$(nproc)" --kunitconfig="$dir" --build_dir="$out" --json="$out/$name.json") \
		> "$out/$name.log" 2>&1
	report "--kunitconfig=$dir, 1 CPU ($(minsec $(($(date +%s) - start))))" \
		"$out/$name.json" ${suites[$dir]} || bad=$((bad + 1))
	skips "$out" "$name"
	(cd "$tree" && /usr/bin/python3 tools/testing/kunit/kunit.py exec "${common[@]}" \
		--qemu_args='-smp 8' --build_dir="$out" --json="$out/$name-smp8.json") \
		> "$out/$name-smp8.log" 2>&1
	report "--kunitconfig=$dir --qemu_args='-smp 8'" \
		"$out/$name-smp8.json" ${suites[$dir]} || bad=$((bad + 1))
	skips "$out" "$name-smp8"
done

if [ "$alltests" != no ]; then
	all="$build/kunit-alltests"
	mkdir -p "$all"
	rm -f "$all/results.json"
	start=$(date +%s)
	(cd "$tree" && /usr/bin/python3 tools/testing/kunit/kunit.py run "${common[@]}" \
		--jobs="$(nproc)" --alltests --build_dir="$all" --json="$all/results.json") > "$all/kunit.py.log" 2>&1
	# The suites that borrow live CPUs or system state are not for
	# KUNIT_ALL_TESTS (their options have no default).
	line=$("$top/tools/run/summary.py" "$all/results.json" --absent genpd_cpus genpd_cpu_gov \
		psci_osi_composite psci_osi_sequences cputime_scaled) || bad=$((bad + 1))
	echo "kunit-tree: --alltests, 1 CPU ($(minsec $(($(date +%s) - start)))): $line"
	echo "kunit-tree: --alltests, all suites: $("$top/tools/run/summary.py" "$all/results.json" | tail -1)"
	# The arm64-only suites join --alltests through their directories:
	# kunit.py must accept the merged config (every option of every file
	# in the .config). Running it is a second build as large; the
	# directories' runs above run those suites.
	(cd "$tree" && /usr/bin/python3 tools/testing/kunit/kunit.py config \
		--arch=arm64 --cross_compile=aarch64-linux-gnu- \
		--alltests "${dirs_all[@]/#/--kunitconfig=}" --build_dir="$all-dirs") \
		> "$all/kunit.py-dirs.log" 2>&1
	if grep -q 'Elapsed time' "$all/kunit.py-dirs.log" && ! grep -q ERROR "$all/kunit.py-dirs.log"; then
		echo "kunit-tree: ok: --alltests with every directory's .kunitconfig configures (kunit.py config)"
	else
		echo "kunit-tree: FAILED: --alltests with every directory's .kunitconfig (build/kunit-alltests/kunit.py-dirs.log)"
		bad=$((bad + 1))
	fi
fi
[ $bad -eq 0 ]

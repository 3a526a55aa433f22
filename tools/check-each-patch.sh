#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Bisectability: build every prefix of the series (base + patch 1, + patch 2,
# ...) for arm64 and run the KUnit suites that exist at that point, in QEMU.
# Options of kunitconfig and suites of kunit/suites that a patch has not yet
# introduced are left out for the patches before it. Uses a worktree of
# build/linux at build/each-patch and the build directory build/kunit-each.
# EACH_FROM=N starts at patch N (the earlier ones were checked before);
# EACH_ONLY="N M ..." checks only those patches (the ones a change touched).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$tree/.git" ] || die "no build/linux: run make tree first"
wt="$build/each-patch"
out="$build/kunit-each"
[ -d "$wt" ] || tgit worktree add -q --detach "$wt" base
use_ccache
mkdir -p "$out"
bad=0 i=0
for c in $(tgit rev-list --reverse base..HEAD); do
	i=$((i + 1))
	[ "$i" -ge "${EACH_FROM:-1}" ] || continue
	[ -z "${EACH_ONLY:-}" ] || [[ " $EACH_ONLY " == *" $i "* ]] || continue
	subj=$(tgit log -1 --format=%s "$c")
	git -C "$wt" checkout -q --detach "$c"
	# Keep the config options whose symbol exists in this tree.
	: > "$out/kunitconfig"
	while read -r line; do
		sym=$(sed -n 's/^CONFIG_\([A-Za-z0-9_]*\)=.*/\1/p' <<<"$line")
		[ -n "$sym" ] || continue
		grep -rqs --include='Kconfig*' -E "^(menu)?config $sym\$" "$wt" &&
			echo "$line" >> "$out/kunitconfig"
	done < "$top/kunitconfig"
	rc=0
	(cd "$wt" && python3 tools/testing/kunit/kunit.py run \
		--arch=arm64 --cross_compile=aarch64-linux-gnu- \
		--qemu_config="$top/kunit/qemu_configs/arm64_smp8.py" \
		--kunitconfig="$out/kunitconfig" --build_dir="$out" \
		--jobs="$(nproc)" --timeout=600 --json="$out/results.json") \
		> "$out/kunit.py.log" 2>&1 || rc=$?
	# A prefix without any suite yet only has to build and boot.
	if grep -q 'Ran 0 tests' "$out/kunit.py.log" && grep -q 'Elapsed time' "$out/kunit.py.log"; then
		echo "each-patch: ok (builds, no suite yet): $subj"
		continue
	fi
	last=$("$top/tools/kunit-summary.py" "$out/results.json" | tail -1) || rc=1
	if [ $rc -eq 0 ]; then
		echo "each-patch: ok ($last): $subj"
	else
		echo "each-patch: FAILED ($last): $subj (see build/kunit-each/kunit.py.log)"
		bad=$((bad + 1))
	fi
done
[ $bad -eq 0 ]

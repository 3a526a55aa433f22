#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Bisectability: build every prefix of the series (base + patch 1, + patch
# 2, ...) for arm64 as the test kernel is built (tools/kernel/build-kernel.py:
# the series' .kunitconfig files that exist at that patch, the harness'
# fragment) and run its KUnit suites in QEMU (tools/run/runner.py with
# kunit/checks/kunit; kunit/7.3/checks/kunit with --base 7.3). A prefix
# before the first suite only has to build. Uses a worktree of the base's
# tree (build/linux) at build/each-patch, the build directory
# build/kunit-each and the results build/results/each-patch/N (N: the
# patch's number); build/7.3/... for 7.3.
#
#   each-patch.sh [--base 7.3] [--from N] [--only "N M ..."]
#
# --from N starts at patch N (the earlier ones were checked before);
# --only checks only those patches (the ones a change touched), counted
# across the series in order.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
help_on_request "$@"

from=1 only=
while [ $# -gt 0 ]; do
	case $1 in
	--from) from=$2 ;;
	--only) only=$2 ;;
	*) die "usage: each-patch.sh [--base 7.3] [--from N] [--only \"N M ...\"]" ;;
	esac
	shift 2
done
need_tree
wt="$build/each-patch"
kernel="$build/kunit-each"
results="$build/results/each-patch"
checks="$top/kunit${sub:+/$sub}/checks/kunit"
[ -d "$wt" ] || tgit worktree add -q --detach "$wt" base
mkdir -p "$kernel" "$results"
bad=0 i=0
for c in $(tgit rev-list --reverse base..HEAD); do
	i=$((i + 1))
	[ "$i" -ge "$from" ] || continue
	[ -z "$only" ] || [[ " $only " == *" $i "* ]] || continue
	subj=$(tgit log -1 --format=%s "$c")
	git -C "$wt" checkout -q --detach "$c"
	rm -rf "${results:?}/$i"
	mkdir -p "$results/$i"
	if ! "$top/tools/kernel/build-kernel.py" --tree "$wt" --kernel "$kernel" 2> "$results/$i/build.log"; then
		echo "each-patch: FAILED (does not build, $results/$i/build.log): $i $subj"
		bad=$((bad + 1))
		continue
	fi
	if ! grep -qx 'CONFIG_KUNIT=y' "$kernel/.config"; then
		echo "each-patch: ok (builds, no suite yet): $i $subj"
		continue
	fi
	if last=$("$top/tools/run/runner.py" --list "$checks" --tree "$wt" \
		--kernel "$kernel" --out "$results/$i" 2> "$results/$i/runner.log" | tail -1); then
		echo "each-patch: ok ($last): $i $subj"
	else
		echo "each-patch: FAILED ($last; $results/$i/summary.txt): $i $subj"
		bad=$((bad + 1))
	fi
done
[ $bad -eq 0 ]

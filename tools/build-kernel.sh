#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the test kernel (build/linux into build/kunit-arm64, with the
# options of kunit_opts in lib.sh) with `kunit.py build`, and say how far
# along it is every 15 s (BUILD_PROGRESS_SECONDS): elapsed time, objects
# compiled, and for a build from scratch the share of the objects the last
# full build had. On a terminal the line is rewritten; in a log (CI) each
# update is a line of its own. kunit.py's output: build/kunit-arm64/build.log.
#
#   build-kernel.sh [kunit.py build options, after those of kunit_opts]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out="$kout"
log="$out/build.log"
every=${BUILD_PROGRESS_SECONDS:-15}
# Objects of a full build of the test kernel when none was recorded in this
# build directory yet (746 in a fresh-check on 2026-12-03: patches 0001-0027, kunitconfig).
objects_estimate=750

mkdir -p "$out"
[ -d "$tree/.git" ] || die "no build/linux: run make tree first"
use_ccache

total=
[ -f "$out/vmlinux" ] || total=$(cat "$out/.nr-objects" 2>/dev/null || echo "$objects_estimate")
stamp="$out/.build-start"
touch "$stamp"
start=$(date +%s)

progress() { # <final>
	local n now what
	n=$(find "$out" -name '*.o' -newer "$stamp" 2>/dev/null | wc -l) || true
	now=$(($(date +%s) - start))
	what="$n objects compiled"
	if [ -n "$total" ]; then
		what="$n of about $total objects compiled ($((n * 100 / total > 99 ? 99 : n * 100 / total)) %)"
	fi
	if [ -t 2 ]; then
		printf '\r\033[K%s: building the test kernel: %s, %s' "${0##*/}" "$(minsec $now)" "$what" >&2
		[ "$1" = no ] || printf '\n' >&2
	elif [ "$1" = no ]; then
		note "building the test kernel: $(minsec $now), $what"
	fi
}

# kunit.py build configures (olddefconfig, about 5 s) and checks that every
# option of the kunitconfig stayed, before every build. When neither the
# kunitconfig, nor the QEMU config, nor any Kconfig file of the tree changed
# since the last build, make alone does the same work.
inputs=$(cat "$top/kunitconfig" ${variant:+"$top/kunit/$variant.kunitconfig"} \
	"$top/kunit/qemu_configs/arm64_smp8.py" | sha1sum)
if [ $# -eq 0 ] && [ -f "$out/.config" ] &&
	[ "$(cat "$out/.kunit-inputs" 2>/dev/null)" = "$inputs" ] &&
	[ -z "$(find "$tree" -name 'Kconfig*' -newer "$out/.kunit-inputs" -print -quit)" ]; then
	cmd=(kmake "$out")
else
	rm -f "$out/.kunit-inputs"
	cmd=(python3 tools/testing/kunit/kunit.py build "${kunit_opts[@]}" --jobs="$(nproc)" "$@")
fi
note "building the test kernel in ${out#$top/} (${total:+from scratch, }log: ${log#$top/})"
(cd "$tree" && "${cmd[@]}") > "$log" 2>&1 &
pid=$!
trap 'pkill -P $pid 2>/dev/null; kill $pid 2>/dev/null' EXIT
while kill -0 $pid 2>/dev/null; do
	for ((i = 0; i < every; i++)); do
		sleep 1
		kill -0 $pid 2>/dev/null || break
	done
	kill -0 $pid 2>/dev/null && progress no
done
rc=0
wait $pid || rc=$?
trap - EXIT
[ -t 2 ] && progress yes
if [ $rc -ne 0 ]; then
	grep -E 'error:|Error [0-9]|ERROR|Missing:' "$log" | head -20 >&2 || tail -20 "$log" >&2
	die "the build failed after $(minsec $(($(date +%s) - start))) (${log#$top/})"
fi
[ -z "$total" ] || find "$out" -name '*.o' | wc -l > "$out/.nr-objects"
echo "$inputs" > "$out/.kunit-inputs"
note "built in $(minsec $(($(date +%s) - start))) ($(find "$out" -name '*.o' -newer "$stamp" | wc -l || true) objects compiled)"

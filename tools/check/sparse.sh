#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sparse (make C=2) on the kernel C files the series touches, built for
# arm64 with the test kernel's configuration, compared with the same files
# at base: any warning that the file at base does not have fails. A
# warning is compared by file and message, not line number, so code that
# moved is not new; a file new in the series must have none. Files that
# are #included into another (kernel/sched/cputime.c) are checked through
# the object that includes them. Build directories: build/sparse/{series,
# base} (base from a worktree, build/sparse/base-src).
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
help_on_request "$@"

command -v sparse >/dev/null || die "sparse is not installed: run make deps"
need_tree
out="$build/sparse"
src="$out/base-src"
mkdir -p "$out"
use_ccache

# Not built for arm64, or not with the test kernel's configuration (the
# fault injection of test-harness/0008 is the debug kernel's): said, not
# silently left out.
skip_re='^drivers/cpuidle/cpuidle-riscv-sbi\.c$'
debug_re='^(lib/fail-initcall|lib/fault-inject|mm/failslab)\.c$'

# The object that compiles <file.c>: its own, or the one that includes it.
object_of() {
	local dir=${1%/*} name=${1##*/}
	if grep -qsw "${name%.c}\.o" "$tree/$dir/Makefile"; then
		echo "${1%.c}.o"
		return
	fi
	local inc
	inc=$(grep -l "^#include \"$name\"" "$tree/$dir"/*.c 2>/dev/null | head -1)
	[ -n "$inc" ] && echo "$dir/$(basename "$inc" .c).o"
}

files=() objs=()
while read -r f; do
	if [[ $f =~ $skip_re ]]; then
		echo "sparse: not checked: $f (not built for arm64)"
		continue
	fi
	if [[ $f =~ $debug_re ]]; then
		echo "sparse: not checked: $f (built only in the debug kernel, with fault injection)"
		continue
	fi
	o=$(object_of "$f")
	[ -n "$o" ] || die "cannot tell which object compiles $f"
	files+=("$f")
	[[ " ${objs[*]} " == *" $o "* ]] || objs+=("$o")
done < <(tgit diff --name-only base..series -- '*.c' | grep -v '^tools/')

# The test kernel's configuration, from the kunitconfig (kunit.py config).
note "configuring $(rel_path "$out")/series as the test kernel"
"$top/tools/kernel/build-kernel.py" --tree "$tree" --config-only --kernel "$out/series" ||
	die "kunit.py config failed ($(rel_path "$out")/series/config.log)"

# The worktree at base; a new build/linux leaves an old one behind, broken.
if ! git -C "$src" rev-parse -q --verify base > /dev/null 2>&1; then
	rm -rf "$src"
	tgit worktree prune
	tgit worktree add -q --detach "$src" base
fi
git -C "$src" checkout -q --detach base
mkdir -p "$out/base"
# The same options at base, where those of the series do not exist. 6.1
# has no option of its own for generic PM domains (the series adds one for
# its suites); a platform that selects them, as arm64 boards do, brings
# them and the PSCI domain driver in.
{ grep -v "CONFIG_ARCH_VEXPRESS[ =]" "$out/series/.config"; echo CONFIG_ARCH_VEXPRESS=y; } > "$out/base/.config"

# sparse's findings for <objs> of tree <src> in build directory <dir>, as
# "file: message" lines (paths from the tree's top, no line numbers) in
# <dir>/sparse.txt, and as they came in <dir>/sparse.log.
run_sparse() { # <src> <dir> <objs...>
	local s=$1 d=$2 rel
	shift 2
	make -s -C "$s" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- O="$d" \
		olddefconfig > /dev/null
	make -C "$s" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- O="$d" \
		-j"$(nproc)" C=2 "$@" > "$d/sparse.log" 2>&1 ||
		die "make C=2 failed in ${d#"$top"/} (sparse.log there)"
	# kbuild turns C=2 off when scripts/checker-valid.sh rejects sparse:
	# 7.3's needs __typeof_unqual__, which Debian 12's sparse 0.6.4 (the
	# last release) does not parse.
	! grep -q "C=2 specified, but .* is not available or not up to date" "$d/sparse.log" ||
		die "$(sparse --version) is too old for $(tree_name): kbuild's scripts/checker-valid.sh rejects it, so sparse cannot check this base"
	# sparse must have run on each object: kbuild says CHECK for each.
	[ "$(grep -c '^  CHECK ' "$d/sparse.log")" -ge $# ] ||
		die "sparse did not check all $# objects in ${d#"$top"/} (sparse.log there)"
	rel=$(realpath --relative-to="$d" "$s")
	grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' "$d/sparse.log" |
		sed -E "s#^($s|$rel)/##; s#^([^:]+):[0-9]+:[0-9]+: #\1: #" |
		sort > "$d/sparse.txt" || true
}

start=$(date +%s)
note "sparse on ${#objs[@]} objects of the series"
run_sparse "$tree" "$out/series" "${objs[@]}"
base_objs=()
for o in "${objs[@]}"; do
	[ -f "$src/${o%.o}.c" ] && base_objs+=("$o")
done
note "sparse on ${#base_objs[@]} of them at base"
run_sparse "$src" "$out/base" "${base_objs[@]}"

# Warnings of the series beyond those at base, counted per message.
new=$(comm -23 "$out/series/sparse.txt" "$out/base/sparse.txt")
echo "sparse: ${#files[@]} files in ${#objs[@]} objects: $(wc -l < "$out/series/sparse.txt") warnings," \
	"$(wc -l < "$out/base/sparse.txt") at base, $(grep -c . <<<"$new" || true) new" \
	"($(minsec $(($(date +%s) - start))))"
if [ -n "$new" ]; then
	echo "sparse: new warnings ($(rel_path "$out")/series/sparse.log has their lines):"
	sed 's/^/  /' <<<"$new"
	exit 1
fi

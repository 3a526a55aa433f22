#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Generate build/linux: the pristine Debian kernel source as a git repository
# (first commit, tagged "base") with the series of patches/ applied on top by
# git am, in the order patches/series gives, each series's end marked by a
# branch end/NAME (tools/lib/common.sh).
#
#   make-tree.sh           create the tree, or bring it up to date with
#                          patches/; refuse to touch work that is not exported
#   make-tree.sh --ensure  create the tree if it is missing; otherwise use it
#                          as it is and only say how it differs from patches/
#   make-tree.sh --reset   rebuild the commits from patches/ even over local
#                          commits (kept on a branch "saved-<date>")
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
help_on_request "$@"
T=$(tree_name) P=$(rel_path "$patches")/

mode=${1:-update}
version=$(source_version)
[ -n "$version" ] && [ -f "$tarball" ] || die "$pkg is not installed (run make $(make_base)deps)"

# Debian's top-level .gitignore ignores everything at the top level ("/*",
# for its packaging). Neutralise that block in the work tree only, so that new
# files show in "git status"; the committed base keeps the pristine file.
unhide_new_files() {
	sed -i '/^# Debian packaging: ignore everything/,$d' "$tree/.gitignore"
	tgit update-index --skip-worktree .gitignore
}

create_base() {
	local tmp="$build/linux.tmp"
	rm -rf "$tmp"
	mkdir -p "$tmp"
	note "unpacking $tarball ($version)"
	tar -xJf "$tarball" -C "$tmp" --strip-components=1
	git -C "$tmp" init -q -b series
	git -C "$tmp" add -f -A .
	git -C "$tmp" -c user.name=make-tree -c user.email=make-tree@localhost \
		commit -q -m "Linux $version (Debian $pkg $version, pristine)"
	git -C "$tmp" tag base
	# git am needs a committer; format-patch output does not show it.
	git -C "$tmp" config user.email >/dev/null ||
		git -C "$tmp" config user.email make-tree@localhost
	git -C "$tmp" config user.name >/dev/null ||
		git -C "$tmp" config user.name make-tree
	mv "$tmp" "$tree"
	unhide_new_files
}

apply_series() {
	local p out s last
	tgit checkout -q -B series base
	tgit config rebase.updateRefs true
	last=$(series_names | tail -1)
	for s in $(series_names); do
		[ -f "$patches/$s/series" ] || die "patches/series names $s, which has no patches/$s/series"
		while read -r p; do
			[ -f "$p" ] || die "patches/$s/series names ${p#"$top"/}, which does not exist"
			if ! out=$(tgit am -q --committer-date-is-author-date "$p" 2>&1); then
				tgit am --abort >/dev/null 2>&1 || true
				printf '%s\n' "$out" | sed -n 's/^error: patch failed: \(.*\)$/\1/p;s/^error: \(.*\): does not exist in index$/\1 (missing)/p' |
					sed "s|^|make-tree: ${p#"$top"/} does not apply to |" >&2
				die "stopped at ${p#"$top"/}; the tree holds the patches before it"
			fi
		done < <(series_files "$s")
		# Where the series ends (the last ends at HEAD).
		[ "$s" = "$last" ] || tgit branch -f "end/$s" HEAD
	done
	tgit rev-parse HEAD > "$tree/.git/series-applied"
	note "applied $(series_files | wc -l) patches in $(series_names | wc -l) series on $version"
}

mkdir -p "$build"
if [ ! -d "$tree/.git" ]; then
	[ -e "$tree" ] && die "$tree exists but is not a git tree; move it away"
	create_base
	apply_series
	exit 0
fi

base_msg=$(tgit log -1 --format=%s base)
case "$base_msg" in
*"$version"*) ;;
*) die "$T is based on '$base_msg' but $pkg $version is installed; move $T away and run make $(make_base)tree" ;;
esac

if tree_matches_patches; then
	[ "$mode" = --ensure ] || note "$T matches $P"
	tree_dirty && note "WARNING: $T has uncommitted changes (commit them there, then make $(make_base)export)"
	exit 0
fi

applied=$(cat "$tree/.git/series-applied" 2>/dev/null || true)
local_commits=yes
case "$(tgit rev-parse HEAD)" in "$applied" | "$(tgit rev-parse base)") local_commits=no ;; esac

if [ "$mode" = --ensure ]; then
	if [ $local_commits = no ] && ! tree_dirty; then
		note "$P changed since $T was made: re-applying"
		apply_series
	else
		note "WARNING: testing $T as it is: it differs from $P (make $(make_base)export to keep its commits)"
		tree_dirty && note "WARNING: $T has uncommitted changes"
	fi
	exit 0
fi

tree_dirty && die "$T has uncommitted changes; commit them there (then make $(make_base)export) or stash them. Nothing was changed."
if [ $local_commits = yes ]; then
	[ "$mode" = --reset ] || die "$T has commits that are not in $P: make $(make_base)export keeps them, make $(make_base)tree-reset drops them (onto a saved branch). Nothing was changed."
	saved="saved-$(date +%Y%m%d-%H%M%S)"
	tgit branch "$saved" HEAD
	note "previous commits kept on branch $saved of $T"
fi
apply_series

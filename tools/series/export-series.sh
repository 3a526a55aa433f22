#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write the commits above "base" in build/linux back into patches/, series
# by series (the ranges series_range of tools/lib/common.sh gives: base to end/NAME of
# the first, and so on, HEAD for the last): one git format-patch file per
# commit (names from the subjects, so they are stable), patches/NAME/series
# in order, and each cover letter's hand-written text left as it is.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
help_on_request "$@"
T=$(tree_name) P=$(rel_path "$patches")/

need_tree
tree_dirty && note "WARNING: $T has uncommitted changes; they are not exported"
[ -n "$(series_names)" ] || die "patches/series names no series"
series_ends_ok || die "cannot tell where each series ends in $T; nothing was exported"

# Commits made on top of the tree since the last export or make tree land
# in the last series: say so, in case one was meant for another.
applied=$(cat "$tree/.git/series-applied" 2>/dev/null || true)
last=$(series_names | tail -1)
if [ -n "$applied" ] && tgit merge-base --is-ancestor "$applied" HEAD 2>/dev/null; then
	tgit log --format="%s" "$applied..HEAD" | while read -r subj; do
		note "new commit \"$subj\" goes into the last series, $last (git rebase -i base moves it)"
	done
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
total=0 changed=0
for s in $(series_names); do
	dir="$patches/$s"
	mkdir -p "$tmp/$s" "$dir"
	format_series "$tmp/$s" "$s"
	# Patches that left the series go; the cover letter stays.
	for f in "$dir"/*.patch; do
		[ -e "$f" ] || continue
		case "${f##*/}" in 0000-cover-letter.patch) continue ;; esac
		[ -e "$tmp/$s/${f##*/}" ] || { rm -f "$f"; note "removed $s/${f##*/}"; }
	done
	for f in "$tmp/$s"/*.patch; do
		[ -e "$f" ] || continue
		cmp -s "$f" "$dir/${f##*/}" && continue
		cp "$f" "$dir/"
		note "wrote $s/${f##*/}"
		changed=$((changed + 1))
	done
	(cd "$tmp/$s" && ls -1 -- *.patch 2>/dev/null || true) > "$dir/series"
	n=$(grep -c . "$dir/series" || true)
	total=$((total + n))

	# The cover letter: its text is hand-written; the patch count in the
	# subject, the shortlog and the diffstat at its end are regenerated.
	cover="$dir/0000-cover-letter.patch"
	[ -f "$cover" ] || { note "WARNING: series $s has no cover letter"; continue; }
	range=$(series_range "$s")
	{
		sed -e "s/^\(Subject: \[PATCH[^]]*\) [0-9]*\/[0-9]*\]/\1 0\/$n]/" \
		    -e '/^[^ ].* ([0-9]*):$/,$d' "$cover"
		tgit shortlog "$range"
		tgit diff --stat=72 "$range"
		printf -- '--\n%s\n' "$(git --version | sed 's/^git version //')"
	} > "$tmp/cover"
	cmp -s "$tmp/cover" "$cover" || { cp "$tmp/cover" "$cover"; note "updated $s/0000-cover-letter.patch"; }
done
tgit rev-parse HEAD > "$tree/.git/series-applied"
note "$total patches in $(series_names | wc -l) series, $changed changed"

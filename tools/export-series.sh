#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write the commits above "base" in build/linux back into patches/: one
# git format-patch file per commit (names from the subjects, so they are
# stable), patches/series in order, and the cover letter left as it is.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$tree/.git" ] || die "no build/linux: run make tree first"
tree_dirty && note "WARNING: build/linux has uncommitted changes; they are not exported"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
format_series "$tmp"

mkdir -p "$patches"
# Patches that left the series go; the cover letter stays.
for f in "$patches"/*.patch; do
	[ -e "$f" ] || continue
	case "${f##*/}" in 0000-cover-letter.patch) continue ;; esac
	[ -e "$tmp/${f##*/}" ] || { rm -f "$f"; note "removed ${f##*/}"; }
done
changed=0
for f in "$tmp"/*.patch; do
	[ -e "$f" ] || continue
	cmp -s "$f" "$patches/${f##*/}" && continue
	cp "$f" "$patches/"
	note "wrote ${f##*/}"
	changed=$((changed + 1))
done
(cd "$tmp" && ls -1 -- *.patch 2>/dev/null || true) > "$patches/series"

# The cover letter: its text is hand-written; the patch count in the subject,
# the shortlog and the diffstat at its end are regenerated.
cover="$patches/0000-cover-letter.patch"
if [ -f "$cover" ]; then
	n=$(grep -c . "$patches/series")
	{
		sed -e "s/^Subject: \[PATCH [0-9]*\/[0-9]*\]/Subject: [PATCH 0\/$n]/" \
		    -e '/^[^ ].* ([0-9]*):$/,$d' "$cover"
		tgit shortlog base..HEAD
		tgit diff --stat=72 base..HEAD
		printf -- '--\n%s\n' "$(git --version | sed 's/^git version //')"
	} > "$tmp/cover"
	cmp -s "$tmp/cover" "$cover" || { cp "$tmp/cover" "$cover"; note "updated 0000-cover-letter.patch"; }
fi
tgit rev-parse HEAD > "$tree/.git/series-applied"
note "$(grep -c . "$patches/series") patches in patches/series, $changed changed"

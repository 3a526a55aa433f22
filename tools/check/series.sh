#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Review gate for patches/: every patch carries a subsystem prefix and a
# Signed-off-by, is clean under checkpatch.pl --strict (or the finding is
# explained in ci/checkpatch-allow), and the series apply in order to the
# pristine tree ("base"). Each series has a cover letter that names its
# base, what it depends on and how it was tested; a series that depends on
# nothing applies to base alone.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
help_on_request "$@"

need_tree
allow="$top/ci/checkpatch-allow"
bad=0
fail() { printf 'check: %s\n' "$*"; bad=$((bad + 1)); }

# Apply the patches on stdin, in order, to base in the scratch index $idx
# (no checkout); fail each one that does not apply.
idx=$(mktemp)
trap 'rm -f "$idx"' EXIT
apply_on_base() { # <what>
	local p n=0
	GIT_INDEX_FILE=$idx tgit read-tree base
	while read -r p; do
		[ -f "$p" ] || { fail "${p#"$top"/} is named in its series file but missing"; continue; }
		GIT_INDEX_FILE=$idx tgit apply --cached "$p" 2>/dev/null ||
			fail "${p#"$top"/} does not apply after the patches before it ($1): $(GIT_INDEX_FILE=$idx tgit apply --cached "$p" 2>&1 | head -1)"
		n=$((n + 1))
	done
	echo "check: $n patches apply in order to $(tgit log -1 --format=%s base) ($1)"
}

# 1. The series apply in order; each cover letter says what it stands on.
[ -n "$(series_names)" ] || fail "$(rel_path "$patches")/series names no series"
apply_on_base "all series" < <(series_files)
for s in $(series_names); do
	cover="$patches/$s/0000-cover-letter.patch"
	if [ ! -f "$cover" ]; then
		fail "series $s has no cover letter"
		continue
	fi
	for key in Base Depends Testing; do
		grep -q "^${key}[ :]" "$cover" || fail "$s/0000-cover-letter.patch does not say its $key"
	done
	if grep -q '^Depends on: nothing' "$cover"; then
		apply_on_base "series $s alone" < <(series_files "$s")
	fi
done

# 2. Subject prefix, Signed-off-by, checkpatch.
while read -r p; do
	name=${p#"$top"/patches/}
	subj=$(sed -n 's/^Subject: \(\[PATCH[^]]*\] \)\{0,1\}//p' "$p" | head -1)
	[[ "$subj" =~ ^[A-Za-z0-9_./,\ -]+:\ [^\ ] ]] || fail "$name: subject '$subj' has no subsystem prefix"
	grep -q '^Signed-off-by: .* <.*@.*>$' "$p" || fail "$name: no Signed-off-by"
	while IFS= read -r finding; do
		type=$(sed -n 's/^[^:]*:[0-9]*: \(ERROR\|WARNING\|CHECK\):\([A-Z_0-9]*\):.*/\2/p' <<<"$finding")
		# An unknown commit id is explained only by a line that names it,
		# so that a mistyped id in a Fixes: tag still fails.
		id=$(sed -n "s/.*Unknown commit id '\([0-9a-f]*\)'.*/\1/p" <<<"$finding")
		if [ -f "$allow" ] && grep -q "^$name $type .*$id" "$allow"; then
			echo "check: $name: $type explained: $(grep "^$name $type " "$allow" | cut -d' ' -f3- | head -1)"
		else
			fail "$finding"
		fi
	# checkpatch runs scripts/spdxcheck.py with the first python3 on the
	# PATH and takes a crash of it (a python3 without ply, as a pyenv
	# shim is) for a valid licence: the system's python3 has ply.
	done < <(cd "$tree" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict --terse --show-types --no-summary "$p" 2>&1 |
		 grep -E '(ERROR|WARNING|CHECK):' || true)
done < <(series_files)

if [ $bad -ne 0 ]; then
	echo "check: $bad problems"
	exit 1
fi
echo "check: series clean ($(series_files | wc -l) patches in $(series_names | wc -l) series)"

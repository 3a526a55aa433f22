#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Make the series of a base postable, with the poster's own identity:
# build/[BASE/]postable/NAME/ gets git format-patch's files of series NAME
# (all of the base's by default, "NOT FOR UPSTREAM" ones included but
# said so), with a cover letter from git (its subject and text from
# patches/NAME/0000-cover-letter.patch, the shortlog and diffstat from
# git) and base-commit information.
#
# Every commit whose author is the patches/ files' placeholder gets the
# poster of git config user.name and user.email as author (a stable
# backport keeps its upstream author), and every Signed-off-by of the
# placeholder is replaced by the poster's: the placeholder identity must
# never be posted. The poster certifies the Developer's Certificate of
# Origin (Documentation/process/submitting-patches.rst) with that
# Signed-off-by: the script says so, and refuses to run when the identity
# is unset or is an example one. The result is searched for the
# placeholder before it is kept.
#
#   postable.sh [--base 7.3] [NAME...]
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
help_on_request "$@"

need_tree
out="$build/postable"
# No earlier output may pass for this run's.
rm -rf "$out"
series_ends_ok || die "cannot tell where each series ends in $(tree_name)"
tree_matches_patches ||
	die "$(tree_name) differs from $(rel_path "$patches")/: make $(make_base)tree or make $(make_base)export first"
name=$(git -C "$top" config user.name || true)
email=$(git -C "$top" config user.email || true)
if [ -z "$name" ] || [ -z "$email" ]; then
	die "git config user.name and user.email must name you, the poster (git config --global user.name 'Your Name')"
fi
# Not an address at a domain reserved for examples (RFC 2606), as the
# patches' placeholder is.
if printf '%s\n' "$email" | grep -Eiq '[@.](example|invalid|test|localhost)(\.(com|org|net))?$'; then
	die "$email is an example address: set git config user.email to your own"
fi
# Nor the placeholder of the patch files (their cover letters' From:).
placeholder=$(sed -n 's/^From: //p' "$patches"/*/0000-cover-letter.patch | sort -u | head -1)
ph_name=${placeholder% <*}
if [ -n "$ph_name" ] && [ "$name" = "$ph_name" ]; then
	die "\"$name\" is the patch files' placeholder: set git config user.name to your own"
fi
poster="$name <$email>"

want=${*:-$(series_names)}
for s in $want; do
	series_names | grep -qx "$s" || die "no series $s in $(rel_path "$patches")/series"
done
tmp=$(mktemp -d)
trap 'tgit worktree remove --force "$tmp/wt" >/dev/null 2>&1 || true; rm -rf "$tmp"; tgit worktree prune' EXIT

# The tree's commits, rewritten in a worktree of their own (the tree and
# its end/ branches stay as they are): the poster as author where the
# placeholder is (a stable backport keeps its upstream author), their
# Signed-off-by in place of the placeholder's (any other trailer stays).
tgit worktree add -q --detach "$tmp/wt" HEAD
cat > "$tmp/stamp" <<'EOF'
#!/bin/sh
example='[@.](example|invalid|test|localhost)(\.(com|org|net))?>?$'
reset=
if git log -1 --format='<%ae>' | grep -Eiq "$example"; then
	reset=--reset-author
elif ! git log -1 --format=%B | grep -Eq '^\[ Upstream commit [0-9a-f]{40} \]$'; then
	echo "$(git log -1 --format='%h %s'): authored by $(git log -1 --format=%an),"\
		"neither the placeholder nor a stable backport ([ Upstream commit ])" >&2
	exit 1
fi
git log -1 --format=%B |
	grep -Eiv "^Signed-off-by: .*$example" |
	git commit -q --amend $reset --cleanup=whitespace -s -F -
EOF
chmod +x "$tmp/stamp"
base_commit=$(tgit rev-parse base)
GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email GIT_COMMITTER_NAME=$name GIT_COMMITTER_EMAIL=$email \
	git -C "$tmp/wt" -c user.name="$name" -c user.email="$email" \
	rebase -q --no-update-refs --exec "$tmp/stamp" "$base_commit" >"$tmp/rebase.log" 2>&1 ||
	die "rewriting the commits failed: $(tail -3 "$tmp/rebase.log")"

# Series NAME's range in the rewritten commits: the same positions.
stamped_range() { # <name>
	local range from to
	range=$(series_range "$1")
	from=$(tgit rev-list --count "base..${range%%..*}")
	to=$(tgit rev-list --count "base..${range##*..}")
	printf '%s..%s\n' "$(git -C "$tmp/wt" rev-parse "HEAD~$(($(tgit rev-list --count base..HEAD) - from))")" \
		"$(git -C "$tmp/wt" rev-parse "HEAD~$(($(tgit rev-list --count base..HEAD) - to))")"
}

# A series that depends on nothing ("Depends on: nothing" in its cover
# letter) is posted on the base alone, so that no other series' patches
# are named as its prerequisites: its commits, picked onto the base in a
# worktree of their own (make check shows that they apply there).
alone_range() { # <name> <stamped range>
	local wt="$tmp/alone-$1"
	git -C "$tmp/wt" worktree add -q --detach "$wt" "$base_commit"
	git -C "$wt" -c user.name="$name" -c user.email="$email" cherry-pick "$2" >/dev/null ||
		die "series $1 depends on nothing but does not apply to base alone"
	printf '%s..%s\n' "$base_commit" "$(git -C "$wt" rev-parse HEAD)"
}

for s in $want; do
	dir="$out/$s"
	prefix=PATCH
	[ -f "$patches/$s/subject-prefix" ] && prefix=$(head -1 "$patches/$s/subject-prefix")
	range=$(stamped_range "$s")
	if grep -q '^Depends on: nothing' "$patches/$s/0000-cover-letter.patch" 2>/dev/null &&
		[ "$(git -C "$tmp/wt" rev-parse "${range%%..*}")" != "$base_commit" ]; then
		range=$(alone_range "$s" "$range")
	fi
	git -C "$tmp/wt" -c core.abbrev=12 format-patch -q --cover-letter --base="$base_commit" \
		--subject-prefix="$prefix" -o "$dir" "$range"
	cover=$(ls "$dir"/0000-cover-letter.patch)
	ours="$patches/$s/0000-cover-letter.patch"
	if [ -f "$ours" ]; then
		# Our subject (its folded lines joined) and text in place of
		# git's placeholders; awk takes them from the environment, as
		# they are (no escapes, no "&" of sub()).
		subject=$(awk '/^Subject: / { s = $0; f = 1; next }
			f && /^[ \t]/ { s = s $0; next } { f = 0 }
			END { sub(/^Subject: \[[^]]*\] /, "", s); print s }' "$ours")
		# The text: after the headers, up to the shortlog's first heading
		# ("Name (N):"), its trailing blank lines left out.
		awk 'body && /^[^ ].* \([0-9]+\):$/ { exit }
			body { print } /^$/ { body = 1 }' "$ours" |
			sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' > "$tmp/blurb"
		SUBJECT=$subject BLURB=$tmp/blurb awk '
			index($0, "*** SUBJECT HERE ***") {
				i = index($0, "*** SUBJECT HERE ***")
				$0 = substr($0, 1, i - 1) ENVIRON["SUBJECT"] substr($0, i + 20)
			}
			$0 == "*** BLURB HERE ***" {
				while ((getline l < ENVIRON["BLURB"]) > 0) print l
				next
			}
			{ print }' "$cover" > "$tmp/cover" && mv "$tmp/cover" "$cover"
	else
		note "WARNING: series $s has no cover letter text: fill in $(rel_path "$cover")"
	fi
	n=$(find "$dir" -name '*.patch' ! -name '0000-*' | wc -l)
	note "$(rel_path "$dir"): $n patch(es) and a cover letter, [$prefix]"
	if grep -lzE "before[[:space:]]+posting" "$dir"/*.patch >"$tmp/todo"; then
		note "  to do before posting, as these say: $(xargs -n1 basename < "$tmp/todo" | tr '\n' ' ')"
	fi
	case $prefix in *"NOT FOR UPSTREAM"*) note "  (not for upstream: test infrastructure)" ;; esac
done

if grep -rEl "a-seed-[0-9a-f]+|\.example>" "$out" >"$tmp/left" ||
	{ [ -n "$ph_name" ] && grep -rlF "$ph_name" "$out" >"$tmp/left"; }; then
	rm -rf "$out"
	die "the placeholder identity is still in: $(tr '\n' ' ' < "$tmp/left")"
fi
# The last Signed-off-by of every patch is the poster's.
for f in $(find "$out" -name '*.patch' ! -name '0000-*' | sort); do
	last=$(sed -n '/^---$/q; s/^Signed-off-by: //p' "$f" | tail -1)
	[ "$last" = "$poster" ] || { rm -rf "$out"; die "$(rel_path "$f"): its last Signed-off-by is \"$last\", not yours"; }
done
note "every patch ends with your Signed-off-by, $poster"
git -C "$tmp/wt" log --format='%ae%x09%an%x09%s' "$base_commit..HEAD" |
	awk -F '\t' -v e="$email" '$1 != e' >"$tmp/others"
if [ -s "$tmp/others" ]; then
	note "and is authored by you, but for the stable backports, which keep their upstream author:"
	while IFS="$(printf '\t')" read -r _ who subject; do
		note "  $who: $subject"
	done < "$tmp/others"
fi
note "your Signed-off-by certifies the Developer's Certificate of Origin 1.1"
note "(Documentation/process/submitting-patches.rst, \"Sign your work\"): read it before posting"
note "base-commit: $base_commit is Debian's import of $(tgit log -1 --format=%s base)"

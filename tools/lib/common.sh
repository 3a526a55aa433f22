# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared paths and helpers of the harness' shell scripts (tools/*/*.sh).
# Source it; do not run it. The QEMU machine and the topologies are the
# Python package's (tools/harness): scripts get commands from
# tools/boot/boot.py.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

die() { printf '%s: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# The kernel base: Debian's linux-source-<base>. The default, 6.1, has its
# tree, build directories and series at the top of build/ and patches/;
# another base has build/<base>/ and patches/<base>/ (the Makefile's B says
# the same). A script takes "--base B" and "--tree DIR" before its own
# arguments; sourcing this file consumes them. --tree names a generated
# tree (its parent is the build directory): what a Python tool passes on.
bases="6.1 7.3"
base=6.1
tree=
while [ $# -gt 0 ]; do
	case $1 in
	--base) [ $# -ge 2 ] || die "--base needs a value ($bases)"; base=$2; shift 2 ;;
	--tree) [ $# -ge 2 ] || die "--tree needs a directory"; tree=$2; shift 2 ;;
	*) break ;;
	esac
done
case " $bases " in
*" $base "*) ;;
*) die "no base $base: one of $bases" ;;
esac
sub=${base/#6.1/}
build="$top/build${sub:+/$sub}"
patches="$top/patches${sub:+/$sub}"
if [ -n "$tree" ]; then
	tree=$(realpath -m "$tree")
	build=$(dirname "$tree")
else
	tree="$build/linux"
fi
pkg=linux-source-$base
tarball=/usr/src/$pkg.tar.xz
unset sub

# The tree as make names it (build/linux, build/7.3/linux), for messages.
tree_name() { rel_path "$tree"; }
rel_path() { case $1 in "$top"/*) echo "${1#"$top"/}" ;; *) echo "$1" ;; esac; }

# The tree kernel build directory <dir> was built from (its "source" link,
# which kbuild makes for a build outside the tree); else $tree.
kernel_tree() { # <dir>
	if [ -d "$1/source" ]; then realpath "$1/source"; else echo "$tree"; fi
}

# Stop unless the generated tree exists.
need_tree() {
	[ -f "$tree/Makefile" ] || die "no $(tree_name): run make $(make_base)tree first"
}

# "BASE=<base> " for a command line to show, empty for the default base.
make_base() { [ "$base" = 6.1 ] || echo "BASE=$base "; }

# -h or --help as the first argument: print the script's header comment
# (its usage) and exit.
help_on_request() { # "$@"
	case ${1:-} in
	-h | --help)
		sed -n '3,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"
		exit 0 ;;
	esac
}
note() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }

# apt-get options that read one Debian suite through a source list and
# package lists of their own in the scratch directory <dir>, so that the
# machine's sources stay as they are: sets the array apt_opts. <type> is
# deb or deb-src; downloads go to <dir>/archives.
apt_scratch() { # <dir> <type> <suite>
	chmod 755 "$1"	# apt's sandbox user writes the download
	mkdir -p "$1/lists/partial" "$1/archives/partial"
	echo "$2 [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $3 main" > "$1/sources.list"
	apt_opts=(-o Dir::Etc::SourceList="$1/sources.list" -o Dir::Etc::SourceParts=/dev/null
		  -o Dir::State::Lists="$1/lists" -o Dir::Cache::Archives="$1/archives")
}

# The Debian version of the installed kernel source, e.g. 6.1.192-3.
source_version() { dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null; }

# Compile through ccache when it is installed, hashing paths relative to the
# checkout, so that a fresh clone in another folder (as CI's) hits the cache
# of an earlier build.
use_ccache() {
	if [ -d /usr/lib/ccache ]; then
		export PATH="/usr/lib/ccache:$PATH"
		export CCACHE_BASEDIR="$top" CCACHE_NOHASHDIR=true
	fi
}

# The test kernel's build directory (of a variant: debug, trace).
kernel_dir() { # [variant]
	echo "$build/kunit-arm64${1:+-$1}"
}

# make in the generated tree for arm64 into build directory <dir>.
kmake() { # <dir> [targets...]
	make -C "$tree" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- O="$1" -j"$(nproc)" "${@:2}"
}

# Seconds as "M min S s".
minsec() { printf '%d min %02d s' $(($1 / 60)) $(($1 % 60)); }

# git in the generated kernel tree.
tgit() { git -C "$tree" "$@"; }

# patches/ holds several series, each a directory patches/NAME with its own
# "series" file (its patches in order) and cover letter; patches/series
# lists the directories in the order they apply. In build/linux they are
# one line of commits above "base"; branch end/NAME marks where series NAME
# ends, but for the last one, which ends at HEAD. make-tree.sh sets
# rebase.updateRefs, so that a rebase across them moves the branches too
# (its todo list has "update-ref" lines; a todo written by a script must
# keep them, or the branches stay behind and export refuses to run).

# The names of the series, in order.
series_names() {
	[ -f "$patches/series" ] || return 0
	grep -v '^[[:space:]]*\(#\|$\)' "$patches/series" || true
}

# The patch files of series NAME, or of all of them in order, as paths.
series_files() { # [name]
	local s
	for s in ${1:-$(series_names)}; do
		[ -f "$patches/$s/series" ] || continue
		{ grep -v '^[[:space:]]*\(#\|$\)' "$patches/$s/series" || true; } | sed "s|^|$patches/$s/|"
	done
}

# The tree's commits of series NAME, as a git range: from the end of the
# series before it (base for the first) to its own end.
series_range() { # <name>
	local s prev=base last
	last=$(series_names | tail -1)
	for s in $(series_names); do
		if [ "$s" = "$1" ]; then
			[ "$s" = "$last" ] && echo "$prev..HEAD" || echo "$prev..end/$s"
			return 0
		fi
		prev=end/$s
	done
	return 1
}

# True when each series' end branch exists in the tree and the ends follow
# one another on the way from base to HEAD; else says what is wrong.
series_ends_ok() {
	local s prev=base last
	last=$(series_names | tail -1)
	for s in $(series_names); do
		[ "$s" = "$last" ] && break
		if ! tgit rev-parse -q --verify "end/$s" >/dev/null; then
			note "build/linux has no branch end/$s (where series $s ends)"
			return 1
		fi
		if ! tgit merge-base --is-ancestor "$prev" "end/$s" ||
			! tgit merge-base --is-ancestor "end/$s" HEAD; then
			note "end/$s of build/linux is not between $prev and HEAD"
			return 1
		fi
		prev=end/$s
	done
}

# Write the commits of series NAME as patch files into directory $1.
# --zero-commit, --no-signature and a fixed abbreviation length make the
# output depend on the commits' content only, so two exports of the same work
# compare equal.
# A series' subject prefix is patches/NAME/subject-prefix ("PATCH 6.1",
# "PATCH NOT FOR UPSTREAM"), else "PATCH".
format_series() { # <dir> <name>
	local prefix=PATCH
	[ -f "$patches/$2/subject-prefix" ] && prefix=$(head -1 "$patches/$2/subject-prefix")
	tgit -c core.abbrev=12 format-patch -q --zero-commit --no-signature --no-numbered \
		--subject-prefix="$prefix" -o "$1" "$(series_range "$2")" >/dev/null
}

# True when the commits above base in the tree are exactly patches/.
tree_matches_patches() {
	local tmp rc=0 f s
	series_ends_ok 2>/dev/null || return 1
	tmp=$(mktemp -d)
	for s in $(series_names); do
		mkdir -p "$tmp/$s"
		format_series "$tmp/$s" "$s"
		if [ "$(ls "$tmp/$s" | sort)" != "$(series_files "$s" | xargs -rn1 basename | sort)" ]; then
			rc=1
			break
		fi
		for f in "$tmp/$s"/*.patch; do
			[ -e "$f" ] || continue
			cmp -s "$f" "$patches/$s/${f##*/}" || { rc=1; break 2; }
		done
	done
	rm -rf "$tmp"
	return $rc
}

# Uncommitted changes in the tree, untracked files included.
tree_dirty() { [ -n "$(tgit status --porcelain 2>/dev/null | head -1)" ]; }

# Benchmark kernels: <commit> of the tree, checked out in the worktree
# build/bench-src, with tools/bench/<file.c> built into <dir> of the tree,
# configured as allnoconfig plus the lines of <config>; Image.gz in <kout>.
# The worktree is left clean for the next checkout.
bench_kernel() { # <commit> <file.c> <dir> <config> <kout>
	local src="$build/bench-src" name
	name=$(basename "$2" .c)
	[ -d "$src" ] || tgit worktree add -q --detach "$src" base
	git -C "$src" checkout -q --detach "$1"
	cp "$top/tools/bench/$2" "$src/$3/"
	echo "obj-y += $name.o" >> "$src/$3/Makefile"
	mkdir -p "$5"
	make -s -C "$src" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- O="$5" \
		KCONFIG_ALLCONFIG="$4" allnoconfig >/dev/null
	make -s -C "$src" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- O="$5" \
		-j"$(nproc)" Image.gz
	git -C "$src" checkout -q -- "$3/Makefile"
	rm -f "$src/$3/$2"
}

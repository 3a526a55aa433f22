#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The README's two commands on a bare Debian 12: build a minimal bookworm
# root with debootstrap (from the mirror the machine's own apt sources
# name) in build/fresh-root, clone this repository's HEAD into it, and run
# `make demo` then `make test` there as root in a chroot with /proc, /sys
# and /dev mounted, nothing installed beyond debootstrap's minbase, make
# and git. It tests what is committed (HEAD), not the work tree. Times each
# step; the whole output is in build/fresh-check.log.
# Needs root. --keep keeps the root of an earlier run (the default starts
# from a new one, as a fresh machine would).
#
#   fresh-check.sh [--keep]
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
help_on_request "$@"

keep=no
if [ "${1:-}" = --keep ]; then keep=yes; shift; fi
[ $# -eq 0 ] || die "usage: fresh-check.sh [--keep]"

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot, mounts)"
root="$build/fresh-root"
log="$build/fresh-check.log"
sources=/etc/apt/sources.list.d/debian.sources
# The mirror of the machine's own apt sources: deb822 or one-line style.
mirror=$(sed -n 's/^URIs: *\([^ ]*\/debian\)$/\1/p' "$sources" 2>/dev/null | head -1)
[ -n "$mirror" ] || mirror=$(sed -n 's/^deb \(http[^ ]*\/debian\) .*/\1/p' /etc/apt/sources.list 2>/dev/null | head -1)
[ -n "$mirror" ] || die "no Debian mirror in the machine's apt sources"

# Unmount whatever is mounted under the root, deepest first; a root with a
# mount left (an earlier run killed) must never be removed, or rm would
# reach the host's /dev through it.
# (findmnt -R lists nothing when the root itself is no mount point, as
# here: mounts are found by their path instead.)
mounts_under_root() {
	findmnt -rno TARGET | awk -v r="$(realpath -m "$root")/" 'index($0, r) == 1' | sort -r
}
unmount_all() {
	local m
	for m in $(mounts_under_root); do
		umount "$m" 2>/dev/null || umount -l "$m" || true
	done
	[ -z "$(mounts_under_root)" ]
}
trap unmount_all EXIT
bind() { mkdir -p "$root$1"; mount "${@:2}" "$root$1"; }

step() { # <what> <command...>: run, timed, into the log
	local start rc=0
	start=$(date +%s)
	echo "fresh-check: $1" | tee -a "$log"
	"${@:2}" 2>&1 | tee -a "$log" || rc=${PIPESTATUS[0]}
	echo "fresh-check: $1: exit $rc after $(minsec $(($(date +%s) - start)))" | tee -a "$log"
	return $rc
}

: > "$log"
start=$(date +%s)
if [ "$keep" != yes ] || [ ! -x "$root/bin/bash" ]; then
	unmount_all || die "cannot unmount everything under ${root#"$top"/}"
	rm -rf --one-file-system "$root"
	step "debootstrap --variant=minbase bookworm from $mirror" \
		debootstrap --variant=minbase --include=make,git bookworm "$root" "$mirror"
fi
# The machine's own Debian sources (bookworm, updates, security), as a
# fresh machine has them, in either style.
rm -f "$root/etc/apt/sources.list"
[ ! -f "$sources" ] || cp "$sources" "$root/etc/apt/sources.list.d/"
[ ! -f /etc/apt/sources.list ] || cp /etc/apt/sources.list "$root/etc/apt/"
cp /etc/resolv.conf "$root/etc/resolv.conf"
bind /proc -t proc proc
bind /sys -t sysfs sys
bind /dev --bind /dev
bind /dev/pts --bind /dev/pts

rm -rf "$root/root/repo"
git clone -q "$top" "$root/root/repo"
echo "fresh-check: cloned $(git -C "$top" log -1 --format='%h %s') into ${root#"$top"/}/root/repo" | tee -a "$log"
in_root() {
	chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/bash -c "cd /root/repo && $1" < /dev/null
}
rc=0
step "make demo (in the chroot)" in_root "make demo" || rc=1
step "make test (in the chroot)" in_root "make test" || rc=1
echo "fresh-check: $( [ $rc -eq 0 ] && echo passed || echo FAILED ) in $(minsec $(($(date +%s) - start))) (log: build/fresh-check.log)" | tee -a "$log"
exit $rc

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fetch binaries that nobody here built, from Debian's archive, into
# build/debian/, without touching the machine's own apt sources or
# installed packages (a private apt configuration under build/debian/apt):
#
#   debian-binaries.sh kernel   Debian 12's arm64 kernel, unpacked: prints
#                               the path of its image (vmlinuz)
#   debian-binaries.sh qemu     QEMU from bookworm-backports, unpacked:
#                               prints the path of its qemu-system-aarch64
#
# tools/boot/icount-hang.py boots the one on the other, e.g.
#   icount-hang.py --kernel "$(debian-binaries.sh kernel)" \
#       --qemu-binary "$(debian-binaries.sh qemu)"
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
help_on_request "$@"

[ $# -eq 1 ] || die "usage: debian-binaries.sh kernel|qemu"
out="$build/debian"
apt="$out/apt"
mkdir -p "$apt/parts" "$apt/lists/partial" "$apt/cache/archives/partial"
cat > "$apt/parts/debian.sources" <<EOF
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
case $1 in
kernel) arch=arm64 ;;
qemu) arch=$(dpkg --print-architecture) ;;
*) die "usage: debian-binaries.sh kernel|qemu" ;;
esac
opts=(-o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$apt/parts"
	-o Dir::State::Lists="$apt/lists-$arch" -o Dir::Cache="$apt/cache"
	-o Dir::State::status=/dev/null -o APT::Architecture="$arch"
	-o APT::Architectures="$arch" -o Debug::NoLocking=1)
mkdir -p "$apt/lists-$arch/partial"
# One update a day is enough.
if [ -z "$(find "$apt/lists-$arch" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null)" ]; then
	apt-get "${opts[@]}" -qq update >&2 || die "apt-get update failed"
fi
case $1 in
kernel)
	# The newest linux-image-*-arm64-unsigned of bookworm (not cloud, not rt).
	pkg=$(apt-cache "${opts[@]}" pkgnames linux-image- |
		grep -E '^linux-image-[0-9.]+-[0-9]+-arm64-unsigned$' | sort -V | tail -1) || true
	[ -n "$pkg" ] || die "no arm64 kernel package found"
	ver=$(apt-cache "${opts[@]}" policy "$pkg" | awk '/Candidate:/ {print $2}')
	;;
qemu)
	pkg=qemu-system-arm
	ver=$(apt-cache "${opts[@]}" madison "$pkg" | awk '/bookworm-backports/ {print $3; exit}')
	[ -n "$ver" ] || die "no $pkg in bookworm-backports"
	;;
esac
dir="$out/$pkg-${ver//:/_}"
if [ ! -d "$dir" ]; then
	(cd "$apt/cache/archives" && apt-get "${opts[@]}" -qq download "$pkg=$ver" 2>&1 |
		grep -v '^W: Download is performed unsandboxed' >&2) || true
	deb=$(ls "$apt/cache/archives/${pkg}_${ver//:/%3a}_"*.deb 2>/dev/null | head -1)
	[ -n "$deb" ] || die "cannot download $pkg=$ver"
	dpkg-deb -x "$deb" "$dir.tmp" && mv "$dir.tmp" "$dir"
fi
case $1 in
kernel) ls "$dir"/boot/vmlinuz-* ;;
qemu) echo "$dir/usr/bin/qemu-system-aarch64" ;;
esac

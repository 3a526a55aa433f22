#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build an initramfs whose /init is a static arm64 build of one C file:
# by default tools/guest/idle-workload.c into build/guest/ (the topology
# boots and `make demo` give their own OUTDIR). Writes OUTDIR/init, OUTDIR/initramfs.list (for
# CONFIG_INITRAMFS_SOURCE) and OUTDIR/initramfs.cpio (for -initrd, with the
# kernel's own gen_init_cpio). Each further C file becomes a static
# program /NAME beside /init (NAME: the file's name without .c). They are
# compiled against the tree's own UAPI headers (make headers, kept in
# build/[BASE/]uapi-arm64), not the cross libc's, which are Debian 12's
# (6.1): a program of the tree, such as getdelays, follows the tree's.
#
#   build-guest.sh [INIT.c OUTDIR [PROGRAM.c...]]
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
help_on_request "$@"

src=${1:-$top/tools/guest/idle-workload.c}
out=${2:-$build/guest}
if [ $# -ge 2 ]; then shift 2; else set --; fi
mkdir -p "$out"
need_tree
gcc -O2 -o "$out/gen_init_cpio" "$tree/usr/gen_init_cpio.c"
uapi=$build/uapi-arm64
make -s -C "$tree" O="$uapi" ARCH=arm64 headers >&2 || die "cannot make the UAPI headers of $(tree_name) in $(rel_path "$uapi")"
cc=(aarch64-linux-gnu-gcc -static -O2 -Wall -Werror -isystem "$uapi/usr/include")
"${cc[@]}" -o "$out/init" "$src" -lpthread
cat > "$out/initramfs.list" <<LIST
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
dir /proc 0755 0 0
dir /sys 0755 0 0
file /init $out/init 0755 0 0
LIST
for prog in "$@"; do
	name=$(basename "$prog" .c)
	"${cc[@]}" -o "$out/$name" "$prog"
	echo "file /$name $out/$name 0755 0 0" >> "$out/initramfs.list"
done
# Replaced whole, never seen half written.
"$out/gen_init_cpio" "$out/initramfs.list" > "$out/initramfs.cpio.tmp"
mv "$out/initramfs.cpio.tmp" "$out/initramfs.cpio"

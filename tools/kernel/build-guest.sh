#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build an initramfs whose /init is a static arm64 build of one C file:
# by default tools/guest/idle-workload.c into build/guest/ (the topology
# boots and `make demo` give their own OUTDIR). Writes OUTDIR/init, OUTDIR/initramfs.list (for
# CONFIG_INITRAMFS_SOURCE) and OUTDIR/initramfs.cpio (for -initrd, with the
# kernel's own gen_init_cpio). Each further C file becomes a static
# program /NAME beside /init (NAME: the file's name without .c).
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
aarch64-linux-gnu-gcc -static -O2 -Wall -Werror -o "$out/init" "$src" -lpthread
cat > "$out/initramfs.list" <<LIST
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
dir /proc 0755 0 0
dir /sys 0755 0 0
file /init $out/init 0755 0 0
LIST
for prog in "$@"; do
	name=$(basename "$prog" .c)
	aarch64-linux-gnu-gcc -static -O2 -Wall -Werror -o "$out/$name" "$prog"
	echo "file /$name $out/$name 0755 0 0" >> "$out/initramfs.list"
done
# Replaced whole, never seen half written.
"$out/gen_init_cpio" "$out/initramfs.list" > "$out/initramfs.cpio.tmp"
mv "$out/initramfs.cpio.tmp" "$out/initramfs.cpio"

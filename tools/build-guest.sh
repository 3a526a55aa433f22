#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the initramfs of the topology boots and of `make demo`: a static
# arm64 build of tools/guest/idle-workload.c as /init. Writes
# build/guest/initramfs.cpio (with the kernel's own gen_init_cpio).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out="$build/guest"
mkdir -p "$out"
[ -f "$tree/usr/gen_init_cpio.c" ] || die "no build/linux: run make tree first"
gcc -O2 -o "$out/gen_init_cpio" "$tree/usr/gen_init_cpio.c"
aarch64-linux-gnu-gcc -static -O2 -Wall -Werror -o "$out/init" \
	"$top/tools/guest/idle-workload.c"
cat > "$out/initramfs.list" <<LIST
dir /dev 0755 0 0
nod /dev/console 0600 0 0 c 5 1
dir /proc 0755 0 0
dir /sys 0755 0 0
file /init $out/init 0755 0 0
LIST
"$out/gen_init_cpio" "$out/initramfs.list" > "$out/initramfs.cpio"

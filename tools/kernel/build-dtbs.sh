#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build device tree blobs of the generated tree's arm64 boards, e.g.
# qcom/sdm845-db845c.dtb, into OUT (default build/dtbs; kbuild's own
# rules: cpp, dtc; allnoconfig is enough for them). Prints each DTB's path.
#
#   build-dtbs.sh [--out DIR] TARGET.dtb...
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
help_on_request "$@"

out="$build/dtbs"
if [ "${1:-}" = --out ]; then out=$2; shift 2; fi
# kbuild runs in the tree (make -C), which would take a relative O= as
# its own: make it absolute.
out=$(realpath -m "$out")
[ $# -ge 1 ] || die "usage: build-dtbs.sh [--out DIR] VENDOR/BOARD.dtb..."
need_tree
mkdir -p "$out"
# A configuration of an earlier tree is brought up to date without asking.
if [ -f "$out/.config" ]; then
	kmake "$out" -s olddefconfig < /dev/null > /dev/null
else
	kmake "$out" -s allnoconfig < /dev/null > /dev/null
fi || die "cannot configure ${out#"$top"/}"
kmake "$out" -s "$@" >&2 || die "kbuild cannot build $*"
for t in "$@"; do
	echo "$out/arch/arm64/boot/dts/$t"
done

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the series for x86-64: defconfig plus frequency-scaled CPU time and
# its KUnit suite (which runs at boot when the kernel is booted), in a
# worktree of build/linux at its HEAD (build/x86-src), into build/x86.
# Prints the option lines of the resulting .config and where the scaled
# accounting code landed in vmlinux.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$tree/.git" ] || die "no build/linux: run make tree first"
src="$build/x86-src"
kout="$build/x86"
[ -d "$src" ] || tgit worktree add -q --detach "$src" base
git -C "$src" checkout -q --detach "$(tgit rev-parse HEAD)"
use_ccache
mkdir -p "$kout"
make -s -C "$src" ARCH=x86_64 O="$kout" defconfig >/dev/null
"$src/scripts/config" --file "$kout/.config" -e FREQ_SCALED_CPUTIME \
	-e KUNIT -e FREQ_SCALED_CPUTIME_KUNIT_TEST
make -s -C "$src" ARCH=x86_64 O="$kout" olddefconfig >/dev/null
grep -E '^CONFIG_(FREQ_SCALED_CPUTIME|ARCH_HAS_SCALED_CPUTIME|TASKSTATS|KUNIT)' "$kout/.config" ||
	die "the option did not survive olddefconfig"
make -s -C "$src" ARCH=x86_64 O="$kout" -j"$(nproc)" bzImage
nm "$kout/vmlinux" | grep -E ' (account_scaled_(user|system)_time|cputime_scaled_test_suite)$' ||
	die "no scaled accounting in vmlinux"
echo "build-x86: $kout/arch/x86/boot/bzImage"

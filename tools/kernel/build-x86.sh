#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the series for x86-64: defconfig plus frequency-scaled CPU time and
# its KUnit suite (which runs at boot when the kernel is booted), in a
# worktree of build/linux at its HEAD (build/x86-src), into build/x86.
# Prints the option lines of the resulting .config and where the scaled
# accounting code landed in vmlinux, then boots the kernel in
# qemu-system-x86_64 (TCG, 2 CPUs, no root file system) so that the suite
# cputime_scaled runs on x86; its KTAP is in build/x86/boot.log.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
help_on_request "$@"

need_tree
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
"$top/tools/boot/boot.py" --arch x86_64 --kernel "$kout/arch/x86/boot/bzImage" \
	--append "panic=-1 kunit.filter_glob=cputime_scaled" --log "$kout/boot.log" \
	--timeout 300 || true
# The console's KTAP, read by the kernel's own parser.
(cd "$tree" && /usr/bin/python3 tools/testing/kunit/kunit.py parse \
	--json="$kout/results.json" "$kout/boot.log") > "$kout/parse.log" 2>&1 || true
line=$("$top/tools/run/summary.py" "$kout/results.json" --counts cputime_scaled) &&
	[[ $line != *" 0 passed"* ]] && [[ $line == *" 0 skipped, 0 failed" ]] ||
	die "the suite cputime_scaled did not pass on x86: $line (build/x86/boot.log)"
echo "build-x86: $line"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Write the LAVA jobs of docs/lab.md into build/lava (with
# KERNEL_VARIANT=debug: build/lava-debug; LAVA_OUT=DIR: DIR, as make check
# and make test do, so that they leave make lava's jobs alone):
#   qemu-TOPOLOGY.yaml   LAVA's qemu device type boots the test kernel on a
#                        topology (default osi-1x4, the demo's) with the
#                        QEMU command our own topology boot runs
#                        (topology_boot in lib.sh), and reports the KUnit
#                        suites and the workload's end as LAVA results;
#   artifacts/           what that job downloads: Image.gz, the topology's
#                        DTB, initramfs.cpio (upload them to BASE_URL);
#   board-sdm845-db845c.yaml, fvp-tfa-osi.yaml
#                        templates for real OSI firmware (ci/lava/osi-checks.sh
#                        as their test shell).
# Then validates the three with lava-common (tools/lava-jobs.py validate),
# printing KTAP. The command comes from the test kernel's last kunit.py run;
# without one (a fresh clone), the kernel is built and its suites run first.
#
#   lava-jobs.sh [TOPOLOGY]     BASE_URL=https://... (default: a placeholder)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

topology_source "${1:-osi-1x4}"
out="${LAVA_OUT:-$build/lava$sfx}"
base_url=${BASE_URL:-https://lab.example.org/artifacts/hierarchical-idle}
mkdir -p "$out/artifacts"
rm -f "$out"/*.yaml "$out"/artifacts/*

if ! grep -qs '^\$ qemu-system-aarch64' "$kout/kunit.py.log"; then
	note "no QEMU command of the test kernel yet: building it and running its suites"
	"$top/tools/run-kunit.sh" --suites-only >&2 ||
		grep -qs '^\$ qemu-system-aarch64' "$kout/kunit.py.log" ||
		die "the test kernel did not run; no QEMU command to describe"
fi
"$top/tools/build-guest.sh" >&2 || die "cannot build the guest's init"

dtb="$out/artifacts/$name.dtb"
topology_boot "$src" "$dtb" || die "cannot graft $name (${dtb#$top/}.graft)"
rm -f "$dtb.graft"
# The job downloads the files our boot reads, under their own names.
for i in "${!qemu_args[@]}"; do
	case "${qemu_args[i]}" in
	-kernel | -initrd) cp "${qemu_args[i + 1]}" "$out/artifacts/" ;;
	esac
done
printf '%s\n' "${qemu_args[@]}" > "$out/qemu-$name.argv"
"$top/tools/lava-jobs.py" qemu "$out/qemu-$name.yaml" --topology "$name" \
	--base-url "$base_url" --argv "$out/qemu-$name.argv"
"$top/tools/lava-jobs.py" board "$out/board-sdm845-db845c.yaml"
"$top/tools/lava-jobs.py" fvp "$out/fvp-tfa-osi.yaml"
"$top/tools/lava-jobs.py" validate "$out"/*.yaml

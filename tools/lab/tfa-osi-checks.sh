#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The LAVA jobs' target-side checks (ci/lava/osi-checks.sh) on the files a
# boot under Trusted Firmware-A dumped (make test-tfa): the boot's console
# is the boot log, the workload's dump at its start is /sys before the
# idle period and its dump before the hotplug phase /sys after it, so that
# the lab's checks are proven against a real firmware's figures (its
# debugfs psci included). Prints osi-checks.sh's KTAP.
#
#   tfa-osi-checks.sh --console LOG --out DIR
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
help_on_request "$@"

console= out=
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || die "usage: tfa-osi-checks.sh --console LOG --out DIR"
	case $1 in
	--console) console=$2 ;;
	--out) out=$2 ;;
	*) die "usage: tfa-osi-checks.sh --console LOG --out DIR" ;;
	esac
	shift 2
done
[ -f "$console" ] && [ -n "$out" ] || die "usage: tfa-osi-checks.sh --console LOG --out DIR"
rm -rf "$out"
mkdir -p "$out"
"$top/tools/lab/lava-jobs.py" sysfs "$console" start "$out/root" >&2
"$top/tools/lab/lava-jobs.py" sysfs "$console" "before hotplug" "$out/after" >&2
exec sh "$top/ci/lava/osi-checks.sh" --root "$out/root" --dmesg "$console" \
	--idle "cp -r $out/after/sys $out/root/"

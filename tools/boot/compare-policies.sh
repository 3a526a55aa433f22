#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot topologies of kunit/topologies/ COUNT times under each CPU governor
# policy of genpd (genpd.cpu_policy=, on the kernel `make test` built) and
# print tools/report/policy-table.py's comparison: per workload phase,
# domain requests, firmware denials, above and below per 1000 requests,
# entries, with their spread over the boots.
#
#   compare-policies.sh [--base 7.3] [--policies "timers pending learn"] [COUNT [TOPOLOGY...]]
#
# Defaults: 4 boots of osi-1x4, osi-2x2 and osi-2x4-system under "timers",
# "pending" and "learn" on 6.1; on 7.3 under "timers", "ipi" (mainline's
# governor) and "pending". Logs: build/[BASE/]policies/POLICY-TOPOLOGY/TOPOLOGY-N.log.
set -uo pipefail
. "$(dirname "$0")/../lib/common.sh"
help_on_request "$@"

policies="timers pending learn"
[ "$base" = 6.1 ] || policies="timers ipi pending"
if [ "${1:-}" = --policies ]; then policies=$2; shift 2; fi
count=${1:-4}
shift || true
topologies=("${@:-osi-1x4 osi-2x2 osi-2x4-system}")
read -ra topologies <<< "${topologies[*]}"
out="$build/policies"
dirs=()
for t in "${topologies[@]}"; do
	for p in $policies; do
		rm -rf "$out/$p-$t"
		"$top/tools/boot/repeat.sh" --base "$base" --out "$out/$p-$t" "$t" "$count" "genpd.cpu_policy=$p" ||
			note "$t under $p: a boot had an invalid request or a failed check"
		dirs+=("$out/$p-$t")
	done
done
"$top/tools/report/policy-table.py" "${dirs[@]}"

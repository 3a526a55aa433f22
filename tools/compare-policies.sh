#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot topologies of kunit/topologies/ COUNT times under each CPU governor
# policy of genpd (genpd.cpu_policy=, on the kernel `make test` built) and
# print tools/policy-table.py's comparison: per workload phase, domain
# requests, firmware denials, above and below per 1000 requests, entries,
# with their spread over the boots.
#
#   compare-policies.sh [COUNT [TOPOLOGY...]]
#
# Defaults: 4 boots of osi-1x4, osi-2x2 and osi-2x4-system under "timers",
# "pending" and "learn" (POLICIES="timers pending" for fewer).
# Logs: build/policies/POLICY-TOPOLOGY/TOPOLOGY-N.log.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

count=${1:-4}
shift || true
topologies=("${@:-osi-1x4 osi-2x2 osi-2x4-system}")
read -ra topologies <<< "${topologies[*]}"
out="$build/policies"
dirs=()
for t in "${topologies[@]}"; do
	for p in ${POLICIES:-timers pending learn}; do
		"$top/tools/boot-repeat.sh" "$t" "$count" "genpd.cpu_policy=$p" ||
			note "$t under $p: a boot had an invalid request or a failed check"
		rm -rf "$out/$p-$t"
		mkdir -p "$out"
		mv "$build/repeat" "$out/$p-$t" || die "no logs from boot-repeat.sh"
		dirs+=("$out/$p-$t")
	done
done
"$top/tools/policy-table.py" "${dirs[@]}"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Validate the device-tree bindings the series changes, and their examples,
# with the kernel's dt_binding_check (Debian's dt-schema and yamllint).
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
help_on_request "$@"

need_tree
schemas=$(tgit diff --name-only base..HEAD -- Documentation/devicetree/bindings |
	  grep '\.yaml$' | sed 's|^Documentation/devicetree/bindings/||' || true)
[ -n "$schemas" ] || { echo "bindings: the series changes no binding"; exit 0; }
for s in $schemas; do
	make -s -C "$tree" ARCH=arm64 O="$build/dtcheck" dt_binding_check \
		DT_SCHEMA_FILES="$s" > "$build/dtcheck.log" 2>&1 ||
		{ cat "$build/dtcheck.log"; die "dt_binding_check failed for $s"; }
	# dt_binding_check reports schema violations without failing.
	if grep -q . "$build/dtcheck.log"; then
		cat "$build/dtcheck.log"
		die "dt_binding_check reported problems for $s"
	fi
	echo "bindings: $s and its examples pass dt_binding_check"
done

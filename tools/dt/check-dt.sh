#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Check a board's CPU idle topology in QEMU: extract it from the board's
# DTB (tools/dt/idle-topology.py), graft it onto QEMU's tree, boot the
# built test kernel with the firmware model and the workload
# (tools/boot/topologies.py, with its checks), and print the report
# (tools/report/check-dt-report.py): the requests Linux made per domain and
# state, the firmware's answers, the states reached, what was changed in
# the tree, and a one-line verdict. Exits 0 when every check passes, 1
# when one fails, 2 when the tree cannot be checked (the message names the
# node).
#
#   check-dt.sh --kernel DIR --out DIR [--machine NAME] BOARD.dtb
#                                   (make check-dt DTB=BOARD.dtb)
set -uo pipefail
. "$(dirname "$0")/../lib/common.sh"
help_on_request "$@"

usage="usage: check-dt.sh --kernel DIR --out DIR [--machine NAME] BOARD.dtb"
machine=test
if [ $# -eq 7 ] && [ "${5:-}" = --machine ]; then
	machine=$6
	set -- "$1" "$2" "$3" "$4" "$7"
fi
[ $# -eq 5 ] && [ "$1" = --kernel ] && [ "$3" = --out ] || die "$usage"
kernel=$2 out=$4 dtb=$5
[ -f "$dtb" ] || die "$dtb: no such file"
# Outputs are NAME-in-qemu.*, so that a DTB kept in the output folder is
# never overwritten by the grafted one.
name=$(basename "$dtb" .dtb)-in-qemu
mkdir -p "$out"
rm -f "$out/$name".*

note "extracting the idle topology of $dtb"
"$top/tools/dt/idle-topology.py" "$dtb" "$out/$name.dtsi"
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 2 ] || die "tools/dt/idle-topology.py failed (exit $rc): a bug of the tool, not of the tree"
[ $rc -eq 0 ] || exit 2
note "booting $name's idle topology with the firmware model and the workload"
"$top/tools/boot/topologies.py" --kernel "$kernel" --machine "$machine" --out "$out" \
	--consoles "$out" --label "" --suites "$top/kunit/suites" "$out/$name.dtsi" > "$out/$name.ktap"
"$top/tools/report/check-dt-report.py" "$dtb" "$out/$name.dtsi" "$out/$name.log" "$out/$name.ktap"

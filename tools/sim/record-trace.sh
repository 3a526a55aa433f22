#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Record the idle trace of a topology boot and replay it in the simulator:
# boot TOPOLOGY (a name of kunit/topologies/ or a topology file) once with
# the trace kernel (the test kernel with ftrace's event tracing,
# kunit/trace.kunitconfig; make trace builds it and runs its KUnit
# suites), the guest workload and ftrace's idle, hrtimer, IRQ and IPI
# events on (trace_clock=mono); the guest prints the steady phase's trace
# (tools/guest/idle-workload.c). Then write
#
#   OUT/NAME.ftrace  the raw trace, in ftrace's text format (what
#                    /sys/kernel/tracing/trace gives, which Perfetto's
#                    trace processor imports)
#   OUT/NAME.trace   the idle trace of docs/simulator.md
#                    (tools/sim/ftrace-idle-trace.py, with the DTB's
#                    domains and states)
#
# and print tools/sim/governor-sim.py's table for it (also in NAME.sim).
# Fails if a domain has no idle period in the trace.
#
#   record-trace.sh [--kernel DIR] [--out DIR] [--timeout S] [TOPOLOGY [EXTRA KERNEL ARGS]]
#
# Defaults: build/kunit-arm64-trace, build/traces, 600 s, osi-2x4-system.
set -euo pipefail
. "$(dirname "$0")/../lib/common.sh"
help_on_request "$@"

kernel=$(kernel_dir trace) out="$build/traces" limit=600
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2 ;;
	--out) out=$2 ;;
	--timeout) limit=$2 ;;
	*) break ;;
	esac
	shift 2
done
topology=${1:-osi-2x4-system} extra=${2:-}
name=$(basename "$topology" .dtsi)
[ -f "$kernel/vmlinux" ] || die "no trace kernel in ${kernel#"$top"/}: run make trace"
mkdir -p "$out"
"$top/tools/kernel/build-guest.sh" --tree "$tree" "$top/tools/guest/idle-workload.c" "$out/guest" >&2 ||
	die "cannot build the guest's init"

events=power:cpu_idle,timer:hrtimer_start,timer:hrtimer_cancel
events+=,timer:hrtimer_expire_entry,irq:irq_handler_entry,ipi:ipi_raise
log="$out/$name.log"
note "booting $name with ftrace events on (log: ${log#"$top"/})"
"$top/tools/boot/boot.py" --topology "$topology" --dtb "$out/$name.dtb" --kernel "$kernel" \
	--initrd "$out/guest/initramfs.cpio" \
	--cmdline "trace_event=$events trace_clock=mono trace_buf_size=16M $extra" \
	--log "$log" --timeout "$limit" ||
	die "the boot failed or timed out (see ${log#"$top"/})"
sed -n '/^=== idle-workload: trace ===/,/^=== idle-workload: trace end ===/p' "$log" |
	tr -d '\r' | sed '1,2d;$d' > "$out/$name.ftrace"
grep -q 'cpu_idle:' "$out/$name.ftrace" ||
	die "no cpu_idle event in the boot's trace (see ${log#"$top"/})"
grep -q 'entries-in-buffer/entries-written: \([0-9]*\)/\1 ' "$out/$name.ftrace" ||
	note "the trace buffer overflowed: its first periods are lost"
"$top/tools/sim/ftrace-idle-trace.py" "$out/$name.dtb" "$out/$name.ftrace" "$out/$name.trace"
"$top/tools/sim/governor-sim.py" "$out/$name.trace" | tee "$out/$name.sim"
empty=$(awk -F'|' '$5 ~ /timers/ && $4 + 0 == 0 { print $3 }' "$out/$name.sim" | xargs)
[ -z "$empty" ] ||
	die "no idle period of domain(s) $empty: their CPUs were never idle in their deepest state together in the trace"


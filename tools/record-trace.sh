#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Record the idle trace of a topology boot and replay it in the simulator:
# boot TOPOLOGY (a name of kunit/topologies/ or a topology file) once with
# the trace kernel (KERNEL_VARIANT=trace: the test kernel with ftrace's
# event tracing, kunit/trace.kunitconfig; make trace builds it and runs
# its KUnit suites, whose QEMU command the boot reuses), the
# guest workload and ftrace's idle, hrtimer, IRQ and
# IPI events on (trace_clock=mono); the guest prints the steady phase's
# trace (tools/guest/idle-workload.c). Then write
#
#   build/traces/NAME.ftrace  the raw trace, in ftrace's text format (what
#                             /sys/kernel/tracing/trace gives, which
#                             Perfetto's trace processor imports)
#   build/traces/NAME.trace   the idle trace of docs/simulator.md
#                             (tools/ftrace-idle-trace.py, with the DTB's
#                             domains and states)
#
# and print tools/governor-sim.py's table for it (also in NAME.sim). Fails
# if a domain has no idle period in the trace.
#
#   record-trace.sh [TOPOLOGY [EXTRA KERNEL ARGS]]   (default osi-2x4-system)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=${1:-osi-2x4-system} extra=${2:-}
topology_source "$name"
[ "$variant" = trace ] || die "run with KERNEL_VARIANT=trace (make trace does)"
grep -qs '^\$ qemu-system-aarch64' "$kout/kunit.py.log" ||
	die "no trace kernel that ran its suites: run make trace"
out="$build/traces"
mkdir -p "$out"
"$top/tools/build-guest.sh" || die "cannot build the guest's init"

events=power:cpu_idle,timer:hrtimer_start,timer:hrtimer_cancel
events+=,timer:hrtimer_expire_entry,irq:irq_handler_entry,ipi:ipi_raise
topology_boot "$src" "$out/$name.dtb" \
	"trace_event=$events trace_clock=mono trace_buf_size=16M $extra" ||
	die "graft of $name failed (see ${out#$top/}/$name.dtb.graft)"
log="$out/$name.log"
note "booting $name with ftrace events on (log: ${log#$top/})"
timeout "${BOOT_TIMEOUT:-600}" "${qemu_args[@]}" < /dev/null > "$log" 2>&1 ||
	die "the boot failed or timed out (see ${log#$top/})"
sed -n '/^=== idle-workload: trace ===/,/^=== idle-workload: trace end ===/p' "$log" |
	tr -d '\r' | sed '1,2d;$d' > "$out/$name.ftrace"
grep -q 'cpu_idle:' "$out/$name.ftrace" ||
	die "no cpu_idle event in the boot's trace (see ${log#$top/})"
grep -q 'entries-in-buffer/entries-written: \([0-9]*\)/\1 ' "$out/$name.ftrace" ||
	note "the trace buffer overflowed: its first periods are lost"
"$top/tools/ftrace-idle-trace.py" "$out/$name.dtb" "$out/$name.ftrace" "$out/$name.trace"
"$top/tools/governor-sim.py" "$out/$name.trace" | tee "$out/$name.sim"
empty=$(awk -F'|' '$5 ~ /timers/ && $4 + 0 == 0 { print $3 }' "$out/$name.sim" | xargs)
[ -z "$empty" ] ||
	die "no idle period of domain(s) $empty: their CPUs were never idle in their deepest state together in the trace"


#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A hang hook for tools/boot/repeat.sh: what a hung boot's vCPUs wait
# for. Through the boot's gdbstub it prints, per vCPU, the PC and the
# virtual timer's control and compare registers (CNTV_CTL_EL0 bit 0
# enabled, bit 1 masked, bit 2 expired for QEMU; CNTV_CVAL_EL0 in ticks
# of the 62.5 MHz counter), and the guest's jiffies and tick_do_timer_cpu.
# After gdb detaches (which resumes the vCPUs) it waits 20 s and says
# whether the console log grew. Needs gdb-multiarch (make deps).
#
#   tools/boot/repeat.sh --hang-hook tools/boot/hang-timers.sh TOPOLOGY COUNT
#   hang-timers.sh GDB_SOCKET VMLINUX [CPUS]     (CPUS: the boot's, default 8)
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: hang-timers.sh GDB_SOCKET VMLINUX [CPUS]" >&2; exit 2; }
command -v gdb-multiarch > /dev/null ||
	{ echo "hang-timers.sh: gdb-multiarch is needed (make deps installs it)" >&2; exit 1; }
args=(-ex "set pagination off" -ex "target remote $1" -ex "info threads"
	-ex "p (unsigned long)jiffies" -ex "p (int)tick_do_timer_cpu"
	-ex "x/1gx &__cpu_online_mask")
for t in $(seq 1 "${3:-8}"); do
	args+=(-ex "thread $t" -ex "p/x \$pc" -ex "p/x \$CNTV_CTL_EL0"
		-ex "p/x \$CNTV_CVAL_EL0")
done
args+=(-ex "detach")
timeout 60 gdb-multiarch -batch -nx -ex "file $2" "${args[@]}" 2>&1
log=${1%.gdb}.log
before=$(wc -c < "$log")
sleep 20
echo "hang-timers.sh: console log $before bytes after gdb detached, $(wc -c < "$log") 20 s later"

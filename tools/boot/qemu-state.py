#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Print what a running QEMU (TCG) holds of its clocks: its threads'
stacks, the icount state, the timers armed on the main loop's clocks and
each vCPU's run state, read with gdb from process PID without resuming
anything in it. For a QEMU built with debug information (Debian's
binary has none), e.g. on a boot that hangs:

    repeat.sh --qemu-hook tools/boot/qemu-state.py ...
    qemu-state.py PID
"""
import argparse
import subprocess
import sys
import tempfile

# Run inside gdb: walks QEMU's own data structures.
GDB_SCRIPT = r'''
import gdb

def timers(name, clock):
    tl = gdb.parse_and_eval("main_loop_tlg.tl[%d]" % clock)
    print("%s timers (enabled %s):" % (name, tl["clock"]["enabled"]))
    t = tl["active_timers"]
    while int(t):
        print("  expire %d  cb %s" % (int(t["expire_time"]), t["cb"]))
        t = t["next"]

ts = gdb.parse_and_eval("timers_state")
icount = int(ts["qemu_icount"])
bias = int(ts["qemu_icount_bias"])
shift = int(ts["icount_time_shift"])
print("icount %d bias %d shift %d -> QEMU_CLOCK_VIRTUAL about %d ns" %
      (icount, bias, shift, (icount << shift) + bias))
print("vm_clock_warp_start %d" % int(ts["vm_clock_warp_start"]))
w = ts["icount_warp_timer"]
if int(w):
    print("icount_warp_timer expire %d" % int(w["expire_time"]))
print("cpu_clock_offset %d cpu_ticks_enabled %d" %
      (int(ts["cpu_clock_offset"]), int(ts["cpu_ticks_enabled"])))
for name, clock in (("REALTIME", 0), ("VIRTUAL", 1), ("HOST", 2), ("VIRTUAL_RT", 3)):
    timers(name, clock)
ctx = gdb.parse_and_eval("qemu_aio_context")
print("qemu_aio_context notify_me %s notified %s" % (ctx["notify_me"], ctx["notified"]))
try:
    cpu = gdb.parse_and_eval("cpus.tqh_first")
except gdb.error:
    cpu = gdb.parse_and_eval("cpus_queue.tqh_first")
while int(cpu):
    print("cpu %d: halted %d stopped %d stop %d exit_request %d interrupt_request %#x "
          "work %s" % (int(cpu["cpu_index"]), int(cpu["halted"]), int(cpu["stopped"]),
                       int(cpu["stop"]), int(cpu["exit_request"]),
                       int(cpu["interrupt_request"]), cpu["work_list"]["sqh_first"]))
    cpu = cpu["node"]["tqe_next"]
'''


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pid", help="the QEMU process")
    args = ap.parse_args()
    # gdb sources the walk from a file.
    with tempfile.NamedTemporaryFile("w", suffix=".py") as script:
        script.write(GDB_SCRIPT)
        script.flush()
        argv = ["gdb", "-p", args.pid, "-batch", "-nx", "-ex", "set pagination off",
                "-ex", "thread apply all bt 12", "-ex", f"source {script.name}"]
        return subprocess.run(argv, stdin=subprocess.DEVNULL).returncode


if __name__ == "__main__":
    sys.exit(main())

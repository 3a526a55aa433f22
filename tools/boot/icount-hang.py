#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Boot an arm64 kernel COUNT times with tools/guest/idle-storm.c as init
on the test machine plus QEMU options (by default -icount shift=0), and
count the boots whose guest stopped: no console line for --stall seconds.

A stopped boot is then told apart: QEMU's monitor is sent "info status",
which wakes QEMU's main loop and nothing else, and the console is watched
for --stall seconds more. A guest that goes on was halted on every vCPU,
with a timer armed, until QEMU's main loop ran: QEMU lost the wakeup, not
the guest.

    icount-hang.py [--kernel IMAGE] [--count N] [--jobs J] [--cpus C]
                   [--topology NAME] [--seconds S] [--qemu "OPTIONS"]
                   [--qemu-binary PATH] [--out DIR]

--kernel is a kernel image or build directory (default: the test
kernel); any arm64 kernel with the PL011 console built in will do, e.g.
Debian's own (tools/boot/debian-binaries.sh kernel). Logs: DIR/N.log
(DIR: build/icount-hang). Exits 1 unless every boot ran to its end.
"""
import argparse
import dataclasses
import os
import shlex
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
from harness import BUILD, TOOLS, die, note, rel  # noqa: E402
from harness import boot as boots  # noqa: E402
from harness import machine as qemu  # noqa: E402
from harness import monitor  # noqa: E402
from harness import topology  # noqa: E402


def one_boot(n, argv, out, seconds, stall):
    """Boot @n: 'done', 'stopped, went on once woken', 'stopped', 'still
    running at the limit' or 'ended early', with the last console line."""
    log = os.path.join(out, f"{n}.log")
    mon = os.path.join(out, f"{n}.mon")
    with open(log, "wb") as f:
        p = subprocess.Popen(argv + ["-monitor", f"unix:{mon},server=on,wait=off"],
                             stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT)
    try:
        size, since = 0, time.monotonic()
        limit = time.monotonic() + 60 + 10 * seconds
        while p.poll() is None:
            time.sleep(0.5)
            now_size = os.path.getsize(log)
            if now_size != size:
                size, since = now_size, time.monotonic()
                if time.monotonic() > limit:
                    return "still running at the limit", last_line(log)
            elif time.monotonic() - since > stall:
                last = last_line(log)
                try:
                    monitor.send(mon, ["info status"], wait=1)
                except OSError:
                    pass
                time.sleep(stall)
                went_on = os.path.getsize(log) > size
                return ("stopped, went on once woken" if went_on else "stopped"), last
        with open(log, errors="replace") as f:
            done = "idle-storm: done" in f.read()
        return ("done" if done else "ended early"), last_line(log)
    finally:
        if p.poll() is None:
            p.kill()
        p.wait()
        if os.path.exists(mon):
            os.unlink(mon)


def last_line(log):
    with open(log, errors="replace") as f:
        lines = [line.strip() for line in f if line.strip()]
    return lines[-1] if lines else "(no console output)"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernel", default=os.path.join(BUILD, "kunit-arm64"),
                    help="kernel image or build directory (default: the test kernel)")
    ap.add_argument("--count", type=int, default=20, help="boots (20)")
    ap.add_argument("--jobs", type=int, default=2, help="boots at a time (2)")
    ap.add_argument("--cpus", type=int, default=8, help="CPUs (8)")
    ap.add_argument("--topology",
                    help="graft this topology's device tree (its CPUs, not its QEMU options)")
    ap.add_argument("--seconds", type=int, default=20,
                    help="guest seconds of the storm per boot (20)")
    ap.add_argument("--stall", type=int, default=15,
                    help="seconds without a console line that make a boot stopped (15)")
    ap.add_argument("--qemu", default="-icount shift=0", help='QEMU options ("-icount shift=0")')
    ap.add_argument("--qemu-binary", default=qemu.QEMU,
                    help=f"the QEMU to run ({qemu.QEMU})")
    ap.add_argument("--out", default=os.path.join(BUILD, "icount-hang"), help="log directory")
    args = ap.parse_args()

    os.makedirs(args.out, exist_ok=True)
    guest = tempfile.mkdtemp(prefix="guest-", dir=args.out)
    dtb = None
    try:
        image = boots.kernel_image(args.kernel)
        machine = qemu.Machine(cpus=args.cpus, extra=tuple(shlex.split(args.qemu)))
        if args.topology:
            # The topology's device tree and CPU count, not its options.
            topo = topology.find(args.topology)
            machine = dataclasses.replace(machine, cpus=topo.cpus)
            dtb = os.path.join(guest, "topology.dtb")
            topology.graft(topo, machine, dtb)
    except (boots.BootError, qemu.MachineError, topology.TopologyError) as err:
        die(str(err))
    initrd = boots.build_guest(guest, os.path.join(TOOLS, "guest", "idle-storm.c"))
    argv = machine.command(image, qemu.cmdline(kunit=False, extra=[
        "panic=-1", f"storm_seconds={args.seconds}"]), initrd, dtb)
    argv[0] = args.qemu_binary
    version = subprocess.run([args.qemu_binary, "--version"], capture_output=True,
                             text=True).stdout.splitlines()[0]
    note(f"{args.count} boots of {rel(image)}, {args.jobs} at a time, with {version}:")
    note("  " + shlex.join(argv))

    results = {}
    todo = list(range(1, args.count + 1))
    lock = threading.Lock()

    def worker():
        while True:
            with lock:
                if not todo:
                    return
                n = todo.pop(0)
            results[n] = one_boot(n, argv, args.out, args.seconds, args.stall)
            note(f"boot {n}: {results[n][0]} ({results[n][1][:80]})")

    start = time.monotonic()
    threads = [threading.Thread(target=worker, daemon=True) for _ in range(args.jobs)]
    for t in threads:
        t.start()
    try:
        for t in threads:
            while t.is_alive():
                t.join(1)
    except KeyboardInterrupt:
        with lock:
            todo.clear()
        die("interrupted: no further boot started; the running ones end with it")
    counts = {}
    for outcome, _ in results.values():
        counts[outcome] = counts.get(outcome, 0) + 1
    minutes = (time.monotonic() - start) / 60
    print(f"{rel(image)}, {machine.cpus} CPUs, {args.qemu or 'no options'}, {version}: "
          + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
          + f" of {args.count} boots ({minutes:.1f} min)")
    return 0 if counts.get("done", 0) == args.count else 1


if __name__ == "__main__":
    sys.exit(main())

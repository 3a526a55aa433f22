# SPDX-License-Identifier: GPL-2.0
"""The child processes of the harness' programs, ended with them.

A program that calls stop_on_signals() and runs its children through
run() passes a SIGINT or SIGTERM on to them as SIGTERM, starts no new
one, and exits: no QEMU outlives the check that started it. A child that
does not pass signals on (kunit.py, a shell script) runs in a process
group of its own (group=True), which is signalled whole, and whose
members left when it ends (it was killed) are killed; QEMU and the
harness' Python programs run in their parent's group.
"""
import os
import signal
import subprocess

# pid -> (Popen, whether it leads a process group of its own)
_children = {}
_stopping = False
# Seconds a child has to end after SIGTERM, once it timed out.
GRACE = 10


class Stopped(Exception):
    """The program was told to stop: no child is started."""


def _signal(proc, group, sig):
    try:
        if group:
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
    except (ProcessLookupError, PermissionError):
        pass


def run(argv, timeout=None, group=False, **kwargs):
    """subprocess.Popen(@argv, **@kwargs), waited for at most @timeout
    seconds; returns its exit status, 124 when it timed out (it is then
    sent SIGTERM, and SIGKILL after GRACE seconds)."""
    if _stopping:
        raise Stopped()
    proc = subprocess.Popen(argv, start_new_session=group, **kwargs)
    _children[proc.pid] = (proc, group)
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        _signal(proc, group, signal.SIGTERM)
        try:
            proc.wait(timeout=GRACE)
        except subprocess.TimeoutExpired:
            _signal(proc, group, signal.SIGKILL)
            proc.wait()
        return 124
    finally:
        _children.pop(proc.pid, None)
        # What the child left behind in its group (it was killed before
        # it could end its own children) goes with it.
        if group:
            _signal(proc, group, signal.SIGKILL)


def stop(signum, frame):
    """The signal handler: SIGTERM to every child, then exit."""
    global _stopping
    _stopping = True
    for proc, group in list(_children.values()):
        _signal(proc, group, signal.SIGTERM)
    raise SystemExit(128 + signum)


def stop_on_signals():
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)

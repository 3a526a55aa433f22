#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Send commands to a QEMU human monitor on a Unix socket and print what
it answers, e.g. the registers of every vCPU of a boot that hangs:

    qemu-monitor.py build/repeat/osi-2x2-3.mon "info registers -a"
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), ".."))
from harness import monitor  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("socket", help="the monitor's Unix socket")
    ap.add_argument("commands", nargs="+", metavar="COMMAND", help="monitor commands")
    args = ap.parse_args()
    try:
        sys.stdout.write(monitor.send(args.socket, args.commands))
    except OSError as err:
        sys.exit(f"qemu-monitor.py: cannot talk to {args.socket}: {err}")


if __name__ == "__main__":
    main()

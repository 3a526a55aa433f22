#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Send commands to a QEMU human monitor on a Unix socket and print what
it answers, e.g. the registers of every vCPU of a boot that hangs:

    qemu-monitor.py build/repeat/osi-2x2-3.mon "info registers -a"
"""
import argparse
import socket
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("socket", help="the monitor's Unix socket")
    ap.add_argument("commands", nargs="+", metavar="COMMAND", help="monitor commands")
    args = ap.parse_args()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(args.socket)
    except OSError as err:
        sys.exit(f"qemu-monitor.py: cannot connect to {args.socket}: {err}")
    sock.settimeout(2)
    out = b""
    for cmd in args.commands:
        sock.sendall(cmd.encode() + b"\n")
        end = time.time() + 5
        while time.time() < end:
            try:
                chunk = sock.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            out += chunk
    # The monitor echoes what it is sent with terminal escapes: drop that.
    text = out.decode(errors="replace").replace("\r", "")
    sys.stdout.write("".join(line for line in text.splitlines(True)
                             if "\x1b" not in line))


if __name__ == "__main__":
    main()

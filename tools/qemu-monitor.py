#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send commands to a QEMU human monitor on a Unix socket and print what
it answers, e.g. the registers of every vCPU of a boot that hangs:

    qemu-monitor.py build/repeat/osi-2x2-3.mon "info registers -a"
"""
import socket
import sys
import time


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: qemu-monitor.py SOCKET COMMAND...")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(sys.argv[1])
    except OSError as err:
        sys.exit(f"qemu-monitor.py: cannot connect to {sys.argv[1]}: {err}")
    sock.settimeout(2)
    out = b""
    for cmd in sys.argv[2:]:
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

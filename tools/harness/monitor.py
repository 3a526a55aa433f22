# SPDX-License-Identifier: GPL-2.0
"""QEMU's human monitor on a Unix socket (-monitor unix:PATH,server=on)."""
import socket
import time


def send(path, commands, wait=5):
    """Send each of @commands to the monitor at @path and return what it
    answered, without the lines it echoes back with terminal escapes.
    Raises OSError when the socket cannot be reached."""
    out = b""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(2)
        sock.connect(path)
        for cmd in commands:
            sock.sendall(cmd.encode() + b"\n")
            end = time.time() + wait
            while time.time() < end:
                try:
                    chunk = sock.recv(65536)
                except socket.timeout:
                    break
                if not chunk:
                    break
                out += chunk
    text = out.decode(errors="replace").replace("\r", "")
    return "".join(line for line in text.splitlines(True) if "\x1b" not in line)

"""Runs a command on a pseudo-terminal and hangs the terminal up once it shows a text.

usage: python3 pty-hangup.py TEXT COMMAND [ARGS...]

What the terminal shows is copied to stdout. Once TEXT has shown, the terminal's master side is
closed, as a terminal window closing or an SSH connection dropping does: the kernel sends the
command SIGHUP and its reads of the terminal end. Exits 0 once the command has ended.
"""

import os
import pty
import select
import sys

trigger = sys.argv[1].encode()
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])

seen = b""
while trigger not in seen:
    ready, _, _ = select.select([fd], [], [], 30)
    if not ready:
        break
    try:
        data = os.read(fd, 4096)
    except OSError:
        break
    if not data:
        break
    seen += data
    sys.stdout.buffer.write(data)
    sys.stdout.flush()

os.close(fd)
os.waitpid(pid, 0)

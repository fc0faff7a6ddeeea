"""Runs a command on a pseudo-terminal, bridged to this process's stdin and stdout.

usage: python3 pty-bridge.py COMMAND [ARGS...]

What arrives on stdin is typed into the terminal; what the terminal shows is copied to stdout as
it comes. Exits with the command's exit code. The same job as `script -qfc`, for machines
without util-linux.
"""

import os
import pty
import select
import sys

pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])

inputs = [fd, sys.stdin.fileno()]
while True:
    ready, _, _ = select.select(inputs, [], [])
    if sys.stdin.fileno() in ready:
        data = os.read(sys.stdin.fileno(), 4096)
        if data:
            os.write(fd, data)
        else:
            inputs.remove(sys.stdin.fileno())
    if fd in ready:
        try:
            data = os.read(fd, 4096)
        except OSError:  # EIO: the command has closed the terminal
            break
        if not data:
            break
        sys.stdout.buffer.write(data)
        sys.stdout.flush()

_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))

"""Runs a command with its stdout on an unusual sink, for the Swift tests (issue 22, F11, F13).

Usage: output_sinks.py MODE COMMAND [ARGS...]

MODE is one of:
  nonblocking  stdout is a pipe whose write end is non-blocking (O_NONBLOCK), read slowly: a
               writer that drops what EAGAIN refuses loses bytes here.
  tty          stdout is a pseudo-terminal (stderr stays a pipe), as a person's shell has it.

Prints one JSON object: {"status": exit status, "stdout": base64 of every byte read,
"stderr": text}. The command's environment is this process's.
"""
import base64
import json
import os
import pty
import subprocess
import sys
import time


def read_all(fd, slow):
    data = bytearray()
    if slow:
        # Let the writer fill the pipe and meet EAGAIN before anything is read.
        time.sleep(1.0)
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # a pty's master reads EIO once the child has gone
            break
        if not chunk:
            break
        data += chunk
        if slow:
            time.sleep(0.002)
    return bytes(data)


def main():
    mode, command = sys.argv[1], sys.argv[2:]
    if mode == "nonblocking":
        r, w = os.pipe()
        os.set_blocking(w, False)
        p = subprocess.Popen(command, stdout=w, stderr=subprocess.PIPE)
        os.close(w)
        out = read_all(r, slow=True)
    elif mode == "tty":
        master, slave = pty.openpty()
        p = subprocess.Popen(command, stdout=slave, stderr=subprocess.PIPE)
        os.close(slave)
        out = read_all(master, slow=False)
    else:
        sys.exit("unknown mode " + mode)
    err = p.stderr.read().decode("utf-8", "replace")
    status = p.wait()
    print(json.dumps({"status": status, "stdout": base64.b64encode(out).decode(), "stderr": err}))


main()

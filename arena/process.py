"""A bot process seen from the harness: started, fed, timed and killed from outside.

Nothing the process sends is trusted: a reply must come as one line within the deadline, no
longer than ``protocol.MAX_LINE``; anything else is a ``BotFault`` naming the termination.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence

from arena import protocol
from arena.records import Termination

#: how much of a bot's stderr is kept (the tail)
STDERR_TAIL = 8 * 1024

_libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


class BotFault(Exception):
    """A bot broke a rule: the game is forfeited with ``termination`` and ``detail``."""

    def __init__(self, termination: Termination, detail: str) -> None:
        super().__init__(detail)
        self.termination = termination
        self.detail = detail


def cpu_clock(pid: int) -> int | None:
    """The id of the CPU-time clock of process ``pid`` (all its threads), or ``None``."""
    clock = ctypes.c_int()
    if _libc.clock_getcpuclockid(pid, ctypes.byref(clock)) != 0:
        return None
    return clock.value


class StderrTail:
    """A bot's stderr, read whenever the harness waits on the bot, keeping the last bytes.

    No thread: the pipe is drained in the same poll as the replies, and once more after each
    reply, so everything a bot wrote before it answered is in the tail of that move's game.
    Between its turns a bot that writes more than a pipe holds blocks, which harms nobody.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        os.set_blocking(fd, False)
        self.tail = bytearray()
        self.total = 0
        self.closed = False

    def drain(self) -> None:
        """Read whatever the pipe holds now."""
        while not self.closed:
            try:
                chunk = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                self.closed = True
                return
            self.total += len(chunk)
            self.tail += chunk
            if len(self.tail) > 2 * STDERR_TAIL:
                del self.tail[:-STDERR_TAIL]

    def take(self) -> str:
        """The tail written since the last ``take`` (at most ``STDERR_TAIL`` bytes)."""
        self.drain()
        data = bytes(self.tail[-STDERR_TAIL:])
        self.tail.clear()
        return data.decode("utf-8", "replace")


SIGNAL_TERMINATIONS = {
    signal.SIGXFSZ: (Termination.RESOURCE_LIMIT, "file size limit exceeded"),
    signal.SIGXCPU: (Termination.RESOURCE_LIMIT, "CPU time limit exceeded"),
}


class BotProcess:
    """One running bot: its own process group, working folder and scrubbed environment."""

    def __init__(self, argv: Sequence[str], label: str, env: dict[str, str] | None = None) -> None:
        self.argv = list(argv)
        self.label = label
        self.workdir = tempfile.mkdtemp(prefix="arena-bot-")
        base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
                "HOME": self.workdir, "TMPDIR": self.workdir, "PYTHONHASHSEED": "0",
                "PYTHONDONTWRITEBYTECODE": "1"}  # fmt: skip
        self.proc = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=self.workdir,
            env={**base, **(env or {})},
            start_new_session=True,
        )
        self.pid = self.proc.pid
        self._in = self.proc.stdin.fileno()
        self._out = self.proc.stdout.fileno()
        os.set_blocking(self._out, False)
        self._err = self.proc.stderr.fileno()
        self._poll = select.poll()
        self._poll.register(self._out, select.POLLIN)
        self._poll.register(self._err, select.POLLIN)
        self._buffer = bytearray()
        self._clock = cpu_clock(self.pid)
        self.stderr = StderrTail(self._err)
        self.killed_by_us = False

    def cpu_time(self) -> float | None:
        """CPU seconds the process has used so far, or ``None`` if it cannot be read."""
        if self._clock is None:
            return None
        try:
            return time.clock_gettime(self._clock)
        except OSError:
            return None

    def send(self, data: bytes) -> None:
        """Write one protocol line; a process that is gone is a crash."""
        try:
            os.write(self._in, data)
        except (BrokenPipeError, OSError):
            raise self._death("stopped reading its input") from None

    def receive(self, timeout: float | None) -> bytes:
        """The next line the bot writes, waiting at most ``timeout`` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        buffer = self._buffer
        while True:
            end = buffer.find(b"\n")
            if end > protocol.MAX_LINE or (end < 0 and len(buffer) > protocol.MAX_LINE):
                raise BotFault(Termination.PROTOCOL_ERROR,
                               f"sent a line longer than {protocol.MAX_LINE} bytes")  # fmt: skip
            if end >= 0:
                line = bytes(buffer[:end])
                del buffer[: end + 1]
                self.stderr.drain()  # what it wrote before answering belongs to this move
                return line
            if deadline is None:
                wait = -1
            else:
                left = deadline - time.monotonic()
                if left <= 0:
                    self.kill()
                    raise BotFault(Termination.TIMEOUT, f"no reply within {timeout:.3f} s")
                wait = max(1, int(left * 1000 + 0.999))
            for fd, _ in self._poll.poll(wait):
                if fd == self._err:
                    self.stderr.drain()
                    if self.stderr.closed:
                        self._poll.unregister(self._err)
                    continue
                try:
                    chunk = os.read(self._out, 1 << 16)
                except BlockingIOError:
                    continue
                if not chunk:
                    raise self._death("closed its output")
                buffer += chunk

    def _death(self, what: str) -> BotFault:
        """The fault of a process that went away: how it ended, with its stderr's last line."""
        try:
            code = self.proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            self.kill()
            return BotFault(Termination.PROTOCOL_ERROR, f"{what} but kept running")
        if code < 0:
            sig = signal.Signals(-code)
            if sig in SIGNAL_TERMINATIONS:
                termination, detail = SIGNAL_TERMINATIONS[sig]
                return BotFault(termination, f"{detail} ({sig.name})")
            return BotFault(Termination.CRASH, f"killed by {sig.name}")
        return BotFault(Termination.CRASH, f"exited with status {code}")

    def alive(self) -> bool:
        """Whether the process is still running."""
        return self.proc.poll() is None

    def kill(self) -> None:
        """Kill the whole process group now and reap it."""
        self.killed_by_us = True
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    def close(self) -> None:
        """Ask the bot to quit, then kill what is left and remove its working folder."""
        if self.alive():
            try:
                os.write(self._in, protocol.QUIT)
            except OSError:
                pass
        self.kill()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        self.stderr.drain()
        try:
            self.proc.stderr.close()
        except OSError:
            pass
        shutil.rmtree(self.workdir, ignore_errors=True)

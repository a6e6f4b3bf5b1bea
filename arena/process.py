"""A bot process seen from the harness: started, fed, timed and killed from outside.

Nothing the process sends is trusted: a reply must come as one line within the deadline, no
longer than ``protocol.MAX_LINE``; anything else is a ``BotFault`` naming the termination.
What the process started is found through /proc (Linux): its children, and everything below
them, are killed with it even when they left its process group.
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
from arena.launcher import Forked, Launcher, LaunchError
from arena.records import Termination

#: how much of a bot's stderr is kept (the tail)
STDERR_TAIL = 8 * 1024
#: seconds a bot's full input pipe may stay full before the bot counts as not reading it
SEND_TIMEOUT = 1.0

_libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


class BotFault(Exception):
    """A bot broke a rule: the game is forfeited with ``termination`` and ``detail``."""

    def __init__(self, termination: Termination, detail: str) -> None:
        super().__init__(detail)
        self.termination = termination
        self.detail = detail


def _read_proc(path: str) -> bytes | None:
    """A small /proc file's bytes (``None`` if it cannot be read): plain os calls, a few µs."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        return os.read(fd, 1 << 16)
    except OSError:
        return None
    finally:
        os.close(fd)


def child_pids(pid: int, every_thread: bool = False) -> list[int]:
    """The children of process ``pid``: those its main thread started, or (``every_thread``)
    those of all its threads. Empty where /proc does not tell (not Linux, ``pid`` gone)."""
    tids = [str(pid)]
    if every_thread:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            return []
    found: list[int] = []
    for tid in tids:
        data = _read_proc(f"/proc/{pid}/task/{tid}/children")
        if data:
            found.extend(int(word) for word in data.split())
    return found


def running(pid: int) -> bool:
    """Whether process ``pid`` exists and has not ended (a zombie has ended)."""
    data = _read_proc(f"/proc/{pid}/stat")
    if not data:
        return False
    fields = data.rsplit(b")", 1)[-1].split()
    return bool(fields) and fields[0] not in (b"Z", b"X")


def describe_process(pid: int) -> str:
    """A process as a forfeit's detail names it: ``pid 4242 (sleep)``."""
    name = (_read_proc(f"/proc/{pid}/comm") or b"?").decode("utf-8", "replace").strip()
    return f"pid {pid} ({name})"


def user_namespace(pid: int | str) -> str | None:
    """The user namespace process ``pid`` is in (``user:[4026532204]``), or ``None``."""
    try:
        return os.readlink(f"/proc/{pid}/ns/user")
    except OSError:
        return None


def descendants(pid: int, limit: int = 4096) -> list[int]:
    """Every process below ``pid`` (children of all its threads, theirs, ...), at most ``limit``."""
    found: list[int] = []
    queue = [pid]
    while queue and len(found) < limit:
        for child in child_pids(queue.pop(), every_thread=True):
            if child not in found:
                found.append(child)
                queue.append(child)
    return found


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


#: numeric libraries (numpy's OpenBLAS, MKL, OpenMP) in one thread: a bot is single-threaded
#: (the course forbade threads), and a pool of BLAS threads spins for milliseconds after each
#: call, or after import, which the off-turn CPU check (worker.py) would count against the bot
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

#: the pids of the bot processes this process started and has not closed: any other child
#: of a worker (a subreaper) is something a bot left behind
STARTED: set[int] = set()

SIGNAL_TERMINATIONS = {
    signal.SIGXFSZ: (Termination.RESOURCE_LIMIT, "file size limit exceeded"),
    signal.SIGXCPU: (Termination.RESOURCE_LIMIT, "CPU time limit exceeded"),
}


def bot_environment(home: str) -> dict[str, str]:
    """The whole environment of a bot process whose home (and temporary folder) is ``home``."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": home, "TMPDIR": home,
            "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1", **ONE_THREAD}  # fmt: skip


class BotProcess:
    """One running bot: its own process group, working folder and scrubbed environment."""

    def __init__(self, argv: Sequence[str], label: str, env: dict[str, str] | None = None,
                 fork: tuple[Launcher, list[str], dict] | None = None) -> None:  # fmt: skip
        """Start ``argv``, or with ``fork`` (a launcher, the host's arguments, the sandbox's
        settings) fork the Python bot from the warm launcher; ``LaunchError`` if it cannot."""
        self.argv = list(argv)
        self.label = label
        self.workdir = tempfile.mkdtemp(prefix="arena-bot-")
        environment = {**bot_environment(self.workdir), **(env or {})}
        if fork is not None:
            launcher, arguments, confinement = fork
            try:
                self.proc: subprocess.Popen | Forked = launcher.spawn(arguments, confinement, self.workdir, environment)
            except LaunchError:
                shutil.rmtree(self.workdir, ignore_errors=True)
                raise
        else:
            self.proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self.workdir,
                env=environment,
                start_new_session=True,
            )
        self.pid = self.proc.pid
        self._in = self.proc.stdin.fileno()
        os.set_blocking(self._in, False)  # a bot that stops reading must not block the worker
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
        self._namespace: str | None = None
        STARTED.add(self.pid)

    def cpu_time(self) -> float | None:
        """CPU seconds the process has used so far, or ``None`` if it cannot be read."""
        if self._clock is None:
            return None
        try:
            return time.clock_gettime(self._clock)
        except OSError:
            return None

    def children(self, every_thread: bool = False) -> list[int]:
        """The processes this bot started that are still running (only those of its main
        thread unless ``every_thread``: one read of /proc, some 5 µs)."""
        if self.proc.returncode is not None:  # reaped: its pid may belong to another process now
            return []
        return [pid for pid in child_pids(self.pid, every_thread) if running(pid)]

    def namespace(self) -> str | None:
        """The user namespace the sandbox put the bot in, if it has one of its own (not the
        harness's): processes found in it are the bot's even after they left its group."""
        if self._namespace is None and self.proc.returncode is None:
            found = user_namespace(self.pid)
            if found is not None and found != user_namespace("self"):
                self._namespace = found
        return self._namespace

    def send(self, data: bytes) -> None:
        """Write one protocol line; a process that is gone, or that leaves its input pipe full
        for ``SEND_TIMEOUT`` seconds (it stopped reading), is a crash: never a blocked worker."""
        view = memoryview(data)
        deadline = None
        while view:
            try:
                view = view[os.write(self._in, view) :]
            except BlockingIOError:
                pass
            except OSError:  # BrokenPipeError: it closed its input or is gone
                raise self._death("stopped reading its input") from None
            if not view:
                return
            now = time.monotonic()
            deadline = deadline or now + SEND_TIMEOUT
            if now >= deadline:
                self.kill()
                raise BotFault(Termination.CRASH, f"stopped reading its input (its input pipe stayed full "
                                                  f"for {SEND_TIMEOUT:g} s)")  # fmt: skip
            writable = select.poll()
            writable.register(self._in, select.POLLOUT)
            writable.poll(max(1, int((deadline - now) * 1000)))

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
        """Kill the whole process group now, and every process below the bot that left the
        group (``setsid``), then reap the bot."""
        self.killed_by_us = True
        # Only while the bot is not reaped is its pid surely its own (a zombie keeps it)
        below = descendants(self.pid) if self.proc.poll() is None else []
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        for pid in below:
            try:
                os.kill(pid, signal.SIGKILL)
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
        STARTED.discard(self.pid)

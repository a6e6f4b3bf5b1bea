"""A bot process seen from the harness: started, fed, timed and killed from outside.

Nothing the process sends is trusted: a reply must come as one line within its time, no longer
than ``protocol.MAX_LINE``; anything else is a ``BotFault`` naming the termination.

Time is measured fairly on a busy machine: every request is bounded by a ``Limit`` and costs a
``Usage`` (arena/core/timing.py), read here. The bot's processes are found, measured and killed
through its control group (arena/sandbox/cgroups.py) where the system has them, else through ``/proc``
(arena/sandbox/procfs.py): its children, and everything below them, die with it even when they left its
process group.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import IO, Any

from arena.core import protocol
from arena.core.records import BotFault, Overloaded, Termination
from arena.core.timing import Limit, Usage
from arena.sandbox.cgroups import Cgroup
from arena.sandbox.launcher import Forked, Launcher, LaunchError
from arena.sandbox.procfs import (
    Schedstat,
    child_pids,
    cpu_clock,
    descendants,
    harness_waited,
    running,
    stat_cpu,
    user_namespace,
)

#: how much of a bot's stderr is kept (the tail)
STDERR_TAIL = 8 * 1024
#: seconds a bot's full input pipe may stay full before the bot counts as not reading it
SEND_TIMEOUT = 1.0
#: the most bytes a reply of several lines may have (``converse``)
MAX_REPLY = 16 << 20
#: a moment as a request's cost is counted: (wall, the bot's CPU time or None, the waits for a CPU)
Mark = tuple[float, float | None, float]


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
#: call, or after import, which the off-turn CPU check (botplayer.py) would count against the bot
ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

SIGNAL_TERMINATIONS = {
    signal.SIGXFSZ: (Termination.RESOURCE_LIMIT, "file size limit exceeded"),
    signal.SIGXCPU: (Termination.RESOURCE_LIMIT, "CPU time limit exceeded"),
}


def bot_environment(home: str) -> dict[str, str]:
    """The whole environment of a bot process whose home (and temporary folder) is ``home``."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "HOME": home,
        "TMPDIR": home,
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        **ONE_THREAD,
    }


class BotProcess:
    """One running bot: its own process group (and control group, ``cgroup``), working folder
    and scrubbed environment. ``registry``: the set of pids its worker started, which it joins
    until it is closed."""

    def __init__(
        self,
        argv: Sequence[str],
        label: str,
        env: dict[str, str] | None = None,
        fork: tuple[Launcher, list[str], dict[str, Any]] | None = None,
        cgroup: Cgroup | None = None,
        registry: set[int] | None = None,
        memory_mb: int | None = None,
        folder: str | None = None,
    ) -> None:
        """Start ``argv``, or with ``fork`` (a launcher, the host's arguments, the sandbox's
        settings) fork the Python bot from the warm launcher; ``LaunchError`` if it cannot. Its
        working folder is made in ``folder`` (its worker's scratch folder; default: the
        temporary folder)."""
        self.argv = list(argv)
        self.label = label
        self.cgroup = cgroup
        self.memory_mb = memory_mb
        self.registry = registry if registry is not None else set()
        self.workdir = tempfile.mkdtemp(prefix="arena-bot-", dir=folder)
        environment = {**bot_environment(self.workdir), **(env or {})}
        if fork is not None:
            launcher, arguments, confinement = fork
            try:
                self.proc: subprocess.Popen[bytes] | Forked = launcher.spawn(
                    arguments, confinement, self.workdir, environment
                )
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
        pipes = (self.proc.stdin, self.proc.stdout, self.proc.stderr)
        assert None not in pipes  # all three are pipes, whichever way it started
        self._pipes: tuple[IO[bytes], ...] = pipes  # type: ignore[assignment]
        self._in, self._out, self._err = (pipe.fileno() for pipe in self._pipes)
        os.set_blocking(self._in, False)  # a bot that stops reading must not block the worker
        os.set_blocking(self._out, False)
        self._poll = select.poll()
        # stdout before stderr: a look that finds the reply has looked at stderr after it, so
        # what the bot wrote there before replying is seen in that look (``_receive``'s quiet)
        self._poll.register(self._out, select.POLLIN)
        self._poll.register(self._err, select.POLLIN)
        self._buffer = bytearray()
        self._clock = cpu_clock(self.pid)
        self._schedstat = Schedstat(f"/proc/{self.pid}/schedstat")
        self.last: Mark | None = None  # the mark of its last answer (``exchange``)
        self.stderr = StderrTail(self._err)
        self.killed_by_us = False
        self._namespace: str | None = None
        try:
            self._cpus = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            self._cpus = os.cpu_count() or 1
        self.registry.add(self.pid)

    # -- measuring -----------------------------------------------------------------------

    def cpu_time(self) -> float | None:
        """CPU seconds used so far by the bot and every process it started (its control group's;
        without one: its own, its waited-for children's and its running descendants'), or
        ``None`` if it cannot be read."""
        if self.cgroup is not None:
            return self.cgroup.cpu()
        if self._clock is None:
            return None
        try:
            own = time.clock_gettime(self._clock)
        except OSError:
            return None
        used = own + stat_cpu(self.pid, children=True)
        if child_pids(self.pid, every_thread=True):
            used += sum(stat_cpu(pid) for pid in descendants(self.pid))
        return used

    def waited(self) -> float:
        """Seconds the bot was ready to run but kept from a CPU, so far (its control group's
        "full" CPU pressure; without one, its main thread's wait)."""
        if self.cgroup is not None:
            found = self.cgroup.starved()
            if found is not None:
                return found
        return self._schedstat.waited()

    def mark(self) -> Mark:
        """Now, as a request's cost is counted from: (wall, the bot's CPU time, its and the
        harness's waits for a CPU). The clocks are read before the wall clock, and ``_end``
        reads them after it: the stretch a bot is charged holds none of the harness's reads.
        (The bot is idle while they are read: its CPU and waits do not move.)"""
        cpu = self.cpu_time()
        waited = self.waited() + harness_waited()
        return time.monotonic(), cpu, waited

    def _end(self) -> Mark:
        """Now, as a request's cost is counted to: the wall clock, then the others (``mark``)."""
        return time.monotonic(), self.cpu_time(), self.waited() + harness_waited()

    def _since(self, mark: Mark, end: Mark | None = None) -> Usage:
        wall, cpu, waited = end or self._end()
        return Usage(wall - mark[0], None if cpu is None or mark[1] is None else cpu - mark[1], waited - mark[2])

    def children(self, every_thread: bool = False) -> list[int]:
        """The processes this bot started that are still running: every other process of its
        control group, or without one those of its main thread (``every_thread``: of all its
        threads); one read, some 5 µs."""
        if self.proc.returncode is not None:  # reaped: its pid may belong to another process now
            return []
        if self.cgroup is not None:
            return [pid for pid in self.cgroup.pids() if pid != self.pid and running(pid)]
        return [pid for pid in child_pids(self.pid, every_thread) if running(pid)]

    def namespace(self) -> str | None:
        """The user namespace the sandbox put the bot in, if it has one of its own (not the
        harness's): processes found in it are the bot's even after they left its group."""
        if self._namespace is None and self.proc.returncode is None:
            found = user_namespace(self.pid)
            if found is not None and found != user_namespace("self"):
                self._namespace = found
        return self._namespace

    # -- talking -------------------------------------------------------------------------

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
                raise BotFault(
                    Termination.CRASH, f"stopped reading its input (its input pipe stayed full for {SEND_TIMEOUT:g} s)"
                )
            writable = select.poll()
            writable.register(self._in, select.POLLOUT)
            writable.poll(max(1, int((deadline - now) * 1000)))

    def exchange(self, data: bytes, limit: Limit | None, mark: Mark | None = None) -> tuple[bytes, Usage]:
        """Send a request and wait for its reply line under ``limit`` (``None``: no limit); the
        line and what the request cost, counted from ``mark`` (taken just before, by the caller
        that looked at the bot then; else now), to ``last``, the mark of its answer. A reply
        charged more than its limit (a bot with several threads on the cpu clock) is late too."""
        mark = mark or self.mark()
        self.send(data)
        line = self._receive(limit, mark)
        self.last = self._end()
        usage = self._since(mark, self.last)
        if limit is not None and usage.charged(limit.clock) > limit.total:
            self.kill()
            raise BotFault(Termination.TIMEOUT, limit.late(usage))
        return line, usage

    def converse(
        self, data: bytes, limit: Limit | None, heard: Callable[[bytes], bool], mark: Mark | None = None
    ) -> Usage:
        """``exchange`` for a reply of several lines (an engine's ``info`` lines, then its
        ``bestmove``): each line is given to ``heard`` until it says the reply is complete, all
        of them under the one ``limit`` counted from ``mark``, and at most ``MAX_REPLY`` bytes."""
        mark = mark or self.mark()
        self.send(data)
        size = 0
        while True:
            line = self._receive(limit, mark)
            size += len(line) + 1
            if size > MAX_REPLY:
                self.kill()
                raise BotFault(Termination.PROTOCOL_ERROR, f"wrote more than {MAX_REPLY >> 20} MB in one reply")
            if heard(line):
                break
        self.last = self._end()
        usage = self._since(mark, self.last)
        if limit is not None and usage.charged(limit.clock) > limit.total:
            self.kill()
            raise BotFault(Termination.TIMEOUT, limit.late(usage))
        return usage

    def receive(self, timeout: float | Limit | None) -> bytes:
        """The next line the bot writes, within ``timeout`` (seconds of wall time, or a ``Limit``)."""
        limit = Limit(timeout, grace=0.0) if isinstance(timeout, (int, float)) else timeout
        return self._receive(limit, self.mark())

    def _receive(self, limit: Limit | None, mark: Mark) -> bytes:
        buffer = self._buffer
        check = None if limit is None else mark[0] + limit.first_check(self._cpus)
        # whether the last look at its pipes found its stderr empty: what a bot writes to it
        # before its reply is there by the time the reply is, so then there is nothing to take
        quiet = False
        while True:
            end = buffer.find(b"\n")
            if end > protocol.MAX_LINE or (end < 0 and len(buffer) > protocol.MAX_LINE):
                raise BotFault(Termination.PROTOCOL_ERROR, f"sent a line longer than {protocol.MAX_LINE} bytes")
            if end >= 0:
                line = bytes(buffer[:end])
                del buffer[: end + 1]
                if not quiet:
                    self.stderr.drain()  # what it wrote before answering belongs to this move
                return line
            if check is None or limit is None:
                wait = -1
            else:
                now = time.monotonic()
                if now >= check:
                    try:
                        check = now + limit.judge(self._since(mark), self._cpus)
                    except (BotFault, Overloaded):
                        self.kill()
                        raise
                wait = max(1, int((check - now) * 1000 + 0.999))
            ready = self._poll.poll(wait)
            quiet = all(fd != self._err for fd, _ in ready)
            for fd, _ in ready:
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
        if self.cgroup is not None and self.cgroup.oom_kills():
            limit = f" of {self.memory_mb} MB" if self.memory_mb else ""
            return BotFault(
                Termination.RESOURCE_LIMIT,
                f"memory limit{limit} exceeded by its processes together "
                "(shared memory included): killed by the kernel",
            )
        if code < 0:
            sig = signal.Signals(-code)
            if sig in SIGNAL_TERMINATIONS:
                termination, detail = SIGNAL_TERMINATIONS[sig]
                return BotFault(termination, f"{detail} ({sig.name})")
            return BotFault(Termination.CRASH, f"killed by {sig.name}")
        return BotFault(Termination.CRASH, f"exited with status {code}")

    # -- ending --------------------------------------------------------------------------

    def alive(self) -> bool:
        """Whether the process is still running."""
        return self.proc.poll() is None

    def doom(self) -> None:
        """SIGKILL the bot's control group, not waiting for it to end (``kill`` or ``close``
        then does): a worker that closes its bots together kills them all first, and their
        deaths overlap. Without a control group, nothing: ``kill`` finds what to kill then."""
        self.killed_by_us = True
        if self.cgroup is not None:
            self.cgroup.kill()

    def kill(self) -> None:
        """Kill the bot and everything it started, now: its control group at once; without
        one, its process group and every process below the bot that left the group
        (``setsid``). Then reap the bot."""
        self.doom()
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
        """Ask the bot to quit, then kill what is left and remove its working folder and its
        control group."""
        if self.alive():
            try:
                os.write(self._in, protocol.QUIT)
            except OSError:
                pass
        self.kill()
        for stream in self._pipes[:2]:
            try:
                stream.close()
            except OSError:
                pass
        self.stderr.drain()
        try:
            self._pipes[2].close()
        except OSError:
            pass
        self._schedstat.close()
        shutil.rmtree(self.workdir, ignore_errors=True)
        if self.cgroup is not None:
            self.cgroup.remove()
        self.registry.discard(self.pid)

"""What Linux's ``/proc`` says about processes: their children, whether they run, their CPU
time and how long they waited for a CPU, their user namespace. Plain ``os`` calls of a few
microseconds each; where ``/proc`` does not tell (another system, a process gone) the answers
are empty, ``False``, zero or ``None``.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


def read_proc(path: str) -> bytes | None:
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
        data = read_proc(f"/proc/{pid}/task/{tid}/children")
        if data:
            found.extend(int(word) for word in data.split())
    return found


def running(pid: int) -> bool:
    """Whether process ``pid`` exists and has not ended (a zombie has ended)."""
    data = read_proc(f"/proc/{pid}/stat")
    if not data:
        return False
    fields = data.rsplit(b")", 1)[-1].split()
    return bool(fields) and fields[0] not in (b"Z", b"X")


def describe_process(pid: int) -> str:
    """A process as a forfeit's detail names it: ``pid 4242 (sleep)``."""
    name = (read_proc(f"/proc/{pid}/comm") or b"?").decode("utf-8", "replace").strip()
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


def in_namespace(pid: int, namespace: str) -> bool:
    """Whether process ``pid`` is in the user namespace ``namespace`` (``user:[N]``) or in one
    nested below it (a bot's helper that made a namespace of its own is still the bot's)."""
    try:
        fd = os.open(f"/proc/{pid}/ns/user", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        for _ in range(32):  # the kernel nests user namespaces at most 32 deep
            if f"user:[{os.fstat(fd).st_ino}]" == namespace:
                return True
            try:
                parent = _ioctl_parent(fd)
            except OSError:
                return False
            os.close(fd)
            fd = parent
        return False
    finally:
        os.close(fd)


def _ioctl_parent(fd: int) -> int:
    """The namespace above the one ``fd`` refers to (``NS_GET_PARENT``), as a new descriptor."""
    import fcntl

    return fcntl.ioctl(fd, 0xB702)


class Schedstat:
    """Reads how long a thread waited to run: the second field of ``/proc/.../schedstat``, in
    nanoseconds (Linux, ``CONFIG_SCHED_INFO``), through a descriptor kept open."""

    def __init__(self, path: str) -> None:
        try:
            self.fd: int | None = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            self.fd = None

    def waited(self) -> float:
        """Seconds the thread waited for a CPU so far (0 where it cannot be read)."""
        if self.fd is None:
            return 0.0
        try:
            return int(os.pread(self.fd, 128, 0).split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            return 0.0

    def close(self) -> None:
        """Close the descriptor."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


_own: Schedstat | None = None


def harness_waited() -> float:
    """Seconds this thread of the harness waited for a CPU so far (its own reading per process:
    a forked worker must not read its parent's, which ``_forget_own`` closes in the child)."""
    global _own
    if _own is None:
        _own = Schedstat("/proc/thread-self/schedstat")
    return _own.waited()


def _forget_own() -> None:
    """In a child just forked: the parent's reading is not its own (no look at the pid a read)."""
    global _own
    if _own is not None:
        _own.close()
        _own = None


os.register_at_fork(after_in_child=_forget_own)


def stat_cpu(pid: int, children: bool = False) -> float:
    """CPU seconds in ``/proc/PID/stat``: the process's own (utime + stime), or ``children``:
    those of its children it waited for (cutime + cstime); 0 if unreadable."""
    data = read_proc(f"/proc/{pid}/stat")
    if not data:
        return 0.0
    fields = data.rsplit(b")", 1)[-1].split()
    try:
        ticks = int(fields[13]) + int(fields[14]) if children else int(fields[11]) + int(fields[12])
    except (IndexError, ValueError):
        return 0.0
    return ticks / _TICK

"""Control groups: each bot process in a group of its own, measured and killed whole (Linux).

A bot joins its group before anything of it runs (``sandbox.join_cgroups``), and everything it
starts stays there: helper processes, processes it detached from itself (``setsid``, a double
fork), processes in namespaces of their own. The harness then reads from one place the CPU
time of all of them (``cpu.stat``), the time they were kept from a CPU by other programs
(``cpu.pressure``, "full": no process of the group could run), and which of them still run;
``cgroup.kill`` ends them all at once. Where the memory and pids controllers are available a
group also caps the memory of all its processes together, shared memory included
(``memory.max``), and their number (``pids.max``).

What is used depends on the system, found once per process (``support``):

- cgroup v2: the harness makes ``arena-<pid>-<n>`` beside itself in its own group (a user's
  session delegates its groups to the user; root may anywhere), with a group per worker and one
  per bot below it. ``cgroup.kill`` (Linux 5.14+), ``cpu.stat`` and ``cpu.pressure`` need no
  controller. ``memory`` and ``pids`` are used if the harness's group passes them down;
- cgroup v1 (a hybrid system, root only): the ``memory`` and ``pids`` hierarchies give the
  limits the v2 tree lacks;
- neither (``ARENA_CGROUPS=off``, another system, no permission): ``None``, and the harness
  falls back to process groups, ``/proc`` scans and a child subreaper (docs/security.md).
"""

from __future__ import annotations

import functools
import itertools
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

#: the names of the groups a process makes for its bots: ``arena-<its pid>-<n>``
PREFIX = "arena-"
#: numbers the groups this process makes (``Cgroup.for_process``)
_GROUPS = itertools.count(1)
#: how long ``remove`` waits for the processes of a killed group to be gone
REMOVE_TIMEOUT = 5.0


@dataclass(frozen=True)
class Support:
    """What this system lets this process use: the v2 folder its groups go in, and the v1
    folders of the ``memory`` and ``pids`` controllers the v2 tree lacks."""

    v2: Path
    v2_controllers: frozenset[str]
    v1: dict[str, Path] = field(default_factory=dict)
    pressure: bool = True

    def describe(self) -> str:
        """What is in use, for the run's header and docs/security.md."""
        measured = "its CPU time" + (" and its waits for a CPU" if self.pressure else "")
        limits = sorted((self.v2_controllers & {"memory", "pids"}) | set(self.v1))
        words = {"memory": "memory", "pids": "process count"}
        if limits:
            limited = f"{' and '.join(words[name] for name in limits)} limited for all its processes together"
        else:
            limited = "memory limited per process only (no memory or pids controller here)"
        return f"each bot in a control group of its own: {measured} measured, {limited}, killed whole"

    @property
    def memory(self) -> bool:
        """Whether a group's memory limit (shared memory included) is enforced."""
        return "memory" in self.v2_controllers or "memory" in self.v1


def _mounts() -> list[tuple[str, str, str]]:
    """(mount point, file system type, super options) of every mount (``/proc/self/mountinfo``)."""
    found: list[tuple[str, str, str]] = []
    try:
        text = Path("/proc/self/mountinfo").read_text()
    except OSError:
        return found
    for line in text.splitlines():
        left, _, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if len(fields) >= 5 and len(tail) >= 3:
            found.append((fields[4].replace("\\040", " "), tail[0], tail[2]))
    return found


def _own_groups() -> dict[str, str]:
    """This process's group in each hierarchy: ``""`` for v2, a controller's name for v1."""
    groups: dict[str, str] = {}
    try:
        text = Path("/proc/self/cgroup").read_text()
    except OSError:
        return groups
    for line in text.splitlines():
        number, controllers, path = line.split(":", 2)
        if number == "0" and not controllers:
            groups[""] = path
        for controller in controllers.split(","):
            if controller:
                groups[controller] = path
    return groups


def _writable(folder: Path) -> bool:
    return folder.is_dir() and os.access(folder, os.W_OK)


@functools.lru_cache(maxsize=1)
def support() -> Support | None:
    """What this process may use (found once), or ``None``: no v2 hierarchy in which it may make
    groups, no ``cgroup.kill``, or ``ARENA_CGROUPS=off``."""
    if os.environ.get("ARENA_CGROUPS", "").lower() in ("off", "0", "no", "false"):
        return None
    mounts, own = _mounts(), _own_groups()
    v2 = next((Path(point) for point, kind, _ in mounts if kind == "cgroup2"), None)
    if v2 is None or "" not in own:
        return None
    base = v2 / own[""].lstrip("/")
    if not _writable(base) or not (base / "cgroup.procs").exists():
        return None
    try:
        controllers = frozenset((base / "cgroup.subtree_control").read_text().split())
    except OSError:
        controllers = frozenset()
    v1: dict[str, Path] = {}
    for controller in ("memory", "pids"):
        if controller in controllers:
            continue
        point = next((p for p, kind, options in mounts if kind == "cgroup" and controller in options.split(",")), None)
        if point is not None and controller in own:
            folder = Path(point) / own[controller].lstrip("/")
            if _writable(folder):
                v1[controller] = folder
    found = Support(base, controllers, v1)
    probe = _make(found, f"{PREFIX}{os.getpid()}-probe")
    if probe is None:
        return None
    kill = (probe.v2 / "cgroup.kill").exists()
    pressure = (probe.v2 / "cpu.pressure").exists()
    probe.remove()
    if not kill:
        return None
    return Support(base, controllers, v1, pressure)


def _make(found: Support, name: str, parent: Cgroup | None = None) -> Cgroup | None:
    """A new group ``name`` under ``parent`` (or beside this process), or ``None`` if the
    system refuses it."""
    v2 = (parent.v2 if parent else found.v2) / name
    try:
        v2.mkdir()
    except FileExistsError:
        pass
    except OSError:
        return None
    v1 = {}
    for controller, folder in found.v1.items():
        path = (parent.v1[controller] if parent and controller in parent.v1 else folder) / name
        try:
            path.mkdir(exist_ok=True)
        except OSError:
            continue
        v1[controller] = path
    return Cgroup(v2, v1)


class Cgroup:
    """One group: the v2 folder and its v1 counterparts. A bot's group is measured through file
    descriptors kept open (one ``pread`` each, about 2 µs)."""

    def __init__(self, v2: Path, v1: dict[str, Path]) -> None:
        self.v2 = v2
        self.v1 = v1
        self._fds: dict[str, int] = {}

    # -- making groups -------------------------------------------------------------------

    @classmethod
    def for_process(cls) -> Cgroup | None:
        """A group this process makes for bots, ``arena-<pid>-<n>`` beside itself, a new one each
        call: a server plays many games at once, each worker with groups of its own that no other
        touches (groups left by processes that ended without removing theirs are killed and
        removed first); ``None`` where the system does not allow it."""
        found = support()
        if found is None:
            return None
        remove_stale(found)
        group = _make(found, f"{PREFIX}{os.getpid()}-{next(_GROUPS)}")
        if group is not None:
            group.pass_controllers()
        return group

    def child(
        self, name: str, memory_mb: int | None = None, processes: int | None = None, holds_groups: bool = False
    ) -> Cgroup | None:
        """A group ``name`` below this one with these limits (``None``: none), or ``None``.
        ``holds_groups``: it will hold groups, not processes (a worker's), so it passes the
        controllers on (in v2 a group that does cannot hold processes itself)."""
        found = support()
        if found is None:
            return None
        group = _make(found, name, self)
        if group is None:
            return None
        try:
            group.set_limits(memory_mb, processes)
        except OSError:
            group.remove()
            return None
        if holds_groups:
            group.pass_controllers()
        return group

    def pass_controllers(self) -> None:
        """Let the groups below use the v2 ``memory`` and ``pids`` controllers, where this one
        has them."""
        try:
            available = set((self.v2 / "cgroup.controllers").read_text().split()) & {"memory", "pids"}
            if available:
                (self.v2 / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in sorted(available)))
        except OSError:
            pass

    def set_limits(self, memory_mb: int | None, processes: int | None) -> None:
        """Cap the memory (in MiB, shared memory and swap included) and the number of processes
        and threads of the group, where a controller allows it."""
        if memory_mb is not None:
            size = str(memory_mb << 20)
            if (self.v2 / "memory.max").exists():
                (self.v2 / "memory.max").write_text(size)
                _try_write(self.v2 / "memory.swap.max", "0")
            elif "memory" in self.v1:
                (self.v1["memory"] / "memory.limit_in_bytes").write_text(size)
                _try_write(self.v1["memory"] / "memory.memsw.limit_in_bytes", size)
        if processes is not None:
            if (self.v2 / "pids.max").exists():
                (self.v2 / "pids.max").write_text(str(processes))
            elif "pids" in self.v1:
                (self.v1["pids"] / "pids.max").write_text(str(processes))

    def procs_files(self) -> list[str]:
        """The files a process writes ``0`` to, to join this group in every hierarchy."""
        return [str(self.v2 / "cgroup.procs"), *(str(folder / "cgroup.procs") for folder in self.v1.values())]

    # -- measuring -----------------------------------------------------------------------

    def _read(self, name: str) -> bytes | None:
        fd = self._fds.get(name)
        try:
            if fd is None:
                fd = self._fds[name] = os.open(self.v2 / name, os.O_RDONLY | os.O_CLOEXEC)
            return os.pread(fd, 4096, 0)
        except OSError:
            return None

    def cpu(self) -> float | None:
        """CPU seconds used by every process the group ever held."""
        data = self._read("cpu.stat")
        if not data or not data.startswith(b"usage_usec "):
            return None
        return int(data[11 : data.index(b"\n")]) / 1e6

    def starved(self) -> float | None:
        """Seconds during which the group had processes ready to run and none of them running:
        the CPUs were busy with other programs (``cpu.pressure``, full)."""
        data = self._read("cpu.pressure")
        if not data:
            return None
        head, _, total = data.rpartition(b" total=")  # the last line's: "full ... total=N"
        return int(total) / 1e6 if b"\nfull " in head else None

    def pids(self) -> list[int]:
        """The processes in the group now (not those below it)."""
        data = self._read("cgroup.procs")
        return [int(word) for word in data.split()] if data else []

    def populated(self) -> bool:
        """Whether any process is in the group or below it."""
        data = self._read("cgroup.events")
        return data is None or b"populated 1" in data

    def oom_kills(self) -> int:
        """How many of its processes the kernel killed for going over the memory limit."""
        for path in (self.v2 / "memory.events", self.v1.get("memory", Path("/nonexistent")) / "memory.oom_control"):
            try:
                for line in path.read_text().splitlines():
                    if line.startswith("oom_kill "):
                        return int(line.split()[1])
            except (OSError, ValueError):
                continue
        return 0

    # -- ending --------------------------------------------------------------------------

    def kill(self) -> None:
        """SIGKILL every process in the group and below it, at once."""
        _try_write(self.v2 / "cgroup.kill", "1")

    def remove(self, timeout: float = REMOVE_TIMEOUT) -> bool:
        """Kill what is left, wait until it is gone and remove the group and every group below
        it (v2 and v1); whether it is all gone."""
        if not self.v2.exists():
            return True
        self.kill()
        end = time.monotonic() + timeout
        while self.populated() and time.monotonic() < end:
            time.sleep(0.002)
        for fd in self._fds.values():
            os.close(fd)
        self._fds.clear()
        removed = _rmtree(self.v2, end)
        for folder in self.v1.values():
            removed = _rmtree(folder, end) and removed
        return removed

    def __repr__(self) -> str:
        return f"Cgroup({str(self.v2)!r})"


def _try_write(path: Path, text: str) -> bool:
    try:
        path.write_text(text)
    except OSError:
        return False
    return True


def _rmtree(folder: Path, end: float) -> bool:
    """Remove a group folder and the groups below it, deepest first (their files are not
    files: only the folders are removed), retrying while the kernel still counts a process.
    Another process may remove the same stale group at the same time: gone is removed."""
    try:
        children = [entry for entry in folder.iterdir() if entry.is_dir()]
    except FileNotFoundError:
        return True
    done = all(_rmtree(child, end) for child in children)
    while True:
        try:
            folder.rmdir()
            return done
        except FileNotFoundError:
            return done
        except OSError:
            if time.monotonic() >= end:
                return False
            time.sleep(0.005)


def remove_stale(found: Support) -> list[str]:
    """Kill and remove the groups beside ours left by arena processes that are gone (a run
    killed with SIGKILL); their names."""
    removed = []
    for folder in [found.v2, *found.v1.values()]:
        try:
            entries = list(folder.iterdir())
        except OSError:
            continue
        for entry in entries:
            pid = entry.name.removeprefix(PREFIX).split("-")[0]
            if not entry.name.startswith(PREFIX) or not pid.isdecimal() or Path(f"/proc/{pid}").exists():
                continue
            group = Cgroup(entry, {}) if folder == found.v2 else None
            if group is not None:
                group.kill()
            if _rmtree(entry, time.monotonic() + 1.0):
                removed.append(entry.name)
    return removed

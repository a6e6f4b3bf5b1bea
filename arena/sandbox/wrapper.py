"""Confining a bot process, then executing it: ``python -I -S arena/sandbox/wrapper.py [options] -- CMD``.

Every bot, whatever its language, starts through this wrapper, which confines itself and then
executes the bot's command in its place (same process; everything is inherited): its control
group (where the harness made one: ``arena/sandbox/cgroups.py``), resource limits (memory, file size, no
core dumps), death with its parent (the worker), private user, network, IPC and mount namespaces
(where user namespaces are allowed: no network interface, no System V IPC shared with anyone, a
working folder that is a bounded file system in memory of its own), Landlock
(where the kernel has it): files only beneath the allowed paths (read), the bot's own working
folder (read and write) and a few device nodes, no TCP, no signals to processes outside its own
domain; and a seccomp filter (``arena/sandbox/seccomp.py``). What was enforced is written to stderr in
one line, so it lands in the game's stderr tail.

It imports nothing from arena, so it starts in a few milliseconds (docs/security.md).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import resource
import signal
import sys

try:
    from arena.sandbox import landlock, seccomp
except ImportError:  # run as a plain script with -I -S: import the sibling modules
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import landlock  # type: ignore[no-redef,import-not-found,unused-ignore]
    import seccomp  # type: ignore[no-redef,import-not-found,unused-ignore]

_PR_SET_PDEATHSIG = 1
_CLONE_NEWUSER, _CLONE_NEWNET, _CLONE_NEWIPC, _CLONE_NEWNS = 0x10000000, 0x40000000, 0x08000000, 0x00020000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REMOUNT, _MS_BIND = 0x1, 0x2, 0x4, 0x8, 0x20, 0x1000
_MS_REC, _MS_PRIVATE, _MNT_DETACH = 0x4000, 0x40000, 0x2
#: the working folder holds at most this many times the file-size limit (or SPACE_MB without one)
SPACE_FILES = 4
SPACE_MB = 256
#: what every program needs to read to run at all (not /dev: device nodes are listed one by one)
SYSTEM_PATHS = ["/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin", "/etc", "/proc", "/sys"]
#: the only device nodes a bot may open, for reading and writing: not the terminals (what the
#: user types), not the disks, not /dev/shm (what is written there outlives the bot)
DEVICES = ["/dev/null", "/dev/zero", "/dev/full", "/dev/urandom", "/dev/random"]
#: what a bot's ``/proc`` keeps besides its own process: what runtimes read about the machine
PROC_FILES = [
    "cpuinfo", "meminfo", "stat", "loadavg", "uptime", "version", "filesystems", "cgroups", "swaps",
    "vmstat", "zoneinfo", "pressure", "sys", "self", "thread-self", "mounts", "net",
]  # fmt: skip


class SandboxError(Exception):
    """The bot cannot be confined as asked: it must not run."""


def join_cgroups(procs_files: list[str]) -> None:
    """Move this process into the control groups whose ``cgroup.procs`` (or v1 ``tasks``)
    files are given, before anything else runs: whatever it starts stays in them."""
    for path in procs_files:
        try:
            with open(path, "w") as procs:
                procs.write("0")  # "0": the writing process
        except OSError as error:
            raise SandboxError(f"cannot join the control group {path}: {error.strerror}") from None


def set_limits(memory_mb: int | None, file_size_mb: int | None) -> None:
    """Memory and file-size limits, and no core dumps.

    Memory is RLIMIT_DATA (heap and private writable mappings: what a program uses), not
    the address space: runtimes such as Node reserve far more address space than they use."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if memory_mb is not None:
        resource.setrlimit(resource.RLIMIT_DATA, (memory_mb << 20, memory_mb << 20))
    if file_size_mb is not None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_mb << 20, file_size_mb << 20))


def die_with_parent(parent_pid: int) -> None:
    """Get SIGKILL when the parent (the worker) dies, even if it dies before we are set up."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: the harness still kills the process group
    if os.getppid() != parent_pid:
        os._exit(1)


def isolate() -> bool:
    """Enter new user, network, IPC and mount namespaces: no interface but a down loopback,
    System V IPC objects (shared memory, semaphores, queues) of its own, gone when it ends, and
    mounts of its own (``bound_folder``)."""
    uid, gid = os.getuid(), os.getgid()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNET | _CLONE_NEWIPC | _CLONE_NEWNS) != 0:
        return False
    try:  # map ourselves to ourselves, so files keep their owner
        with open("/proc/self/setgroups", "w") as f:
            f.write("deny")
        with open("/proc/self/uid_map", "w") as f:
            f.write(f"{uid} {uid} 1")
        with open("/proc/self/gid_map", "w") as f:
            f.write(f"{gid} {gid} 1")
    except OSError:
        pass
    return True


def bound_folder(size_mb: int) -> bool:
    """Make the working folder a file system of ``size_mb`` MB in memory (a tmpfs, in the mount
    namespace ``isolate`` made): a bot that fills it gets ``ENOSPC``, never the machine's disk,
    and what it wrote goes with its last process. Counted in its memory where a memory cgroup
    counts a tmpfs. ``False`` if the system refuses."""
    libc = ctypes.CDLL(None, use_errno=True)
    folder = os.getcwd()
    if libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:  # nothing goes out to the host
        return False
    options = f"size={size_mb}m,mode=0700".encode()
    if libc.mount(b"tmpfs", folder.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, options) != 0:
        return False
    os.chdir(folder)  # into the new file system, which now covers the folder
    return True


def _mount(source: str, target: str, kind: str | None, flags: int, options: bytes | None = None) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.mount(source.encode(), target.encode(), kind.encode() if kind else None, flags, options) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"mount {target}: {os.strerror(error)}")


def private_proc() -> bool:
    """Cover ``/proc`` (in the mount namespace ``isolate`` made) with a read-only one that shows
    this process and the system-wide files a program reads (``PROC_FILES``) but no other
    process: no other bot's or user's command line, environment or files. Needs the working
    folder of ``bound_folder`` (the real ``/proc`` is bound there for a moment, and must be gone
    from it before the bot runs: ``SandboxError`` if it cannot be taken away). The bot's own
    children see its entries as ``/proc/self``. ``False`` if the system refuses (``/proc`` is
    then left as it was)."""
    libc = ctypes.CDLL(None, use_errno=True)
    old, covered = os.path.join(os.getcwd(), ".arena-proc"), False
    try:
        os.mkdir(old)
        _mount("/proc", old, None, _MS_BIND | _MS_REC)
        _mount("arena-proc", "/proc", "tmpfs", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, b"size=64k,mode=0755")
        covered = True
        for name in [str(os.getpid()), *PROC_FILES]:
            source, target = os.path.join(old, name), os.path.join("/proc", name)
            if os.path.islink(source):
                os.symlink(os.readlink(source), target)  # self, thread-self: this process, as before
                continue
            if os.path.isdir(source):
                os.mkdir(target)
                _mount(source, target, None, _MS_BIND | _MS_REC)
            elif os.path.exists(source):
                open(target, "w").close()
                _mount(source, target, None, _MS_BIND)
            else:
                continue
            read_only = _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
            libc.mount(None, target.encode(), None, read_only, None)  # (Landlock refuses writes anyway)
        _mount("arena-proc", "/proc", None, _MS_REMOUNT | _MS_RDONLY | _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
        return True
    except OSError:
        if covered:
            libc.umount2(b"/proc", _MNT_DETACH)
        return False
    finally:
        if os.path.isdir(old):
            libc.umount2(old.encode(), _MNT_DETACH)
            try:
                os.rmdir(old)
            except OSError as error:  # still there, the whole /proc in the bot's own folder: it must not run
                raise SandboxError(f"cannot take the machine's /proc out of the working folder: {error}") from None


def confine(
    memory_mb: int | None,
    file_size_mb: int | None,
    parent_pid: int | None,
    read: list[str],
    open_: bool = False,
    cgroups: list[str] | None = None,
    shared_memory: bool = True,
    own_proc: bool = False,
) -> None:
    """Confine this process (see the module's docstring) and say on stderr what was enforced.

    ``cgroups``: the control groups to join (``SandboxError`` if that fails); ``shared_memory``
    False refuses the shared memory that no memory cgroup counts (``arena/sandbox/seccomp.py``);
    ``own_proc``: a ``/proc`` with no other process (``private_proc``; not for a command bot,
    whose children would see its entries as theirs)."""
    join_cgroups(cgroups or [])
    set_limits(memory_mb, file_size_mb)
    if parent_pid is not None:
        die_with_parent(parent_pid)
    enforced = [
        f"memory {memory_mb} MB" if memory_mb else "memory unlimited",
        f"files {file_size_mb} MB" if file_size_mb is not None else "files unlimited",
        "no core dumps",
    ]
    if cgroups:
        enforced.append("own cgroup")
    if not open_:
        if isolate():
            enforced.append("no network, own IPC")
            space = SPACE_FILES * file_size_mb if file_size_mb else SPACE_MB
            bounded = bound_folder(space)
            enforced.append(f"working folder {space} MB" if bounded else "working folder unbounded")
            if own_proc:
                hidden = bounded and private_proc()
                enforced.append("no other process in /proc" if hidden else "other processes in /proc")
        else:
            enforced.append("namespaces unavailable")
        try:
            abi = landlock.restrict(SYSTEM_PATHS + read, [os.getcwd(), *DEVICES])
        except OSError as error:
            abi = 0
            enforced.append(f"landlock failed: {error}")
        enforced.append(
            f"landlock ABI {abi}: files beneath the allowed paths, no TCP, scoped signals"
            if abi
            else "landlock unavailable"
        )
        if seccomp.restrict(shared_memory):
            enforced.append("seccomp" + ("" if shared_memory else ", no shared memory"))
        else:
            enforced.append("seccomp unavailable")
    sys.stderr.write("arena sandbox: " + "; ".join(enforced) + "\n")
    sys.stderr.flush()


def main(argv: list[str] | None = None) -> None:
    """Confine this process, then become the command after ``--``."""
    argv = sys.argv[1:] if argv is None else argv
    if "--" not in argv:
        sys.exit("usage: wrapper.py [--memory-mb N] [--file-size-mb N] [--read PATH]... -- COMMAND ...")
    split = argv.index("--")
    parser = argparse.ArgumentParser(prog="arena sandbox")
    parser.add_argument("--memory-mb", type=int)
    parser.add_argument("--file-size-mb", type=int)
    parser.add_argument("--parent-pid", type=int)
    parser.add_argument("--read", action="append", default=[], help="a path the bot may read")
    parser.add_argument("--open", action="store_true", help="no namespaces, no Landlock")
    parser.add_argument("--cgroup", action="append", default=[], help="a cgroup.procs file to join")
    parser.add_argument("--no-shared-memory", action="store_true", help="refuse uncounted shared memory")
    parser.add_argument("--own-proc", action="store_true", help="a /proc with no other process")
    options = parser.parse_args(argv[:split])
    command = argv[split + 1 :]
    if not command:
        sys.exit("arena sandbox: no command given after --")
    try:
        confine(
            options.memory_mb,
            options.file_size_mb,
            options.parent_pid,
            options.read,
            options.open,
            options.cgroup,
            not options.no_shared_memory,
            options.own_proc,
        )
    except SandboxError as error:
        sys.stderr.write(f"arena sandbox: {error}\n")
        os._exit(126)
    # Python ignores these two; an ignored signal stays ignored across exec, and the bot
    # deserves the defaults (SIGXFSZ kills a process writing past its file-size limit)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    try:
        os.execvp(command[0], command)
    except OSError as error:
        sys.stderr.write(f"arena sandbox: cannot run {command[0]!r}: {error}\n")
        os._exit(127)


if __name__ == "__main__":
    main()

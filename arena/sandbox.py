"""Confining a bot process, then executing it: ``python -I -S arena/sandbox.py [options] -- CMD``.

Every bot, whatever its language, starts through this wrapper, which confines itself and then
executes the bot's command in its place (same process; the limits are inherited):
resource limits (memory, file size, no core dumps), death with its parent (the worker), a
private network namespace with no interfaces (where user namespaces are allowed), Landlock
(where the kernel has it): files only beneath the allowed paths (read) and the bot's own
working folder (read and write), no TCP, no signals to processes outside its own domain; and
a seccomp filter (x86-64 and arm64): no unix-domain sockets (a socket file such as a
container engine's or the session bus's is reachable whatever Landlock allows), no io_uring.
What was enforced is written to stderr in one line, so it lands in the game's stderr tail.

It imports nothing from arena, so it starts in a few milliseconds (docs/security.md).
"""

from __future__ import annotations

import argparse
import ctypes
import errno
import os
import resource
import signal
import struct
import sys

try:
    from arena import landlock
except ImportError:  # run as a plain script with -I -S: import the sibling module
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import landlock  # type: ignore[no-redef]

_PR_SET_PDEATHSIG = 1
_CLONE_NEWUSER, _CLONE_NEWNET = 0x10000000, 0x40000000
#: what every program needs to read to run at all
SYSTEM_PATHS = ["/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin", "/etc", "/proc", "/sys", "/dev"]
#: devices a program may write to (not /dev/shm: what is written there outlives the bot and
#: can be read by the next one)
DEVICES = ["/dev/null", "/dev/zero", "/dev/full", "/dev/urandom", "/dev/random"]

_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2
_AF_UNIX = 1
#: machine -> (its audit architecture, socket's and io_uring_setup's syscall numbers)
_SYSCALLS = {"x86_64": (0xC000003E, 41, 425), "aarch64": (0xC00000B7, 198, 425)}


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


def isolate_network() -> bool:
    """Enter new user and network namespaces: no interface but a down loopback."""
    uid, gid = os.getuid(), os.getgid()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNET) != 0:
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


def _bpf(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def deny_unix_sockets() -> bool:
    """A seccomp filter: ``socket(AF_UNIX, ...)`` and ``io_uring_setup`` fail with EACCES,
    and so does every syscall of another architecture (32-bit calls, x32), which could go
    round the filter. ``socketpair`` stays allowed (it reaches nobody). Whether it was set."""
    machine = os.uname().machine
    if machine not in _SYSCALLS:
        return False
    arch, socket_nr, io_uring_nr = _SYSCALLS[machine]
    ld, jeq, jge, ret = 0x20, 0x15, 0x35, 0x06  # BPF_LD|W|ABS, BPF_JMP|JEQ|K, BPF_JMP|JGE|K, BPF_RET|K
    allow, deny = 0x7FFF0000, 0x00050000 | errno.EACCES  # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO
    low_word = 16 if sys.byteorder == "little" else 20  # args[0] in struct seccomp_data
    program = b"".join([
        _bpf(ld, 4),                             # 0: the architecture
        _bpf(jeq, arch, jt=1),                   # 1: ours: go on at 3
        _bpf(ret, deny),                         # 2
        _bpf(ld, 0),                             # 3: the syscall number
        _bpf(jge, 0x40000000, jt=5),             # 4: x32 numbers: deny (at 10)
        _bpf(jeq, io_uring_nr, jt=4),            # 5: io_uring_setup: deny (at 10)
        _bpf(jeq, socket_nr, jf=2),              # 6: not socket(): allow (at 9)
        _bpf(ld, low_word),                      # 7: socket()'s family
        _bpf(jeq, _AF_UNIX, jt=1),               # 8: AF_UNIX: deny (at 10)
        _bpf(ret, allow),                        # 9
        _bpf(ret, deny),                         # 10
    ])  # fmt: skip
    code = ctypes.create_string_buffer(program, len(program))

    class _Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    prog = _Program(len(program) // 8, ctypes.cast(code, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    return libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) == 0


def confine(memory_mb: int | None, file_size_mb: int | None, parent_pid: int | None, read: list[str],
            open_: bool = False) -> None:
    """Confine this process (see the module's docstring) and say on stderr what was enforced."""
    set_limits(memory_mb, file_size_mb)
    if parent_pid is not None:
        die_with_parent(parent_pid)
    enforced = [f"memory {memory_mb} MB" if memory_mb else "memory unlimited",
                f"files {file_size_mb} MB" if file_size_mb is not None else "files unlimited",
                "no core dumps"]  # fmt: skip
    if not open_:
        enforced.append("no network" if isolate_network() else "network namespace unavailable")
        try:
            abi = landlock.restrict(SYSTEM_PATHS + read, [os.getcwd(), *DEVICES])
        except OSError as error:
            abi = 0
            enforced.append(f"landlock failed: {error}")
        enforced.append(f"landlock ABI {abi}: files beneath the allowed paths, no TCP, scoped signals"
                        if abi else "landlock unavailable")  # fmt: skip
        enforced.append("no unix sockets" if deny_unix_sockets() else "unix sockets not filtered")
    sys.stderr.write("arena sandbox: " + "; ".join(enforced) + "\n")
    sys.stderr.flush()


def main(argv: list[str] | None = None) -> None:
    """Confine this process, then become the command after ``--``."""
    argv = sys.argv[1:] if argv is None else argv
    if "--" not in argv:
        sys.exit("usage: sandbox.py [--memory-mb N] [--file-size-mb N] [--read PATH]... -- COMMAND ...")
    split = argv.index("--")
    parser = argparse.ArgumentParser(prog="arena sandbox")
    parser.add_argument("--memory-mb", type=int)
    parser.add_argument("--file-size-mb", type=int)
    parser.add_argument("--parent-pid", type=int)
    parser.add_argument("--read", action="append", default=[], help="a path the bot may read")
    parser.add_argument("--open", action="store_true", help="no namespaces, no Landlock")
    options = parser.parse_args(argv[:split])
    command = argv[split + 1 :]
    if not command:
        sys.exit("arena sandbox: no command given after --")
    confine(options.memory_mb, options.file_size_mb, options.parent_pid, options.read, options.open)
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

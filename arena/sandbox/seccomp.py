"""A seccomp filter for bot processes, through ctypes: the system calls a bot never needs fail.

``restrict(shared_memory=...)`` installs, for good, a classic-BPF program that makes these
calls fail (``EACCES`` unless said otherwise) and lets every other call through:

- ``socket()`` of any family but IPv4 and IPv6 (no unix-domain socket reaches a socket file
  such as a container engine's; no netlink, packet or ``AF_VSOCK``, which ignores network
  namespaces and in a virtual machine reaches the host); ``socketpair`` stays allowed;
- new namespaces (``unshare`` or ``clone`` with a ``CLONE_NEW*`` flag, ``setns``) and mounts;
  ``clone3``, whose flags a filter cannot read, fails with ``ENOSYS`` so that the C library
  falls back to ``clone``;
- kernel keyrings (a channel between processes of one user), ``io_uring``, ``bpf``,
  ``perf_event_open``, ``userfaultfd`` and ``ptrace``;
- without ``shared_memory``: System V shared memory, ``memfd_create`` and anonymous shared
  mappings, which a per-process memory limit does not count (a memory cgroup does);
- every call of another architecture (32-bit calls, x32), which could go round the filter.

Deliberately free of arena imports: ``arena/sandbox/wrapper.py`` runs as a plain script.
"""

import ctypes
import errno
import os
import struct
import sys

_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2
_ALLOW, _ERRNO = 0x7FFF0000, 0x00050000
_AF_INET, _AF_INET6 = 2, 10
#: CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID,
#: CLONE_NEWNET and CLONE_NEWTIME
_NEW_NAMESPACES = 0x7E020080
_MAP_SHARED, _MAP_ANONYMOUS = 0x01, 0x20

#: machine -> its audit architecture and "name=number" of the system calls the filter looks at
_MACHINES = {
    "x86_64": (
        0xC000003E,
        "socket=41 clone=56 clone3=435 unshare=272 setns=308 mount=165 umount2=166 pivot_root=155 open_tree=428 "
        "move_mount=429 fsopen=430 fsconfig=431 fsmount=432 fspick=433 mount_setattr=442 keyctl=250 add_key=248 "
        "request_key=249 io_uring_setup=425 io_uring_enter=426 io_uring_register=427 bpf=321 perf_event_open=298 "
        "userfaultfd=323 ptrace=101 shmget=29 memfd_create=319 mmap=9",
    ),
    "aarch64": (
        0xC00000B7,
        "socket=198 clone=220 clone3=435 unshare=97 setns=268 mount=40 umount2=39 pivot_root=41 open_tree=428 "
        "move_mount=429 fsopen=430 fsconfig=431 fsmount=432 fspick=433 mount_setattr=442 keyctl=219 add_key=217 "
        "request_key=218 io_uring_setup=425 io_uring_enter=426 io_uring_register=427 bpf=280 perf_event_open=241 "
        "userfaultfd=282 ptrace=117 shmget=194 memfd_create=279 mmap=222",
    ),
}
_DENIED = [
    "setns",
    "mount",
    "umount2",
    "pivot_root",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "keyctl",
    "add_key",
    "request_key",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "ptrace",
]
_SHARED_MEMORY = ["shmget", "memfd_create"]

# classic BPF opcodes
_LD_ABS, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_NR, _ARCH = 0, 4


def _arg(number: int) -> int:
    """The offset of the low 32 bits of argument ``number`` in ``struct seccomp_data``."""
    return 16 + 8 * number + (0 if sys.byteorder == "little" else 4)


class _Program:
    """A BPF program under construction: jumps name labels, resolved when it is assembled
    (classic BPF only jumps forward, at most 255 instructions ahead)."""

    def __init__(self) -> None:
        self.code: list[tuple[int, int, str | int, str | int]] = []
        self.labels: dict[str, int] = {}

    def load(self, offset: int) -> None:
        self.code.append((_LD_ABS, offset, 0, 0))

    def jump(self, op: int, value: int, true: str | int = 0, false: str | int = 0) -> None:
        """Jump to label ``true`` if the test holds, else to ``false`` (0: the next instruction)."""
        self.code.append((op, value, true, false))

    def ret(self, value: int) -> None:
        self.code.append((_RET, value, 0, 0))

    def label(self, name: str) -> None:
        self.labels[name] = len(self.code)

    def assemble(self) -> bytes:
        out = []
        for index, (op, value, true, false) in enumerate(self.code):
            offsets = [self.labels[target] - index - 1 if isinstance(target, str) else 0 for target in (true, false)]
            out.append(struct.pack("=HBBI", op, offsets[0], offsets[1], value))
        return b"".join(out)


def program(machine: str, shared_memory: bool) -> bytes | None:
    """The filter for ``machine`` (``None`` for a machine it is not written for)."""
    if machine not in _MACHINES:
        return None
    arch, table = _MACHINES[machine]
    numbers = {name: int(number) for name, number in (item.split("=") for item in table.split())}
    p = _Program()
    p.load(_ARCH)
    p.jump(_JEQ, arch, false="deny")
    p.load(_NR)
    p.jump(_JGE, 0x40000000, true="deny")  # x32 numbers
    denied = _DENIED + ([] if shared_memory else _SHARED_MEMORY)
    for name in denied:
        p.jump(_JEQ, numbers[name], true="deny")
    p.jump(_JEQ, numbers["clone3"], true="nosys")
    p.jump(_JEQ, numbers["clone"], true="namespaces")
    p.jump(_JEQ, numbers["unshare"], true="namespaces")
    p.jump(_JEQ, numbers["socket"], true="socket")
    if not shared_memory:
        p.jump(_JEQ, numbers["mmap"], true="mmap")
    p.ret(_ALLOW)
    p.label("namespaces")
    p.load(_arg(0))
    p.jump(_JSET, _NEW_NAMESPACES, true="deny", false="allow")
    p.label("socket")
    p.load(_arg(0))
    p.jump(_JEQ, _AF_INET, true="allow")
    p.jump(_JEQ, _AF_INET6, true="allow", false="deny")
    if not shared_memory:
        p.label("mmap")
        p.load(_arg(3))
        p.jump(_JSET, _MAP_SHARED, false="allow")
        p.jump(_JSET, _MAP_ANONYMOUS, true="deny", false="allow")
    p.label("deny")
    p.ret(_ERRNO | errno.EACCES)
    p.label("nosys")
    p.ret(_ERRNO | errno.ENOSYS)
    p.label("allow")
    p.ret(_ALLOW)
    return p.assemble()


class _Filter(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def restrict(shared_memory: bool = True) -> bool:
    """Install the filter on this process (inherited by everything it starts); whether it was."""
    code = program(os.uname().machine, shared_memory)
    if code is None:
        return False
    buffer = ctypes.create_string_buffer(code, len(code))
    prog = _Filter(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    return bool(libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) == 0)

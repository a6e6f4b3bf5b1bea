"""What a bot process gets: its own process group and working folder, a scrubbed environment,
resource limits, no core dumps, no files but its own, no network; and that it never outlives
the harness that started it.

The ``reports_sandbox`` fixture bots (a Python module and a command) write what they see to
stderr as ``sandbox {JSON}`` at every new game, ``probes_confinement`` what it could do as
``confinement {JSON}``; the tests read these lines from the game's stderr tail.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from arena.core import protocol
from arena.core.botspec import BotSpec
from arena.core.records import Termination
from arena.sandbox.confinement import confined_argv
from arena.sandbox.process import BotProcess
from tests.fixtures.harnesskit import SANDBOX_LINE, command_bot, group_running, job, python_bot, running, wait_until

MIB = 1024 * 1024
SPECS = {
    "python": python_bot("reports_sandbox", memory_mb=300, file_size_mb=2),
    "command": command_bot("reports_sandbox.py", memory_mb=300, file_size_mb=2),
}
#: the ways a bot process starts: the sandbox wrapper executing the bot's command, or (a Python
#: bot in a worker) forked from the worker's launcher; a bot must not see the difference
STARTS = {"python": "plain", "command": "plain", "python, forked": "forked"}


def sandbox_report(stderr: str) -> dict:
    """The ``sandbox {JSON}`` line a reports_sandbox bot wrote."""
    lines = [line for line in stderr.splitlines() if line.startswith("sandbox ")]
    assert len(lines) == 1, stderr
    return json.loads(lines[0].removeprefix("sandbox "))


def start_bots(request, how: str) -> None:
    """Python bots start ``how`` (plain or forked) in this test."""
    if how == "forked":
        request.getfixturevalue("forking")


def first_started(pool) -> str:
    """How the first bot of the test was started."""
    return {"Forked": "forked", "Popen": "plain"}[type(pool.processes[0].proc).__name__]


@pytest.fixture(params=sorted(STARTS))
def report(request, pool):
    """What the reports_sandbox bot (Python module, plain or forked, then command) saw in one
    game as seat 0."""
    start_bots(request, STARTS[request.param])
    record = pool.play(job(SPECS[request.param.split(",")[0]], python_bot("first_legal")))
    assert record.termination is Termination.NORMAL
    assert first_started(pool) == STARTS[request.param]
    return sandbox_report(record.stderr[0])


def test_a_bot_runs_in_a_process_group_of_its_own(report):
    assert report["pgid"] == report["pid"]
    assert report["pgid"] != os.getpgid(0)


def test_a_bot_works_in_a_fresh_private_folder(report):
    folder = Path(report["cwd"])
    assert folder.name.startswith("arena-bot-")
    assert folder.parent.name.startswith("arena-worker-")  # the scratch folder of its worker
    assert folder.parent.parent == Path(tempfile.gettempdir())


def test_a_bot_gets_only_the_documented_environment(report):
    home = report["cwd"]
    assert report["env"] == {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "HOME": home,
        "TMPDIR": home,
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


def test_a_bot_may_not_dump_core(report):
    assert report["core"] == [0, 0]


def test_a_bot_gets_the_memory_limit_as_its_data_limit(report):
    assert report["data"] == [300 * MIB, 300 * MIB]


def test_a_bot_gets_the_file_size_limit(report):
    assert report["file_size"] == [2 * MIB, 2 * MIB]


def test_without_limits_a_bot_has_no_memory_or_file_size_limit(pool):
    spec = python_bot("reports_sandbox", memory_mb=None, file_size_mb=None)
    record = pool.play(job(spec, python_bot("first_legal")))
    facts = sandbox_report(record.stderr[0])
    unlimited = [resource.RLIM_INFINITY, resource.RLIM_INFINITY]
    assert (facts["data"], facts["file_size"], facts["core"]) == (unlimited, unlimited, [0, 0])


def test_the_working_folder_is_removed_when_the_process_is_closed(pool):
    spec = python_bot("reports_sandbox")
    record = pool.play(job(spec, python_bot("first_legal")))
    folder = Path(sandbox_report(record.stderr[0])["cwd"])
    assert folder.is_dir()  # still warm
    pool.worker.warm.close()
    assert not folder.exists()


def test_closing_the_warm_pool_ends_every_bot_process_and_its_group(pool):
    pool.play(job(python_bot("first_legal"), command_bot("reports_sandbox.py")))
    pids = [p.pid for p in pool.processes]
    assert [running(pid) for pid in pids] == [True, True]
    pool.worker.warm.close()
    assert [(running(pid), group_running(pid)) for pid in pids] == [(False, False), (False, False)]


PARENT = """
import sys, time
from arena.core import protocol
from arena.core.botspec import BotSpec
from arena.sandbox.confinement import confined_argv
from arena.sandbox.process import BotProcess
spec = BotSpec("orphan", sys.argv[1], sys.argv[2])
process = BotProcess(confined_argv(spec), "orphan", folder=sys.argv[3])  # its working folder outlives it here
print(process.pid, flush=True)
time.sleep(60)
"""


@pytest.mark.parametrize("kind", ["python", "command"])
def test_a_bot_dies_when_the_process_that_started_it_is_killed(kind, tmp_path):
    spec = SPECS[kind]
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, spec.kind, spec.target, str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        bot = int(parent.stdout.readline())
        assert running(bot)
    finally:
        parent.kill()
        parent.wait()
    assert wait_until(lambda: not running(bot), timeout=5)


def test_describe_reports_the_docstring_games_and_parameters():
    spec = python_bot("takes_params")
    process = BotProcess(confined_argv(spec), spec.name)
    try:
        process.send(protocol.DESCRIBE)
        reply = protocol.parse_reply(process.receive(20), "description")
    finally:
        process.close()
    assert reply == {
        "type": "description",
        "description": "Plays the legal move at index `offset` (modulo their number); `offset` must be an int.",
        "games": ["tictactoe", "uttt"],
        "parameters": None,
    }


def test_a_command_bot_that_cannot_be_started_forfeits_by_crash(pool):
    spec = BotSpec("missing", "command", "/nonexistent/arena-test-bot --flag")
    record = pool.play(job(spec, python_bot("first_legal")))
    assert (record.termination, record.offender, record.winner) == (Termination.CRASH, 0, 1)
    assert record.detail == "exited with status 127"
    assert "arena sandbox: cannot run '/nonexistent/arena-test-bot'" in record.stderr[0]


def test_a_killed_process_group_takes_the_bots_children_with_it(tmp_path):
    # A bot that starts a helper process: closing the bot kills its whole group, helper included.
    script = tmp_path / "forks.sh"
    script.write_text("#!/bin/sh\nsleep 120 &\necho helper $! >&2\nwhile read -r line; do :; done\n")
    spec = BotSpec("forks", "command", f"sh {script}")
    process = BotProcess(confined_argv(spec), spec.name)
    try:
        assert wait_until(lambda: process.stderr.drain() or b"helper " in process.stderr.tail, timeout=5)
        helper = int(bytes(process.stderr.tail).split(b"helper ")[1].split()[0])
        assert running(helper)
    finally:
        process.close()
    assert wait_until(lambda: not running(helper), timeout=5)


def test_the_sandbox_says_what_it_enforced_in_the_first_games_stderr(pool):
    record = pool.play(job(python_bot("first_legal", memory_mb=300, file_size_mb=2), python_bot("seeded_random")))
    (line,) = [line for line in record.stderr[0].splitlines() if line.startswith(SANDBOX_LINE)]
    assert line.startswith("arena sandbox: memory 300 MB; files 2 MB; no core dumps; ")


@pytest.mark.parametrize("how", ["plain", "forked"])
def test_a_bot_that_fills_its_working_folder_forfeits_and_the_disk_is_spared(request, pool, how):
    # a bot on a season's ladder once filled the file system of its working folder, and every
    # later game (and the ladder, on every restart) failed
    start_bots(request, how)
    record = pool.play(job(python_bot("fills_its_folder", file_size_mb=1), python_bot("first_legal")))
    (enforced,) = [line for line in record.stderr[0].splitlines() if line.startswith(SANDBOX_LINE)]
    if "namespaces unavailable" in enforced or "working folder unbounded" in enforced:
        pytest.skip(f"this system gives the sandbox no folder of its own: {enforced}")
    assert "working folder 4 MB" in enforced
    assert (record.termination, record.offender) == (Termination.CRASH, 0), record.detail
    assert "No space left on device after" in record.detail
    assert int(record.detail.split(" after ")[1].split()[0]) <= 4


@pytest.fixture(params=["plain", "forked"])
def confinement(request, pool) -> tuple[dict, str]:
    """What the probes_confinement bot could do (started plain or forked), and the sandbox's
    own line about itself."""
    start_bots(request, request.param)
    record = pool.play(job(python_bot("probes_confinement"), python_bot("first_legal")))
    assert first_started(pool) == request.param
    lines = record.stderr[0].splitlines()
    (report,) = [json.loads(line.removeprefix("confinement ")) for line in lines if line.startswith("confinement ")]
    (enforced,) = [line for line in lines if line.startswith(SANDBOX_LINE)]
    return report, enforced


def test_a_bot_may_write_in_its_working_folder(confinement):
    report, _ = confinement
    assert report["write_here"] == "ok"


def test_a_bot_cannot_read_another_bots_file(confinement):
    report, enforced = confinement
    if "landlock unavailable" in enforced:
        pytest.skip("this kernel has no Landlock: " + enforced)
    assert report["read_sibling"] == "EACCES"


def test_a_bot_cannot_write_outside_its_working_folder(confinement):
    report, enforced = confinement
    if "landlock unavailable" in enforced:
        pytest.skip("this kernel has no Landlock: " + enforced)
    assert report["write_beside"] == "EACCES"


def test_a_bot_cannot_open_a_tcp_connection(confinement):
    report, enforced = confinement
    if "no network" not in enforced and "no TCP" not in enforced:
        pytest.skip("neither a network namespace nor Landlock TCP rules here: " + enforced)
    assert report["connect"] in ("EACCES", "ENETUNREACH")


def needs(enforced: str, what: str) -> None:
    if what not in enforced:
        pytest.skip(f"this system does not give the sandbox {what!r}: {enforced}")


@pytest.mark.parametrize("device", ["read_tty", "read_console", "read_ptmx", "read_disk"])
def test_a_bot_cannot_read_a_terminal_the_console_or_a_disk(confinement, device):
    report, enforced = confinement
    needs(enforced, "landlock ABI")
    assert report[device] in ("EACCES", "ENOENT", "ENXIO")
    assert report[device] != "ok"


def test_a_bot_can_read_the_devices_a_program_needs_but_not_list_dev(confinement):
    report, enforced = confinement
    needs(enforced, "landlock ABI")
    assert (report["read_urandom"], report["list_dev"]) == ("ok", "EACCES")


@pytest.mark.parametrize("family", ["unix_socket", "netlink_socket", "packet_socket", "vsock_socket"])
def test_a_bot_cannot_make_a_socket_of_a_family_it_does_not_need(confinement, family):
    report, enforced = confinement
    needs(enforced, "seccomp")
    assert report[family] == "EACCES"


def test_a_bot_may_make_an_internet_socket_that_reaches_nothing(confinement):
    report, enforced = confinement
    needs(enforced, "seccomp")
    assert report["inet_socket"] == "ok"


@pytest.mark.parametrize("escape", ["user_namespace", "keyring"])
def test_a_bot_cannot_make_a_namespace_or_use_the_keyring(confinement, escape):
    report, enforced = confinement
    needs(enforced, "seccomp")
    assert report[escape] == "EACCES"


def own_segments() -> set[tuple[str, str]]:
    """(key, id) of the System V shared memory segments our user made (another user's, such
    as a PostgreSQL server another test started, come and go as they will)."""
    lines = Path("/proc/sysvipc/shm").read_text().splitlines()[1:]
    return {(fields[0], fields[1]) for fields in map(str.split, lines) if fields[9] == str(os.getuid())}


def test_system_v_shared_memory_is_no_channel_between_two_bots_and_goes_with_them(pool):
    before = own_segments()
    bot = python_bot("shares_sysv_memory")
    record = pool.play(job(bot, python_bot("shares_sysv_memory", "other-team")))
    enforced = next(line for line in record.stderr[0].splitlines() if line.startswith(SANDBOX_LINE))
    needs(enforced, "own IPC")
    seen = [
        json.loads(line.removeprefix("sysv "))
        for tail in record.stderr
        for line in tail.splitlines()
        if line.startswith("sysv ")
    ]
    assert seen == [{"created": True, "errno": 0}, {"found": False, "message": None}]
    assert own_segments() == before


def test_shared_memory_over_the_memory_limit_is_a_resource_limit_or_refused(isolation, pool):
    from arena.sandbox.cgroups import support

    record = pool.play(
        job(python_bot("hoards_shared_memory", memory_mb=200, params={"mb": 300}), python_bot("first_legal"), move=10.0)
    )
    assert (record.offender, record.winner) == (0, 1)
    if isolation == "cgroups" and support().memory:  # counted with the rest of its memory
        assert (record.termination, record.detail) == (
            Termination.RESOURCE_LIMIT,
            "memory limit of 200 MB exceeded by its processes together (shared memory included): killed by the kernel",
        )
    else:  # nothing would count it: refused
        assert record.termination is Termination.CRASH
        assert record.detail == "PermissionError: [Errno 13] Permission denied"


def test_a_bot_sees_no_other_process_but_its_own_entries_in_proc(confinement):
    # a submitted bot once read another team's season token from the command line of the
    # `arena season submit` that was running beside it
    report, enforced = confinement
    if "namespaces unavailable" in enforced or "working folder unbounded" in enforced:
        pytest.skip(f"this system gives the sandbox no mounts of its own: {enforced}")
    assert "no other process in /proc" in enforced
    assert (report["other_processes"], report["read_parents_command_line"]) == (0, "ENOENT")
    assert report["read_own_proc"] == "ok"

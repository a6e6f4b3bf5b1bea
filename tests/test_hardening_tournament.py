"""Misbehaving bots in a real tournament (issue 7): ``arena run`` of a tournament where every
misbehaving fixture bot plays two games (one from each seat) against a healthy bot of its own.
Each game is stored with the forfeit's termination, offender and detail, the healthy bot is
credited with the win, the tournament carries on to its end, the database is consistent, and
no process is left behind.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest

from arena.sandbox import landlock
from arena.store.database import open_store
from arena.store.writes import integrity_problems
from tests.fixtures.harnesskit import BOTS, COMMANDS, arena, late, processes_mentioning, wait_until

pytestmark = pytest.mark.slow

HEALTHY = "{path: bots/first_legal.py}"
SLOW = "{path: bots/slow_first_legal.py}"


def command(script: str, *args: str) -> str:
    """A command bot of tests/fixtures/commands, as YAML (a JSON string is a YAML string)."""
    words = " ".join([sys.executable, f"commands/{script}", *(shlex.quote(arg) for arg in args)])
    return f"{{command: {json.dumps(words)}}}"


#: team -> (its bot, its opponent's bot, the forfeit's termination, its detail as a regex)
TEAMS = {
    "hangs-in-move": ("{path: bots/hangs_in_move.py}", HEALTHY, "timeout", late(0.5)),
    "hangs-importing": ("{path: bots/hangs_at_import.py}", HEALTHY, "timeout", late(2.0, 0.0, after=" during startup")),
    "hangs-in-make-bot": (
        "{path: bots/hangs_in_make_bot.py}",
        HEALTHY,
        "timeout",
        late(2.0, 0.0, after=" during startup"),
    ),
    "slow-to-start": ("{path: bots/slow_to_start.py}", HEALTHY, "timeout", late(2.0, 0.0, after=" during startup")),
    "just-late": ("{path: bots/answers_just_late.py}", HEALTHY, "timeout", late(0.5)),
    "raises": ("{path: bots/raises_in_move.py}", HEALTHY, "crash", r"RuntimeError: deliberate failure in move"),
    "sys-exit": ("{path: bots/exits_in_move.py}", HEALTHY, "crash", r"exited with status 3"),
    "os-exit": ("{path: bots/os_exit_in_move.py}", HEALTHY, "crash", r"exited with status 7"),
    "segfault": ("{path: bots/segfaults.py}", HEALTHY, "crash", r"killed by SIGSEGV"),
    "signal": ("{path: bots/kills_itself.py}", HEALTHY, "crash", r"killed by SIGTERM"),
    "illegal": ("{path: bots/plays_occupied_cell.py}", HEALTHY, "illegal_move", r"0 is illegal in tictactoe: .*"),
    "other-game": (
        command("replies_with.py", '{"type":"move","move":"e6"}'),
        HEALTHY,
        "illegal_move",
        r"'e6' is not a tictactoe move; .*",
    ),
    "wrong-type": (
        command("replies_with.py", '{"type":"ready"}'),
        HEALTHY,
        "protocol_error",
        r"expected a 'move' reply, got .*",
    ),
    "not-json": (command("not_json.py"), HEALTHY, "protocol_error", r"reply is not JSON: 'move 4'"),
    "oversized": (command("oversized_line.py"), HEALTHY, "protocol_error", r"sent a line longer than 65536 bytes"),
    "floods-stdout": (command("floods_stdout.py"), HEALTHY, "protocol_error", r"reply is not JSON: 'flood z+\.\.\.'"),
    "hoards-memory": ("{path: bots/hoards_memory.py}", HEALTHY, "resource_limit", r"MemoryError: .*"),
    "big-file": (
        "{path: bots/writes_big_file.py}",
        HEALTHY,
        "resource_limit",
        r"file size limit exceeded \(SIGXFSZ\)|OSError: \[Errno 27\] File too large",
    ),
    "leaves-child": (
        "{path: bots/leaves_child_running.py}",
        HEALTHY,
        "resource_limit",
        r"left a process running after its answer: pid \d+ \(sleep\)",
    ),
    "detaches": (
        "{path: bots/detaches_grandchild.py}",
        HEALTHY,
        "resource_limit",
        r"left a (process running that it detached from its process group|process running after its "
        r"answer): pid \d+ \(python[\w.]*\)",
    ),
    "threads": (
        "{path: bots/threads_after_answer.py}",
        SLOW,
        "resource_limit",
        r"used \d+ ms of CPU while not its turn, in 0\.3\d\d s where \d\d ms are allowed "
        r"\(threads or processes left running after its answer\)",
    ),
}
if landlock.abi_version() > 0:
    TEAMS |= {
        "writes-outside": (
            "{path: bots/writes_outside.py}",
            HEALTHY,
            "crash",
            r"PermissionError: \[Errno 13\] Permission denied: '.*/arena-escape-\d+\.txt'",
        ),
        "reads-other-bot": (
            "{path: bots/reads_file.py, params: {path: BOTS/first_legal.py}}",
            HEALTHY,
            "crash",
            r"PermissionError: \[Errno 13\] Permission denied: '.*/bots/first_legal\.py'",
        ),
        "reads-database": (
            "{path: bots/reads_file.py, params: {path: DATABASE}}",
            HEALTHY,
            "crash",
            r"PermissionError: \[Errno 13\] Permission denied: '.*/arena\.sqlite3'",
        ),
        "connects": ("{path: bots/opens_connection.py}", HEALTHY, "crash", r"PermissionError: \[Errno 13\] .*"),
    }


def tournament_file(folder: Path) -> str:
    """Every misbehaving team first, then its opponent: ``order`` seeding deals team k and
    opponent k into pool k."""
    lines = [
        "name: misbehaving",
        "game: tictactoe",
        "seed: 7",
        "time: {move: 0.5, grace: 0.05, startup: 2.0}",
        "limits: {memory_mb: 200, file_size_mb: 1}",
        "workers: 2",
        "bots:",
    ]
    for team, (bot, _, _, _) in TEAMS.items():
        bot = bot.replace("BOTS", str(folder / "bots")).replace("DATABASE", str(folder / "arena.sqlite3"))
        lines.append(f"  {team}: {bot}")
    lines += [f"  {team}-opponent: {opponent}" for team, (_, opponent, _, _) in TEAMS.items()]
    lines += ["stages:", f"  - {{pools: {len(TEAMS)}, seeding: order, games_per_pair: 2}}"]
    return "\n".join(lines) + "\n"


class Played:
    """The tournament played once, with the bots' files in folders of their own (bots/,
    commands/), apart from the database."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        shutil.copytree(BOTS, folder / "bots")
        shutil.copytree(COMMANDS, folder / "commands")
        (folder / "t.yaml").write_text(tournament_file(folder))
        self.database = folder / "arena.sqlite3"
        self.result = arena("run", "t.yaml", "--db", f"sqlite:///{self.database}", "-q", cwd=folder, timeout=240)
        wait_until(lambda: not processes_mentioning(str(folder)), timeout=10)
        self.survivors = processes_mentioning(str(folder))
        with sqlite3.connect(self.database) as connection:
            self.games = connection.execute(
                "SELECT a.team, b.team, g.status, g.winner, g.termination, g.offender, g.detail "
                "FROM games g "
                "JOIN game_seats s0 ON s0.game_id = g.id AND s0.seat = 0 JOIN entries a ON a.id = s0.entry_id "
                "JOIN game_seats s1 ON s1.game_id = g.id AND s1.seat = 1 "
                "JOIN entries b ON b.id = s1.entry_id ORDER BY g.id"
            ).fetchall()
            self.status = connection.execute("SELECT status FROM tournaments").fetchone()[0]
        with open_store(f"sqlite:///{self.database}").begin() as session:
            self.problems = integrity_problems(session)
        self.log = (folder / "misbehaving.log").read_text()


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Played:
    return Played(tmp_path_factory.mktemp("misbehaving"))


def test_the_tournament_carries_on_to_its_end(played):
    assert played.result.returncode == 0, played.result.stderr
    assert (played.status, len(played.games)) == ("finished", 2 * len(TEAMS))
    assert {game[2] for game in played.games} == {"finished"}


@pytest.mark.parametrize("team", TEAMS)
def test_each_misbehaving_team_forfeits_both_its_games_with_the_detail_stored(played, team):
    _, _, termination, detail = TEAMS[team]
    games = [g for g in played.games if team in (g[0], g[1])]
    assert len(games) == 2
    for first, _second, _, winner, stored_termination, offender, stored_detail in games:
        seat = 0 if first == team else 1
        assert (stored_termination, offender, winner) == (termination, seat, 1 - seat), stored_detail
        assert re.fullmatch(detail, stored_detail), stored_detail


def test_no_process_is_left_behind(played):
    assert played.survivors == []


def test_the_database_is_consistent(played):
    assert played.problems == []


def test_the_log_names_each_forfeit(played):
    forfeits = re.findall(r"game \d+: seat \d forfeits \((\w+)\)", played.log)
    assert len(forfeits) == 2 * len(TEAMS)

"""No bot code runs outside the sandbox, in any command, for any kind of bot.

Every bot of tests/fixtures/outside (a package of several modules, a bot file, a command bot,
a 2019 course file) and an interpreter named for a bot (a script that then runs Python) append
a line to the file named by ``ARENA_TEST_MARKER`` when they run with the harness's environment;
a sandboxed bot's scrubbed environment never has it. Each command runs as a user would run it
(the real ``arena``, with that variable set), and afterwards the file must not exist. The same
games prove that a bot of several modules in the tournament's folder runs in the sandbox.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.harnesskit import FIXTURES, WIDE

pytestmark = pytest.mark.slow

FAKE_PYTHON = f"""#!/bin/sh
[ -n "$ARENA_TEST_MARKER" ] && echo "the interpreter ran outside the sandbox" >> "$ARENA_TEST_MARKER"
exec {sys.executable} "$@"
"""
TOURNAMENT = f"""\
name: outside
game: tictactoe
seed: 3
time: {{move: 2.0, startup: 30}}
bots:
  package: {{module: evilpkg.bot}}
  file: {{path: evil_file.py}}
  command: {{command: "{sys.executable} evil_command.py"}}
  interpreter: {{path: evil_file.py, python: ./fakepython}}
stages: [{{games_per_pair: 1}}]
"""
COURSE = """\
name: outside-course
game: xtreme
seed: 4
time: {move: 2.0, startup: 30}
bots:
  team9: {course: team9.py, python: ./fakepython}
  file: {path: evil_file.py}
stages: [{games_per_pair: 1}]
"""
#: (name, arguments, the standard input): every command that touches bots, in the order a user would
COMMANDS = [
    ("check", ["run", "--check", "t.yaml"], None),
    ("check a course bot", ["run", "--check", "course.yaml"], None),
    ("run", ["run", "t.yaml"], None),
    ("resume", ["run", "t.yaml"], None),
    ("run a course bot", ["run", "course.yaml"], None),
    ("play a package", ["play", "tictactoe", "--bot", "evilpkg.bot"], "quit\n"),
    ("play a file", ["play", "tictactoe", "--bot", "evil_file.py"], "4\n0\nquit\n"),
    ("register a package", ["register", "evilpkg.bot", "--name", "pkg"], None),
    ("register a file", ["register", "evil_file.py"], None),
    ("register a command", ["register", "--command", f"{sys.executable} evil_command.py", "--name", "cmd"], None),
    ("register a course file", ["register", "team9.py", "--interface", "course2019", "--python", "./fakepython"], None),
    (
        "register with an interpreter",
        ["register", "evil_file.py", "--name", "interp", "--python", "./fakepython"],
        None,
    ),
    ("report", ["report", "outside"], None),
    ("replay", ["replay", "1"], None),
    ("games", ["games"], None),
    ("bots", ["bots"], None),
    ("leaderboard", ["leaderboard", "outside"], None),
    ("tournaments", ["tournaments"], None),
]


class Ran:
    """Each command run in a folder holding the bots, with what the marker file held after it."""

    def __init__(self, folder: Path) -> None:
        shutil.copytree(FIXTURES / "outside", folder, dirs_exist_ok=True)
        fake = folder / "fakepython"
        fake.write_text(FAKE_PYTHON)
        fake.chmod(0o755)
        (folder / "t.yaml").write_text(TOURNAMENT)
        (folder / "course.yaml").write_text(COURSE)
        self.folder = folder
        self.marker = folder / "MARKER"
        env = {**os.environ, **WIDE, "ARENA_TEST_MARKER": str(self.marker), "ARENA_DB": f"sqlite:///{folder / 'a.db'}"}
        self.results: dict[str, subprocess.CompletedProcess] = {}
        self.marked: dict[str, str] = {}
        for name, args, stdin in COMMANDS:
            self.results[name] = subprocess.run(
                [shutil.which("arena") or "arena", *args],
                cwd=folder,
                env=env,
                input=stdin or "",
                capture_output=True,
                text=True,
                timeout=300,
            )
            self.marked[name] = self.marker.read_text() if self.marker.exists() else ""
            self.marker.unlink(missing_ok=True)


@pytest.fixture(scope="module")
def ran(tmp_path_factory) -> Ran:
    return Ran(tmp_path_factory.mktemp("outside"))


@pytest.mark.parametrize("command", [name for name, _, _ in COMMANDS])
def test_no_bot_code_runs_outside_the_sandbox(ran, command):
    result = ran.results[command]
    assert result.returncode == 0, result.stderr
    assert ran.marked[command] == ""


def test_the_bots_of_every_kind_played_their_games_to_the_end(ran):
    import sqlite3

    with sqlite3.connect(ran.folder / "a.db") as connection:
        endings = connection.execute(
            "SELECT t.name, g.termination, g.detail FROM games g JOIN tournaments t ON t.id = g.tournament_id "
            "WHERE t.name LIKE 'outside%'"
        ).fetchall()
    assert len(endings) == 6 + 1
    assert {(name, ending) for name, ending, _ in endings} == {("outside", "normal"), ("outside-course", "normal")}

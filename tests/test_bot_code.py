"""A bot's code: found and hashed without running it, run from a bundle of its own, under the
interpreter named for it. Bots of several modules (a package, or a module beside the tournament
file) and interpreters of a virtual environment (the way to give a bot numpy) run in the sandbox;
the bundle holds the bot's code and nothing beside it."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from arena.entrants.kinds import BotKindError, Code, PythonBot, find_module, package_files
from tests.fixtures.harnesskit import arena

pytestmark = pytest.mark.slow

FIRST_LEGAL = "GAMES = ('tictactoe',)\n\ndef move(state, clock):\n    return state.legal_moves()[0]\n"


def run_tournament(folder: Path, bots: str, game: str = "tictactoe") -> list[tuple]:
    """Run a one-pool tournament of ``bots`` (YAML lines) in ``folder``; each game's ending:
    its termination, the offending team (or ``None``) and the detail."""
    (folder / "t.yaml").write_text(
        f"name: t\ngame: {game}\nseed: 1\ntime: {{move: 2.0, startup: 30}}\nbots:\n{bots}"
        "stages: [{games_per_pair: 1}]\n"
    )
    result = arena("run", "t.yaml", "--db", f"sqlite:///{folder / 'a.db'}", "-q", cwd=folder, timeout=300)
    assert result.returncode == 0, result.stderr
    with sqlite3.connect(folder / "a.db") as connection:
        return connection.execute(
            "SELECT g.termination, CASE g.offender WHEN 0 THEN a.team WHEN 1 THEN b.team END, g.detail FROM games g "
            "JOIN game_seats s0 ON s0.game_id = g.id AND s0.seat = 0 JOIN entries a ON a.id = s0.entry_id "
            "JOIN game_seats s1 ON s1.game_id = g.id AND s1.seat = 1 JOIN entries b ON b.id = s1.entry_id ORDER BY g.id"
        ).fetchall()


def test_a_module_beside_the_tournament_file_plays(tmp_path):
    (tmp_path / "mine.py").write_text(FIRST_LEGAL)
    endings = run_tournament(tmp_path, "  mine: {module: mine}\n  other: {module: bots.randombot}\n")
    assert [ending[0] for ending in endings] == ["normal"]


def test_a_package_of_several_modules_plays_and_reads_only_its_own_files(tmp_path):
    package = tmp_path / "team"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "helper.py").write_text("def pick(moves):\n    return moves[0]\n")
    secret = tmp_path / "other-team.py"
    secret.write_text("SECRET = 1\n")
    (package / "bot.py").write_text(
        "from team.helper import pick\n"
        "GAMES = ('tictactoe',)\n"
        f"def move(state, clock):\n    open({str(secret)!r}).read()\n    return pick(state.legal_moves())\n"
    )
    endings = run_tournament(tmp_path, "  team: {module: team.bot}\n  other: {module: bots.randombot}\n")
    ((termination, offender, detail),) = endings
    assert (termination, offender) == ("crash", "team")
    assert "PermissionError" in detail  # it got as far as its own move: its helper imported, the file next door not


def test_a_link_in_a_package_to_a_file_outside_it_is_not_part_of_its_code(tmp_path):
    package = tmp_path / "linked"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (tmp_path / "arena.sqlite3").write_text("the database")
    os.symlink(tmp_path / "arena.sqlite3", package / "data.db")
    assert package_files(package) == (package / "__init__.py",)


def test_finding_a_module_imports_nothing(tmp_path):
    package = tmp_path / "loud"
    package.mkdir()
    (package / "__init__.py").write_text("raise SystemExit('imported')\n")
    (package / "bot.py").write_text(FIRST_LEGAL)
    assert find_module("loud.bot", [str(tmp_path)]) == package / "bot.py"
    code = PythonBot().code("loud.bot", tmp_path)
    assert (code.root, code.bundle, code.files) == (package, True, (package / "__init__.py", package / "bot.py"))
    assert "loud" not in sys.modules


def test_a_package_too_large_to_be_code_is_refused(tmp_path, monkeypatch):
    import arena.entrants.kinds

    monkeypatch.setattr(arena.entrants.kinds, "MAX_CODE_BYTES", 1000)
    package = tmp_path / "big"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "weights.bin").write_bytes(b"\0" * 2000)
    with pytest.raises(BotKindError) as error:
        package_files(package)
    assert "too large to be a bot's code" in str(error.value)


def test_the_code_of_a_package_is_hashed_by_its_files_and_their_names(tmp_path):
    package = tmp_path / "p"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("A = 1\n")
    first = Code(package, package_files(package)).digest()
    (package / "a.py").rename(package / "b.py")
    assert Code(package, package_files(package)).digest() != first


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    """A virtual environment with a package of its own (``vendored``), as a bot's numpy would be."""
    folder = tmp_path_factory.mktemp("venv") / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=120)
    (site,) = folder.glob("lib/python*/site-packages")
    (site / "vendored.py").write_text("CELL = 4\n")
    return folder


def test_a_bot_run_by_a_virtual_environments_interpreter_uses_its_packages(tmp_path, venv):
    (tmp_path / "uses_vendored.py").write_text(
        "import vendored\nGAMES = ('tictactoe',)\n"
        "def move(state, clock):\n    moves = state.legal_moves()\n"
        "    return vendored.CELL if vendored.CELL in moves else moves[0]\n"
    )
    endings = run_tournament(
        tmp_path, f"  v: {{path: uses_vendored.py, python: {venv}/bin/python}}\n  other: {{module: bots.randombot}}\n"
    )
    assert [ending[0] for ending in endings] == ["normal"]


def test_a_course_bot_run_by_a_virtual_environments_interpreter_uses_its_packages(tmp_path, venv):
    (tmp_path / "team5.py").write_text(
        "import vendored\n\nclass Team5:\n    def move(self, board, old_move, flag):\n"
        "        return board.find_valid_move_cells(old_move)[vendored.CELL - 4]\n"
    )
    endings = run_tournament(
        tmp_path,
        f"  team5: {{course: team5.py, python: {venv}/bin/python}}\n  other: {{module: bots.randombot}}\n",
        game="xtreme",
    )
    assert [ending[0] for ending in endings] == ["normal"]

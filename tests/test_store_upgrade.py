"""A database made by the version before a game's seats had a table of their own (schema 7,
two columns a seat) is brought up to date with nothing lost, and reads exactly as it did.

``fixtures/databases/before_seats.sql`` is such a database (a three-team tic-tac-toe league
played by that version), and ``before_seats/*.txt`` what that version's commands printed of it.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from arena.store.database import SCHEMA_VERSION, open_store
from tests.fixtures.harnesskit import FIXTURES

OLD = FIXTURES / "databases"
COMMANDS = {
    "standings_t.txt": ["standings", "before-seats"],
    "leaderboard_t.txt": ["leaderboard", "before-seats"],
    "leaderboard_t_elo.txt": ["leaderboard", "before-seats", "--rating", "elo"],
    "games_--tournament_t.txt": ["games", "--tournament", "before-seats"],
    "games_show_3.txt": ["games", "show", "3"],
    "replay_3.txt": ["replay", "3"],
}


@pytest.fixture(scope="module")
def upgraded(tmp_path_factory) -> Path:
    """The old database, opened for writing once (which upgrades it)."""
    path = tmp_path_factory.mktemp("old") / "old.sqlite3"
    with closing(sqlite3.connect(path)) as connection:
        connection.executescript((OLD / "before_seats.sql").read_text())
    open_store(f"sqlite:///{path}")
    return path


def test_an_old_database_is_upgraded_with_every_seat_in_the_seats_table(upgraded):
    with closing(sqlite3.connect(upgraded)) as connection:
        assert connection.execute("SELECT version FROM schema_version").fetchone() == (SCHEMA_VERSION,)
        assert connection.execute("PRAGMA foreign_key_check").fetchall() == []
        columns = {row[1] for row in connection.execute("PRAGMA table_info(games)")}
        assert not columns & {"seat0", "seat1", "points0", "points1", "stderr0", "stderr1"}
        assert connection.execute("SELECT count(*), sum(players) FROM games").fetchone() == (6, 12)
        seats = connection.execute("SELECT seat, count(*), count(stderr) FROM game_seats GROUP BY seat").fetchall()
        assert seats == [(0, 6, 2), (1, 6, 4)]  # (the stderr tails the games stored: two and four)
        old = sqlite3.connect(":memory:")
        old.executescript((OLD / "before_seats.sql").read_text())
        before = old.execute("SELECT id, seat0, seat1, stderr0, stderr1 FROM games ORDER BY id").fetchall()
        after = connection.execute(
            "SELECT g.id, a.entry_id, b.entry_id, a.stderr, b.stderr FROM games g "
            "JOIN game_seats a ON a.game_id = g.id AND a.seat = 0 JOIN game_seats b ON b.game_id = g.id AND b.seat = 1 "
            "ORDER BY g.id"
        ).fetchall()
        assert after == before
        assert (
            connection.execute("SELECT count(*) FROM moves").fetchone()
            == old.execute("SELECT count(*) FROM moves").fetchone()
        )


@pytest.mark.parametrize("printed", sorted(COMMANDS))
def test_an_upgraded_database_reads_as_the_version_that_made_it_read_it(upgraded, printed):
    done = subprocess.run(
        [sys.executable, "-m", "arena", *COMMANDS[printed], "--db", f"sqlite:///{upgraded}"],
        env={**os.environ, "COLUMNS": "200", "TZ": "UTC"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout
    assert done.stdout == (OLD / "before_seats" / printed).read_text()

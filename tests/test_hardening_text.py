"""Text from bots and files is hostile: a lone surrogate (``json.loads`` makes one of the escape
``"\\udcff"``) failed every write of it to SQLite, stopping a tournament for good. Text is
cleaned where it enters (the protocol reader), and the store cleans every text it writes as a
last line of defence (``arena.text.clean``)."""

from __future__ import annotations

import sqlite3
import sys

import pytest

from arena.store import Bot, open_store
from tests.fixtures.harnesskit import BOTS, COMMANDS, arena

ESCAPES = "\x1b[2J\x1b]0;title\x07"


# ---------------------------------------------------------------- the store


def test_the_store_writes_any_text_cleaned(tmp_path):
    sessions = open_store(f"sqlite:///{tmp_path / 'a.db'}")
    with sessions.begin() as session:
        session.add(Bot(name="b\udcff", kind="python", target="t\0", description="\ud800 " + ESCAPES,
                        games=["g\udcff"]))
    with sessions.begin() as session:
        bot = session.query(Bot).one()
        stored = (bot.name, bot.target, bot.description, bot.games)
    assert stored == ("b\ufffd", "t", "\ufffd " + ESCAPES, ["g\ufffd"])


def test_a_query_for_text_with_a_lone_surrogate_is_answered(tmp_path):
    sessions = open_store(f"sqlite:///{tmp_path / 'a.db'}")
    with sessions.begin() as session:
        session.add(Bot(name="x\ufffd", kind="python", target="t"))
    with sessions.begin() as session:
        assert [bot.name for bot in session.query(Bot).filter(Bot.name == "x\udcff")] == ["x\ufffd"]


# ---------------------------------------------------------------- a whole tournament


TOURNAMENT = f"""\
name: bad-text
game: tictactoe
time: {{move: 5.0}}
workers: 1
bots:
  good: {{path: {BOTS / 'first_legal.py'}}}
  bad: {{command: {sys.executable} {COMMANDS / 'errs_with_bad_text.py'}}}
stages:
  - {{games_per_pair: 1}}
"""


@pytest.fixture(scope="module")
def bad_text_run(tmp_path_factory):
    """``bad-text`` run, then run again (a resume with nothing left), in a folder of its own."""
    folder = tmp_path_factory.mktemp("bad-text")
    (folder / "t.yaml").write_text(TOURNAMENT)
    url = f"sqlite:///{folder / 'arena.sqlite3'}"
    first = arena("run", "t.yaml", "--db", url, "-q", cwd=folder)
    again = arena("run", "t.yaml", "--db", url, "-q", cwd=folder)
    games = arena("games", "--db", url, cwd=folder)
    return folder, first, again, games


def test_a_bot_error_message_with_a_lone_surrogate_is_stored_and_the_game_finished(bad_text_run):
    folder, first, _, _ = bad_text_run
    assert (first.returncode, first.stderr) == (0, "")
    with sqlite3.connect(folder / "arena.sqlite3") as connection:
        stored = connection.execute("SELECT status, termination, offender, detail FROM games").fetchall()
    assert stored == [("finished", "crash", 1, "\ufffd bad text " + ESCAPES)]


def test_a_tournament_with_such_a_message_resumes(bad_text_run):
    _, _, again, _ = bad_text_run
    assert (again.returncode, again.stderr) == (0, "")


def test_the_games_listing_of_such_a_tournament_works(bad_text_run):
    _, _, _, games = bad_text_run
    assert games.returncode == 0, games.stderr
    assert "crash (bad)" in games.stdout

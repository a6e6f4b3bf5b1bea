"""The read side gives what it always gave: the leaderboard, the Elo leaderboard, a stage's
standings, the final standings, the crosstable and the ratings of the course-sized tournament
(``synthesize``: 72 teams, 790 games) are those the version before ratings were kept and games
read once printed (``fixtures/course_outputs/``, written by that version), to the last digit.

And ratings kept with a tournament (``KeptRatings``) give what a replay of every game gives:
gone on from after more games are stored, and left aside once a game they rated is gone.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import asdict

import pytest
from sqlalchemy import delete, func, select, update

from arena.contests.config import TournamentDef
from arena.contests.game_sums import keep_for_reads
from arena.results.lookup import find_tournament
from arena.results.tournament_results import load_results
from arena.store.database import open_store
from arena.store.models import GameRow, GameSeat, KeptRatings, MoveRow, Tournament
from tests.builders import synthesize
from tests.fixtures.harnesskit import FIXTURES

EXPECTED = FIXTURES / "course_outputs"
COMMANDS = {
    "leaderboard.json": ["leaderboard", "--json"],
    "leaderboard_elo.json": ["leaderboard", "--rating", "elo", "--json"],
    "standings.json": ["standings", "--json"],
    "leaderboard_stage.json": ["leaderboard", "--stage", "2", "--json"],
}


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> tuple[str, str]:
    url = f"sqlite:///{tmp_path_factory.mktemp('course') / 'course.sqlite3'}"
    return url, synthesize(url)


@pytest.mark.parametrize("file", sorted(COMMANDS))
def test_the_read_commands_print_what_they_printed_before(course, file):
    url, name = course
    command, *options = COMMANDS[file]
    done = subprocess.run(
        [sys.executable, "-m", "arena", command, name, *options, "--db", url],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == json.loads((EXPECTED / file).read_text())


def test_the_crosstable_and_every_rating_history_are_what_they_were(course):
    url, name = course
    with open_store(url, read_only=True)() as session:
        found = load_results(session, find_tournament(session, name))
        cross = {f"{a} | {b}": asdict(cell) for (a, b), cell in sorted(found.crosstable.items())}
        assert cross == json.loads((EXPECTED / "crosstable.json").read_text())
        ratings = {t: [h.mu, h.sigma, [list(a) for a in h.after[-5:]]] for t, h in sorted(found.ratings.items())}
        assert ratings == json.loads((EXPECTED / "ratings.json").read_text())
        assert {t: (h.mu, h.sigma) for t, h in found.current.items()} == {
            t: (h.mu, h.sigma) for t, h in found.ratings.items()
        }


def test_kept_ratings_go_on_over_later_games_and_are_left_aside_once_a_game_they_rated_is_gone(tmp_path):
    url = f"sqlite:///{tmp_path / 'league.sqlite3'}"
    name = synthesize(url, teams=8, game="tictactoe", stages=[{"name": "league", "games_per_pair": 4}])
    sessions = open_store(url)

    def read() -> tuple[dict, dict]:
        with sessions() as session:
            found = load_results(session, find_tournament(session, name))
            now = {t: (h.mu, h.sigma) for t, h in found.current.items()}
            return now, {t: (h.mu, h.sigma) for t, h in found.ratings.items()}

    with sessions() as session:
        kept = session.scalars(select(KeptRatings)).one()
        last = session.scalar(select(func.max(GameRow.id)))
        assert (kept.through, kept.rated) == (last, 112) and len(kept.teams) == 8
    current, replayed = read()
    assert current == replayed
    with sessions.begin() as session:  # ratings kept as of game 60: the games after it rated on top
        tournament = session.scalars(select(Tournament)).one()
        session.execute(update(GameRow).where(GameRow.id > 60).values(status="pending"))
        keep_for_reads(session, tournament, TournamentDef.model_validate(tournament.config))
        session.execute(update(GameRow).where(GameRow.id > 60).values(status="finished"))
    with sessions() as session:
        assert session.scalars(select(KeptRatings.through)).one() == 60
    assert read() == (current, replayed)
    with sessions.begin() as session:  # (they are what a read starts from: a kept rating changed shows)
        row = session.scalars(select(KeptRatings)).one()
        first = sorted(row.teams)[0]
        row.teams = {**row.teams, first: [1 / 5.0**2, 30.0 / 5.0**2]}  # mu 30, sigma 5
    assert read()[0] != current
    with sessions.begin() as session:
        tournament = session.scalars(select(Tournament)).one()
        session.execute(delete(KeptRatings))
        keep_for_reads(session, tournament, TournamentDef.model_validate(tournament.config))
    with sessions.begin() as session:  # a game the kept ratings rated is gone: every game rated again
        for table in (MoveRow, GameSeat):
            session.execute(delete(table).where(table.game_id == 7))
        session.execute(delete(GameRow).where(GameRow.id == 7))
    after, replayed_after = read()
    assert after == replayed_after != replayed

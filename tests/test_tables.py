"""Tables of a game of more than two seats: every table of a pool (``round_robin_tables``), or
rounds of tables drawn for a field too large for every table (``drawn_tables``,
``table_rounds``)."""

from __future__ import annotations

import math
import random
import shutil
import sqlite3
from collections import Counter
from contextlib import closing
from itertools import combinations

import pytest

from arena.contests.config import parse_config
from arena.errors import ConfigError
from arena.formats.schedule import drawn_tables, round_robin_tables
from tests.fixtures.harnesskit import REPO, TournamentFolder


def test_every_table_of_a_pool_plays_and_with_as_many_games_as_seats_every_team_plays_every_seat_alike():
    tables = round_robin_tables(6, 3, 3)
    assert len(tables) == math.comb(6, 3) * 3
    assert Counter(frozenset(t.seats) for t in tables) == {frozenset(s): 3 for s in combinations(range(6), 3)}
    seats = Counter((team, seat) for t in tables for seat, team in enumerate(t.seats))
    assert set(seats.values()) == {math.comb(5, 2)}
    for number in {t.round for t in tables}:  # no team twice in a round
        playing = [team for t in tables if t.round == number for team in t.seats]
        assert len(playing) == len(set(playing))


@pytest.mark.parametrize(("teams", "seats", "rounds"), [(10, 3, 12), (9, 3, 5), (14, 4, 7)])
def test_drawn_tables_seat_every_team_as_often_as_the_rounds_allow(teams, seats, rounds):
    tables = drawn_tables(teams, seats, rounds, 1, random.Random(7))
    assert len(tables) == rounds * (teams // seats)
    for number in range(rounds):
        playing = [team for t in tables if t.round == number for team in t.seats]
        assert len(playing) == len(set(playing)) == teams - teams % seats
    played = Counter(team for t in tables for team in t.seats)
    assert len(played) == teams and max(played.values()) - min(played.values()) <= 1
    seats_of = Counter((team, seat) for t in tables for seat, team in enumerate(t.seats))
    for team in range(teams):  # each seat as evenly as the draw allows
        counts = [seats_of[team, seat] for seat in range(seats)]
        assert max(counts) - min(counts) <= 1, (team, counts)


def test_drawn_tables_with_as_many_games_as_seats_rotate_each_table_through_every_seat():
    tables = drawn_tables(10, 3, 4, 3, random.Random(1))
    assert len(tables) == 4 * 3 * 3
    for start in range(0, len(tables), 3):
        one = tables[start : start + 3]
        assert {t.seats[0] for t in one} == set(one[0].seats)  # each member first once
    assert drawn_tables(10, 3, 4, 3, random.Random(1)) == tables  # the same seed draws the same


GOOF = "name: t\ngame: {module: goofspiel.py, params: {players: 3}}\nbots: {%s}\nstages: [%s]\n"


def config(stage: str, teams: int = 7, game: str = "goofspiel.py"):
    bots = ", ".join(f"b{i}: {{module: bots.randombot}}" for i in range(teams))
    return parse_config(GOOF.replace("goofspiel.py", game) % (bots, stage), "t.yaml", REPO / "examples" / "games")


def test_table_rounds_count_the_games_a_stage_plays():
    stage = config("{name: league, table_rounds: 4, games_per_pair: 3}").stages[0]
    assert stage.games(7, 3) == 4 * 2 * 3


@pytest.mark.parametrize(
    ("stage", "game", "message"),
    [
        (
            "{name: s, format: swiss, rounds: 3, table_rounds: 2}",
            "goofspiel.py",
            "table_rounds is a setting of a round robin of a game of more than two seats; this stage's format is "
            "swiss, so remove table_rounds",
        ),
        (
            "{name: league, table_rounds: 2}",
            "connect4.py",
            "stage 'league': table_rounds draws tables of a game of more than two seats; this game has two",
        ),
    ],
)
def test_table_rounds_where_they_mean_nothing_are_refused(stage, game, message):
    text = GOOF.replace("{module: goofspiel.py, params: {players: 3}}", f"{{module: {game}}}")
    bots = ", ".join(f"b{i}: {{module: bots.randombot}}" for i in range(4))
    with pytest.raises(ConfigError) as error:
        parse_config(text % (bots, stage), "t.yaml", REPO / "examples" / "games")
    assert message in str(error.value)


def test_a_tournament_of_drawn_tables_plays_them_and_ranks_every_team(tmp_path):
    shutil.copy(REPO / "examples" / "games" / "goofspiel.py", tmp_path)
    bots = ", ".join(f"b{i}: {{module: bots.randombot}}" for i in range(7))
    text = GOOF % (bots, "{name: league, table_rounds: 3, games_per_pair: 1}")
    folder = TournamentFolder(tmp_path, text.replace("params: {players: 3}", "params: {players: 3, cards: 3}"), ())
    done = folder.run()
    assert done.returncode == 0, done.stderr
    assert len(folder.games("t")) == 3 * 2
    with closing(sqlite3.connect(folder.database)) as connection:
        rounds = Counter(row[0] for row in connection.execute("SELECT round FROM games"))
        seated = connection.execute("SELECT count(*), count(DISTINCT game_id) FROM game_seats").fetchone()
    assert rounds == {0: 2, 1: 2, 2: 2} and seated == (18, 6)

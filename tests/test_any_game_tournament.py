"""A tournament of a game of three seats through the harness, end to end: ``arena run`` of a
user's game loaded from a path (examples/games/goofspiel.py, three players: chance and
simultaneous bids; liars_dice.py, three players: chance and hidden dice) in round robins of
tables, in two pools and then a final.

Every table of a pool plays its games with the seats rotated, each game stored with its three
seats; the final has the teams that advanced; the reading commands list every team. A run
killed with SIGKILL and run again ends with the games of a run never interrupted, and so do
the same tournament on PostgreSQL and on a Dask cluster. What such a game cannot be played in
is refused before anything runs, saying what to change; a bot that crashes or hangs forfeits
its seat's games while the others share first place.
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
import signal
from collections import Counter, defaultdict
from pathlib import Path
from typing import NamedTuple

import pytest
from sqlalchemy import create_engine, text

from arena.contests.config import load_config
from arena.errors import ConfigError
from tests.fixtures.daskcluster import LocalCluster
from tests.fixtures.harnesskit import (
    REPO,
    TournamentFolder,
    arena_here,
    finished_games,
    late,
    processes_mentioning,
    stop,
    wait_until,
)

EXAMPLES = REPO / "examples" / "games"
TEAMS = [f"t{n}" for n in range(1, 9)]
#: eight teams of the random bot (seeded by arena: the same seed plays the same games) at
#: goofspiel for three: two pools of four, each table of three playing three games (every
#: team of a table in every seat once), the best two of each pool to a final of four
TOURNAMENT = (
    """\
name: tables
game: {module: goofspiel.py, params: {players: 3, cards: 5}}
seed: 29
time: {move: 1.0}
workers: 2
bots: {random: {module: bots.randombot}}
teams: {"""
    + ", ".join(f"{team}: random" for team in TEAMS)
    + """}
stages:
  - {name: groups, pools: 2, advance: 2, games_per_pair: 3}
  - {name: final, games_per_pair: 3}
"""
)
SEATS, POOL, GAMES_A_TABLE = 3, 4, 3
TABLES = len(list(itertools.combinations(range(POOL), SEATS)))  # C(4, 3) = 4 tables a pool
GAMES = {(0, 0): TABLES * GAMES_A_TABLE, (0, 1): TABLES * GAMES_A_TABLE, (1, 0): TABLES * GAMES_A_TABLE}
TOTAL = sum(GAMES.values())  # 36
#: a round of goofspiel with 5 cards: the prize (chance), then one bid of each seat
PLIES = 5 * (1 + SEATS)


class Stored(NamedTuple):
    """A stored game as a run leaves it, every field that a run decides (not its times)."""

    id: int
    stage: int
    pool: int
    round: int
    number: int
    players: int
    seed: int
    status: str
    winner: int | None
    termination: str | None
    offender: int | None
    plies: int | None
    #: (seat, team, points the game gave it) a seat, in seat order
    seats: tuple[tuple[int, str, float | None], ...]
    #: (ply, seat, move) a move, in order
    moves: tuple[tuple[int, int, str], ...]

    @property
    def teams(self) -> tuple[str, ...]:
        return tuple(team for _, team, _ in self.seats)


def stored_games(url: str, name: str) -> list[Stored]:
    """Every game of tournament ``name`` in the database at ``url`` (SQLite or PostgreSQL), in
    id order, with its seats and its moves."""
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            query = text("SELECT id FROM tournaments WHERE name = :n")
            tournament = {"t": connection.execute(query, {"n": name}).one()[0]}
            seats: dict[int, list[tuple[int, str, float | None]]] = defaultdict(list)
            for game, seat, team, points in connection.execute(
                text(
                    "SELECT s.game_id, s.seat, e.team, s.points FROM game_seats s "
                    "JOIN entries e ON e.id = s.entry_id JOIN games g ON g.id = s.game_id "
                    "WHERE g.tournament_id = :t ORDER BY s.game_id, s.seat"
                ),
                tournament,
            ):
                seats[game].append((seat, team, points))
            moves: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
            for game, ply, seat, move in connection.execute(
                text(
                    "SELECT m.game_id, m.ply, m.seat, m.move FROM moves m JOIN games g ON g.id = m.game_id "
                    "WHERE g.tournament_id = :t ORDER BY m.game_id, m.ply"
                ),
                tournament,
            ):
                moves[game].append((ply, seat, move))
            rows = connection.execute(
                text(
                    "SELECT id, stage, pool, round, number, players, seed, status, winner, termination, offender, "
                    "plies FROM games WHERE tournament_id = :t ORDER BY id"
                ),
                tournament,
            ).all()
    finally:
        engine.dispose()
    return [Stored(*row, tuple(seats[row[0]]), tuple(moves[row[0]])) for row in rows]


def share(points: list[float], seat: int) -> float:
    """What ``seat`` scores in the standings of a game of more than two seats: the share of the
    other seats it finished ahead of by the game's points, a tie counting half."""
    others = [value for other, value in enumerate(points) if other != seat]
    return sum(1.0 if points[seat] > value else 0.5 if points[seat] == value else 0.0 for value in others) / len(others)


def tally(games: list[Stored]) -> dict[str, float]:
    """Each team's standings points over ``games``."""
    found: dict[str, float] = defaultdict(float)
    for game in games:
        points = [value for _, _, value in game.seats]
        assert None not in points
        for seat, team in enumerate(game.teams):
            found[team] += share(points, seat)
    return found


def game_folder(path: Path, tournament: str, game: str = "goofspiel", bots: tuple[str, ...] = ()) -> TournamentFolder:
    """A tournament folder (harnesskit's) with the example game ``game`` copied into it, as a
    user copies one beside the tournament file."""
    shutil.copy(EXAMPLES / f"{game}.py", path)
    return TournamentFolder(path, tournament, bots)


def read(folder: TournamentFolder, *args: str) -> str:
    """What the reading command ``arena ARGS`` prints of the folder's database; it must succeed."""
    done = arena_here(*args, "--db", folder.url, cwd=folder.path)
    assert done.returncode == 0, done.stderr + done.stdout
    return done.stdout


@pytest.fixture(scope="module")
def league(tmp_path_factory) -> TournamentFolder:
    """The tournament played to its end, never interrupted."""
    folder = game_folder(tmp_path_factory.mktemp("league"), TOURNAMENT)
    done = folder.run()
    assert done.returncode == 0, done.stderr
    return folder


@pytest.fixture(scope="module")
def played(league) -> list[Stored]:
    return stored_games(league.url, "tables")


# ---------------------------------------------------------------- 1. the tournament


@pytest.mark.slow
def test_each_pool_plays_every_table_of_three_games_per_pair_times(played):
    assert len(played) == TOTAL
    assert Counter((game.stage, game.pool) for game in played) == GAMES
    for stage, pool in GAMES:
        games = [game for game in played if (game.stage, game.pool) == (stage, pool)]
        field = sorted({team for game in games for team in game.teams})
        assert len(field) == POOL
        tables = Counter(frozenset(game.teams) for game in games)
        assert tables == {frozenset(subset): GAMES_A_TABLE for subset in itertools.combinations(field, SEATS)}
    groups = [
        {team for game in played if game.stage == 0 and game.pool == pool for team in game.teams} for pool in (0, 1)
    ]
    assert groups[0].isdisjoint(groups[1]) and groups[0] | groups[1] == set(TEAMS)


@pytest.mark.slow
def test_every_team_plays_every_seat_equally_often(played):
    # each team of a pool of four sits at C(3, 2) = 3 tables, each of which rotates its seats
    # through its three games: three games in each seat, in each stage
    seats = Counter((game.stage, team, seat) for game in played for seat, team, _ in game.seats)
    assert set(seats.values()) == {3}
    assert len(seats) == (len(TEAMS) + 4) * SEATS
    for game in played:
        rotations = {g.teams for g in played if g.stage == game.stage and set(g.teams) == set(game.teams)}
        assert len(rotations) == SEATS  # the three rotations of the table, one game each


@pytest.mark.slow
def test_every_game_is_stored_with_its_three_seats_and_is_played_to_its_end(played):
    for game in played:
        assert (game.players, game.status, game.termination, game.offender) == (SEATS, "finished", "normal", None)
        assert [seat for seat, _, _ in game.seats] == [0, 1, 2]
        assert len(set(game.teams)) == SEATS
        assert game.plies == len(game.moves) == PLIES
        assert [seat for _, seat, _ in game.moves] == [-1, 0, 1, 2] * 5  # the prize by chance, then the bids
        prizes = sorted(int(move) for _, seat, move in game.moves if seat == -1)
        assert prizes == [1, 2, 3, 4, 5]
        points = [value for _, _, value in game.seats]
        assert all(value is not None and value >= 0 for value in points)
        assert sum(points) <= 15  # the prizes won, 1 + ... + 5 at most
        top = [seat for seat, value in enumerate(points) if value == max(points)]
        assert game.winner == (top[0] if len(top) == 1 else None)
    assert len({game.seed for game in played}) == TOTAL


@pytest.mark.slow
def test_the_final_is_played_by_the_two_best_of_each_pool(played):
    groups = [game for game in played if game.stage == 0]
    final = {team for game in played if game.stage == 1 for team in game.teams}
    points = tally(groups)
    for pool in (0, 1):
        field = {team for game in groups if game.pool == pool for team in game.teams}
        advanced = field & final
        assert len(advanced) == 2
        assert min(points[team] for team in advanced) >= max(points[team] for team in field - advanced)
    assert len(final) == 4


@pytest.mark.slow
def test_standings_and_leaderboards_list_every_team(league, played):
    for command in (["standings"], ["leaderboard"], ["leaderboard", "--rating", "elo"]):
        said = read(league, *command, "tables")
        listed = {team for team in TEAMS if re.search(rf"│ {team} +│", said)}
        assert listed == set(TEAMS), (command, said)
    standings = json.loads(read(league, "standings", "tables", "--json"))["standings"]
    finalists = {team for game in played if game.stage == 1 for team in game.teams}
    assert [line["place"] for line in standings] == list(range(1, 9))
    assert {line["team"] for line in standings[:4]} == finalists
    assert {line["stage"] for line in standings[:4]} == {"final"} and {line["stage"] for line in standings[4:]} == {
        "groups"
    }
    for line in standings:  # the points, games and W-D-L of the stage it reached
        stage = 1 if line["team"] in finalists else 0
        games = [game for game in played if game.stage == stage and line["team"] in game.teams]
        assert line["points"] == pytest.approx(tally(games)[line["team"]])
        assert line["games"] == 9 == line["wins"] + line["draws"] + line["losses"]
        assert line["forfeits"] == {}


@pytest.mark.slow
def test_the_elo_board_counts_what_it_fits_every_two_seats_of_a_table(league, played):
    # a game of three seats is fitted as its three games of two: a team's games, W-D-L and
    # score on the board are those (two a game it played), its score the share it took of them
    board = json.loads(read(league, "leaderboard", "tables", "--rating", "elo", "--json"))["leaderboard"]
    assert {line["team"] for line in board} == set(TEAMS)
    for line in board:
        games = [game for game in played if line["team"] in game.teams]
        pairs = 2 * len(games)
        took = sum(share([v for _, _, v in g.seats], g.teams.index(line["team"])) for g in games)
        assert line["games"] == pairs == line["wins"] + line["draws"] + line["losses"]
        assert line["score"] == pytest.approx(2 * took / pairs, abs=1e-4)
    total = sum(line["score"] * line["games"] for line in board)
    assert total == pytest.approx(sum(line["games"] for line in board) / 2, abs=1e-2)  # every pair's point shared


# ---------------------------------------------------------------- 2. killed and resumed


def wait_for(folder: TournamentFolder, process, count: int) -> int:
    """Wait (polling every 5 ms) until the run ``process`` has stored ``count`` games; it must
    still be running. How many it had stored."""
    assert wait_until(
        lambda: finished_games(folder.database) >= count or process.poll() is not None, timeout=60, step=0.005
    )
    if process.poll() is not None:
        _, said = process.communicate()
        raise AssertionError(f"the run ended (status {process.returncode}) before it could be killed: {said}")
    return finished_games(folder.database)


@pytest.mark.slow
def test_a_run_killed_in_the_pools_and_in_the_final_resumes_to_the_games_of_an_uninterrupted_run(tmp_path, played):
    folder = game_folder(tmp_path, TOURNAMENT)
    stored, survivors, checks = [], [], []
    for at_least in (3, GAMES[0, 0] + GAMES[0, 1] + 2):  # in the pools, then in the final
        process = folder.start()
        wait_for(folder, process, at_least)
        stop(process, signal.SIGKILL)  # the whole process group: the run, its workers, their bots
        stored.append(finished_games(folder.database))
        wait_until(lambda: not processes_mentioning(str(folder.path)), timeout=10)
        survivors.append(processes_mentioning(str(folder.path)))
        checks.append(folder.checks())
    assert stored[0] < GAMES[0, 0] + GAMES[0, 1] < stored[1] < TOTAL
    assert survivors == [[], []]
    assert checks == [("ok", []), ("ok", [])]
    done = folder.run()
    assert done.returncode == 0, done.stderr
    assert stored_games(folder.url, "tables") == played
    assert folder.checks() == ("ok", [])


# ---------------------------------------------------------------- 3. on PostgreSQL


@pytest.mark.slow
def test_the_tournament_on_postgresql_stores_the_same_games_and_standings(tmp_path, postgres, league, played):
    url = postgres.new_database()
    folder = game_folder(tmp_path, TOURNAMENT)
    folder.args = ("run", "t.yaml", "--db", url, "-q")
    done = folder.run()
    assert done.returncode == 0, done.stderr
    on_postgres = stored_games(url, "tables")
    assert on_postgres == played
    assert {len(game.seats) for game in on_postgres} == {SEATS}
    # (not the TrueSkill leaderboard: its columns of think times differ from run to run)
    for command in (
        ["standings", "tables"],
        ["standings", "tables", "--json"],
        ["leaderboard", "tables", "--rating", "elo"],
    ):
        said = arena_here(*command, "--db", url, cwd=tmp_path)
        assert said.returncode == 0, said.stderr
        assert said.stdout == read(league, *command)


# ---------------------------------------------------------------- 4. on a Dask cluster

#: liar's dice for three (chance: the dice; hidden information: each seat sees its own)
DICE = """\
name: dice
game: {module: liars_dice.py, params: {players: 3, dice: 2}}
seed: 31
time: {move: 2.0}
bots: {random: {module: bots.randombot}}
teams: {d1: random, d2: random, d3: random, d4: random}
stages: [{name: league, games_per_pair: 3}]
"""


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(workers=2) as running:
        yield running


@pytest.mark.slow
def test_the_cluster_plays_the_games_of_goofspiel_for_three_this_machine_plays(tmp_path, cluster, played):
    folder = game_folder(tmp_path, TOURNAMENT)
    done = folder.run("--cluster", cluster.address)
    assert done.returncode == 0, done.stderr + cluster.log()
    assert stored_games(folder.url, "tables") == played


@pytest.mark.slow
def test_the_cluster_plays_the_games_of_liars_dice_for_three_this_machine_plays(tmp_path, cluster):
    (tmp_path / "here").mkdir()
    (tmp_path / "there").mkdir()
    here, there = (game_folder(tmp_path / name, DICE, "liars_dice") for name in ("here", "there"))
    done = here.run("--workers", "2")
    assert done.returncode == 0, done.stderr
    done = there.run("--cluster", cluster.address)
    assert done.returncode == 0, done.stderr + cluster.log()
    local = stored_games(here.url, "dice")
    assert stored_games(there.url, "dice") == local
    assert len(local) == TABLES * GAMES_A_TABLE
    for game in local:
        assert (game.status, game.termination, len(game.seats)) == ("finished", "normal", SEATS)
        rolls = [move for _, seat, move in game.moves[: SEATS * 2]]
        assert all(seat == -1 for _, seat, _ in game.moves[: SEATS * 2]) and all(r.startswith("roll ") for r in rolls)
        assert game.moves[-1][2] == "liar"
        assert sorted(value for _, _, value in game.seats) == [0.0, 1.0, 1.0]  # the loser 0, the others 1


# ---------------------------------------------------------------- 5. refused


def refusal(tmp_path: Path, stages: str, players: int = 3, teams: int = 6) -> str:
    """The message of the ConfigError a tournament of goofspiel for ``players`` with ``teams``
    teams and ``stages`` gets."""
    shutil.copy(EXAMPLES / "goofspiel.py", tmp_path)
    path = tmp_path / "t.yaml"
    path.write_text(
        f"name: refused\ngame: {{module: goofspiel.py, params: {{players: {players}, cards: 5}}}}\n"
        "bots: {random: {module: bots.randombot}}\n"
        "teams: {" + ", ".join(f"t{n}: random" for n in range(1, teams + 1)) + "}\n"
        f"stages: {stages}\n"
    )
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    first, *rest = str(caught.value).splitlines()
    assert first == f"{path} is not a valid tournament:"
    return "\n".join(rest)


@pytest.mark.parametrize(
    ("format", "settings"),
    [("swiss", ", rounds: 3"), ("knockout", ""), ("gauntlet", ", named: [t1]"), ("adaptive", ", budget: 60")],
)
def test_a_format_that_pairs_two_teams_is_refused_for_a_game_of_three_seats(tmp_path, format, settings):
    article = "an" if format[0] in "aeiou" else "a"
    assert refusal(tmp_path, f"[{{name: s, format: {format}{settings}}}]") == (
        f"  stages.0.format: stage 's': a game of 3 seats is played in round robins of tables of 3; "
        f"{article} {format} pairs two teams (use format: round_robin)"
    )


def test_a_later_stage_that_pairs_two_teams_is_refused_too(tmp_path):
    assert refusal(tmp_path, "[{name: g, pools: 2, advance: 2}, {name: k, format: knockout}]") == (
        "  stages.1.format: stage 'k': a game of 3 seats is played in round robins of tables of 3; "
        "a knockout pairs two teams (use format: round_robin)"
    )


def test_pools_smaller_than_a_table_are_refused_saying_what_to_change(tmp_path):
    assert refusal(tmp_path, "[{name: g, pools: 3, advance: 1}, {name: f}]") == (
        "  stages.0.pools: stage 'g': a table of this game seats 3 teams; its pools have 2: make fewer pools"
    )
    assert refusal(tmp_path, "[{name: g, pools: 2}]", players=4, teams=7) == (
        "  stages.0.pools: stage 'g': a table of this game seats 4 teams; its pools have 3: make fewer pools"
    )


def test_a_field_smaller_than_a_table_is_refused_saying_what_to_change(tmp_path):
    # one pool: fewer pools cannot help; more teams, or more of them advancing, do
    assert refusal(tmp_path, "[{name: l}]", teams=2) == (
        "  stages.0: stage 'l': a table of this game seats 3 teams; the tournament has 2 teams: add teams"
    )
    assert refusal(tmp_path, "[{name: g, pools: 2, advance: 1}, {name: f}]") == (
        "  stages.1: stage 'f': a table of this game seats 3 teams; 2 teams advance to it: advance more "
        "from the stage before"
    )


@pytest.mark.parametrize("players", [7, 1])
def test_a_number_of_seats_the_game_does_not_have_is_refused(tmp_path, players):
    assert refusal(tmp_path, "[{name: l}]", players=players) == (
        f"  game: game 'goofspiel': parameter 'players' cannot be {players}; choose 2 to 6"
    )


# ---------------------------------------------------------------- 6. a seat that forfeits

#: two random bots and one that fails in its first move (``{bad}``), one table of three games
FORFEIT = """\
name: forfeit
game: {{module: goofspiel.py, params: {{players: 3, cards: 5}}}}
seed: 8
time: {{move: 0.4}}
bots: {{random: {{module: bots.randombot}}, bad: {{path: {bad}.py}}}}
teams: {{r1: random, bad: bad, r2: random}}
stages: [{{name: league, games_per_pair: 3}}]
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("bot", "termination", "detail"),
    [
        ("raises_in_move", "crash", re.escape("RuntimeError: deliberate failure in move")),
        ("hangs_in_move", "timeout", late(0.4)),
    ],
)
def test_a_seat_that_crashes_or_hangs_forfeits_and_the_others_share_first_place(tmp_path, bot, termination, detail):
    folder = game_folder(tmp_path, FORFEIT.format(bad=bot), bots=(bot,))
    done = folder.run()
    assert done.returncode == 0, done.stderr
    games = stored_games(folder.url, "forfeit")
    assert len(games) == 3
    assert sorted(game.teams.index("bad") for game in games) == [0, 1, 2]  # once in each seat
    engine = create_engine(folder.url)
    with engine.connect() as connection:
        details = [row[0] for row in connection.execute(text("SELECT detail FROM games ORDER BY id"))]
    engine.dispose()
    for game, said in zip(games, details):
        bad = game.teams.index("bad")
        assert (game.status, game.termination, game.offender, game.winner) == ("finished", termination, bad, None)
        assert re.fullmatch(detail, said), said
        assert [points for _, _, points in game.seats] == [0.0 if seat == bad else 1.0 for seat in range(SEATS)]
        assert game.moves == ((1, -1, game.moves[0][2]),)  # the prize turned up; the step of bids never played
    standings = {line["team"]: line for line in json.loads(read(folder, "standings", "forfeit", "--json"))["standings"]}
    assert [standings[team]["place"] for team in ("r1", "r2", "bad")] in ([1, 2, 3], [2, 1, 3])
    for team in ("r1", "r2"):  # ahead of the forfeiting seat, level with each other: ¾ a game
        line = standings[team]
        assert (line["points"], line["wins"], line["draws"], line["losses"], line["forfeits"]) == (2.25, 0, 3, 0, {})
    line = standings["bad"]
    assert (line["points"], line["wins"], line["draws"], line["losses"]) == (0, 0, 0, 3)
    assert line["forfeits"] == {termination: 3}
    shown = read(folder, "standings", "forfeit")
    assert re.search(rf"│ +3 │ bad +│ league │ A 3 +│ +0 │ +3 │ 0-0-3 │ {termination} 3 +│", shown), shown
    assert processes_mentioning(str(folder.path)) == []

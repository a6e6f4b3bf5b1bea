"""The suite's builders of tournament databases (for the results, replay and report tests, and
the benchmarks of the read side), written the way the harness writes them: its config, its
planning (``TournamentRun.prepare``, ``plan_stage``, ``advancing``) and ``save_record``; only the
games are played in-process, either from scripted move lists or as random legal games with
forfeits of every kind. Tests import builders from here and fixtures from tests/fixtures, never
from another test module; tests/test_builders.py holds the builders' own specification.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from arena.contests.config import TournamentDef
from arena.contests.game_sums import keep_for_reads
from arena.contests.stages import advancing, plan_next, plan_stage
from arena.contests.tournament import TournamentRun
from arena.core.records import FORFEITS, GameRecord, MoveRecord, Termination
from arena.games import Game, get_game
from arena.store.database import open_store
from arena.store.models import Entry, GameRow, Tournament, game_seats
from arena.store.writes import save_record

ROOT = Path(__file__).resolve().parent.parent
FIRST_LEGAL = "tests/fixtures/bots/first_legal.py"
#: the bot modules the synthetic course field plays with (names only: nothing is run)
MODULES = ("bots.randombot", "bots.onestep", "bots.flatmc", "bots.uct", "bots.minimax", "bots.rules")
#: the three stages of the 2019 course event
COURSE_STAGES = [
    {"name": "group", "pools": 10, "games_per_pair": 2, "advance": 3},
    {"name": "semi-final", "pools": 3, "seeding": "snake", "games_per_pair": 2, "advance": 3},
    {"name": "final", "pools": 1, "games_per_pair": 2},
]
#: a forfeit comes before this ply (the games are longer)
CUT = {"tictactoe": 5, "uttt": 30, "othello": 40, "xtreme": 40}
DETAILS = {
    "timeout": "no reply within 0.25 s (limit 0.2 s + 0.05 s grace)",
    "illegal_move": "'0 0 0' is illegal in xtreme: cell 0 0 0 is occupied (by x)",
    "crash": "exited with status 1",
    "protocol_error": "reply is not JSON: 'hello'",
    "resource_limit": "memory limit of 1024 MB exceeded",
}
STDERR = {
    "crash": 'Traceback (most recent call last):\n  File "bot.py", line 12, in move\n    '
    "return 1 / 0\nZeroDivisionError: division by zero\n"
}


def create(url: str, config: dict[str, Any]) -> tuple[sessionmaker[Session], int]:
    """Store the tournament ``config`` (plain YAML data) with its first stage planned, as
    ``arena run`` does before it plays anything; (sessions, tournament id)."""
    definition = TournamentDef.model_validate(config)
    sessions = open_store(url)
    run = TournamentRun(definition, yaml.safe_dump(config, sort_keys=False), sessions, ROOT)
    tournament, _ = run.prepare()
    return sessions, tournament.id


def scripted(
    game: Game,
    game_id: int,
    moves: list[str],
    *,
    forfeit: str | None = None,
    times: list[float] | None = None,
    stderr: tuple[str, str] = ("", ""),
) -> GameRecord:
    """The record of ``moves`` played from the start; with ``forfeit`` (a termination), the seat
    to move after them then forfeits. ``times``: each move's wall ms (default 1.0)."""
    state = game.initial_state()
    played = []
    for ply, text in enumerate(moves):
        seat = state.to_move
        state = state.play(game.parse_move(text))
        played.append(MoveRecord(seat, text, times[ply] if times else 1.0, None))
    if forfeit is not None:
        offender = state.to_move
        outcome = state.forfeit_outcome(offender)
        return GameRecord(
            game_id,
            played,
            outcome.winner,
            outcome.points,
            Termination(forfeit),
            offender,
            DETAILS.get(forfeit, forfeit),
            stderr,
        )
    assert state.outcome is not None, f"the moves {moves} do not finish the game"
    return GameRecord(game_id, played, state.outcome.winner, state.outcome.points, stderr=stderr)


def random_game(
    game: Game, game_id: int, rng: random.Random, *, forfeit: str | None = None, pace: tuple[float, float] = (0.0, 1.0)
) -> GameRecord:
    """A random legal game; with ``forfeit``, cut at a random ply by that forfeit of the seat to
    move. Wall times are log-normal around ``exp(pace[seat])`` ms."""
    state = game.initial_state()
    moves: list[str] = []
    times: list[float] = []
    stop = rng.randrange(0, CUT[game.name]) if forfeit else None
    while not state.is_terminal and len(moves) != stop:
        move = rng.choice(state.legal_moves())
        times.append(round(rng.lognormvariate(pace[state.to_move], 1.0), 3))
        moves.append(game.format_move(move))
        state = state.play(move)
    if forfeit and state.is_terminal:  # the game ended before the cut: keep it as played
        forfeit = None
    return scripted(
        game,
        game_id,
        moves,
        forfeit=forfeit,
        times=times,
        stderr=(STDERR.get(forfeit or "", ""), "") if forfeit else ("", ""),
    )


def play_stage(
    sessions: sessionmaker[Session],
    tournament_id: int,
    stage: int,
    play: Callable[[GameRow, str, str], GameRecord | None],
) -> None:
    """Plan ``stage`` from the standings of the one before if it is not planned yet, then store
    ``play(game row, first team, second team)`` for each of its games (``None`` leaves it
    pending); a stage planned round by round is played round after round, as far as ``play``
    leaves no game pending."""
    while True:
        with sessions.begin() as session:
            tournament = session.get(Tournament, tournament_id)
            config = TournamentDef.model_validate(tournament.config)
            query = select(GameRow).where(GameRow.tournament_id == tournament_id, GameRow.stage == stage)
            if not list(session.scalars(query)):
                plan_stage(session, tournament, config, stage, advancing(session, tournament, config, stage - 1))
            else:
                plan_next(session, tournament, config, stage)
            rows = list(session.scalars(query.where(GameRow.status != "finished")))
            teams = dict(
                session.execute(select(Entry.id, Entry.team).where(Entry.tournament_id == tournament_id)).all()
            )
            stored = 0
            seats = game_seats(session, GameRow.tournament_id == tournament_id, GameRow.stage == stage)
            for row in sorted(rows, key=lambda r: r.id):
                first, second = (teams[seat.entry_id] for seat in seats[row.id])
                record = play(row, first, second)
                if record is not None:
                    stored += save_record(session, record)
        if not rows or stored < len(rows):
            return


def set_status(sessions: sessionmaker[Session], tournament_id: int, status: str, run_seconds: float = 0.0) -> None:
    """Mark the tournament ``finished``, ``interrupted`` or ``running``, its ratings kept as a
    run that ends keeps them."""
    with sessions.begin() as session:
        tournament = session.get_one(Tournament, tournament_id)
        keep_for_reads(session, tournament, TournamentDef.model_validate(tournament.config))
        session.execute(
            update(Tournament)
            .where(Tournament.id == tournament_id)
            .values(
                status=status,
                run_seconds=run_seconds,
                started_at=1_700_000_000.0,
                finished_at=1_700_000_000.0 + run_seconds if status == "finished" else None,
            )
        )


def synthesize(
    url: str,
    *,
    teams: int = 72,
    game: str = "xtreme",
    stages: list[dict] | None = None,
    seed: int = 2019,
    forfeit_every: int = 25,
    name: str = "course-synthetic",
    params: dict | None = None,
) -> str:
    """A whole tournament of random legal games (the 2019 course format by default: 72 teams,
    about 790 games) of ``game`` with ``params``; one game in ``forfeit_every`` is cut by a
    forfeit, the kinds in turn."""
    params = params or {}
    config = {
        "name": name,
        "game": {"name": game, "params": params} if params else game,
        "seed": seed,
        "scoring": "course2019" if game == "xtreme" else "standard",
        "time": {"move": 0.2},
        "bots": {module.split(".")[1]: {"module": module} for module in MODULES},
        "teams": {f"Team {i:02d}": MODULES[i % len(MODULES)].split(".")[1] for i in range(1, teams + 1)},
        "stages": stages or COURSE_STAGES,
    }
    sessions, tournament_id = create(url, config)
    engine = get_game(game, **params)
    rng = random.Random(seed)
    pace = {f"Team {i:02d}": rng.uniform(-2.5, 3.5) for i in range(1, teams + 1)}
    kinds = [t.value for t in FORFEITS]
    count = 0

    def play(row: GameRow, first: str, second: str) -> GameRecord:
        nonlocal count
        count += 1
        forfeit = kinds[(count // forfeit_every) % len(kinds)] if count % forfeit_every == 0 else None
        return random_game(engine, row.id, random.Random(row.seed), forfeit=forfeit, pace=(pace[first], pace[second]))

    for stage in range(len(config["stages"])):
        play_stage(sessions, tournament_id, stage, play)
    set_status(sessions, tournament_id, "finished", run_seconds=754.0)
    return name


# ---------------------------------------------------------------- a league of four teams
#
# A one-stage tic-tac-toe round robin of four teams, A to D, every game scripted (the results
# tests work its ratings, standings and crosstable out by hand).

TTT = get_game("tictactoe")
X_WINS = ["0", "3", "1", "4", "2"]  # x: the top row
O_WINS = ["0", "3", "1", "4", "8", "5"]  # o: the middle row
DRAW = ["0", "1", "2", "4", "3", "5", "7", "6", "8"]

#: each team's wall time a move (ms); D's last move of game 6 takes 30 ms
PACE = {"A": 2.0, "B": 4.0, "C": 6.0, "D": 8.0}

#: game id -> (first, second, moves, forfeit); the schedule of a 4-team round robin dealt in order:
#: A beats D; B (o) beats C; C beats A; B beats D, D timing out on its first move; A beats B;
#: D and C draw
LEAGUE = {
    1: ("A", "D", X_WINS, None),
    2: ("C", "B", O_WINS, None),
    3: ("C", "A", X_WINS, None),
    4: ("B", "D", ["4"], "timeout"),
    5: ("A", "B", X_WINS, None),
    6: ("D", "C", DRAW, None),
}


def league_config(name: str = "league", **extra) -> dict:
    return {
        "name": name,
        "game": "tictactoe",
        "seed": 5,
        "bots": {t: {"path": FIRST_LEGAL} for t in "ABCD"},
        "stages": [{"name": "league", "seeding": "order", "games_per_pair": 1}],
        **extra,
    }


def play_league(row, first, second):
    want_first, want_second, moves, forfeit = LEAGUE[row.id]
    assert (first, second) == (want_first, want_second), "the schedule is not the one the tests assume"
    times = [PACE[(first, second)[ply % 2]] for ply in range(len(moves))]
    if row.id == 6:
        times[-1] = 30.0
    return scripted(TTT, row.id, moves, forfeit=forfeit, times=times)


#: the statements that take a database's games back to their two seats' columns, as every
#: schema before 8 kept them (a game's seats had no table of their own); for SQLite and PostgreSQL
BEFORE_GAME_SEATS = [
    # (schema 12's kept sums, 11's engines' info on moves, 10's index of the moves the clock cut,
    # 9's kept ratings and indexes first)
    "DROP TABLE kept_sums",
    "ALTER TABLE moves DROP COLUMN info",
    "DROP INDEX IF EXISTS ix_moves_cut",
    "DROP TABLE kept_ratings",
    "DROP INDEX ix_games_tournament_id",
    "DROP INDEX ix_games_tournament_stage",
    *(
        f"ALTER TABLE games ADD COLUMN {column}"
        for column in (
            "seat0 INTEGER",
            "seat1 INTEGER",
            "points0 FLOAT",
            "points1 FLOAT",
            "stderr0 TEXT",
            "stderr1 TEXT",
        )
    ),
    *(
        f"UPDATE games SET {column}{seat} = (SELECT {field} FROM game_seats s WHERE s.game_id = games.id "
        f"AND s.seat = {seat})"
        for seat in (0, 1)
        for column, field in (("seat", "entry_id"), ("points", "points"), ("stderr", "stderr"))
    ),
    "DROP TABLE game_seats",
    "ALTER TABLE games DROP COLUMN players",
]


def before_game_seats(execute: Callable[[str], Any]) -> None:
    """Take a database back to a game's seats as two columns each (schema 7 and before: no kept
    ratings either), with ``execute`` running one SQL statement on it."""
    for statement in BEFORE_GAME_SEATS:
        execute(statement)

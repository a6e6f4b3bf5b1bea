"""Tournament databases for the results, replay and report tests (and benchmarks/report.py),
written the way the harness writes them: its config, its planning (``TournamentRun.prepare``,
``plan_stage``, ``advancing``) and ``save_record``; only the games are played in-process,
either from scripted move lists or as random legal games with forfeits of every kind.
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
from arena.contests.stages import advancing, plan_next, plan_stage
from arena.contests.tournament import TournamentRun
from arena.core.records import FORFEITS, GameRecord, MoveRecord, Termination
from arena.games import Game, get_game
from arena.store.database import open_store
from arena.store.models import Entry, Tournament, save_record
from arena.store.models import Game as GameRow

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
            for row in sorted(rows, key=lambda r: r.id):
                record = play(row, teams[row.seat0], teams[row.seat1])
                if record is not None:
                    stored += save_record(session, record)
        if not rows or stored < len(rows):
            return


def set_status(sessions: sessionmaker[Session], tournament_id: int, status: str, run_seconds: float = 0.0) -> None:
    """Mark the tournament ``finished``, ``interrupted`` or ``running``."""
    with sessions.begin() as session:
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


# ---------------------------------------------------------------- the helpers' own specification


def test_a_synthetic_tournament_plays_every_stage_with_forfeits_of_each_kind(tmp_path):
    from sqlalchemy import func

    url = f"sqlite:///{tmp_path / 'a.db'}"
    stages = [{"name": "group", "pools": 2, "games_per_pair": 2, "advance": 2}, {"name": "final"}]
    synthesize(url, teams=8, game="tictactoe", stages=stages, forfeit_every=2)
    sessions = open_store(url)
    with sessions.begin() as session:
        by_stage = dict(session.execute(select(GameRow.stage, func.count()).group_by(GameRow.stage)).all())
        kinds = set(session.scalars(select(GameRow.termination)))
        pending = session.scalar(select(func.count()).select_from(GameRow).where(GameRow.status != "finished"))
    assert by_stage == {0: 24, 1: 12}
    assert kinds == {"normal", "timeout", "illegal_move", "crash", "protocol_error", "resource_limit"}
    assert pending == 0


def test_a_scripted_forfeit_is_lost_by_the_seat_to_move():
    record = scripted(get_game("tictactoe"), 1, ["4", "0"], forfeit="timeout")
    assert (record.offender, record.winner, record.termination) == (0, 1, Termination.TIMEOUT)
    assert [(m.seat, m.move) for m in record.moves] == [(0, "4"), (1, "0")]


def test_a_game_recorded_twice_is_stored_once(tmp_path):
    from arena.core.records import GameRecord, MoveRecord, Termination
    from arena.store.database import open_store
    from arena.store.models import Game, Move, save_record

    sessions = open_store(f"sqlite:///{tmp_path / 'a.db'}")
    with sessions.begin() as session:
        from arena.store.models import Bot, Entry, Tournament

        tournament = Tournament(name="t", game={"name": "tictactoe"}, config_text="", config_hash="", config={}, seed=0)
        bot = Bot(name="b", kind="python", target="bots.randombot")
        session.add_all([tournament, bot])
        session.flush()
        entries = [
            Entry(tournament_id=tournament.id, team=team, bot_id=bot.id, number=n) for n, team in enumerate("ab")
        ]
        session.add_all(entries)
        session.flush()
        session.add(
            Game(
                id=1,
                tournament_id=tournament.id,
                stage=0,
                pool=0,
                round=0,
                number=0,
                seat0=entries[0].id,
                seat1=entries[1].id,
                seed=1,
            )
        )
    first = GameRecord(1, [MoveRecord(0, "4", 1.0, 1.0)], winner=0, termination=Termination.NORMAL)
    again = GameRecord(1, [MoveRecord(0, "0", 1.0, 1.0)], winner=1, termination=Termination.NORMAL)
    with sessions.begin() as session:
        assert save_record(session, first) is True
    with sessions.begin() as session:
        assert save_record(session, again) is False
    with sessions.begin() as session:
        assert session.get(Game, 1).winner == 0
        assert [m.move for m in session.query(Move).filter_by(game_id=1)] == ["4"]

"""The builders' own specification (tests/builders.py): a synthetic tournament plays every stage
with forfeits of every kind, a scripted forfeit is the mover's, a record stored twice is one, and
what a record holds is stored clean and whole."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from arena.core.records import GameRecord, MoveRecord, Termination
from arena.games import get_game
from arena.store.database import open_store
from arena.store.models import Bot, GameRow, MoveRow
from arena.store.writes import PlannedGame, add_entry, add_game, add_tournament, save_record
from tests.builders import scripted, synthesize


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


def _pending_game(url: str) -> tuple[sessionmaker[Session], int]:
    sessions = open_store(url)
    with sessions.begin() as session:
        tournament = add_tournament(session, "t", {"name": "tictactoe"}, {}, "", "")
        bot = Bot(name="b", kind="python", target="bots.randombot")
        session.add(bot)
        session.flush()
        seats = [add_entry(session, tournament.id, team, bot.id).id for team in "ab"]
        game_id = add_game(session, tournament.id, PlannedGame(0, 0, 0, 0, (seats[0], seats[1]), 1))
    return sessions, game_id


def test_a_game_recorded_twice_is_stored_once(tmp_path):
    sessions, game_id = _pending_game(f"sqlite:///{tmp_path / 'a.db'}")
    first = GameRecord(game_id, [MoveRecord(0, "4", 1.0, 1.0)], winner=0, termination=Termination.NORMAL)
    again = GameRecord(game_id, [MoveRecord(0, "0", 1.0, 1.0)], winner=1, termination=Termination.NORMAL)
    with sessions.begin() as session:
        assert save_record(session, first) is True
    with sessions.begin() as session:
        assert save_record(session, again) is False
    with sessions.begin() as session:
        assert session.get_one(GameRow, game_id).winner == 0
        assert list(session.scalars(select(MoveRow.move).where(MoveRow.game_id == game_id))) == ["4"]


def test_a_move_s_text_and_info_are_stored_clean_with_every_figure():
    """The moves go in through the driver (no column type between): what the types would clean
    is cleaned all the same, and every figure is stored as it came."""
    sessions, game_id = _pending_game("sqlite://")
    moves = [
        MoveRecord(0, "4\ud800", 1.5, 1.25, 0.5, True, '{"pv":"a\x00b"}'),
        MoveRecord(1, "0", 2.0, None),
    ]
    with sessions.begin() as session:
        assert save_record(session, GameRecord(game_id, moves, winner=None, termination=Termination.NORMAL)) is True
    with sessions.begin() as session:
        columns = ("ply", "seat", "move", "wall_ms", "cpu_ms", "wait_ms", "cut", "info")
        query = select(*(getattr(MoveRow, name) for name in columns)).where(MoveRow.game_id == game_id)
        stored = session.execute(query.order_by(MoveRow.ply)).all()
    assert [tuple(row) for row in stored] == [
        (1, 0, "4\ufffd", 1.5, 1.25, 0.5, True, '{"pv":"ab"}'),
        (2, 1, "0", 2.0, None, None, False, None),
    ]

"""The builders' own specification (tests/builders.py): a synthetic tournament plays every stage
with forfeits of every kind, a scripted forfeit is the mover's, a record stored twice is one."""

from __future__ import annotations

from sqlalchemy import select

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


def test_a_game_recorded_twice_is_stored_once(tmp_path):
    sessions = open_store(f"sqlite:///{tmp_path / 'a.db'}")
    with sessions.begin() as session:
        tournament = add_tournament(session, "t", {"name": "tictactoe"}, {}, "", "")
        bot = Bot(name="b", kind="python", target="bots.randombot")
        session.add(bot)
        session.flush()
        seats = [add_entry(session, tournament.id, team, bot.id).id for team in "ab"]
        game_id = add_game(session, tournament.id, PlannedGame(0, 0, 0, 0, (seats[0], seats[1]), 1))
    first = GameRecord(game_id, [MoveRecord(0, "4", 1.0, 1.0)], winner=0, termination=Termination.NORMAL)
    again = GameRecord(game_id, [MoveRecord(0, "0", 1.0, 1.0)], winner=1, termination=Termination.NORMAL)
    with sessions.begin() as session:
        assert save_record(session, first) is True
    with sessions.begin() as session:
        assert save_record(session, again) is False
    with sessions.begin() as session:
        assert session.get_one(GameRow, game_id).winner == 0
        assert list(session.scalars(select(MoveRow.move).where(MoveRow.game_id == game_id))) == ["4"]

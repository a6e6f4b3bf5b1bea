"""A served tournament's sums go on from those of its settled games (every game up to some id
finished): a read that keeps them sums only the games after them next time, and gives what a
read of every game gives; a settled game played again or deleted makes the next read sum every
game."""

from __future__ import annotations

import dataclasses

import pytest
from sqlalchemy import delete, func, select, update

from arena.contests import game_sums
from arena.contests.game_sums import keep_for_reads
from arena.contests.tally import Span, Tally, add, least, most
from arena.results.lookup import find_tournament, tournament_config
from arena.results.tournament_results import Results, load_results
from arena.store import database
from arena.store.database import SCHEMA_VERSION, open_store
from arena.store.models import GameRow, GameSeat, KeptSums, MoveRow, SchemaVersion
from tests.builders import synthesize


@pytest.fixture
def league(store_url) -> str:
    """A league of 180 games whose games after the 150th are not played yet, its ratings kept
    through the 150th (as a run keeps them); in SQLite and in PostgreSQL."""
    url = store_url
    synthesize(url, teams=6, game="tictactoe", stages=[{"name": "league", "games_per_pair": 12}], forfeit_every=7)
    settle(url, 150, unplayed=True)
    return url


def settle(url: str, through: int, unplayed: bool = False) -> None:
    """Games after id ``through`` left unplayed (``unplayed``) or those up to it played (their
    ratings and sums kept through it, as a run keeps them)."""
    with open_store(url).begin() as session:
        if unplayed:
            session.execute(update(GameRow).where(GameRow.id > through).values(status="pending"))
        else:
            session.execute(update(GameRow).where(GameRow.id <= through).values(status="finished"))
        tournament = find_tournament(session)
        keep_for_reads(session, tournament, tournament_config(tournament))


def read(url: str, kept: game_sums.GameSums | None = None) -> Results:
    with open_store(url, read_only=True)() as session:
        found = load_results(session, find_tournament(session), games=False, kept=kept, keep=True)
    return found


def seen(found: Results) -> tuple[object, ...]:
    """What a read shows: totals, outcomes, teams' seats, machines, leaderboard, Elo, stages
    (sums of times to 1e-6 ms: added in another order, they differ in their last bits)."""
    elo = [(line.team, line.games, round(line.elo, 9)) for line in found.elo.lines]
    seated = {
        team: (s.think.moves, round(s.think.total_ms, 6), s.think.max_ms, s.reported)
        for team, s in found.seated.items()
    }
    nodes = [(n.node, n.games, n.timeouts, n.moves, round(n.mean_wall_ms or 0, 6), n.max_wall_ms) for n in found.nodes]
    board = [dataclasses.replace(line, mean_ms=round(line.mean_ms or 0, 6)) for line in found.leaderboard]
    return found.totals, found.outcomes, seated, nodes, board, elo, found.stages


@pytest.fixture
def spans(monkeypatch) -> list[Span]:
    """The spans of games each tally of a read sums."""
    asked: list[Span] = []

    def recorded(tally):
        def summed(session, tournament, span, through):
            asked.append(span)
            return tally(session, tournament, span, through)

        return summed

    monkeypatch.setattr(game_sums, "TALLIES", tuple(recorded(tally) for tally in game_sums.TALLIES))
    return asked


def test_a_read_goes_on_from_the_kept_sums_and_gives_what_a_read_of_every_game_gives(league, spans):
    first = read(league)
    assert first.sums is not None and first.sums.through == 150 and first.totals.finished == 150
    settle(league, 165)
    spans.clear()
    again = read(league, first.sums)
    assert set(spans) == {Span(after=150)}  # (only the games after the settled ones summed)
    assert again.sums is not None and again.sums.through == 165 and again.totals.finished == 165
    assert seen(again) == seen(read(league))
    assert seen(first) != seen(again)


def test_games_finished_after_an_unfinished_one_count_but_are_not_settled(league):
    first = read(league)
    with open_store(league).begin() as session:
        session.execute(update(GameRow).where(GameRow.id.in_([152, 153])).values(status="finished"))
    again = read(league, first.sums)
    assert again.sums is not None and again.sums.through == 150  # (151 is still unplayed)
    assert again.totals.finished == 152
    assert seen(again) == seen(read(league))


@pytest.mark.parametrize("change", ["played again", "deleted"])
def test_a_settled_game_played_again_or_deleted_makes_the_next_read_sum_every_game(league, spans, change):
    first = read(league)
    with open_store(league).begin() as session:
        if change == "played again":
            session.execute(update(GameRow).where(GameRow.id == 40).values(replays=GameRow.replays + 1, winner=None))
        else:
            for table in (MoveRow, GameSeat):
                session.execute(delete(table).where(table.game_id == 40))
            session.execute(delete(GameRow).where(GameRow.id == 40))
    spans.clear()
    again = read(league, first.sums)
    assert set(spans) == {Span()}
    assert seen(again) == seen(read(league))


def one_read(url: str) -> Results:
    """A read that keeps no sums, as a command reads."""
    with open_store(url, read_only=True)() as session:
        return load_results(session, find_tournament(session), games=False)


def test_a_command_goes_on_from_the_sums_kept_with_the_tournament(league, spans):
    found = one_read(league)
    assert set(spans) == {Span(after=150)}
    with open_store(league).begin() as session:
        session.execute(delete(KeptSums))
    spans.clear()
    assert seen(one_read(league)) == seen(found)
    assert set(spans) == {Span()}


def test_the_kept_sums_of_a_settled_game_played_again_are_not_used(league, spans):
    with open_store(league).begin() as session:
        session.execute(update(GameRow).where(GameRow.id == 40).values(replays=GameRow.replays + 1, winner=None))
    found = one_read(league)
    assert set(spans) == {Span()} and found.totals.finished == 150


def test_an_upgrade_of_the_database_drops_the_kept_sums(league, monkeypatch):
    """(A step may change what the games hold: their sums are made again after it.)"""
    with open_store(league, read_only=True)() as session:
        assert session.scalar(select(func.count()).select_from(KeptSums)) == 1
    later = SCHEMA_VERSION + 1
    monkeypatch.setattr(database, "MIGRATIONS", [*database.MIGRATIONS, (later, "a later step", lambda _: None)])
    monkeypatch.setattr(database, "SCHEMA_VERSION", later)
    with open_store(league).begin() as session:
        assert session.scalar(select(SchemaVersion.version)) == later
        assert session.scalar(select(func.count()).select_from(KeptSums)) == 0


def test_tallies_merge_their_figures_and_leave_the_parts_unchanged():
    part = Tally(1, (add, least, most)).add([("a", 2, 5, None), ("b", None, 1, 3.0)])
    other = Tally(1, (add, least, most)).add([("a", 3, 4, 7.0), ("c", 1, 1, 1.0)])
    both = part.plus(other)
    assert sorted(both.rows()) == [("a", 5, 4, 7.0), ("b", None, 1, 3.0), ("c", 1, 1, 1.0)]
    assert sorted(part.rows()) == [("a", 2, 5, None), ("b", None, 1, 3.0)]

"""The read side from sums: a tournament's finished games alike counted together give the
standings, records, Elo and crosstable its games one by one give; each seat's kept rating is
its team's rating after the game, as a replay of every game gives it; a machine's move times
come from its seats as they came from its moves.

The league plays many games a pair (12), so that most results are counted in groups.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest
from sqlalchemy import delete, func, select, update

from arena.contests.game_sums import sum_games
from arena.contests.stages import results, stored_games
from arena.formats.standings import table
from arena.results.figures import rating_span
from arena.results.lookup import find_tournament
from arena.results.nodestats import node_lines, seat_sums
from arena.results.tournament_results import (
    all_ratings,
    crosstable,
    elo_table,
    history_span,
    load_results,
    team_history,
)
from arena.store.database import fill_seat_cpu, open_store
from arena.store.models import GameRow, GameSeat, KeptSums, MoveRow
from tests.builders import synthesize


@pytest.fixture(scope="module")
def league(tmp_path_factory) -> str:
    url = f"sqlite:///{tmp_path_factory.mktemp('sums') / 'league.sqlite3'}"
    synthesize(url, teams=6, game="tictactoe", stages=[{"name": "league", "games_per_pair": 12}], forfeit_every=7)
    return url


def copy_of(url: str, path: Path) -> str:
    """A copy of the SQLite database at ``url`` in ``path``, by its url."""
    with open_store(url, read_only=True)() as session:
        session.connection().exec_driver_sql(f"VACUUM INTO '{path}'")
    return f"sqlite:///{path}"


def test_games_alike_counted_together_give_what_the_games_one_by_one_give(league):
    with open_store(league, read_only=True)() as session:
        found = load_results(session, find_tournament(session), games=False)
        one_by_one = results(session, found.tournament, found.config.scoring)
    alike = found.finished
    assert len(one_by_one) == 180 and sum(g.count for g in alike) == 180
    assert len(alike) < 0.6 * len(one_by_one)  # (most of them counted in groups)
    names = [t.name for t in found.teams]
    assert table(names, alike, {}) == table(names, one_by_one, {})
    assert crosstable(alike) == crosstable(one_by_one)
    together, apart = elo_table(found.teams, alike), elo_table(found.teams, one_by_one)
    assert [(line.team, line.games, line.wins, line.draws, line.losses) for line in together.lines] == [
        (line.team, line.games, line.wins, line.draws, line.losses) for line in apart.lines
    ]
    for mine, theirs in zip(together.lines, apart.lines, strict=True):
        assert math.isclose(mine.elo, theirs.elo, abs_tol=1e-6) and math.isclose(mine.upper, theirs.upper, abs_tol=1e-6)
    lines = {line.team: line for line in found.leaderboard}
    by_hand = {line.team: line for line in table(names, one_by_one, {})}
    assert {t: (line.games, line.points, line.forfeits) for t, line in lines.items()} == {
        t: (line.games, line.points, dict(sorted(line.forfeits.items()))) for t, line in by_hand.items()
    }
    assert found.totals.finished == 180 and found.totals.planned == 180


def test_the_pool_standings_of_a_round_robin_read_no_game_one_by_one(league, monkeypatch):
    from arena.contests import stages
    from arena.results.lookup import tournament_config

    with open_store(league, read_only=True)() as session:
        stored = stored_games(session, find_tournament(session))
        monkeypatch.setattr(stages.StoredGames, "_read", lambda *_: pytest.fail("a game was read one by one"))
        config = tournament_config(stored.tournament)
        ratings = dict.fromkeys(stored.teams.values(), 0.0)
        [pool] = stages.pool_standings(session, stored.tournament, config, 0, ratings, stored)
        assert stages.next_plan(session, stored.tournament, config, 0, stored) == []
    assert sum(line.games for line in pool) == 2 * 180


def test_each_seat_holds_its_teams_rating_after_the_game_as_a_replay_of_every_game_gives(league):
    with open_store(league, read_only=True)() as session:
        found = load_results(session, find_tournament(session), games=False)
        assert {history.since for history in found.current.values()} == {180}  # (kept through the last game)
        replayed = all_ratings(session, found)
        for team, theirs in replayed.items():
            mine = team_history(session, found, team)
            assert (mine.mu, mine.sigma, mine.after) == (theirs.mu, theirs.sigma, theirs.after)
        start = (found.config.rating.mu, found.config.rating.sigma)
        assert history_span(session, found) == rating_span(replayed, start)


def test_a_seat_without_its_kept_rating_has_its_team_rated_again_from_every_game(league, tmp_path):
    url = copy_of(league, tmp_path / "copy.sqlite3")
    with open_store(url).begin() as session:
        session.execute(update(GameSeat).where(GameSeat.game_id == 3).values(mu=None))
    with open_store(url, read_only=True)() as session:
        found = load_results(session, find_tournament(session), games=False)
        replayed = all_ratings(session, found)
        for team, history in replayed.items():
            assert team_history(session, found, team).after == history.after
        start = (found.config.rating.mu, found.config.rating.sigma)
        assert history_span(session, found) == rating_span(replayed, start)


def test_a_machines_move_times_from_its_seats_are_those_of_its_moves(league, tmp_path):
    url = copy_of(league, tmp_path / "timed.sqlite3")
    with open_store(url).begin() as session:  # (the synthesised moves have no CPU time: given some)
        session.execute(update(MoveRow).values(cpu_ms=MoveRow.wall_ms * 0.5 + MoveRow.ply))
        fill_seat_cpu(session.connection())
        session.execute(delete(KeptSums))  # (as the upgrade that fills them does: its games' sums change)
    with open_store(url, read_only=True)() as session:
        [line] = node_lines(session, 1, seat_sums(sum_games(session, find_tournament(session))[1].seats.rows()))
        finished = select(GameRow.id).where(GameRow.status == "finished")
        moves = MoveRow.game_id.in_(finished) & (MoveRow.seat >= 0)
        figures = (func.count(), func.avg(MoveRow.wall_ms), func.max(MoveRow.wall_ms), func.avg(MoveRow.cpu_ms))
        count, mean_wall, longest, mean_cpu = session.execute(select(*figures).where(moves)).one()
    assert line.moves == count and line.max_wall_ms == longest
    assert math.isclose(line.mean_wall_ms, mean_wall, rel_tol=1e-9)
    assert math.isclose(line.mean_cpu_ms, mean_cpu, rel_tol=1e-9)
    with open_store(url).begin() as session:  # a seat one of whose moves has no CPU time has none
        session.execute(update(MoveRow).where(MoveRow.game_id == 2, MoveRow.ply == 1).values(cpu_ms=None))
        fill_seat_cpu(session.connection())
        cpu = dict(session.execute(select(GameSeat.seat, GameSeat.cpu_ms).where(GameSeat.game_id == 2)).all())
        first = session.scalar(select(MoveRow.seat).where(MoveRow.game_id == 2, MoveRow.ply == 1))
    assert cpu[first] is None and cpu[1 - first] is not None


def test_a_stored_game_gives_each_seat_its_moves_cpu_time(tmp_path, monkeypatch):
    import tests.builders

    plain = tests.builders.random_game

    def timed(*args, **kwargs):  # the synthesised games, each move with a CPU time
        record = plain(*args, **kwargs)
        moves = [dataclasses.replace(m, cpu_ms=m.wall_ms / 2 + m.seat) for m in record.moves]
        return dataclasses.replace(record, moves=moves)

    monkeypatch.setattr(tests.builders, "random_game", timed)
    url = f"sqlite:///{tmp_path / 'timed.sqlite3'}"
    synthesize(url, teams=3, game="tictactoe", stages=[{"name": "league", "games_per_pair": 2}])
    with open_store(url, read_only=True)() as session:
        seats = session.execute(select(GameSeat.game_id, GameSeat.seat, GameSeat.cpu_ms)).all()
        moves = select(MoveRow.game_id, MoveRow.seat, func.sum(MoveRow.cpu_ms)).group_by(MoveRow.game_id, MoveRow.seat)
        summed = {(game, seat): total for game, seat, total in session.execute(moves)}
    assert len(seats) == 12 and all(cpu is not None for _, _, cpu in seats)
    assert {(game, seat): cpu for game, seat, cpu in seats} == {key: summed.get(key, 0.0) for key in summed} | {
        (game, seat): 0.0 for game, seat, _ in seats if (game, seat) not in summed
    }


def test_a_game_of_three_seats_whose_module_is_gone_counts_every_seat(tmp_path):
    import shutil

    from arena.core.records import GameRecord
    from arena.store.models import game_seats
    from arena.store.writes import save_record
    from tests.builders import create, set_status

    module = tmp_path / "goofspiel.py"
    shutil.copyfile(Path(__file__).resolve().parent.parent / "examples" / "games" / "goofspiel.py", module)
    config = {
        "name": "gone",
        "game": {"module": str(module)},  # (three seats by the game's own default, not a parameter)
        "bots": {"r": {"module": "bots.randombot"}},
        "teams": dict.fromkeys("abcd", "r"),
        "stages": [{"name": "league", "games_per_pair": 1}],
    }
    url = f"sqlite:///{tmp_path / 'gone.sqlite3'}"
    sessions, tournament_id = create(url, config)
    returns = [(3.0, 2.0, 1.0), (1.0, 2.0, 3.0), (2.0, 3.0, 1.0), (0.0, 0.0, 5.0)]
    with sessions.begin() as session:
        for number, game_id in enumerate(sorted(game_seats(session, GameRow.tournament_id == tournament_id))):
            points = returns[number % 4]
            save_record(session, GameRecord(game_id, [], points.index(max(points)), points, stderr=("", "", "")))
    set_status(sessions, tournament_id, "finished")
    module.unlink()  # (the results read still: the stored game reads as one of two seats)
    with open_store(url, read_only=True)() as session:
        found = load_results(session, find_tournament(session), games=False)
        one_by_one = results(session, found.tournament, "standard")
    assert found.seat_count == 3 and {len(g.teams) for g in found.finished} == {3}
    names = [t.name for t in found.teams]
    by_hand = {line.team: (line.games, line.points) for line in table(names, one_by_one, {})}
    assert {line.team: (line.games, line.points) for line in found.leaderboard} == by_hand
    assert sum(games for games, _ in by_hand.values()) == 3 * 4


def test_the_forfeits_are_told_in_the_order_of_their_first_games(league):
    with open_store(league, read_only=True)() as session:
        found = load_results(session, find_tournament(session), games=True)
    first = [g.forfeit for g in found.games if g.finished and g.forfeit]
    assert list(found.totals.forfeits) == list(dict.fromkeys(first)) and len(found.totals.forfeits) > 2


def test_two_results_changed_so_that_their_weighted_sums_cancel_still_change_the_check(league, tmp_path):
    from arena.contests.rating import fingerprint

    url = copy_of(league, tmp_path / "edited.sqlite3")
    with open_store(url).begin() as session:
        before = fingerprint(session, 1, 180)
        # game 30 from a draw to a win of seat 1 (its result code +2), game 60 from a win of seat 1 to
        # one of seat 0 (-1): weighted by their ids alone, the changes cancel (30 x 2 = 60 x 1)
        session.execute(update(GameRow).where(GameRow.id == 30).values(winner=None))
        session.execute(update(GameRow).where(GameRow.id == 60).values(winner=1))
        middle = fingerprint(session, 1, 180)
        session.execute(update(GameRow).where(GameRow.id == 30).values(winner=1))
        session.execute(update(GameRow).where(GameRow.id == 60).values(winner=0))
        after = fingerprint(session, 1, 180)
    assert len({before, middle, after}) == 3

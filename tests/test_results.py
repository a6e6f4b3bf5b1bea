"""Results: ratings, the leaderboard, pool standings with the course tie-breaks, the crosstable
and the totals, checked against values worked out by hand on small fixed tournaments."""

from __future__ import annotations

import pytest
import trueskill
from sqlalchemy import select

from arena.errors import ArenaError
from arena.results.lookup import UnknownGameIdError, UnknownTournamentError, find_game, find_tournament
from arena.results.tournament_results import describe_status, load_results
from arena.store.database import open_store
from arena.store.models import GameRow, GameSeat
from tests.builders import (
    FIRST_LEGAL,
    LEAGUE,
    O_WINS,
    TTT,
    X_WINS,
    create,
    league_config,
    play_league,
    play_stage,
    scripted,
    set_status,
    synthesize,
)


@pytest.fixture
def league(tmp_path):
    """The fixed 4-team tictactoe league, finished: (sessions, its results)."""
    sessions, tid = create(f"sqlite:///{tmp_path / 'league.db'}", league_config())
    play_stage(sessions, tid, 0, play_league)
    set_status(sessions, tid, "finished", run_seconds=12.5)
    with sessions.begin() as session:
        return sessions, load_results(session, find_tournament(session))


def expected_ratings(env: trueskill.TrueSkill) -> dict[str, trueskill.Rating]:
    """The league's ratings worked out with trueskill directly, game by game in id order."""
    r = {t: env.create_rating() for t in "ABCD"}
    r["A"], r["D"] = trueskill.rate_1vs1(r["A"], r["D"], env=env)
    r["B"], r["C"] = trueskill.rate_1vs1(r["B"], r["C"], env=env)
    r["C"], r["A"] = trueskill.rate_1vs1(r["C"], r["A"], env=env)
    r["B"], r["D"] = trueskill.rate_1vs1(r["B"], r["D"], env=env)
    r["A"], r["B"] = trueskill.rate_1vs1(r["A"], r["B"], env=env)
    r["D"], r["C"] = trueskill.rate_1vs1(r["D"], r["C"], drawn=True, env=env)
    return r


def test_leaderboard_records_points_forfeits_and_think_times_are_the_hand_computed_ones(league):
    _, found = league
    lines = {line.team: line for line in found.leaderboard}
    assert [(t, lines[t].games, lines[t].wins, lines[t].draws, lines[t].losses, lines[t].points) for t in "ABCD"] == [
        ("A", 3, 2, 0, 1, 2.0),
        ("B", 3, 2, 0, 1, 2.0),
        ("C", 3, 1, 1, 1, 1.5),
        ("D", 3, 0, 1, 2, 0.5),
    ]
    assert {t: lines[t].forfeits for t in "ABCD"} == {"A": {}, "B": {}, "C": {}, "D": {"timeout": 1}}
    assert {t: (lines[t].moves, lines[t].mean_ms, lines[t].max_ms) for t in "ABCD"} == {
        "A": (8, 2.0, 2.0),
        "B": (6, 4.0, 4.0),
        "C": (10, 6.0, 6.0),
        "D": (7, 78 / 7, 30.0),
    }
    assert all(line.course_points is None for line in found.leaderboard)  # tictactoe has no points of its own


def test_ratings_are_trueskill_replayed_in_schedule_order(league):
    _, found = league
    expected = expected_ratings(
        trueskill.TrueSkill(mu=25.0, sigma=25 / 3, beta=25 / 6, tau=25 / 300, draw_probability=0.1)
    )
    for line in found.leaderboard:
        assert (line.mu, line.sigma) == pytest.approx((expected[line.team].mu, expected[line.team].sigma), abs=1e-9)
        assert line.conservative == pytest.approx(expected[line.team].mu - 3 * expected[line.team].sigma, abs=1e-9)
    assert [line.team for line in found.leaderboard] == sorted(
        "ABCD", key=lambda t: -(expected[t].mu - 3 * expected[t].sigma)
    )
    assert [line.rank for line in found.leaderboard] == [1, 2, 3, 4]


def test_each_team_keeps_its_rating_after_each_of_its_games(league):
    _, found = league
    assert {t: [game_id for game_id, _, _ in found.ratings[t].after] for t in "ABCD"} == {
        "A": [1, 3, 5],
        "B": [2, 4, 5],
        "C": [2, 3, 6],
        "D": [1, 4, 6],
    }
    _last_game_id, mu, sigma = found.ratings["A"].after[-1]
    assert (mu, sigma) == (found.ratings["A"].mu, found.ratings["A"].sigma)


def test_ratings_do_not_depend_on_the_order_games_were_stored(tmp_path, league):
    _, found = league
    sessions, tid = create(f"sqlite:///{tmp_path / 'reversed.db'}", league_config())
    with sessions.begin() as session:  # the games finish in reverse order
        from arena.store.writes import save_record

        for game_id in sorted(LEAGUE, reverse=True):
            row = session.get(GameRow, game_id)
            save_record(session, play_league(row, *LEAGUE[game_id][:2]))
    set_status(sessions, tid, "finished")
    with sessions.begin() as session:
        again = load_results(session, find_tournament(session))
    assert [line.to_dict() for line in again.leaderboard] == [line.to_dict() for line in found.leaderboard]


def test_rating_settings_come_from_the_tournament_file_and_say_so(tmp_path):
    config = league_config(rating={"beta": 3.0, "draw_probability": 0.25})
    sessions, tid = create(f"sqlite:///{tmp_path / 'set.db'}", config)
    play_stage(sessions, tid, 0, play_league)
    with sessions.begin() as session:
        found = load_results(session, find_tournament(session))
    assert [(s.name, s.value, s.source) for s in found.rating_settings] == [
        ("mu", 25.0, "default"),
        ("sigma", 25 / 3, "default"),
        ("beta", 3.0, "tournament file"),
        ("tau", 25 / 300, "default"),
        ("draw_probability", 0.25, "tournament file"),
    ]
    expected = expected_ratings(
        trueskill.TrueSkill(mu=25.0, sigma=25 / 3, beta=3.0, tau=25 / 300, draw_probability=0.25)
    )
    assert found.ratings["D"].mu == pytest.approx(expected["D"].mu, abs=1e-9)


def league_of_winners(tmp_path, name: str, teams: str, winners: list[str], games_per_pair: int):
    """A round robin of ``teams`` dealt in order whose game ``i`` (by id) is won by ``winners[i]``."""
    config = {
        "name": name,
        "game": "tictactoe",
        "bots": {t: {"path": FIRST_LEGAL} for t in teams},
        "stages": [{"name": "league", "seeding": "order", "games_per_pair": games_per_pair}],
    }
    sessions, tid = create(f"sqlite:///{tmp_path / name}.db", config)
    play_stage(
        sessions,
        tid,
        0,
        lambda row, first, second: scripted(TTT, row.id, X_WINS if winners[row.id - 1] == first else O_WINS),
    )
    with sessions.begin() as session:
        return load_results(session, find_tournament(session))


def test_equal_points_and_wins_are_broken_by_the_games_between_the_tied_teams(tmp_path):
    # schedule: A-D C-B C-A B-D A-B D-C D-A B-C A-C D-B B-A C-D; A beats B twice
    found = league_of_winners(tmp_path, "duel", "ABCD", list("DCCDADDBCBAD"), 2)
    (pool,) = found.stages[0].pools
    assert [(s.rank, s.team, s.points, s.wins) for s in pool.lines] == [
        (1, "D", 5.0, 5),
        (2, "C", 3.0, 3),
        (3, "A", 2.0, 2),
        (4, "B", 2.0, 2),
    ]
    ratings = {line.team: line.conservative for line in found.leaderboard}
    assert ratings["B"] > ratings["A"], "B is rated higher, so only the games between them put A first"


def test_a_tie_the_games_between_them_cannot_break_goes_to_the_conservative_rating(tmp_path):
    # schedule: P-S R-Q R-P Q-S P-Q S-R; the cycle P beats Q beats R beats P, and all beat S
    found = league_of_winners(tmp_path, "cycle", "PQRS", list("PQRQPR"), 1)
    (pool,) = found.stages[0].pools
    assert [(s.points, s.wins) for s in pool.lines] == [(2.0, 2), (2.0, 2), (2.0, 2), (0.0, 0)]
    ratings = {line.team: line.conservative for line in found.leaderboard}
    assert len({ratings["P"], ratings["Q"], ratings["R"]}) == 3
    assert [s.team for s in pool.lines] == sorted("PQR", key=lambda t: -ratings[t]) + ["S"]


def test_the_crosstable_holds_what_each_team_scored_against_each_opponent(league):
    _, found = league
    cells = {pair: (c.points, c.against, c.games, c.wins, c.draws, c.losses) for pair, c in found.crosstable.items()}
    assert cells == {
        ("A", "D"): (1.0, 0.0, 1, 1, 0, 0),
        ("D", "A"): (0.0, 1.0, 1, 0, 0, 1),
        ("C", "B"): (0.0, 1.0, 1, 0, 0, 1),
        ("B", "C"): (1.0, 0.0, 1, 1, 0, 0),
        ("C", "A"): (1.0, 0.0, 1, 1, 0, 0),
        ("A", "C"): (0.0, 1.0, 1, 0, 0, 1),
        ("B", "D"): (1.0, 0.0, 1, 1, 0, 0),
        ("D", "B"): (0.0, 1.0, 1, 0, 0, 1),
        ("A", "B"): (1.0, 0.0, 1, 1, 0, 0),
        ("B", "A"): (0.0, 1.0, 1, 0, 0, 1),
        ("D", "C"): (0.5, 0.5, 1, 0, 1, 0),
        ("C", "D"): (0.5, 0.5, 1, 0, 1, 0),
    }
    assert found.crosstable["D", "C"].share == 0.5 and found.crosstable["A", "B"].share == 1.0


def test_totals_count_games_moves_draws_and_forfeits_by_kind(league):
    _, found = league
    totals = found.totals
    assert (totals.expected, totals.planned, totals.finished, totals.moves, totals.draws) == (6, 6, 6, 31, 1)
    assert dict(totals.forfeits) == {"timeout": 1}
    assert found.complete and describe_status(found) is None


def test_the_podium_is_the_top_three_of_the_final_and_the_advanced_are_the_final_teams(tmp_path):
    stages = [{"name": "group", "pools": 2, "games_per_pair": 2, "advance": 2}, {"name": "final"}]
    url = f"sqlite:///{tmp_path / 'two.db'}"
    synthesize(url, teams=8, game="tictactoe", stages=stages, name="two")
    sessions = open_store(url)
    with sessions.begin() as session:
        found = load_results(session, find_tournament(session, "two"))
    group, final = found.stages
    finalists = {s.team for s in final.pools[0].lines}
    assert [len(p.advanced) for p in group.pools] == [2, 2]
    assert set().union(*(p.advanced for p in group.pools)) == finalists
    assert all({s.team for s in p.lines[:2]} == p.advanced for p in group.pools)
    assert [(p.place, p.team, p.stage_name) for p in found.podium] == [
        (rank, s.team, "final") for rank, s in enumerate(final.pools[0].lines[:3], 1)
    ]
    assert found.podium == found.standings[:3]
    assert (group.status, final.status) == ("complete", "complete")


def test_an_interrupted_tournament_is_reported_as_far_as_it_got(tmp_path):
    stages = [{"name": "group", "pools": 2, "games_per_pair": 1, "advance": 1}, {"name": "final"}]
    sessions, tid = create(
        f"sqlite:///{tmp_path / 'cut.db'}",
        {"name": "cut", "game": "tictactoe", "bots": {t: {"path": FIRST_LEGAL} for t in "ABCDEF"}, "stages": stages},
    )
    play_stage(sessions, tid, 0, lambda row, a, b: scripted(TTT, row.id, X_WINS) if row.id <= 4 else None)
    set_status(sessions, tid, "interrupted")
    with sessions.begin() as session:
        found = load_results(session, find_tournament(session))
    assert (found.totals.finished, found.totals.planned, found.totals.expected) == (4, 6, 8)  # the final: 2 games
    assert [s.status for s in found.stages] == ["in progress", "not started"]
    assert found.stages[1].pools == [] and all(not p.advanced for p in found.stages[0].pools)
    assert not found.complete
    assert describe_status(found) == (
        "This tournament was interrupted: reported as far as it got, 4 of 8 games played; 'arena run' resumes it."
    )


def test_course_points_are_summed_where_the_game_has_them(tmp_path):
    url = f"sqlite:///{tmp_path / 'x.db'}"
    synthesize(url, teams=4, game="xtreme", stages=[{"name": "league", "games_per_pair": 1}], name="x")
    sessions = open_store(url)
    with sessions.begin() as session:
        found = load_results(session, find_tournament(session))
        seats = list(session.scalars(select(GameSeat)))
    for line in found.leaderboard:
        own = [seat.points for seat in seats if seat.entry_id == found.team(line.team).entry_id]
        assert line.points == line.course_points == sum(own)


def test_an_unknown_tournament_names_the_known_ones_and_how_to_list_them(league):
    sessions, _ = league
    with sessions.begin() as session, pytest.raises(UnknownTournamentError) as error:
        find_tournament(session, "nope")
    assert (
        str(error.value)
        == "no tournament 'nope' in this database; the tournaments: league (list them with 'arena tournaments')"
    )


def test_an_empty_database_says_how_to_make_a_tournament(tmp_path):
    with (
        open_store(f"sqlite:///{tmp_path / 'empty.db'}").begin() as session,
        pytest.raises(ArenaError, match="arena run FILE"),
    ):
        find_tournament(session)


def test_an_unknown_game_id_says_how_to_list_games(league):
    sessions, _ = league
    with sessions.begin() as session, pytest.raises(UnknownGameIdError) as error:
        find_game(session, 99)
    assert str(error.value) == (
        "no game 99 in this database (game ids run from 1 to 6); list games with "
        "'arena games' or 'arena games --tournament NAME'"
    )


def test_a_stored_config_this_machine_cannot_fully_check_is_still_read(league):
    from arena.store.models import Tournament

    sessions, found = league
    with sessions.begin() as session:  # a bot run by an interpreter this machine does not have
        tournament = session.get(Tournament, 1)
        config = dict(tournament.config)
        config["bots"] = {**config["bots"], "A": {**config["bots"]["A"], "python": "/nowhere/python2.7"}}
        tournament.config = config
    with sessions.begin() as session:
        again = load_results(session, find_tournament(session))
    assert [line.to_dict() for line in again.leaderboard] == [line.to_dict() for line in found.leaderboard]
    assert again.totals.expected == 6 and again.config.stages[0].seeding == "order"

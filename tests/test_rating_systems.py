"""The tournament file's ``rating.system``: TrueSkill by default, or OpenSkill (Weng-Lin's
Plackett-Luce model, the ``openskill`` package), each replayed over the same games in schedule
order and ranking by μ − 3σ; the leaderboard, its JSON and the report say which."""

from __future__ import annotations

import json

import pytest
from openskill.models import PlackettLuce

from arena.contests.config import TournamentDef, parse_config
from arena.errors import ConfigError
from arena.results.lookup import find_tournament
from arena.results.report import write_report
from arena.results.tournament_results import load_results
from tests.builders import create, league_config, play_league, play_stage, set_status
from tests.fixtures.harnesskit import run_arena

OPENSKILL = {"system": "openskill"}


def stored_league(tmp_path, name: str, **extra):
    """The fixed 4-team league (tests/test_results.py), finished: (url, its results)."""
    url = f"sqlite:///{tmp_path / name}.db"
    sessions, tid = create(url, league_config(name, **extra))
    play_stage(sessions, tid, 0, play_league)
    set_status(sessions, tid, "finished")
    with sessions.begin() as session:
        return url, load_results(session, find_tournament(session))


def openskill_by_hand() -> dict:
    """The league's OpenSkill ratings worked out with the package directly, game by game in id
    order: A beats D, B beats C, C beats A, B beats D (D's forfeit), A beats B, D and C draw."""
    model = PlackettLuce()
    r = {t: model.rating() for t in "ABCD"}
    for first, second, ranks in (
        ("A", "D", [0, 1]),
        ("C", "B", [1, 0]),
        ("C", "A", [0, 1]),
        ("B", "D", [0, 1]),
        ("A", "B", [0, 1]),
        ("D", "C", [0, 0]),
    ):
        [[r[first]], [r[second]]] = model.rate([[r[first]], [r[second]]], ranks=ranks)
    return r


def test_openskill_ratings_are_the_packages_plackett_luce_replayed_in_schedule_order(tmp_path):
    _, found = stored_league(tmp_path, "open", rating=OPENSKILL)
    expected = openskill_by_hand()
    for line in found.leaderboard:
        assert (line.mu, line.sigma) == pytest.approx((expected[line.team].mu, expected[line.team].sigma), abs=1e-9)
        assert line.conservative == pytest.approx(expected[line.team].ordinal(), abs=1e-9)
    assert [line.team for line in found.leaderboard] == sorted("ABCD", key=lambda t: -expected[t].ordinal())


def test_the_two_systems_rate_the_same_games_and_differ_only_in_the_ratings(tmp_path):
    _, true = stored_league(tmp_path, "true")
    _, open_ = stored_league(tmp_path, "open", rating=OPENSKILL)
    record = ("games", "wins", "draws", "losses", "points", "elo")

    def by_team(found):
        return {line.team: tuple(getattr(line, name) for name in record) for line in found.leaderboard}

    assert by_team(true) == by_team(open_)
    assert {t: true.ratings[t].mu for t in "ABCD"} != {t: open_.ratings[t].mu for t in "ABCD"}
    for found in (true, open_):
        ratings = [line.conservative for line in found.leaderboard]
        assert ratings == sorted(ratings, reverse=True)
    assert (true.rating_system.label, open_.rating_system.label) == ("TrueSkill μ − 3σ", "OpenSkill ordinal μ − 3σ")


def test_openskill_has_no_draw_probability_among_its_settings(tmp_path):
    _, found = stored_league(tmp_path, "open", rating={"system": "openskill", "beta": 3.0})
    assert [(s.name, s.value, s.source) for s in found.rating_settings] == [
        ("mu", 25.0, "default"),
        ("sigma", 25 / 3, "default"),
        ("beta", 3.0, "tournament file"),
        ("tau", 25 / 300, "default"),
    ]


def test_the_leaderboard_says_which_system_ranks_it(tmp_path):
    url, _ = stored_league(tmp_path, "open", rating=OPENSKILL)
    result = run_arena("leaderboard", "--db", url)
    assert result.exit_code == 0, result.output
    assert "open: tictactoe, leaderboard by OpenSkill ordinal μ − 3σ; 6/6 games, status finished" in result.output
    assert "OpenSkill: μ 25, σ 8.33333, β 4.16667, τ 0.0833333; Elo: fitted to the 6 finished games" in result.output
    data = json.loads(run_arena("leaderboard", "--json", "--db", url).output)
    assert (data["rating_system"], data["ranked_by"]) == ("openskill", "OpenSkill ordinal μ − 3σ")
    assert data["rating"] == {"mu": 25.0, "sigma": 25 / 3, "beta": 25 / 6, "tau": 25 / 300}


def test_rating_by_the_other_system_is_refused_naming_the_tournaments(tmp_path):
    url, _ = stored_league(tmp_path, "open", rating=OPENSKILL)
    result = run_arena("leaderboard", "--rating", "trueskill", "--db", url)
    assert result.exit_code != 0
    assert str(result.exception) == (
        "--rating 'trueskill': tournament 'open' is rated by openskill (its file's rating.system); "
        "choose openskill or elo"
    )


def test_the_report_names_the_system_in_the_leaderboard_the_settings_and_the_team_pages(tmp_path):
    url, _ = stored_league(tmp_path, "open", rating=OPENSKILL)
    from arena.store.database import open_store

    write_report(open_store(url), "open", tmp_path / "site")
    index = (tmp_path / "site/index.html").read_text()
    assert "ranked by the conservative OpenSkill rating ordinal μ − 3σ" in index
    assert "<h2>OpenSkill settings</h2>" in index and "draw probability" not in index
    assert '<span class="label">OpenSkill ordinal μ − 3σ</span>' in (tmp_path / "site/teams/01-a.html").read_text()


def test_trueskill_is_the_default_and_an_unknown_system_is_an_error_naming_the_field():
    base = "name: t\ngame: tictactoe\nbots:\n  a: {module: bots.randombot}\n  b: {module: bots.randombot}\n"
    assert parse_config(base).rating.system == "trueskill"
    with pytest.raises(ConfigError) as error:
        parse_config(base + "rating: {system: glicko}\n", "t.yaml")
    assert str(error.value) == (
        "t.yaml is not a valid tournament:\n  rating.system: Input should be 'trueskill' or 'openskill'"
    )


def test_a_tournament_stored_before_rating_systems_existed_still_resumes():
    config = parse_config("name: t\ngame: tictactoe\nbots:\n  a: {module: bots.uct}\n  b: {module: bots.minimax}\n")
    stored = config.model_dump(mode="json")
    del stored["rating"]["system"]  # as an older arena stored it
    assert TournamentDef.model_validate(stored).digest() == config.digest()

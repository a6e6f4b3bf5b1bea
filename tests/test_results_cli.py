"""``arena leaderboard``: the TrueSkill leaderboard, a stage's pools, JSON for scripts."""

from __future__ import annotations

import json

from arena.results.lookup import find_tournament
from arena.results.tournament_results import load_results
from tests.builders import FIRST_LEGAL, create, league_config, play_league, play_stage
from tests.fixtures.harnesskit import run_arena


def invoke(*args: str):
    return run_arena(*args)


def test_the_json_leaderboard_is_the_results_leaderboard(league_url):
    result = invoke("leaderboard", "--json", "--db", league_url)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    from arena.store.database import open_store

    with open_store(league_url).begin() as session:
        found = load_results(session, find_tournament(session))
    assert data["leaderboard"] == [line.to_dict() for line in found.leaderboard]
    assert (data["tournament"], data["complete"], data["games_finished"], data["games_expected"]) == (
        "league",
        True,
        6,
        6,
    )
    assert data["rating"] == {"mu": 25.0, "sigma": 25 / 3, "beta": 25 / 6, "tau": 25 / 300, "draw_probability": 0.1}
    assert {
        row["team"]: (row["wins"], row["draws"], row["losses"], row["points"], row["forfeits"])
        for row in data["leaderboard"]
    } == {
        "A": (2, 0, 1, 2.0, {}),
        "B": (2, 0, 1, 2.0, {}),
        "C": (1, 1, 1, 1.5, {}),
        "D": (0, 1, 2, 0.5, {"timeout": 1}),
    }


def test_the_leaderboard_table_shows_each_team_with_its_record(league_url):
    result = invoke("leaderboard", "league", "--db", league_url)
    assert result.exit_code == 0, result.output
    assert "league: tictactoe, leaderboard by TrueSkill μ − 3σ; 6/6 games, status finished" in result.output
    d_row = next(line for line in result.output.splitlines() if "│ D " in line)
    assert [cell.strip() for cell in d_row.split("│")[1:-1]][6:11] == ["3", "0-1-2", "0.5", "timeout 1", "11.1"]
    assert "┃ bot " not in result.output  # each team is its own bot: no column repeating its name


def test_the_leaderboard_names_each_teams_bot_in_every_row(tmp_path):
    # a newcomer once saw the bot column empty in every row
    url = f"sqlite:///{tmp_path / 'teams.db'}"
    bots = {"first": {"path": FIRST_LEGAL}, "other": {"path": FIRST_LEGAL}}
    sessions, tid = create(
        url, league_config(bots=bots, teams={"A": "first", "B": "other", "C": "first", "D": "other"})
    )
    play_stage(sessions, tid, 0, play_league)
    for rating in ("trueskill", "elo"):
        result = invoke("leaderboard", "--rating", rating, "--db", url)
        assert result.exit_code == 0, result.output
        rows = [line.split("│") for line in result.output.splitlines() if line.startswith("│")]
        assert {row[2].strip(): row[3].strip() for row in rows} == {
            "A": "first",
            "B": "other",
            "C": "first",
            "D": "other",
        }


def test_the_leaderboard_says_what_it_ranks_by_and_where_the_standings_are(tmp_path):
    url = f"sqlite:///{tmp_path / 'spaced.db'}"
    sessions, tid = create(url, league_config("my league"))
    play_stage(sessions, tid, 0, play_league)
    result = run_arena("leaderboard", "--db", url)
    assert result.output.splitlines()[-1] == (
        "ranked by TrueSkill μ−3σ over every game, not by points; the final standings: arena standings 'my league'"
    )


def test_without_a_name_the_latest_tournament_is_shown(league_url):
    create(league_url, league_config("league-2"))
    result = invoke("leaderboard", "--json", "--db", league_url)
    data = json.loads(result.output)
    assert (data["tournament"], data["games_finished"], data["status"]) == ("league-2", 0, "pending")
    assert data["note"] == "This tournament has not started yet: 0 of 6 games played."


def test_a_stage_shows_each_pool_with_the_course_tie_breaks_and_who_went_on(staged_url):
    result = invoke("leaderboard", "--stage", "group", "--json", "--db", staged_url)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    from arena.store.database import open_store

    with open_store(staged_url).begin() as session:
        found = load_results(session, find_tournament(session))
    group = found.stages[0]
    assert [p["pool"] for p in data["pools"]] == ["A", "B"]
    for shown, pool in zip(data["pools"], group.pools, strict=True):
        assert [(row["rank"], row["team"], row["points"]) for row in shown["standings"]] == [
            (s.rank, s.team, s.points) for s in pool.lines
        ]
        assert [row["advanced"] for row in shown["standings"]] == [True, True, False, False]


def test_a_pool_can_be_picked_by_letter_or_number(staged_url):
    by_letter = json.loads(invoke("leaderboard", "-s", "0", "-p", "b", "--json", "--db", staged_url).output)
    by_number = json.loads(invoke("leaderboard", "-s", "group", "-p", "1", "--json", "--db", staged_url).output)
    assert by_letter == by_number and [p["pool"] for p in by_letter["pools"]] == ["B"]
    text = invoke("leaderboard", "--stage", "final", "--db", staged_url).output
    assert "pool A: 12/12 games" in text


def test_an_unknown_stage_lists_the_stages(staged_url):
    result = invoke("leaderboard", "--stage", "semi", "--db", staged_url)
    assert result.exit_code != 0
    assert str(result.exception) == "tournament 'staged' has no stage 'semi'; its stages: 0 group, 1 final"


def test_an_unknown_pool_lists_the_pools(staged_url):
    result = invoke("leaderboard", "--stage", "group", "--pool", "C", "--db", staged_url)
    assert str(result.exception) == "stage 'group' has no pool 'C'; its pools: A, B (or 0-1)"


def test_a_pool_needs_its_stage(staged_url):
    result = invoke("leaderboard", "--pool", "A", "--db", staged_url)
    assert str(result.exception) == "--pool needs --stage: give the stage too, e.g. --stage group --pool A"


def test_an_unknown_tournament_says_how_to_list_them(league_url):
    result = invoke("leaderboard", "nope", "--db", league_url)
    assert result.exit_code != 0
    assert "(list them with 'arena tournaments')" in str(result.exception)


def test_a_digit_that_is_not_a_number_is_an_unknown_stage_or_pool(staged_url):
    stage = invoke("leaderboard", "--stage", "²", "--db", staged_url)
    assert str(stage.exception) == "tournament 'staged' has no stage '²'; its stages: 0 group, 1 final"
    pool = invoke("leaderboard", "--stage", "group", "--pool", "²", "--db", staged_url)
    assert str(pool.exception) == "stage 'group' has no pool '²'; its pools: A, B (or 0-1)"

"""The Elo leaderboard: ``arena leaderboard --rating elo`` ranks the teams by a Bradley-Terry fit
(``arena.stats.elo.fit_elo``) of the stored games, all of them or a stage's, with 95 % intervals and
the likelihood of superiority over the next team; the default leaderboard shows the same Elo
beside the rating system's figures; JSON for scripts."""

from __future__ import annotations

import json
from itertools import pairwise

import pytest

from arena.results.lookup import find_tournament
from arena.results.tournament_results import load_results
from arena.stats.elo import fit_elo
from arena.store.database import open_store
from tests.builders import FIRST_LEGAL, TTT, X_WINS, create, play_stage, scripted, set_status
from tests.fixtures.harnesskit import run_arena

#: the fixed league's games (tests/test_results.py) as (first, second, score of first): A beats D,
#: B (second) beats C, C beats A, B beats D (D's forfeit), A beats B, D and C draw
LEAGUE_GAMES = [("A", "D", 1.0), ("C", "B", 0.0), ("C", "A", 1.0), ("B", "D", 1.0), ("A", "B", 1.0), ("D", "C", 0.5)]
RECORDS = {"A": (2, 0, 1), "B": (2, 0, 1), "C": (1, 1, 1), "D": (0, 1, 2)}
FIT_SETTINGS = {
    "model": "Bradley-Terry maximum likelihood; a draw is half a win and half a loss",
    "stage": None,
    "games": 6,
    "confidence": 0.95,
    "prior_draws": 1.0,
    "anchor": "the field's mean",
    "anchor_elo": 0.0,
}


def results_of(url: str):
    with open_store(url).begin() as session:
        return load_results(session, find_tournament(session))


def test_the_elo_table_is_the_fit_of_the_finished_games_with_each_teams_record(league_url):
    table = results_of(league_url).elo
    fit = fit_elo(LEAGUE_GAMES, "ABCD")
    assert [line.team for line in table.lines] == fit.ranking()
    assert [line.rank for line in table.lines] == [1, 2, 3, 4]
    for line in table.lines:
        assert (line.elo, line.lower, line.upper) == (fit[line.team].elo, fit[line.team].lower, fit[line.team].upper)
        assert (line.wins, line.draws, line.losses) == RECORDS[line.team] and line.games == 3
    ranked = table.lines
    assert [line.los_next for line in ranked] == [fit.los(a.team, b.team) for a, b in pairwise(ranked)] + [None]
    assert table.line("D").score == pytest.approx(1 / 6)


def test_rating_elo_prints_the_teams_best_first_with_interval_score_and_los(league_url):
    result = run_arena("leaderboard", "--rating", "elo", "--db", league_url)
    assert result.exit_code == 0, result.output
    assert "league: tictactoe, leaderboard by Elo, all stages; 6/6 games, status finished" in result.output
    fit = fit_elo(LEAGUE_GAMES, "ABCD")
    rows = [line for line in result.output.splitlines() if line.startswith("│")]
    shown = [[cell.strip() for cell in row.split("│")[1:-1]] for row in rows]  # the head's bars are ┃
    assert [cells[1] for cells in shown] == fit.ranking()
    top, last = fit.players[0], fit.players[-1]
    assert shown[0] == [  # (no bot column: each team is its own bot)
        "1",
        top.name,
        f"{top.elo:+.0f}",
        f"{top.error:.0f}",
        "3",
        "-".join(map(str, RECORDS[top.name])),
        f"{100 * (RECORDS[top.name][0] + RECORDS[top.name][1] / 2) / 3:.1f} %",
        f"{100 * fit.los(top.name, fit.players[1].name):.1f} %",
    ]
    assert shown[-1] == ["4", "D", f"{last.elo:+.0f}", f"{last.error:.0f}", "3", "0-1-2", "16.7 %", ""]
    assert "Bradley-Terry maximum-likelihood fit to 6 finished games" in result.output


def test_rating_elo_json_gives_the_fits_fields_in_elo_order(league_url):
    data = json.loads(run_arena("leaderboard", "--rating", "elo", "--json", "--db", league_url).output)
    fit = fit_elo(LEAGUE_GAMES, "ABCD")
    assert (data["rating_system"], data["ranked_by"], data["stage"], data["elo"]) == ("elo", "Elo", None, FIT_SETTINGS)
    first = fit.players[0]
    wins, draws, losses = RECORDS[first.name]
    assert data["leaderboard"][0] == {
        "rank": 1,
        "team": first.name,
        "bot": first.name,
        "elo": round(first.elo, 2),
        "elo_lower": round(first.lower, 2),
        "elo_upper": round(first.upper, 2),
        "elo_error": round(first.error, 2),
        "games": 3,
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "score": round((wins + draws / 2) / 3, 4),
        "los_next": round(fit.los(first.name, fit.players[1].name), 4),
    }
    assert [row["team"] for row in data["leaderboard"]] == fit.ranking()
    assert data["leaderboard"][-1]["los_next"] is None


def test_the_default_leaderboard_shows_each_teams_elo_beside_its_rating(league_url):
    fit = fit_elo(LEAGUE_GAMES, "ABCD")
    data = json.loads(run_arena("leaderboard", "--json", "--db", league_url).output)
    assert data["elo"] == FIT_SETTINGS
    assert {row["team"]: (row["elo"], row["elo_lower"], row["elo_upper"]) for row in data["leaderboard"]} == {
        t: (round(fit[t].elo, 2), round(fit[t].lower, 2), round(fit[t].upper, 2)) for t in "ABCD"
    }
    text = run_arena("leaderboard", "--db", league_url).output
    d_row = next(line for line in text.splitlines() if "│ D " in line)
    assert [cell.strip() for cell in d_row.split("│")[1:-1]][5] == f"{fit['D'].elo:+.0f} ± {fit['D'].error:.0f}"


def test_a_stage_is_rated_on_its_own_games_and_teams(staged_url):
    found = results_of(staged_url)
    finalists = [line.team for line in found.stages[1].pools[0].lines]
    games = [(g.first, g.second, 0.5 if g.winner is None else 1.0 - g.winner) for g in found.games if g.stage == 1]
    fit = fit_elo(games, [t.name for t in found.teams if t.name in finalists])
    data = json.loads(run_arena("leaderboard", "-r", "elo", "--stage", "final", "--json", "--db", staged_url).output)
    assert data["stage"] == "final" and data["elo"]["games"] == len(games) == 12
    assert [(row["team"], row["elo"]) for row in data["leaderboard"]] == [
        (player.name, round(player.elo, 2)) for player in fit.players
    ]


def test_a_stage_not_drawn_yet_has_nobody_to_rate(tmp_path):
    url = f"sqlite:///{tmp_path / 'cut.db'}"
    stages = [{"name": "group", "pools": 2, "games_per_pair": 1, "advance": 1}, {"name": "final"}]
    config = {"name": "cut", "game": "tictactoe", "bots": {t: {"path": FIRST_LEGAL} for t in "ABCD"}, "stages": stages}
    sessions, tid = create(url, config)
    play_stage(sessions, tid, 0, lambda row, a, b: scripted(TTT, row.id, X_WINS) if row.id == 1 else None)
    set_status(sessions, tid, "interrupted")
    text = run_arena("leaderboard", "--rating", "elo", "--stage", "final", "--db", url).output
    assert "Stage 'final' has not started: its pools are drawn when the stage before it ends." in text
    data = json.loads(run_arena("leaderboard", "--rating", "elo", "--stage", "final", "--json", "--db", url).output)
    assert (data["leaderboard"], data["elo"]) == ([], None)


def test_a_pool_cannot_be_rated_by_elo_alone(staged_url):
    result = run_arena("leaderboard", "--rating", "elo", "--stage", "group", "--pool", "A", "--db", staged_url)
    assert result.exit_code != 0
    assert str(result.exception) == "--rating elo rates a whole stage, not a pool: leave --pool out"


def test_an_unknown_rating_is_refused_naming_the_choices(league_url):
    result = run_arena("leaderboard", "--rating", "glicko", "--db", league_url)
    assert str(result.exception) == (
        "--rating 'glicko': tournament 'league' is rated by trueskill (its file's rating.system); "
        "choose trueskill or elo"
    )


def test_two_teams_draw_heavy_games_get_the_interval_and_los_of_arena_match(tmp_path):
    # the leaderboard once said +26 +- 107, LOS 68 % of the games `arena match` put at +- 37, LOS 92 %
    from arena.stats.matchstats import pair_stats, pentanomial
    from tests.builders import DRAW, O_WINS

    url = f"sqlite:///{tmp_path / 'drawish.db'}"
    bots = {"A": {"path": FIRST_LEGAL}, "B": {"path": FIRST_LEGAL}}
    sessions, tid = create(
        url, {"name": "drawish", "game": "tictactoe", "bots": bots, "stages": [{"name": "m", "games_per_pair": 40}]}
    )
    a_scores = [1.0, 0.5] * 4 + [0.5, 0.5] * 15 + [0.5, 0.0]  # A's score, game by game: 4-35-1 in 20 pairs

    def play(row, first, second):
        score = a_scores[row.round]
        winner = (
            None
            if score == 0.5
            else (first if score == 1.0 else second)
            if first == "A"
            else (second if score == 1.0 else first)
        )
        moves = DRAW if winner is None else X_WINS if winner == first else O_WINS
        return scripted(TTT, row.id, moves)

    play_stage(sessions, tid, 0, play)
    data = json.loads(run_arena("leaderboard", "--rating", "elo", "--json", "--db", url).output)
    a, b = data["leaderboard"]
    assert (a["team"], a["wins"], a["draws"], a["losses"]) == ("A", 4, 35, 1)
    match = pair_stats(pentanomial(zip(a_scores[::2], a_scores[1::2])))  # as `arena match` counts them
    difference = (a["elo_upper"] - a["elo_lower"]) / 2 + (b["elo_upper"] - b["elo_lower"]) / 2  # each half of it
    assert difference == pytest.approx(match.error, rel=0.10)
    assert a["los_next"] == pytest.approx(match.los, abs=0.03)

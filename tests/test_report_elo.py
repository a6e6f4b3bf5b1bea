"""The report's Elo: a bar a team with its 95 % interval as an error bar (hand-written SVG, like
the report's other charts), and the likelihoods of superiority of the last stage's teams as a
table; the chart's geometry is checked on numbers worked out by hand."""

from __future__ import annotations

import re

import pytest

from arena.results.figures import elo_chart, percent, signed_elo
from arena.results.lookup import find_tournament
from arena.results.report import write_report
from arena.results.tables import EloLine
from arena.results.tournament_results import LOS_TEAMS, load_results
from arena.stats.elo import fit_elo
from arena.store.database import open_store
from tests.builders import create, league_config, play_league, play_stage, set_status, synthesize


def site_of(tmp_path, url: str, name: str):
    """The report of tournament ``name`` and its results: (index.html's text, results)."""
    write_report(open_store(url), name, tmp_path / "site")
    with open_store(url).begin() as session:
        found = load_results(session, find_tournament(session, name))
    return (tmp_path / "site/index.html").read_text(), found


def los_cells(index: str) -> dict[tuple[str, str], float]:
    """(row team, column team) -> the likelihood the table gives, from its cells' data."""
    table = re.search(r'<table id="los".*?</table>', index, re.S).group(0)
    cells = {}
    for row, body in re.findall(r'<tr data-team="([^"]+)">(.*?)</tr>', table, re.S):
        for column, value in re.findall(r'data-opponent="([^"]+)" data-los="([0-9.]+)"', body):
            cells[row, column] = float(value)
    return cells


@pytest.fixture
def staged(tmp_path):
    """8 teams in two pools, the best two of each to a final of 4: (index.html, results)."""
    url = f"sqlite:///{tmp_path / 'staged.db'}"
    stages = [{"name": "group", "pools": 2, "games_per_pair": 2, "advance": 2}, {"name": "final"}]
    synthesize(url, teams=8, game="tictactoe", stages=stages, name="staged", forfeit_every=4)
    return site_of(tmp_path, url, "staged")


def test_the_index_draws_a_bar_and_an_error_bar_for_each_team_best_first(staged):
    index, found = staged
    rows = re.findall(r'<g class="elo-row"><title>([^<]+)</title>(.*?)</g>', index, re.S)
    assert [title.split(":")[0] for title, _ in rows] == [line.team for line in found.elo.lines]
    chart = elo_chart(found.elo.lines)
    for (title, body), line, geometry in zip(rows, found.elo.lines, chart["rows"], strict=True):
        assert title == (
            f"{line.team}: Elo {signed_elo(line.elo)} ± {line.error:.0f} (95 %: {signed_elo(line.lower)} to "
            f"{signed_elo(line.upper)}), {line.games} games"
        )
        assert f'x1="{geometry["low"]}" x2="{geometry["high"]}"' in body  # the interval's whisker
        assert f'width="{geometry["bar_w"]}"' in body
    assert "A Bradley-Terry maximum-likelihood fit to the 36 finished games of all stages" in index


def test_the_leaderboard_table_has_each_teams_elo_and_interval(staged):
    index, found = staged
    table = re.search(r'<table[^>]*id="leaderboard".*?</table>', index, re.S).group(0)
    for line in found.leaderboard:
        cell = re.search(rf'<tr data-team="{re.escape(line.team)}">.*?data-col="elo">([^\n]*)</td>', table, re.S)
        fitted = found.elo.line(line.team)
        assert cell.group(1) == f'{signed_elo(fitted.elo)} <span class="muted">± {fitted.error:.0f}</span>'


def test_the_los_table_holds_the_final_teams_by_elo_and_the_fits_likelihoods(staged):
    index, found = staged
    finalists = {line.team for line in found.stages[1].pools[0].lines}
    order = [line.team for line in found.elo.lines if line.team in finalists]
    cells = los_cells(index)
    assert "<h3>Likelihood of superiority: final</h3>" in index
    assert re.findall(r'<tr data-team="([^"]+)">\s*<th class="rank">', index) == order
    assert set(cells) == {(a, b) for a in order for b in order if a != b}
    for (a, b), value in cells.items():
        assert value == round(found.elo.los(a, b), 4)
        assert cells[b, a] == pytest.approx(1 - value, abs=2e-4)


def test_the_los_table_shows_the_best_by_elo_of_a_large_stage_and_says_so(tmp_path):
    url = f"sqlite:///{tmp_path / 'big.db'}"
    synthesize(url, teams=20, game="tictactoe", stages=[{"name": "league", "games_per_pair": 1}], name="big")
    index, found = site_of(tmp_path, url, "big")
    shown = {a for a, _ in los_cells(index)}
    assert shown == {line.team for line in found.elo.lines[:LOS_TEAMS]}
    assert f"the {LOS_TEAMS} best by Elo of the stage's 20 teams" in index


def test_a_tournament_not_started_has_its_teams_at_zero_and_no_los_table_before_its_last_stage(tmp_path):
    url = f"sqlite:///{tmp_path / 'new.db'}"
    stages = [{"name": "group", "pools": 2, "games_per_pair": 1, "advance": 1}, {"name": "final"}]
    create(url, league_config(stages=stages))
    index, found = site_of(tmp_path, url, "league")
    assert {line.elo for line in found.elo.lines} == {0.0}
    assert index.count('<g class="elo-row">') == 4 and '<table id="los"' not in index


def test_a_one_stage_league_shows_every_team_in_its_los_table(tmp_path):
    url = f"sqlite:///{tmp_path / 'league.db'}"
    sessions, tid = create(url, league_config())
    play_stage(sessions, tid, 0, play_league)
    set_status(sessions, tid, "finished")
    index, _ = site_of(tmp_path, url, "league")
    fit = fit_elo([("A", "D", 1), ("C", "B", 0), ("C", "A", 1), ("B", "D", 1), ("A", "B", 1), ("D", "C", 0.5)], "ABCD")
    assert los_cells(index) == {(a, b): round(fit.los(a, b), 4) for a in "ABCD" for b in "ABCD" if a != b}


# ---------------------------------------------------------------- geometry and figures


def line(team: str, elo: float, half: float) -> EloLine:
    return EloLine(0, team, team, elo, elo - half, elo + half, 10, 5, 0, 5, None)


def test_the_elo_chart_puts_zero_and_each_interval_where_the_scale_says():
    chart = elo_chart([line("strong", 100.0, 50.0), line("weak", -100.0, 100.0)])
    # range -200..150 padded by 4 % of 350 (14) each side: -214..164; x = 160 + 546 (v + 214) / 378
    assert (chart["left"], chart["right"], chart["top"], chart["bottom"], chart["height"]) == (160, 706, 14, 50, 84)
    assert chart["zero"] == 469.1
    strong, weak = chart["rows"]
    assert [strong[k] for k in ("y", "bar_x", "bar_w", "low", "high")] == [23.0, 469.1, 144.5, 541.3, 685.8]
    assert [weak[k] for k in ("y", "bar_x", "bar_w", "low", "high")] == [41.0, 324.7, 144.4, 180.2, 469.1]
    assert (strong["negative"], weak["negative"]) == (False, True)
    assert [t["label"] for t in chart["xticks"]] == ["-200", "-150", "-100", "-50", "0", "+50", "+100", "+150"]


def test_a_long_team_name_is_cut_in_the_chart_and_whole_in_its_tooltip():
    (row,) = elo_chart([line("a" * 30, 0.0, 10.0)])["rows"]
    assert row["label"] == "a" * 21 + "…" and row["title"].startswith("a" * 30 + ": Elo 0 ± 10")


def test_probabilities_are_whole_percentages_never_a_rounded_certainty():
    shares = (0.0, 0.004, 0.5, 0.974, 0.996, 1.0, None)
    assert [percent(p) for p in shares] == ["<1", "<1", "50", "97", ">99", ">99", ""]
    assert [signed_elo(v) for v in (35.4, -120.6, -0.2, None)] == ["+35", "-121", "0", ""]

"""The HTML report: every page written, self-contained (no network), game pages small and
drawing the engine's own positions, records that do not re-play flagged, ``arena report``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from sqlalchemy import update

from arena.contests.rating import RatingHistory
from arena.games import get_game
from arena.results.figures import nice_ticks, rating_chart, think_histogram
from arena.results.lookup import find_tournament
from arena.results.report import team_file, write_report
from arena.results.tournament_results import load_results
from arena.store.database import open_store
from arena.store.models import MoveRow
from tests.builders import create, league_config, play_league, play_stage, set_status, synthesize
from tests.fixtures.harnesskit import run_arena

#: the most a game page may weigh: one game's positions, not the database
GAME_PAGE_LIMIT = 64 * 1024


@pytest.fixture(scope="module")
def xtreme_report(tmp_path_factory):
    """A finished 6-team xtreme tournament in two stages, with forfeits, and its report:
    (url, report folder, results)."""
    folder = tmp_path_factory.mktemp("xtreme")
    url = f"sqlite:///{folder / 'x.db'}"
    stages = [{"name": "group", "pools": 2, "games_per_pair": 2, "advance": 2}, {"name": "final"}]
    synthesize(url, teams=6, game="xtreme", stages=stages, name="xt", forfeit_every=3)
    written = write_report(open_store(url), "xt", folder / "site")
    assert written.problems == []
    with open_store(url).begin() as session:
        found = load_results(session, find_tournament(session))
    return url, folder / "site", found


@pytest.fixture
def league_db(tmp_path):
    url = f"sqlite:///{tmp_path / 'league.db'}"
    sessions, tid = create(url, league_config())
    play_stage(sessions, tid, 0, play_league)
    set_status(sessions, tid, "finished")
    return url, sessions


def embedded(page: Path) -> dict:
    text = page.read_text()
    return json.loads(re.search(r'<script type="application/json" id="game-data">(.*?)</script>', text, re.S).group(1))


def test_every_page_is_written(xtreme_report):
    _, site, found = xtreme_report
    assert {p.name for p in site.iterdir()} == {
        "index.html",
        "crosstable.html",
        "games.html",
        "games",
        "teams",
        "assets",
    }
    assert {p.name for p in (site / "assets").iterdir()} == {"style.css", "report.js", "replay.js"}
    assert sorted(p.name for p in (site / "teams").iterdir()) == sorted(team_file(t) for t in found.teams)
    assert sorted(p.name for p in (site / "games").iterdir()) == sorted(f"{g.id}.html" for g in found.games)


def test_the_site_needs_no_network_and_its_links_resolve(xtreme_report):
    _, site, _ = xtreme_report
    pages = list(site.rglob("*.html"))
    for page in pages:
        text = page.read_text()
        assert not re.search(r'(?:src|href)="(?:https?:)?//', text), page
        for target in re.findall(r'(?:src|href)="([^"#]+)', text):
            assert (page.parent / target).resolve().is_file(), f"{page.name} links to missing {target}"
    for asset in (site / "assets").iterdir():
        assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", asset.read_text()), asset.name


def test_a_game_page_embeds_each_position_of_its_game_from_the_engine(xtreme_report):
    _, site, found = xtreme_report
    game = get_game("xtreme")
    g = next(g for g in found.games if g.termination == "normal")
    data = embedded(site / "games" / f"{g.id}.html")
    assert len(data["moves"]) == g.plies and len(data["frames"]) == g.plies + 1
    state = game.initial_state()
    for ply, (seat, text, _) in enumerate(data["moves"], 1):
        assert seat == state.to_move
        state = state.play(game.parse_move(text))
        expected = {"to_move": state.to_move, **state.board_data(), **({"terminal": True} if state.is_terminal else {})}
        assert data["frames"][ply] == expected
    assert data["problem"] is None and data["seats"] == [g.first, g.second]


def test_game_pages_are_small(xtreme_report):
    _, site, _found = xtreme_report
    sizes = {p.name: p.stat().st_size for p in (site / "games").iterdir()}
    assert max(sizes.values()) < GAME_PAGE_LIMIT, max(sizes.items(), key=lambda kv: kv[1])


def test_a_forfeit_is_shown_with_its_detail_and_the_offenders_stderr(xtreme_report):
    _, site, found = xtreme_report
    crash = next(g for g in found.games if g.forfeit == "crash")
    offender = found.team(crash.seats[crash.offender])
    page = (site / "teams" / team_file(offender)).read_text()
    assert "exited with status 1" in page and "ZeroDivisionError: division by zero" in page
    assert "crash by " + offender.name in (site / "games.html").read_text()


def test_the_index_has_the_podium_standings_ratings_stages_totals_and_rating_settings(xtreme_report):
    _, site, found = xtreme_report
    index = (site / "index.html").read_text()
    places = re.findall(r'<tr data-team="([^"]+)">\s*<td class="num strong" data-col="place">(\d+)</td>', index)
    assert places == [(p.team, str(p.place)) for p in found.standings] and len(places) == 6
    rows = re.findall(r'<tr data-team="([^"]+)">\s*<td class="num rank">(\d+)</td>', index)
    assert rows == [(line.team, str(line.rank)) for line in found.leaderboard]
    for place in found.podium:
        assert re.search(r'class="place place-\d">.*?' + re.escape(place.team), index, re.S)
    assert index.count('<span class="adv"') == 4  # two a pool went on to the final
    assert f"{found.totals.finished} played of {found.totals.expected}" in index
    assert "draw probability" in index and "0.1</td>" in index


PLACE_ROW = r'<tr data-team="([^"]+)">\s*<td class="num strong" data-col="place">(\d+)</td>'


def test_the_index_has_one_podium_the_top_three_of_the_final_standings(tmp_path, league_db):
    _, sessions = league_db
    write_report(sessions, None, tmp_path / "site")
    index = (tmp_path / "site/index.html").read_text()
    assert index.count('<ol class="podium">') == 1 and index.count('class="medal"') == 3
    podium = re.findall(
        r'class="place place-(\d)">\s*<span class="medal">\d</span>\s*<span class="who"><a [^>]*>(\w+)<', index
    )
    assert podium == [("1", "A"), ("2", "B"), ("3", "C")]
    assert '<span class="tie muted small">tie-break over B: head-to-head points 1 vs 0</span>' in index
    assert re.findall(PLACE_ROW, index) == [("A", "1"), ("B", "2"), ("C", "3"), ("D", "4")]
    assert '<td class="tie" data-col="tie-break">behind A: head-to-head points 0 vs 1</td>' in index
    assert "<h2>Ratings</h2>" in index and "Leaderboard" not in index


def test_only_the_podium_wears_the_medal_colours():
    css = (Path(__file__).resolve().parent.parent / "arena/results/templates/style.css").read_text()
    medals = [
        selector.strip()
        for selector, body in re.findall(r"([^{}]+)\{([^}]*)\}", css)
        if re.search(r"var\(--(gold|silver|bronze)\)", body)
    ]
    assert medals == [
        ".podium .place-1",
        ".podium .place-2",
        ".podium .place-3",
        ".podium .place-1 .medal",
        ".podium .place-2 .medal",
        ".podium .place-3 .medal",
        "ol.moves .bonus",  # a replay's bonus move, not a place
    ]


def test_each_team_page_shows_its_final_place_and_the_tie_break_that_decided_it(tmp_path, league_db):
    _, sessions = league_db
    write_report(sessions, None, tmp_path / "site")
    a, c = ((tmp_path / "site/teams" / name).read_text() for name in ("01-a.html", "03-c.html"))
    assert '<span class="value" data-stat="place">1<small>/4</small></span>' in a
    assert '<span class="note" data-stat="reached">league, pool A, rank 1</span>' in a
    assert "Place decided by tie-break over B: head-to-head points 1 vs 0." in a
    assert '<span class="value" data-stat="place">3<small>/4</small></span>' in c
    assert "Place decided by tie-break" not in c


def test_a_record_that_does_not_replay_is_flagged_everywhere(tmp_path, league_db):
    _url, sessions = league_db
    with sessions.begin() as session:
        session.execute(update(MoveRow).where(MoveRow.game_id == 1, MoveRow.ply == 3).values(move="3"))
    written = write_report(sessions, None, tmp_path / "site")
    assert written.problems == ["game 1 does not re-play: ply 3: 3 is illegal in tictactoe: cell 3 is occupied"]
    assert "This record does not re-play through the engine: ply 3" in (tmp_path / "site/games/1.html").read_text()
    assert 'href="games/1.html">game 1</a>: ply 3' in (tmp_path / "site/index.html").read_text()
    assert embedded(tmp_path / "site/games/1.html")["frames"].__len__() == 3


def test_an_interrupted_tournament_is_reported_as_far_as_it_got_and_says_so(tmp_path):
    url = f"sqlite:///{tmp_path / 'cut.db'}"
    sessions, tid = create(url, league_config())
    play_stage(sessions, tid, 0, lambda row, a, b: play_league(row, a, b) if row.id <= 2 else None)
    set_status(sessions, tid, "interrupted")
    write_report(sessions, "league", tmp_path / "site")
    index = (tmp_path / "site/index.html").read_text()
    assert "This tournament was interrupted: reported as far as it got, 2 of 6 games played" in index
    assert "Podium <span" in index and "(provisional)" in index
    assert "not played yet (pending)" in (tmp_path / "site/games/5.html").read_text()


def test_arena_report_writes_to_reports_tournament_by_default(tmp_path, league_db, monkeypatch):
    url, _ = league_db
    monkeypatch.chdir(tmp_path)
    result = run_arena("report", "--db", url)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "reports/league/index.html").is_file()
    assert "Wrote 13 pages to reports/league/" in result.output  # 3 + 4 teams + 6 games


def test_arena_report_of_an_unknown_tournament_says_how_to_list_them(tmp_path, league_db):
    url, _ = league_db
    result = run_arena("report", "nope", "--db", url, "--out", str(tmp_path / "x"))
    assert result.exit_code != 0
    assert (
        str(result.exception)
        == "no tournament 'nope' in this database; the tournaments: league (list them with 'arena tournaments')"
    )
    assert not (tmp_path / "x").exists()


# ---------------------------------------------------------------- chart geometry


def test_ticks_are_round_numbers_covering_the_range():
    assert nice_ticks(0, 10) == [0, 2, 4, 6, 8, 10]
    assert nice_ticks(13.2, 38.9) == [15, 20, 25, 30, 35]
    assert nice_ticks(0, 3, 4) == [0, 1, 2, 3]


def test_the_rating_chart_draws_mu_over_a_sigma_band_for_each_game():
    history = RatingHistory(27.0, 5.0, [(3, 28.0, 7.0), (8, 27.0, 5.0)])
    chart = rating_chart(history, (25.0, 25 / 3), {3: "game 3", 8: "game 8"}, {8: "final"}, (15.0, 35.0))
    # x: 46 + 660 i / 2; y: 14 + 212 (35 - mu) / 20
    assert chart["line"] == "46.0,120.0 376.0,88.2 706.0,98.8"
    assert len(chart["band"].split()) == 6  # upper edge out, lower edge back
    assert [d["title"] for d in chart["dots"]] == ["game 3: μ 28.00, σ 7.00", "game 8: μ 27.00, σ 5.00"]
    assert chart["stages"] == [{"x": 541.0, "label": "final"}]


def test_the_think_histogram_counts_every_move_and_marks_the_limit():
    chart = think_histogram([0.05, 0.06, 1.0, 12.0, 150.0, 160.0, 170.0], limit_ms=200.0)
    assert sum(bar["count"] for bar in chart["bars"]) == 7
    assert chart["limit"]["label"] == "limit 200 ms"
    assert [t["label"] for t in chart["xticks"]] == ["0.1 ms", "1 ms", "10 ms", "100 ms"]


def test_game_pages_written_by_a_pool_of_processes_are_the_same(tmp_path, xtreme_report, monkeypatch):
    import arena.results.report

    url, site, found = xtreme_report
    monkeypatch.setattr(arena.results.report, "PARALLEL_FROM", 1)
    written = write_report(open_store(url), "xt", tmp_path / "pooled")
    assert written.games == len(found.games) and written.problems == []
    for game in found.games:
        pooled = (tmp_path / "pooled/games" / f"{game.id}.html").read_text()
        serial = (site / "games" / f"{game.id}.html").read_text()
        assert re.sub(r"written by arena on [^—]*", "", pooled) == re.sub(r"written by arena on [^—]*", "", serial)
    assert written.largest_game_page == max(p.stat().st_size for p in (tmp_path / "pooled/games").iterdir())


def test_a_report_written_over_an_older_one_leaves_no_stale_pages(tmp_path, league_db):
    _, sessions = league_db
    (tmp_path / "site/games").mkdir(parents=True)
    (tmp_path / "site/games/99.html").write_text("an older report's game")
    (tmp_path / "site/teams").mkdir()
    (tmp_path / "site/teams/07-gone.html").write_text("an older report's team")
    write_report(sessions, None, tmp_path / "site")
    assert sorted(p.name for p in (tmp_path / "site/games").iterdir()) == [f"{i}.html" for i in range(1, 7)]
    assert sorted(p.name for p in (tmp_path / "site/teams").iterdir()) == [
        "01-a.html",
        "02-b.html",
        "03-c.html",
        "04-d.html",
    ]


def test_a_tournament_not_started_yet_still_gets_every_page(tmp_path):
    sessions, _ = create(f"sqlite:///{tmp_path / 'new.db'}", league_config())
    written = write_report(sessions, None, tmp_path / "site")
    assert (written.pages, written.games, written.note) == (
        13,
        6,
        "This tournament has not started yet: 0 of 6 games played.",
    )
    team = (tmp_path / "site/teams/01-a.html").read_text()
    assert "No finished games yet, so no rating history." in team and "No moves yet." in team
    assert "Podium" not in (tmp_path / "site/index.html").read_text()

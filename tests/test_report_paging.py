"""The static report at scale: its games list a page of games at a time, with page links; a
replay page for the games ``--games`` chooses (every other game listed without a link, never a
broken one), and said so; a team's page reading the moves of its own games only, and listing
its latest games."""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args, get_type_hints

import pytest

import arena.results.pages
import arena.results.report
from arena.commands.results import report as report_command
from arena.results.lookup import find_tournament
from arena.results.pages import MOST_DOTS, team_file, thin_dots
from arena.results.report import GamePages, write_report
from arena.results.tournament_results import load_results
from arena.store.database import open_store
from tests.fixtures.harnesskit import run_arena

#: the games a page of the list holds in these tests (the staged tournament has 36: four pages)
A_PAGE = 10
LIST_PAGES = ("games.html", "games-2.html", "games-3.html", "games-4.html")


@pytest.fixture
def staged(staged_url, monkeypatch):
    """The staged tournament (two stages, 36 games: 24 in its groups, 12 in its final): its
    sessions and results, its report's list ``A_PAGE`` games a page."""
    monkeypatch.setattr(arena.results.report, "GAMES_A_PAGE", A_PAGE)
    sessions = open_store(staged_url)
    with sessions.begin() as session:
        found = load_results(session, find_tournament(session))
    assert len(found.games) == 36 and sum(g.stage == 1 for g in found.games) == 12
    return sessions, found


def rows(page: Path) -> list[str]:
    """The game ids of a games list page's rows, in order (linked or not)."""
    return re.findall(r'<tr data-stage[^>]*>\n<td class="num">(?:<a href="games/\d+\.html">)?(\d+)<', page.read_text())


def links_resolve(site: Path) -> None:
    for page in site.rglob("*.html"):
        for target in re.findall(r'(?:src|href)="([^"#]+)', page.read_text()):
            assert (page.parent / target).resolve().is_file(), f"{page.name} links to missing {target}"


def test_the_games_list_is_written_a_page_of_games_at_a_time(tmp_path, staged):
    sessions, found = staged
    written = write_report(sessions, None, tmp_path / "site")
    site = tmp_path / "site"
    assert sorted(p.name for p in site.glob("games*.html")) == sorted(LIST_PAGES)
    assert [rows(site / name) for name in LIST_PAGES] == [
        [str(g.id) for g in found.games[i : i + A_PAGE]] for i in range(0, 36, A_PAGE)
    ]
    first, last = ((site / name).read_text() for name in ("games.html", "games-4.html"))
    assert '<a href="games-2.html" rel="next">next ›</a><a href="games-4.html" rel="last">last »</a>' in first
    assert 'rel="first"' not in first and 'rel="next"' not in last
    assert '<a href="games.html" rel="first">« first</a><a href="games-3.html" rel="prev">‹ previous</a>' in last
    assert '<span class="here">page 4 of 4</span>' in last
    assert '<strong id="shown">6</strong> of 6 games on this page, 36 in all' in last
    assert written.pages == 2 + 4 + 8 + 36 and written.replays is None
    links_resolve(site)


def test_a_game_page_links_back_to_its_page_of_the_list(tmp_path, staged):
    sessions, found = staged
    write_report(sessions, None, tmp_path / "site")
    game = found.games[25]
    assert '<a href="../games-3.html">Games</a>' in (tmp_path / f"site/games/{game.id}.html").read_text()


def test_a_later_report_of_fewer_pages_leaves_none_of_the_earlier_ones(tmp_path, staged, monkeypatch):
    sessions, _ = staged
    write_report(sessions, None, tmp_path / "site")
    monkeypatch.setattr(arena.results.report, "GAMES_A_PAGE", 20)
    (tmp_path / "site/games-notes.html").write_text("a page of someone's own")
    write_report(sessions, None, tmp_path / "site")
    assert sorted(p.name for p in (tmp_path / "site").glob("games*.html")) == [
        "games-2.html",
        "games-notes.html",  # not a page of the list: left alone
        "games.html",
    ]


@pytest.mark.parametrize(
    ("games", "auto_games", "chosen"),
    [
        ("all", 5, "every"),
        ("none", 5, "none"),
        ("final", 5, "final"),
        ("auto", 36, "every"),  # 36 games: at most AUTO_GAMES
        ("auto", 20, "final"),  # more, but the final's 12 are not
        ("auto", 10, "latest"),  # the final has more too: the latest 10 finished
    ],
)
def test_games_chooses_the_games_with_a_replay_page(tmp_path, staged, monkeypatch, games, auto_games, chosen):
    sessions, found = staged
    monkeypatch.setattr(arena.results.report, "AUTO_GAMES", auto_games)
    written = write_report(sessions, None, tmp_path / "site", games)
    expected = {
        "every": [g.id for g in found.games],
        "none": [],
        "final": [g.id for g in found.games if g.stage == 1],
        "latest": [g.id for g in found.games if g.finished][-10:],
    }[chosen]
    site = tmp_path / "site"
    assert sorted(int(p.stem) for p in (site / "games").iterdir()) == expected and written.games == len(expected)
    listed = "".join((site / name).read_text() for name in LIST_PAGES)
    assert sorted(int(i) for i in re.findall(r'<a href="games/(\d+)\.html">', listed)) == expected
    links_resolve(site)
    if chosen == "every":
        assert written.replays is None and 'id="replay-note"' not in listed
    else:
        assert written.replays is not None and written.replays in listed.replace("&#39;", "'")
        assert "'arena report --games all' writes a page for every game" in written.replays


def test_what_auto_chose_is_said_exactly(tmp_path, staged, monkeypatch):
    sessions, _ = staged
    monkeypatch.setattr(arena.results.report, "AUTO_GAMES", 20)
    assert write_report(sessions, None, tmp_path / "a").replays == (
        "Replay pages for the last stage's 12 games of 36 (final): --games auto chose them, there being more than "
        "20 games in all; the others are listed without a link: 'arena report --games all' writes a page for every "
        "game, 'arena replay ID' replays one in the terminal, and 'arena serve' serves every game's page."
    )
    monkeypatch.setattr(arena.results.report, "AUTO_GAMES", 10)
    assert write_report(sessions, None, tmp_path / "b").replays.startswith(
        "Replay pages for the latest 10 finished games of 36: --games auto chose them, there being more than 10 "
        "games in all and in the last stage; the others are listed without a link:"
    )


def test_arena_report_games_says_which_games_have_a_replay_page(tmp_path, staged_url):
    result = run_arena("report", "--games", "final", "--db", staged_url, "--out", str(tmp_path / "site"))
    assert result.exit_code == 0, result.output
    assert "Replay pages for the last stage's 12 games of 36 (final); the others are listed without a link" in (
        " ".join(result.output.split())
    )
    assert len(list((tmp_path / "site/games").iterdir())) == 12


def test_the_commands_choices_are_the_reports():
    hint = get_type_hints(report_command, include_extras=True)["games"]  # Annotated[Literal[...], an option]
    assert get_args(get_args(hint)[0]) == get_args(GamePages) == ("auto", "all", "final", "none")


def test_a_team_page_reads_its_own_games_moves_only(tmp_path, staged, monkeypatch):
    sessions, found = staged
    asked = []
    real = arena.results.report.load_moves
    monkeypatch.setattr(
        arena.results.report, "load_moves", lambda session, t, ids=None: asked.append(ids) or real(session, t, ids)
    )
    write_report(sessions, None, tmp_path / "site", "final")
    assert asked == [
        [g.id for g in found.games if g.stage == 1],  # the replays'
        *([g.id for g in found.games_of(team.name)] for team in found.teams),
    ]
    for team in found.teams:
        line = next(line for line in found.leaderboard if line.team == team.name)
        page = (tmp_path / "site/teams" / team_file(team)).read_text()
        assert f"{line.moves} moves; wall time of each" in page and "No moves yet." not in page


def test_a_team_page_lists_its_latest_games(tmp_path, staged, monkeypatch):
    sessions, found = staged
    monkeypatch.setattr(arena.results.pages, "TEAM_GAMES", 4)
    write_report(sessions, None, tmp_path / "site")
    team = found.teams[0]
    page = (tmp_path / "site/teams" / team_file(team)).read_text()
    table = page.split('id="team-games"', 1)[1]
    own = found.games_of(team.name)
    assert re.findall(r'<td class="num"><a href="../games/(\d+)\.html">', table) == [str(g.id) for g in own[-4:]]
    assert f"Its latest 4 of its {len(own)} games; the games list has every game" in page


def test_a_rating_chart_of_many_games_draws_some_hundreds_of_dots():
    dots = [{"x": i} for i in range(1000)]
    assert [d["x"] for d in thin_dots({"dots": dots})["dots"]] == list(range(3, 1000, 4))
    assert len(range(3, 1000, 4)) <= MOST_DOTS
    assert thin_dots({"dots": dots[:MOST_DOTS]})["dots"] == dots[:MOST_DOTS]

"""``arena serve`` at scale: the games list a page at a time, its filters applied by the
database exactly as the static report's page applies them to its rows; a game's page checks
the tournament's stamp once; a team's page reads the moves of its own games only, once."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing

import pytest
from sqlalchemy import event, text
from starlette.testclient import TestClient

import arena.results.pages
import arena.web.site
from arena.results.listings import RESULTS, GameFilter, game_page
from arena.results.lookup import find_tournament
from arena.results.pages import seat_key, team_file
from arena.results.tables import GameSummary
from arena.results.tournament_results import load_results
from arena.store.database import open_store
from arena.web.server import build

#: the games a page holds in these tests (the staged tournament has 36: three pages)
A_PAGE = 12


@pytest.fixture
def paged(staged_url, monkeypatch):
    """The staged tournament's url and results, served ``A_PAGE`` games a page."""
    monkeypatch.setattr(arena.web.site, "GAMES_A_PAGE", A_PAGE)
    with open_store(staged_url).begin() as session:
        found = load_results(session, find_tournament(session))
    assert len(found.games) == 36
    return staged_url, found


def client(app) -> TestClient:
    return TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False)


def listed(html: str) -> list[int]:
    """The ids of the games a page of the games list shows, in order."""
    return [int(i) for i in re.findall(r'<td class="num"><a href="games/(\d+)\.html">', html)]


def page_links(html: str) -> dict[str, str]:
    """The games list's page links above its table: rel -> address."""
    nav = html.split('<nav class="pages"', 1)[1].split("</nav>", 1)[0]
    return {rel: address.replace("&amp;", "&") for address, rel in re.findall(r'href="([^"]+)" rel="(\w+)"', nav)}


def test_the_games_list_is_served_a_page_at_a_time_in_schedule_order(paged):
    url, found = paged
    ids = [g.id for g in found.games]
    with client(build(url, play=False)) as web:
        first, second, last = (web.get(f"/t/1/games.html{query}").text for query in ("", "?page=2", "?page=3"))
        past = web.get("/t/1/games.html?page=99").text
    assert (listed(first), listed(second), listed(last)) == (ids[:12], ids[12:24], ids[24:])
    assert page_links(first) == {"next": "games.html?page=2", "last": "games.html?page=3"}
    assert page_links(second) == {
        "first": "games.html",
        "prev": "games.html",
        "next": "games.html?page=3",
        "last": "games.html?page=3",
    }
    assert page_links(last) == {"first": "games.html", "prev": "games.html?page=2"}
    assert '<span class="here">page 3 of 3</span>' in last and listed(past) == ids[24:]
    assert '<strong id="shown">36</strong> of 36 games' in first
    assert 'data-games="/t/1/games.html"' in first  # the page's filters ask the server


def test_a_team_filter_lists_the_teams_games_across_its_pages(paged, monkeypatch):
    url, found = paged
    monkeypatch.setattr(arena.web.site, "GAMES_A_PAGE", 5)
    team = max(found.teams, key=lambda t: len(found.games_of(t.name)))  # a finalist: 12 games
    own = [g.id for g in found.games_of(team.name)]
    with client(build(url, play=False)) as web:
        pages = [web.get(f"/t/1/games.html?bot={team.name}&page={number}").text for number in (1, 2, 3)]
    assert [listed(page) for page in pages] == [own[:5], own[5:10], own[10:]] and len(own) == 12
    assert '<strong id="shown">12</strong> of 36 games' in pages[0]
    assert page_links(pages[0]) == {
        "next": f"games.html?bot={team.name.replace(' ', '+')}&page=2",
        "last": f"games.html?bot={team.name.replace(' ', '+')}&page=3",
    }
    assert f'<option value="{team.name}" selected>' in pages[0]


def in_page(g: GameSummary, team: str, stage: str, result: str) -> bool:
    """Whether the static report's games list shows ``g``'s row for the filters (report.js's
    ``matches``, over the row's data attributes)."""
    winner = g.seats[g.winner] if g.finished and g.winner is not None else ""
    shown = "pending" if not g.finished else "draw" if g.winner is None else seat_key(g.winner)
    if (team and team not in g.seats) or (stage and str(g.stage) != stage):
        return False
    return {
        "": True,
        "forfeit": bool(g.forfeit),
        "won": team != "" and winner == team,
        "lost": team != "" and winner != "" and winner != team,
    }.get(result, shown == result)


def test_the_databases_filters_choose_the_games_the_pages_filters_do(staged_url):
    with open_store(staged_url).begin() as session:
        found = load_results(session, find_tournament(session))
        entries = {t.name: t.entry_id for t in found.teams}
        for team in ["", found.teams[0].name, found.teams[5].name]:
            for stage in ["", "0", "1"]:
                for result in ["", "x", "o", *RESULTS]:
                    winner = {"x": 0, "o": 1}.get(result)
                    other = None if winner is not None else result or None
                    chosen = GameFilter(entries.get(team), int(stage) if stage else None, winner, other)
                    ids, matching, page = game_page(session, 1, chosen, 1, 100)
                    expected = [g.id for g in found.games if in_page(g, team, stage, result)]
                    assert (ids, matching, page) == (expected, len(expected), 1), (team, stage, result)


@pytest.mark.parametrize(
    ("query", "status", "message"),
    [
        ("bot=nobody", 404, "there is no team &#39;nobody&#39; in tournament &#39;staged&#39;"),
        ("stage=7", 400, "stage &#39;7&#39;: a stage&#39;s number, from 0 to 1"),
        ("result=nothing", 400, "result &#39;nothing&#39;: a seat&#39;s key (x, o) or one of draw, forfeit"),
        ("page=0", 400, "page &#39;0&#39;: a page&#39;s number, from 1"),
    ],
)
def test_a_filter_the_page_does_not_offer_is_refused(paged, query, status, message):
    url, _ = paged
    with client(build(url, play=False)) as web:
        answer = web.get(f"/t/1/games.html?{query}")
    assert answer.status_code == status and message in answer.text


def test_a_served_game_page_checks_the_stamp_once_and_links_to_its_page_of_the_list(paged, monkeypatch):
    url, found = paged
    app = build(url, play=False)
    stamps = []
    real = app.site.stamp
    monkeypatch.setattr(app.site, "stamp", lambda tid: stamps.append(tid) or real(tid))
    game = found.games[15]
    with client(app) as web:
        web.get("/t/1/games/1.html")  # the results loaded
        stamps.clear()
        page = web.get(f"/t/1/games/{game.id}.html").text
    assert stamps == [1]
    assert '<a href="../games.html?page=2">Games</a>' in page
    before, after = found.games[14].id, found.games[16].id
    assert f'href="{before}.html" rel="prev"' in page and f'href="{after}.html" rel="next"' in page


def test_a_page_asked_again_reads_nothing_until_another_process_commits(paged):
    """SQLite's count of commits tells the server that nothing changed: no page asked again
    makes the stamp's query over the tournament's games, and a team page asked again (kept
    rendered) none at all; a commit of another process is seen at once."""
    url, found = paged
    app = build(url, play=False)
    statements: list[str] = []
    event.listen(app.site.sessions.kw["bind"], "before_cursor_execute", lambda *args: statements.append(args[2]))
    team = found.teams[2]
    address = f"/t/1/teams/{team_file(team)}"
    last = found.games_of(team.name)[-1]
    with client(app) as web:
        first = web.get(address).text
        statements.clear()
        again = web.get(address).text
        team_queries = list(statements)
        assert web.get("/t/1/games/1.html").status_code == 200
        stamped_again = [s for s in statements if "max(games.finished_at)" in s]  # (the stamp's query)
        with closing(sqlite3.connect(url.removeprefix("sqlite:///"))) as other, other:
            winner = 1 - last.winner if last.winner is not None else 0
            other.execute("UPDATE games SET winner = ?, replays = replays + 1 WHERE id = ?", (winner, last.id))
        statements.clear()
        changed = web.get(address).text
    assert again == first and team_queries == []
    assert stamped_again == []  # (the game page read its game and neighbours, not the stamp)
    assert any("max(games.finished_at)" in s for s in statements) and changed != first


def test_a_commit_of_the_server_itself_moves_its_stamp(paged):
    """A server that writes (play in the browser stores its games through its own sessions)
    sees its own commits: the connection that counts them is never one the sessions use."""
    url, found = paged
    app = build(url, play=True)
    site = app.site
    before = site.stamp(1)
    for _ in range(8):  # (every pooled connection in turn)
        with site.sessions.begin() as session:
            session.execute(text("UPDATE games SET replays = replays + 1 WHERE id = :id"), {"id": found.games[0].id})
        now = site.stamp(1)
        assert now != before
        before = now


def test_a_team_page_reads_its_own_games_moves_once(paged, monkeypatch):
    url, found = paged
    asked = []
    real = arena.web.site.load_moves
    monkeypatch.setattr(
        arena.web.site, "load_moves", lambda session, t, ids=None: asked.append(ids) or real(session, t, ids)
    )
    team = found.teams[2]
    with client(build(url, play=False)) as web:
        pages = [web.get(f"/t/1/teams/{team_file(team)}") for _ in range(2)]
    assert [page.status_code for page in pages] == [200, 200] and pages[0].text == pages[1].text
    assert asked == [[g.id for g in found.games_of(team.name)]]
    line = next(line for line in found.leaderboard if line.team == team.name)
    assert f"{line.moves} moves; wall time of each" in pages[0].text


def test_a_served_team_page_lists_its_latest_games_and_links_to_all_of_them(paged, monkeypatch):
    url, found = paged
    monkeypatch.setattr(arena.results.pages, "TEAM_GAMES", 4)
    team = found.teams[0]
    own = found.games_of(team.name)
    with client(build(url, play=False)) as web:
        page = web.get(f"/t/1/teams/{team_file(team)}").text
    table = page.split('id="team-games"', 1)[1]
    assert re.findall(r'<td class="num"><a href="../games/(\d+)\.html">', table) == [str(g.id) for g in own[-4:]]
    assert f"Its latest 4 of its {len(own)} games; the games list has every game.</p>" in page
    assert f'href="../games.html?bot={team.name.replace(" ", "%20")}">filter in the games list</a>' in page

"""The served games list of a tournament longer than a page, in a real browser (headless
Chromium through Playwright): choosing a team or a result swaps in the server's first page of
the games they let through, counted over every page, and keeps them in the address; a link's
``#bot=`` presets them; the page links step through the pages.

Without Playwright or Chromium these tests skip, saying why (tests/fixtures/browserkit.py)."""

from __future__ import annotations

import pytest

import arena.web.site
from arena.results.lookup import find_tournament
from arena.results.tournament_results import load_results
from arena.store.database import open_store
from arena.web.server import build
from tests.fixtures.servekit import serving

pytestmark = pytest.mark.slow

#: milliseconds the browser waits for what the server is to show
WAIT = 60_000


def shown_ids(tab) -> list[int]:
    return tab.eval_on_selector_all(
        "#games-table tbody tr:not([hidden]) td:first-child", "cells => cells.map(c => Number(c.textContent))"
    )


def wait_shown(tab, count: int) -> None:
    tab.wait_for_function(f"() => document.querySelector('#shown').textContent === '{count}'", timeout=WAIT)


def test_the_served_filters_choose_from_every_page_of_games(page, staged_url, monkeypatch):
    monkeypatch.setattr(arena.web.site, "GAMES_A_PAGE", 12)
    with open_store(staged_url).begin() as session:
        found = load_results(session, find_tournament(session))
    ids = [g.id for g in found.games]
    team = max(found.teams, key=lambda t: len(found.games_of(t.name))).name  # a finalist: 12 games
    own = [g.id for g in found.games_of(team)]
    won = [g.id for g in found.games_of(team) if g.score_of(team) == "W"]
    with serving(build(staged_url, play=False)) as base:
        page.goto(f"{base}/t/1/games.html")
        assert shown_ids(page) == ids[:12] and page.text_content("#shown") == "36"
        page.click("a[rel=next]")
        page.wait_for_url("**/games.html?page=2")
        assert shown_ids(page) == ids[12:24]
        page.select_option("#filter-bot", team)
        wait_shown(page, len(own))
        assert shown_ids(page) == own and "?bot=" in page.url
        page.select_option("#filter-result", "won")
        wait_shown(page, len(won))
        assert shown_ids(page) == won and page.is_visible("#no-games") == (not won)
        page.goto(f"{base}/t/1/games.html#bot={team.replace(' ', '%20')}")
        wait_shown(page, len(own))
        assert shown_ids(page) == own and page.input_value("#filter-bot") == team
    assert page.errors == []

"""The static report's games list of several pages in a real browser (headless Chromium through
Playwright, from ``file://``): a page's filters choose among its own rows, and its page links
carry them to the next page, which opens filtered the same.

Without Playwright or Chromium these tests skip, saying why (tests/fixtures/browserkit.py)."""

from __future__ import annotations

import pytest

import arena.results.report
from arena.results.lookup import find_tournament
from arena.results.report import write_report
from arena.results.tournament_results import load_results
from arena.store.database import open_store

pytestmark = pytest.mark.slow


def shown_ids(tab) -> list[int]:
    return tab.eval_on_selector_all(
        "#games-table tbody tr:not([hidden]) td:first-child", "cells => cells.map(c => Number(c.textContent))"
    )


def test_a_pages_filters_choose_among_its_rows_and_go_on_to_the_next_page(page, staged_url, tmp_path, monkeypatch):
    monkeypatch.setattr(arena.results.report, "GAMES_A_PAGE", 10)
    sessions = open_store(staged_url)
    write_report(sessions, None, tmp_path / "site")
    with sessions.begin() as session:
        found = load_results(session, find_tournament(session))
    team = found.teams[0].name
    on_page = [[g.id for g in found.games[i : i + 10] if team in g.seats] for i in (0, 10, 20)]
    page.goto((tmp_path / "site/games-2.html").as_uri())
    page.select_option("#filter-bot", team)
    assert shown_ids(page) == on_page[1] and page.text_content("#shown") == str(len(on_page[1]))
    assert page.get_attribute("a[rel=next]", "href").endswith(f"games-3.html#bot={team.replace(' ', '%20')}")
    page.click("a[rel=next]")
    page.wait_for_url("**/games-3.html#bot=*")
    assert page.input_value("#filter-bot") == team and shown_ids(page) == on_page[2]
    assert page.errors == []

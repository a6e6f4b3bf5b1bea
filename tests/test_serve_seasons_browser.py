"""A season in a real browser (headless Chromium): two teams submit bots on their team page, each
seeing its own submissions and logs only; then ``arena season ladder`` plays in another process
and the ladder page's ratings change without a reload."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.contests.config import GameDef, TimeDef
from arena.contests.season import create_season
from arena.store.database import open_store
from arena.store.seasons import add_teams
from arena.web.server import build
from tests.fixtures.harnesskit import start_arena, stop
from tests.fixtures.servekit import CRASHING, RANDOM_BOT, serving

pytestmark = pytest.mark.slow

#: milliseconds the browser waits for what the server is to show (a loaded machine is slow)
WAIT = 90_000


def sign_in_and_submit(tab, base: str, token: str, files: list[Path]) -> None:
    """Enter the team's token on its page, then submit each file in turn (each validated)."""
    tab.goto(f"{base}/s/spring/team")
    tab.fill("input[name=token]", token)
    tab.click("form.token-form button")
    tab.wait_for_selector("#upload", timeout=WAIT)
    for number, file in enumerate(files, 1):
        tab.set_input_files("#upload input[name=file]", str(file))
        tab.click("#upload button")
        tab.wait_for_selector(f'.submission[data-version="{number}"]', timeout=WAIT)


def ladder_rows(tab) -> list[str]:
    return tab.eval_on_selector_all("#ladder tbody tr", "rows => rows.map(r => r.innerText)")


def test_teams_submit_on_their_pages_and_the_ladder_page_follows_the_games(browser, page, tmp_path):
    url = f"sqlite:///{tmp_path / 's.db'}"
    sessions = open_store(url)
    create_season(sessions, "spring", GameDef(name="tictactoe"), TimeDef(move=1.0), tmp_path / "files")
    tokens = add_teams(sessions, "spring", ["red", "blue"])
    (tmp_path / "good.py").write_bytes(RANDOM_BOT)
    (tmp_path / "crash.py").write_bytes(CRASHING)
    other = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        blue = other.new_page()
        with serving(build(url, play=False, uploads=True)) as base:
            sign_in_and_submit(page, base, tokens["red"], [tmp_path / "good.py"])
            sign_in_and_submit(blue, base, tokens["blue"], [tmp_path / "crash.py", tmp_path / "good.py"])
            page.reload()
            assert page.get_attribute('.submission[data-version="1"]', "data-status") == "active"
            assert "alert(1)" not in page.content()
            failed = blue.inner_text('.submission[data-version="1"] .log')
            assert "<script>alert(1)</script>" in failed  # shown as text, not run
            assert blue.get_attribute('.submission[data-version="2"]', "data-status") == "active"

            page.goto(f"{base}/s/spring/")
            page.evaluate("window.notReloaded = true")
            before = ladder_rows(page)
            assert sorted(row.split("\t")[1] for row in before) == ["blue", "red"]
            assert all(row.endswith("\t0") for row in before)  # no games yet
            ladder = start_arena(
                "season", "ladder", "spring", "--games", "4", "--workers", "1", "--db", url, cwd=tmp_path
            )
            try:
                page.wait_for_function(
                    "() => document.querySelector('#played').textContent.startsWith('4 ')", timeout=WAIT
                )
                assert ladder.wait(timeout=120) == 0, ladder.stderr.read() if ladder.stderr else ""
            finally:
                if ladder.poll() is None:
                    stop(ladder)
            after = ladder_rows(page)
            assert after != before and sum(int(row.rsplit("\t", 1)[1]) for row in after) == 8
            assert page.evaluate("window.notReloaded") is True
            assert int(page.evaluate("document.body.dataset.updates")) >= 1
            assert page.locator("#recent tbody tr").count() == 4
            assert page.errors == []
    finally:
        other.close()

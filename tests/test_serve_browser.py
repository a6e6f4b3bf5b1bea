"""``arena serve`` in a real browser (headless Chromium, as the report's tests): the overview
follows a tournament that ``arena run`` plays in another process, without a reload; a person
plays whole games against a bot with clicks, and they are stored; Othello's pass.
"""

from __future__ import annotations

import shutil
import sqlite3
import time
from contextlib import closing
from pathlib import Path

import pytest

from arena.database import open_store
from arena.lookup import find_tournament
from arena.results import load_results
from arena.web.server import build
from tests.fixtures.harnesskit import BOTS, finished_games, start_arena, stop
from tests.fixtures.servekit import serving

pytestmark = pytest.mark.slow

#: milliseconds the browser waits for what the server is to show (a loaded machine is slow)
WAIT = 60_000
TOURNAMENT = """\
name: live
game: tictactoe
seed: 3
time: {move: 2.0}
workers: 1
bots:
  slow: {path: slow_first_legal.py}
  steady: {path: first_legal.py}
  random: {path: seeded_random.py}
stages:
  - {games_per_pair: 2}
"""


def tournament_id(database: Path, patience: float = 60.0) -> int:
    """The id of the tournament ``arena run`` is storing in ``database``, once it is there."""
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        if database.exists():
            try:
                with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5)) as connection:
                    row = connection.execute("SELECT id FROM tournaments WHERE name = 'live'").fetchone()
                    games = connection.execute("SELECT count(*) FROM games").fetchone()[0]
                if row is not None and games:
                    return row[0]
            except sqlite3.Error:
                pass
        time.sleep(0.1)
    raise AssertionError("arena run stored no tournament")


def played_text(tab) -> str:
    return tab.inner_text("#total-games")


def test_the_overview_follows_a_tournament_run_in_another_process_without_a_reload(page, tmp_path):
    for name in ("slow_first_legal", "first_legal", "seeded_random"):
        shutil.copy(BOTS / f"{name}.py", tmp_path)
    (tmp_path / "live.yaml").write_text(TOURNAMENT)
    database = tmp_path / "live.db"
    url = f"sqlite:///{database}"
    run = start_arena("run", "live.yaml", "--db", url, "-q", cwd=tmp_path)
    try:
        tid = tournament_id(database)
        with serving(build(url, play=False)) as base:
            page.goto(f"{base}/t/{tid}/index.html")
            page.evaluate("window.notReloaded = true")
            first = played_text(page)
            before = finished_games(database)
            assert first.startswith(f"{before} played of 6")
            # a game finishes in the other process: the page shows it by itself
            page.wait_for_function(
                "(first) => document.querySelector('#total-games').textContent !== first", arg=first, timeout=WAIT
            )
            page.wait_for_function(
                "() => document.querySelector('#total-games').textContent.startsWith('6 played of 6')", timeout=WAIT
            )
            assert run.wait(timeout=120) == 0, run.stderr.read() if run.stderr else ""
            page.wait_for_selector(".podium .place-1", timeout=WAIT)
            page.wait_for_function(
                "() => document.querySelector('header.site .meta').textContent.includes('finished')", timeout=WAIT
            )
            assert page.evaluate("window.notReloaded") is True
            assert int(page.evaluate("document.body.dataset.updates")) >= 2
            with open_store(url, read_only=True).begin() as session:
                found = load_results(session, find_tournament(session, "live"))
            shown = page.eval_on_selector_all("#standings tbody tr", "rows => rows.map(r => r.dataset.team)")
            assert shown == [p.team for p in found.standings]
            assert page.errors == []
    finally:
        if run.poll() is None:
            stop(run)

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
from sqlalchemy import select

from arena.contests.config import BotDef
from arena.contests.roster import bot_row
from arena.core.live import read_live
from arena.results.lookup import find_tournament
from arena.results.tournament_results import load_results
from arena.store.database import open_store
from arena.store.models import GameRow, MoveRow
from arena.web.server import build
from tests.fixtures.harnesskit import BOTS, start_arena, stop
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
  slower: {path: slow_first_legal.py}
  random: {path: slow_seeded_random.py}
stages:
  - {games_per_pair: 2}
"""


def tournament_id(database: Path, name: str = "live", patience: float = 60.0) -> int:
    """The id of the tournament ``arena run`` is storing in ``database``, once it is there."""
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        if database.exists():
            try:
                with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5)) as connection:
                    row = connection.execute("SELECT id FROM tournaments WHERE name = ?", (name,)).fetchone()
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
    for name in ("slow_first_legal", "slow_seeded_random"):
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
            assert int(first.split()[0]) < 6, "the run ended before the page was loaded"
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
            # it changed by itself at least once, and reached the end: on a busy machine the last
            # games, the podium and the status may all come in one update
            assert int(page.evaluate("document.body.dataset.updates")) >= 1
            with open_store(url, read_only=True).begin() as session:
                found = load_results(session, find_tournament(session, "live"))
            shown = page.eval_on_selector_all("#standings tbody tr", "rows => rows.map(r => r.dataset.team)")
            assert shown == [p.team for p in found.standings]
            assert page.errors == []
    finally:
        if run.poll() is None:
            stop(run)


# ---------------------------------------------------------------- playing a bot


@pytest.fixture
def play_server(tmp_path):
    """A server people may play at, with the bot ``first`` registered (it plays the first legal
    move): its address and the database's URL."""
    url = f"sqlite:///{tmp_path / 'play.db'}"
    with open_store(url).begin() as session:
        bot_row(session, "first", BotDef.of("python", str(BOTS / "first_legal.py"), {}), tmp_path, registered=True)
    with serving(build(url, play=True)) as base:
        yield base, url


def start_game(tab, base: str, game: str, seat: str = "x") -> None:
    tab.goto(f"{base}/play")
    tab.select_option("#game", game)
    tab.select_option("#bot", "first")
    tab.check(f"input[name=seat][value={seat}]")
    tab.fill("#move-time", "2")
    tab.click("#start")
    tab.wait_for_selector("#board[data-waiting=yes]", timeout=WAIT)


def click(tab, move: str) -> None:
    """Click the cell of ``move`` (it must be marked legal), then wait for the bot's reply."""
    plies = int(tab.get_attribute("#board", "data-plies"))
    tab.click(f'#board rect.cell.legal[data-move="{move}"]')
    tab.wait_for_function(
        "(plies) => { const b = document.querySelector('#board'); return Number(b.dataset.plies) > plies && "
        "(b.dataset.waiting === 'yes' || !document.querySelector('#over').hidden); }",
        arg=plies,
        timeout=WAIT,
    )


def legal_shown(tab) -> list[str]:
    return tab.eval_on_selector_all("#board rect.cell.legal", "cells => cells.map(c => c.dataset.move)")


def stored(url: str) -> list[tuple[GameRow, list[str]]]:
    with open_store(url, read_only=True)() as session:
        games = list(session.scalars(select(GameRow).order_by(GameRow.id)))
        return [
            (g, list(session.scalars(select(MoveRow.move).where(MoveRow.game_id == g.id).order_by(MoveRow.ply))))
            for g in games
        ]


def test_a_person_plays_a_whole_tictactoe_game_with_clicks_and_undo(page, play_server):
    base, url = play_server
    start_game(page, base, "tictactoe")
    assert legal_shown(page) == [str(i) for i in range(9)]
    click(page, "4")  # the bot answers 0, its first legal cell
    assert legal_shown(page) == ["1", "2", "3", "5", "6", "7", "8"]
    onlooker = page.context.new_page()  # the game's own page follows it as it goes
    onlooker.goto(base + page.get_attribute("#watch", "href"))
    onlooker.wait_for_function("() => document.querySelectorAll('#moves li').length === 3", timeout=WAIT)
    page.click("#undo")
    page.wait_for_function("() => document.querySelector('#board').dataset.plies === '0'", timeout=WAIT)
    assert page.inner_text("#notice") == "took back your 4 and the opponent's 0"
    click(page, "4")
    click(page, "2")  # the bot takes 1
    click(page, "6")  # x wins on the diagonal 2-4-6
    page.wait_for_selector("#over:not([hidden])", timeout=WAIT)
    assert "you (x) wins" in page.inner_text("#status")
    onlooker.wait_for_function("() => document.querySelector('#result').textContent.includes('wins')", timeout=WAIT)
    assert onlooker.eval_on_selector_all("#moves .mv", "m => m.map(e => e.textContent)") == ["4", "0", "2", "1", "6"]
    onlooker.close()
    [(game, moves)] = stored(url)
    assert (game.status, game.winner, game.termination) == ("finished", 0, "normal")
    assert moves == ["4", "0", "2", "1", "6"]
    page.click("#stored")  # the stored game's page replays it
    page.wait_for_selector("#verified", timeout=WAIT)
    assert page.errors == []


def test_a_person_plays_uttt_moves_with_clicks_then_resigns(page, play_server):
    base, url = play_server
    start_game(page, base, "uttt", seat="o")  # the bot opens with 0 0
    assert page.eval_on_selector_all("#moves .mv", "m => m.map(e => e.textContent)") == ["0 0"]
    assert legal_shown(page) == [f"0 {c}" for c in range(1, 9)]  # sent to small board 0
    click(page, "0 4")  # the bot must answer in small board 4: 4 0
    click(page, "0 8")  # the bot: 8 0
    click(page, "0 1")
    page.click("#resign")
    page.wait_for_selector("#over:not([hidden])", timeout=WAIT)
    [(game, moves)] = stored(url)
    assert (game.status, game.winner, game.termination, game.offender) == ("finished", 0, "resignation", 1)
    assert moves == ["0 0", "0 4", "4 0", "0 8", "8 0", "0 1", "1 0"]
    assert page.errors == []


def test_othello_offers_the_pass_when_a_person_has_no_placement(page, play_server):
    base, url = play_server
    start_game(page, base, "othello")
    for move in ("d3", "f5", "d1", "b2"):  # found by search: black then has no placement
        assert page.is_hidden("#pass")
        click(page, move)
    assert legal_shown(page) == []
    assert page.is_visible("#pass")
    assert "you pass" in page.inner_text("#status")
    plies = int(page.get_attribute("#board", "data-plies"))
    page.click("#pass")
    page.wait_for_function(
        "(plies) => Number(document.querySelector('#board').dataset.plies) >= plies + 2", arg=plies, timeout=WAIT
    )
    shown = page.eval_on_selector_all("#moves .mv", "m => m.map(e => e.textContent)")
    assert shown[plies] == "pass"
    page.click("#resign")
    page.wait_for_selector("#over:not([hidden])", timeout=WAIT)
    [(game, moves)] = stored(url)
    assert moves[: plies + 1] == [*shown[:plies], "pass"]
    assert game.termination == "resignation"
    assert page.errors == []


# ---------------------------------------------------------------- a game in progress

UTTT = """\
name: slowgame
game: uttt
seed: 5
time: {move: 2.0}
workers: 1
bots:
  one: {path: slow_first_legal.py}
  two: {path: first_legal.py}
stages:
  - {games_per_pair: 1}
"""


def test_a_game_page_shows_the_moves_of_a_game_in_progress_as_they_are_played(page, tmp_path):
    for name in ("slow_first_legal", "first_legal"):
        shutil.copy(BOTS / f"{name}.py", tmp_path)
    (tmp_path / "slow.yaml").write_text(UTTT)
    database = tmp_path / "slow.db"
    url = f"sqlite:///{database}"
    live = tmp_path / "slow.db.live"
    run = start_arena("run", "slow.yaml", "--db", url, "-q", cwd=tmp_path)
    try:
        tid = tournament_id(database, name="slowgame")
        deadline = time.monotonic() + 60
        while len(read_live(live, 1) or []) < 2:  # the game is under way
            assert time.monotonic() < deadline, "no live moves"
            time.sleep(0.1)
        with serving(build(url, play=False)) as base:
            page.goto(f"{base}/t/{tid}/games/1.html")
            page.evaluate("window.notReloaded = true")
            shown = page.eval_on_selector_all("#moves li", "items => items.length")
            page.wait_for_function(
                "(shown) => document.querySelectorAll('#moves li').length > shown", arg=shown, timeout=WAIT
            )
            assert run.wait(timeout=180) == 0
            page.wait_for_function("() => document.querySelector('#result').textContent.includes('wins')", timeout=WAIT)
            with open_store(url, read_only=True)() as session:
                moves = list(session.scalars(select(MoveRow.move).where(MoveRow.game_id == 1).order_by(MoveRow.ply)))
            texts = page.eval_on_selector_all("#moves li .mv", "items => items.map(i => i.textContent)")
            assert texts == moves
            assert page.get_attribute("#board svg", "data-ply") == str(len(moves))  # it followed to the end
            assert page.evaluate("window.notReloaded") is True
            assert page.errors == []
        assert not live.exists()  # the run removed its live files
    finally:
        if run.poll() is None:
            stop(run)

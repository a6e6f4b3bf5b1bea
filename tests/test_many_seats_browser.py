"""A game of three seats in a real browser (headless Chromium through Playwright): a person
chooses goofspiel for three at ``arena serve``'s ``/play``, takes the second seat and plays it
to its end against a bot in each other seat, bidding at simultaneous steps with prizes drawn by
chance; and the served page of a stored game of three (tests/fixtures/threeseats.py) replays it
step by step, every seat named, and the games list filters by any seat's team and winner.

Without Playwright or Chromium these tests skip, saying why (tests/fixtures/browserkit.py)."""

from __future__ import annotations

import json

import pytest

from arena.games.loading import load_game
from arena.web.server import build
from tests.fixtures.servekit import serving
from tests.fixtures.threeseats import PARAMS, SENTENCES, three_seat_tournament

pytestmark = pytest.mark.slow

#: milliseconds the browser waits for what the server is to show
WAIT = 60_000


def texts(tab, selector: str) -> list[str]:
    return tab.eval_on_selector_all(selector, "els => els.map(e => e.textContent.trim())")


def test_a_person_plays_goofspiel_for_three_against_two_bots_to_its_end(page, tmp_path):
    url, _ = three_seat_tournament(tmp_path)
    with serving(build(url, play=True)) as base:
        page.goto(f"{base}/play")
        assert page.is_hidden("#bot-note") and texts(page, "#seats label:not([hidden]) .seat-label") == [
            "x (first)",
            "o (second)",
        ]
        page.select_option("#game", "tournament:1")  # the seats follow the game chosen
        assert texts(page, "#seats label:not([hidden]) .seat-label") == ["p1 (first)", "p2 (second)", "p3 (third)"]
        assert page.is_visible("#bot-note")
        page.select_option("#bot", "bots.randombot")
        page.check("input[name=seat][value=o]")
        page.fill("#move-time", "1")
        page.click("#start")
        page.wait_for_selector("#board[data-waiting=yes]", timeout=WAIT)
        assert "You play p2 (second); bots.randombot plays p1 and p3" in page.inner_text("#sides")
        bids = 0
        while True:
            page.wait_for_selector("#board[data-waiting=yes], #over:not([hidden])", timeout=WAIT)
            if page.is_visible("#over"):
                break
            status = page.inner_text("#status")
            assert (
                status.startswith("Your move: p2 you")
                and "p1 bots.randombot, p2 you and p3 bots.randombot #2" in status
            )
            assert "move at once" in status and page.is_disabled("#undo")  # p2 bids after p1 in a step
            hand = texts(page, "#choices button")
            assert hand and len(hand) == 3 - bids  # a card of the person's hand, each bid spends one
            plies = int(page.get_attribute("#board", "data-plies"))
            page.click("#choices button >> nth=0")
            bids += 1
            page.wait_for_function(
                "(plies) => Number(document.querySelector('#board').dataset.plies) > plies || "
                "!document.querySelector('#over').hidden",
                arg=plies,
                timeout=WAIT,
            )
        assert bids == 3
        status = page.inner_text("#status")
        assert "you (p2)" in status and "; points " in status
        # the moves: a chance outcome (the prize) and then the three bids of a step, together
        items = page.eval_on_selector_all(
            "#moves li", "lis => lis.map(li => [li.dataset.step, li.className, li.querySelector('.seat').textContent])"
        )
        assert [item[0] for item in items] == [str(step) for step in (1, 2, 2, 2, 3, 4, 4, 4, 5, 6, 6, 6)]
        assert [item[1] for item in items] == ["chance", "joint", "joint", "joint"] * 3
        assert [item[2] for item in items] == ["chance", "p1", "p2", "p3"] * 3
        page.click("#stored")  # the stored game's page replays it, every seat named
        page.wait_for_selector("#verified", timeout=WAIT)
        seats = texts(page, "#players .player .seat")
        assert seats == ["p1", "p2", "p3"]
        assert texts(page, "#players .player a.team") == ["bots.randombot", "human", "bots.randombot #2"]
    assert page.errors == []


def test_the_served_page_of_a_game_of_three_replays_it_step_by_step(page, tmp_path):
    url, source = three_seat_tournament(tmp_path)
    game = load_game({"module": str(source)}, PARAMS)
    with serving(build(url, play=False)) as base:
        page.goto(f"{base}/t/1/games/1.html#ply=0")
        assert texts(page, "#players .player a.team") == ["a", "b", "c"]
        assert texts(page, "#players .player .place") == ["2nd", "3rd", "1st"]
        assert page.get_attribute("#players .player.winner", "data-seat") == "2"
        assert page.inner_text("#result") == SENTENCES[0]
        data = json.loads(page.text_content("#game-data"))
        moves, steps = data["moves"], data["steps"]
        assert steps == [1, 3] * 3
        assert page.inner_text("#status").startswith("Start position")
        state, done = game.initial_state(), 0
        for count in steps:
            page.click("#next")
            state = game.advance(state, [text for _, text, _ in moves[done : done + count]])
            done += count
            boards = page.eval_on_selector_all(
                "#board svg.grid-board",
                "bs => bs.map(b => Array.from(b.querySelectorAll('rect.cell')).map(c => c.dataset.mark))",
            )
            assert boards == [board["cells"] for board in state.board()["boards"]]
            assert page.eval_on_selector_all("#moves li.current", "lis => lis.length") == count
            status = page.inner_text("#status")
            if count == 1:
                assert f"Ply {done}/12: chance drew {moves[done - 1][1]}" in status
                assert "p1 a, p2 b and p3 c move at once" in status
            else:
                assert f"Plies {done - 2}–{done}/12: p1 a played" in status
                assert "p2 b played" in status and "p3 c played" in status
        assert SENTENCES[0] in page.inner_text("#status")
        assert page.is_visible("#verified")
        # the games list: a column a seat, the result as places, filtered by any seat's winner
        page.goto(f"{base}/t/1/games.html")
        assert texts(page, "#games-table thead th")[4:8] == ["p1", "p2", "p3", "Result"]
        page.select_option("#filter-result", "p3")
        page.wait_for_function("() => document.querySelector('#shown').textContent === '1'", timeout=WAIT)
        assert texts(page, "#games-table tbody tr:not([hidden]) td:nth-child(8)") == ["2-3-1"]
        page.select_option("#filter-result", "draw")
        assert texts(page, "#games-table tbody tr:not([hidden]) td:nth-child(8)") == ["1-1-1"]
        page.select_option("#filter-result", "")
        page.select_option("#filter-bot", "c")  # c sits in every game, the third seat of the first
        assert page.text_content("#shown") == "3"
        page.select_option("#filter-result", "won")
        assert texts(page, "#games-table tbody tr:not([hidden]) td:nth-child(1)") == ["1", "3"]
    assert page.errors == []

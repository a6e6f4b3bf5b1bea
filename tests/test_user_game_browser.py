"""A user's game in a real browser (headless Chromium through Playwright): the report's replay
draws it from its boards (``State.board()``) step by step, a chance outcome is listed and told as
chance with no time, a simultaneous step's moves are one step, a game without boards shows its
text; and a person plays a user's game at ``arena serve``, clicking a cell of its board or one of
its moves under it.

Without Playwright or Chromium these tests skip, saying why (tests/fixtures/browserkit.py)."""

from __future__ import annotations

import json

import pytest

from arena.games import CHANCE
from arena.games.loading import load_game
from arena.results.report import write_report
from arena.store.database import open_store
from arena.web.server import build
from tests.fixtures.servekit import serving
from tests.fixtures.usergames import user_tournament

pytestmark = pytest.mark.slow

#: milliseconds the browser waits for what the server is to show
WAIT = 60_000
#: a game of a user's that draws no board: its positions are shown as its text
NIM = '''
from arena.games import Game, IllegalMoveError, State


class Nim(Game):
    """Take 1 or 2 of 7 stones in turn; who takes the last wins."""

    name = "nim"
    MAX_LENGTH = 7

    def initial_state(self):
        return NimState(self, 7, 0, None)


class NimState(State):
    __slots__ = ("game", "last_move", "left", "ply")

    def __init__(self, game, left, ply, last):
        self.game, self.left, self.ply, self.last_move = game, left, ply, last

    @property
    def to_move(self):
        return self.ply % 2

    @property
    def is_terminal(self):
        return self.left == 0

    def legal_moves(self):
        return [m for m in (1, 2) if m <= self.left]

    def play(self, move):
        if move not in self.legal_moves():
            raise IllegalMoveError(f"{move!r} is illegal in nim")
        return NimState(self.game, self.left - move, self.ply + 1, move)

    def returns(self):
        winner = 1 - self.to_move
        return (1.0, 0.0) if winner == 0 else (0.0, 1.0)

    def render(self):
        return f"<stones> {'o' * self.left or '-'} ({self.left} left)"
'''


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    """The report of a goofspiel, a connect4 and a nim tournament: name -> (site, url, game)."""
    made = {}
    for example, params in (("goofspiel", {"players": 2, "cards": 5}), ("connect4", {"rows": 6, "cols": 7})):
        folder = tmp_path_factory.mktemp(example)
        url, source = user_tournament(folder, example, params)
        write_report(open_store(url), example, folder / "site")
        made[example] = (folder / "site", url, load_game({"module": str(source)}, params))
    folder = tmp_path_factory.mktemp("nim")
    (folder / "nim.py").write_text(NIM)
    url, source = user_tournament(folder, "nim", {})
    write_report(open_store(url), "nim", folder / "site")
    made["nim"] = (folder / "site", url, load_game({"module": str(source)}, {}))
    return made


def game_data(tab) -> dict:
    return json.loads(tab.text_content("#game-data"))


def shown_boards(tab) -> list[list[str]]:
    """Each board's cells as the page draws them (their ``data-mark``)."""
    return tab.eval_on_selector_all(
        "#board svg.grid-board",
        "boards => boards.map(b => Array.from(b.querySelectorAll('rect.cell')).map(c => c.dataset.mark))",
    )


def test_a_replay_steps_through_chance_outcomes_and_simultaneous_bids(page, sites):
    site, _, game = sites["goofspiel"]
    page.goto((site / "games/1.html").as_uri() + "#ply=0")
    data = game_data(page)
    moves, steps = data["moves"], data["steps"]
    assert steps == [1, 2] * 5 and moves[0][0] == CHANCE
    # the move list: a chance outcome is chance's, with no time; a step's moves are one step
    items = page.eval_on_selector_all(
        "#moves li:not(.start)",
        "lis => lis.map(li => [li.dataset.ply, li.className, li.querySelector('.seat').textContent, "
        "li.querySelector('.t').textContent])",
    )
    assert [item[0] for item in items[:6]] == ["1", "2", "2", "3", "4", "4"]
    assert items[0][1:3] == ["chance", "chance"] and items[0][3] == ""
    assert items[1][2:] == ["p1", "2.0 ms"]
    state = game.initial_state()
    done = 0
    for step, count in enumerate(steps, 1):
        page.click("#next")
        state = game.advance(state, [text for _, text, _ in moves[done : done + count]])
        done += count
        assert page.input_value("#ply") == str(step)
        assert page.text_content("#ply-label") == f"{done}/{len(moves)}"
        assert shown_boards(page) == [board["cells"] for board in state.board()["boards"]]
        assert page.eval_on_selector_all("#moves li.current", "lis => lis.length") == count
        status = page.text_content("#status")
        if count == 1:
            assert f"Ply {done}/{len(moves)}: chance drew {moves[done - 1][1]}" in status
            assert "p1 alpha and p2 beta move at once" in status
        elif step < len(steps):
            assert f"Plies {done - 1}–{done}/{len(moves)}: p1 alpha played" in status and "p2 beta played" in status
            assert "a chance outcome is drawn next" in status
    notes = page.eval_on_selector_all("#board .board-notes li", "lis => lis.map(li => li.textContent)")
    assert notes == state.board()["notes"]
    assert "wins" in page.text_content("#status") or "draw" in page.text_content("#status")
    page.click("#moves li[data-ply='2']")
    assert page.eval_on_selector_all("#moves li.current", "lis => lis.map(li => li.dataset.ply)") == ["2", "2"]
    assert page.errors == []


def test_a_board_game_of_a_users_draws_its_pieces_and_last_move(page, sites):
    site, _, game = sites["connect4"]
    page.goto((site / "games/1.html").as_uri())
    moves = game_data(page)["moves"]
    final = game.replay([text for _, text, _ in moves])
    cells = final.board()["boards"][0]["cells"]
    assert shown_boards(page) == [cells]
    assert page.eval_on_selector_all("#board circle.piece.s0", "c => c.length") == cells.count("x")
    assert page.eval_on_selector_all("#board circle.piece.s1", "c => c.length") == cells.count("o")
    assert page.eval_on_selector_all("#board rect.cell.last", "c => c.length") == 1
    assert page.eval_on_selector_all("#board rect.cell[data-move]", "c => c.length") == 0  # a replay plays nothing
    assert page.errors == []


def test_a_game_without_boards_shows_its_text_escaped(page, sites):
    site, _, game = sites["nim"]
    page.goto((site / "games/1.html").as_uri() + "#ply=0")
    assert page.text_content("#board pre.board-text") == game.initial_state().render()
    assert page.eval_on_selector_all("#board pre.board-text stones", "s => s.length") == 0
    page.keyboard.press("End")
    assert "(0 left)" in page.text_content("#board pre.board-text")
    assert page.errors == []


def test_a_person_plays_a_users_game_by_its_cells_and_its_moves(page, tmp_path):
    for example, params in (("connect4", {"rows": 4, "cols": 4}), ("goofspiel", {"players": 2, "cards": 3})):
        folder = tmp_path / example
        folder.mkdir()
        url, _ = user_tournament(folder, example, params)
        with serving(build(url, play=True)) as base:
            page.goto(f"{base}/play")  # the form of the choice page, sent with a user's game
            page.evaluate(
                "() => { const o = document.createElement('option'); o.value = 'tournament:1'; "
                "document.querySelector('#game').appendChild(o); document.querySelector('#game').value = o.value; "
                "for (const b of document.querySelectorAll('#bot option')) { b.hidden = b.disabled = false; } "
                "document.querySelector('#bot').value = 'bots.randombot'; }"
            )
            page.click("#start")
            for _ in range(20):
                page.wait_for_selector("#board[data-waiting=yes], #over:not([hidden])", timeout=WAIT)
                if page.is_visible("#over"):
                    break
                plies = int(page.get_attribute("#board", "data-plies"))
                if example == "connect4":  # a column: any cell of it
                    assert page.is_hidden("#choices")
                    page.click("#board rect.cell.legal >> nth=0")
                else:  # a bid: a card of the person's hand, under the board
                    assert page.eval_on_selector_all("#choices button", "b => b.length") >= 1
                    page.click("#choices button >> nth=0")
                page.wait_for_function(
                    "(plies) => document.querySelector('#board').dataset.waiting === 'no' || "
                    "Number(document.querySelector('#board').dataset.plies) > plies",
                    arg=plies,
                    timeout=WAIT,
                )
            page.wait_for_selector("#over:not([hidden])", timeout=WAIT)
            assert "wins" in page.inner_text("#status") or "draw" in page.inner_text("#status")
            if example == "goofspiel":
                assert page.eval_on_selector_all("#moves li.chance", "c => c.length") == 3
    assert page.errors == []

"""The read side with a user's game (examples/games/, loaded from a path as a user's game is):
``arena games show``, ``arena replay``, ``arena report`` and ``arena serve`` find the game by the
stored tournament's spec, show a chance outcome as chance and a simultaneous step's moves
together, draw the game from its boards (``State.board()``), show a finished game of hidden
information whole and one in progress not at all; a game whose module is gone or changed is one
clear error while the rest still shows; and a person plays a user's game in the browser."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import update
from starlette.testclient import TestClient

from arena.core.live import live_folder, write_live
from arena.errors import ArenaError
from arena.games import CHANCE
from arena.games.loading import load_game
from arena.results.pages import checked_boards, generic_frame, think_times
from arena.results.replay import walk_record
from arena.store.models import GameRow
from arena.web.server import build
from tests.fixtures.harnesskit import run_arena
from tests.fixtures.usergames import EXAMPLES, play_out, random_record, user_tournament

LOCAL = "http://127.0.0.1"


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """A connect4, a goofspiel (chance and simultaneous bids) and a liar's dice (chance and
    hidden dice) tournament: name -> (url, the game's file, the game)."""
    made = {}
    for example, params in (
        ("connect4", {"rows": 6, "cols": 7}),
        ("goofspiel", {"players": 2, "cards": 5}),
        ("liars_dice", {"players": 2, "dice": 2}),
    ):
        url, source = user_tournament(tmp_path_factory.mktemp(example), example, params)
        made[example] = (url, source, load_game({"module": str(source)}, params))
    return made


def stored_moves(url: str, game_id: int) -> list[tuple[int, str, float]]:
    import sqlite3

    with sqlite3.connect(url.removeprefix("sqlite:///")) as connection:
        return list(
            connection.execute("SELECT seat, move, wall_ms FROM moves WHERE game_id = ? ORDER BY ply", (game_id,))
        )


def embedded(text: str) -> dict:
    return json.loads(re.search(r'<script type="application/json" id="game-data">(.*?)</script>', text, re.S).group(1))


def client(app) -> TestClient:
    return TestClient(app, base_url=LOCAL, raise_server_exceptions=False)


# ---------------------------------------------------------------- the terminal


def test_games_show_of_a_user_game_names_its_seats_and_counts_its_chance_outcomes(stored):
    url, _, _ = stored["connect4"]
    result = run_arena("games", "show", "1", "--db", url)
    assert (result.exit_code, result.stderr) == (0, ""), result.output
    moves = stored_moves(url, 1)
    assert "game 1 of connect4: connect4 (cols 7, rows 6)" in result.stdout
    assert "  x (first): alpha (bot alpha v1, python)" in result.stdout
    assert f"moves: {len(moves)} (x {(len(moves) + 1) // 2}, o {len(moves) // 2}); see them" in result.stdout

    url, _, _ = stored["goofspiel"]
    result = run_arena("games", "show", "1", "--db", url)
    assert (result.exit_code, result.stderr) == (0, ""), result.output
    assert "  p1 (first): alpha" in result.stdout and "  p2 (second): beta" in result.stdout
    # five rounds: a prize drawn, then a bid of each player; the draws are nobody's moves or time
    assert "moves: 10 (p1 5, p2 5) and 5 chance outcomes; see them with 'arena replay 1'" in result.stdout
    assert "  time of p1: 0.010 s in all, 2.0 ms a move on average, 2.0 ms at most" in result.stdout
    record = json.loads(run_arena("games", "show", "1", "--json", "--db", url).stdout)
    assert record["chance_moves"] == 5 and [s["moves"] for s in record["seats"]] == [5, 5]
    assert [s["side"] for s in record["seats"]] == ["p1", "p2"] and "game_problem" not in record


def test_replay_of_connect4_shows_its_render_text_and_confirms_the_result(stored):
    url, _, game = stored["connect4"]
    moves = stored_moves(url, 1)
    result = run_arena("replay", "1", "--db", url)
    assert result.exit_code == 0, result.output
    assert "game 1 of connect4: connect4, stage league, pool A, round 1" in result.output
    assert "start; x (alpha) against o (beta)" in result.output
    assert f"ply 1/{len(moves)}: x (alpha) plays {moves[0][1]} in 2.0 ms" in result.output
    assert game.replay([t for _, t, _ in moves]).render() in result.output
    assert "re-played through the engine: every move legal, result confirmed" in result.output


def test_replay_shows_a_chance_outcome_as_chance_and_a_simultaneous_step_together(stored):
    url, _, _ = stored["goofspiel"]
    moves = stored_moves(url, 1)
    assert [seat for seat, _, _ in moves[:3]] == [CHANCE, 0, 1]
    result = run_arena("replay", "1", "--db", url)
    assert result.exit_code == 0, result.output
    headings = [line for line in result.output.splitlines() if line.startswith(("ply ", "plies "))]
    assert headings[:2] == [
        f"ply 1/15: chance: {moves[0][1]}",
        f"plies 2-3/15: p1 (alpha) plays {moves[1][1]} in 2.0 ms, p2 (beta) plays {moves[2][1]} in 2.0 ms",
    ]
    assert len(headings) == 10  # five draws, five rounds of bids
    assert "in 0.0 ms" not in result.output and "result: " in result.output
    # a position is a step: --ply counts them
    one = run_arena("replay", "1", "--ply", "2", "--db", url)
    assert one.exit_code == 0 and "plies 2-3/15: p1 (alpha)" in one.output and "ply 1/15" not in one.output
    beyond = run_arena("replay", "1", "--ply", "11", "--db", url)
    assert str(beyond.exception) == "game 1 has positions 0-10; --ply 11 is not one of them"


def test_replay_of_hidden_information_shows_every_die_once_the_game_is_over(stored):
    url, _, _ = stored["liars_dice"]
    result = run_arena("replay", "1", "--db", url)
    assert result.exit_code == 0, result.output
    assert "ply 1/" in result.output and ": chance: roll " in result.output
    last = result.output.split("result: ")[0].rsplit("\n\n\n", 1)[-1]
    assert "?" not in last and re.search(r"p1: [1-6] [1-6]\np2: [1-6] [1-6]", last)


def test_a_record_with_a_seat_where_a_chance_outcome_is_drawn_does_not_replay(stored):
    _, _, game = stored["goofspiel"]
    record = random_record(game, 1, 7)
    moves = [(m.seat, m.move) for m in record.moves]
    fields = {"status": "finished", "termination": "normal", "offender": None, "plies": None}
    good = walk_record(game, moves, winner=record.winner, points=record.points, **fields)
    assert good.problem is None and len(good.states) == 11
    assert good.steps[:3] == [(0, 1), (1, 3), (3, 4)]
    bad = walk_record(game, [(0, moves[0][1]), *moves[1:]], winner=record.winner, points=record.points, **fields)
    assert bad.problem == f"ply 1: the record has p1 playing {moves[0][1]!r}, but the game draws a chance outcome there"
    swapped = walk_record(game, [moves[0], moves[2], moves[1], *moves[3:]], winner=record.winner, points=None, **fields)
    assert swapped.problem.startswith("ply 2: the record has p2 playing")
    assert swapped.problem.endswith("but it is p1's move of the step p1 and p2 play at once")
    cut = walk_record(game, moves[:2], winner=None, points=None, **{**fields, "status": "running"})
    assert cut.problem == "the record ends inside the simultaneous step of entry 2"
    wrong = walk_record(game, moves, winner=record.winner, points=(0.0, 0.0), **fields)
    assert wrong.problem.startswith("the record gives points 0-0, but its moves give")


# ---------------------------------------------------------------- the report and the served pages


def test_the_report_draws_a_user_game_from_its_boards_and_a_chance_outcome_as_chance(stored, tmp_path):
    for example in ("connect4", "goofspiel"):
        url, _, game = stored[example]
        result = run_arena("report", "--db", url, "--out", str(tmp_path / example))
        assert result.exit_code == 0, result.output
        page = (tmp_path / example / "games/1.html").read_text()
        assert 'class="board board-generic"' in page and "✓ Re-played through the engine" in page
        data = embedded(page)
        moves = stored_moves(url, 1)
        assert (data["game"], data["board"], data["problem"]) == (example, "generic", None)
        assert data["moves"] == [[s, t, 0 if s == CHANCE else round(w, 2)] for s, t, w in moves]
        steps = data.get("steps", [1] * len(moves))
        assert sum(steps) == len(moves) and len(data["frames"]) == len(steps) + 1
        state = game.initial_state()
        for step, (count, frame) in enumerate(zip(steps, data["frames"][1:]), 1):
            texts = [t for _, t, _ in moves[sum(steps[: step - 1]) : sum(steps[:step])]]
            state = game.advance(state, texts)
            assert len(texts) == count
            board = state.board()
            assert [b["cells"] for b in frame["boards"]] == [b["cells"] for b in board["boards"]]
            assert frame["notes"] == board.get("notes", []) and frame["to_move"] == state.to_move
        assert data["frames"][-1]["terminal"] is True
    assert data["steps"] == [1, 2] * 5 and data["names"] == ["p1", "p2"] and data["marks"] == ["1", "2"]
    assert data["frames"][1]["actors"] == [0, 1] and data["frames"][2]["to_move"] == CHANCE


def test_a_chance_outcome_is_no_teams_think_time(stored):
    from arena.results.lookup import find_tournament
    from arena.results.tournament_results import load_moves, load_results
    from arena.store.database import open_store

    url, _, _ = stored["goofspiel"]
    with open_store(url).begin() as session:
        found = load_results(session, find_tournament(session))
        moves = load_moves(session, found.tournament)
    times = think_times(found.games, moves)
    assert {team: len(walls) for team, walls in times.items()} == {"alpha": 10, "beta": 10}
    assert all(line.moves == 10 for line in found.leaderboard)


def test_the_served_game_page_of_a_user_game_holds_its_boards(stored):
    for example in ("connect4", "goofspiel", "liars_dice"):
        url, _, _ = stored[example]
        with client(build(url, play=False)) as web:
            pages = {path: web.get(f"/t/1/{path}") for path in ("index.html", "games.html", "games/1.html")}
        assert {path: answer.status_code for path, answer in pages.items()} == dict.fromkeys(pages, 200)
        data = embedded(pages["games/1.html"].text)
        assert data["board"] == "generic" and all("boards" in frame for frame in data["frames"])
        assert all("moves" not in board for frame in data["frames"] for board in frame["boards"])
        if example == "liars_dice":  # over: the spectator sees every die
            assert "?" not in data["frames"][-1]["boards"][0]["cells"]


def test_a_game_of_hidden_information_in_progress_shows_no_move_until_it_is_over(tmp_path):
    url, _ = user_tournament(tmp_path, "liars_dice", {"players": 2, "dice": 2}, status="running")
    from arena.store.database import open_store

    with open_store(url).begin() as session:
        session.execute(update(GameRow).where(GameRow.id == 2).values(status="running"))
    moves = stored_moves(url, 2)
    write_live(live_folder(url), 2, moves[:5])  # the dice rolled and a bid: the page must not say them
    with client(build(url, play=False)) as web:
        running = embedded(web.get("/t/1/games/2.html").text)
        finished = embedded(web.get("/t/1/games/1.html").text)
    assert running["moves"] == [] and running["hidden"] == 5 and len(running["frames"]) == 1
    assert "roll" not in json.dumps(running) and "boards" not in running["frames"][0]
    assert finished["moves"] and "roll" in json.dumps(finished["moves"])


def test_text_from_a_games_boards_is_escaped_and_bad_boards_are_shown_as_text(tmp_path):
    from arena.results.pages import embed_json

    hostile = "<script>alert(1)</script>"
    data = {
        "boards": [{"rows": 1, "cols": 2, "cells": [hostile, "x"], "label": hostile, "last": [1, 7, "a"]}],
        "notes": [hostile],
    }
    shown = checked_boards(data)
    assert shown["boards"][0]["cells"] == ["<sc", "x"] and shown["boards"][0]["last"] == [1]
    assert hostile not in str(embed_json(shown)) and "\\u003cscript" in str(embed_json(shown))
    for bad in ({"boards": [{"rows": 2, "cols": 2, "cells": ["x"]}]}, {"boards": ["x"]}, {"boards": None}):
        assert checked_boards(bad) is None
    game = load_game({"module": str(EXAMPLES / "goofspiel.py")}, {"players": 2, "cards": 3})

    class Broken:  # a state whose game's code fails to show it
        to_move, is_terminal = CHANCE, False

        def actors(self):
            return ()

        def view(self, seat):
            raise RuntimeError("no view")

    assert generic_frame(Broken())["text"] == "(the game cannot show this position: RuntimeError: no view)"
    assert generic_frame(game.initial_state(), clickable=False)["boards"][0]["label"] == "prizes"


# ---------------------------------------------------------------- the game's module gone or changed


def failure(result) -> str:
    """What a command run in this process (``run_arena``) failed with: an ``ArenaError``, which
    ``arena`` prints as one ``error:`` line."""
    assert result.exit_code != 0 and isinstance(result.exception, ArenaError), result.output
    return str(result.exception)


def test_a_user_game_whose_module_is_gone_is_one_clear_error_and_the_rest_still_shows(tmp_path):
    url, source = user_tournament(tmp_path, "connect4", {"rows": 6, "cols": 7})
    source.unlink()
    shown = run_arena("games", "show", "1", "--db", url)
    assert failure(shown) == (
        f"the game of tournament 'connect4' cannot be loaded: game file '{source}' does not exist; "
        "its seats are called p1 and p2 here"
    )
    assert "  p1 (first): alpha (bot alpha v1, python)" in shown.stdout and "result: " in shown.stdout
    replayed = run_arena("replay", "1", "--db", url)
    assert failure(replayed) == f"game 1 of 'connect4' cannot be replayed: game file '{source}' does not exist"
    assert run_arena("standings", "connect4", "--db", url).exit_code == 0
    assert run_arena("leaderboard", "connect4", "--db", url).exit_code == 0
    reported = run_arena("report", "--db", url, "--out", str(tmp_path / "site"))
    assert failure(reported).endswith("does not exist; its 2 game pages show the moves without a replay")
    assert "Wrote 7 pages" in reported.stdout
    page = (tmp_path / "site/games/1.html").read_text()
    assert "This game cannot be replayed: the game of tournament" in page and "does not exist" in page
    assert embedded(page)["moves"] == [[s, t, round(w, 2)] for s, t, w in stored_moves(url, 1)]
    with client(build(url, play=False)) as web:
        answers = [web.get(f"/t/1/{path}") for path in ("index.html", "games.html", "crosstable.html", "games/1.html")]
    assert [answer.status_code for answer in answers] == [200] * 4
    assert "This game cannot be replayed" in answers[-1].text
    # as a command: the record, then one error line, no traceback
    done = subprocess.run(
        [sys.executable, "-c", "from arena.commands.cli import main; main()", "games", "show", "1", "--db", url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "p1 (first): alpha" in done.stdout
    assert done.stderr.count("error: ") == 1 and "Traceback" not in done.stderr, done.stderr


def test_a_user_game_whose_module_changed_is_refused_by_its_replays(tmp_path):
    url, source = user_tournament(tmp_path, "connect4", {"rows": 6, "cols": 7})
    source.write_text(source.read_text() + "\n# changed after the tournament\n")
    assert "changed since its tournament began" in failure(run_arena("replay", "2", "--db", url))
    shown = run_arena("games", "show", "2", "--json", "--db", url)
    assert "changed since its tournament began" in failure(shown)
    assert "changed since its tournament began" in json.loads(shown.stdout)["game_problem"]
    assert "changed since its tournament began" in failure(
        run_arena("report", "--db", url, "--out", str(tmp_path / "s"))
    )


# ---------------------------------------------------------------- playing a user's game in the browser


@pytest.mark.parametrize("example", ["connect4", "goofspiel"])
def test_a_person_plays_the_game_of_a_tournament_in_the_browser(tmp_path, example):
    params = {"rows": 4, "cols": 4} if example == "connect4" else {"players": 2, "cards": 3}
    url, _ = user_tournament(tmp_path, example, params)
    form = {"game": "tournament:1", "bot": "bots.randombot", "seat": "x", "move_time": "1"}
    with client(build(url, play=True)) as web:
        started = web.post("/play", data=form, follow_redirects=False)
        assert started.status_code == 303, started.text
        where = started.headers["location"]
        page = web.get(where).text
        assert f"<h1>{example} against bots.randombot</h1>" in page and 'class="board board-generic"' in page
        first = web.get(f"{where}/state").json()
        assert first["board"] == "generic" and first["names"] == (["x", "o"] if example == "connect4" else ["p1", "p2"])
        if example == "connect4":  # a column is played by clicking any of its cells
            assert first["frame"]["boards"][0]["moves"][:4] == ["0", "1", "2", "3"]
        last = play_out(web, where)
        refused = web.post("/play", data={**form, "game": "tournament:99"}, follow_redirects=False)
    assert last["failure"] is None and last["result"]
    assert refused.status_code == 400 and "there is no game from outside arena in a tournament 99" in refused.text
    game_id = last["game_url"].rsplit("/", 1)[1].removesuffix(".html")
    replayed = run_arena("replay", game_id, "--db", url)
    assert replayed.exit_code == 0 and "result confirmed" in replayed.output, replayed.output
    assert "tournament:1" in dict(build_choices(url))


def build_choices(url: str) -> list[tuple[str, str]]:
    from arena.store.database import open_store
    from arena.web.playing import Tables

    return Tables(open_store(url), Path.cwd()).choices()


def test_the_person_sees_only_their_own_dice_while_a_game_of_hidden_information_goes_on(stored):
    from arena.core.records import MoveRecord
    from arena.web.playing import BrowserGame, Choice

    _, _, game = stored["liars_dice"]
    table = BrowserGame(game, Choice("tournament:1", "bots.randombot", 1, 1.0), "bots.randombot", 1, 1)
    state = game.initial_state()
    for roll in ("roll 3", "roll 4", "roll 6", "roll 1", "1x6"):
        seat = state.to_move
        state = state.play(game.parse_move(roll))
        table.moved(state, MoveRecord(seat, roll, 0.0, None))
    table.to_move(state, 1)
    seen = table.snapshot()
    assert seen["frame"]["boards"][0]["cells"] == ["?", "?", "6", "1"]  # the person is p2
    assert [text for _, text, _ in seen["moves"]] == ["?"] * 5 and seen["last"] is None
    assert seen["legal"][:2] == ["liar", "2x1"] and seen["waiting"]

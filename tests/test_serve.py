"""``arena serve`` over HTTP (Starlette's TestClient): the pages are the report's, bad requests
get a short 4xx page and never a traceback, text from bots is escaped, a server bound to
another address needs its token, a read-only server refuses play, forms from other sites are
refused, and the command line says where it serves."""

from __future__ import annotations

import functools
import json
import re
import signal
import socket
import sqlite3
import threading
from contextlib import ExitStack, closing
from pathlib import Path

import httpx
import pytest
from starlette.testclient import TestClient

from arena.errors import ArenaError
from arena.web.server import build
from tests.fixtures.harnesskit import arena, run_arena, start_arena, stop
from tests.fixtures.servekit import answer, free_port, serving

LOCAL = "http://127.0.0.1"
HOSTILE = "<script>alert(1)</script>"
TOKEN = "a-token-of-the-test-1234"


def client(app, base: str = LOCAL, **headers: str) -> TestClient:
    return TestClient(app, base_url=base, raise_server_exceptions=False, headers=headers)


def no_traceback(text: str) -> bool:
    return "Traceback" not in text and 'File "' not in text


@pytest.fixture
def hostile_url(league_url):
    """The league, its first bot renamed to a script and a game's stderr holding one."""
    path = league_url.removeprefix("sqlite:///")
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("UPDATE bots SET name = ?, description = ? WHERE id = 1", (HOSTILE, HOSTILE))
        connection.execute("UPDATE game_seats SET stderr = ? WHERE game_id = 1 AND seat = 0", ("</pre>" + HOSTILE,))
        connection.commit()
    return league_url


def test_every_page_of_a_tournament_is_served(league_url):
    with client(build(league_url, play=False)) as web:
        home = web.get("/")
        tid = re.search(r'href="/t/(\d+)/index.html"', home.text)[1]
        index = web.get(f"/t/{tid}/index.html")
        team = re.search(rf'href="(/t/{tid}/teams/[^"]+)"', index.text)[1]
        pages = [f"/t/{tid}/{p}" for p in ("index.html", "crosstable.html", "games.html", "games/1.html")]
        assert [web.get(path).status_code for path in [*pages, team, "/assets/replay.js"]] == [200] * 6
        assert web.get(f"/t/{tid}/", follow_redirects=False).headers["location"] == f"/t/{tid}/index.html"
        assert re.search(rf'data-live="/t/{tid}/events\?seen=[0-9a-f]{{16}}"', index.text)


def events(app, path: str) -> list[str]:
    """The events the stream at ``path`` sends in its first second (then the server stops it)."""
    timer = threading.Timer(1.0, app.stop_streams)
    timer.start()
    with client(app) as web, web.stream("GET", path) as stream:
        lines = list(stream.iter_lines())
    timer.join()
    return [line for line in lines if line.startswith("event:")]


def test_the_overview_stream_says_at_once_when_the_page_is_out_of_date(league_url):
    app = build(league_url, play=False)
    with client(app) as web:
        seen = re.search(r"events\?seen=(\w+)", web.get("/t/1/index.html").text)[1]
    assert events(app, f"/t/1/events?seen={seen}") == []
    assert events(build(league_url, play=False), "/t/1/events?seen=0123456789abcdef") == ["event: changed"]


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/t/99/index.html", 404),
        ("/t/1/games/99999.html", 404),
        ("/t/1/teams/nobody.html", 404),
        ("/t/abc/index.html", 404),
        ("/assets/secret.py", 404),
        ("/assets/..%2F..%2Fpyproject.toml", 404),
        ("/nowhere", 404),
        ("/play/no-such-game", 404),
        ("/t/99/events", 404),
        ("/t/1/games/99999/events", 404),
    ],
)
def test_a_bad_request_gets_a_short_page_without_a_traceback(league_url, path, status):
    with client(build(league_url, play=True)) as web:
        answer = web.get(path)
    assert answer.status_code == status
    assert answer.headers["content-type"].startswith("text/html")
    assert no_traceback(answer.text) and '<p class="lede" id="message">' in answer.text


@pytest.mark.parametrize(
    "form",
    [
        {},
        {"game": "chess", "bot": "bots.randombot", "seat": "x", "move_time": "1"},
        {"game": "tictactoe", "bot": "/etc/passwd", "seat": "x", "move_time": "1"},
        {"game": "tictactoe", "bot": "bots.randombot", "seat": "z", "move_time": "1"},
        {"game": "tictactoe", "bot": "bots.randombot", "seat": "x", "move_time": "nan"},
        {"game": "tictactoe", "bot": "bots.randombot", "seat": "x", "move_time": "1e9"},
    ],
)
def test_a_bad_choice_of_game_is_refused_with_a_400(league_url, form):
    with client(build(league_url, play=True)) as web:
        answer = web.post("/play", data=form, follow_redirects=False)
    assert answer.status_code == 400 and no_traceback(answer.text)


def test_live_streams_past_the_servers_bound_are_a_503_to_retry(league_url):
    # 300 idle live streams once left the server answering nothing
    app = build(league_url, play=False)
    app.settings.max_streams = 0
    with client(app) as web:
        answer = web.get("/t/1/events")
        page = web.get("/t/1/index.html")
    assert answer.status_code == 503 and answer.headers["retry-after"] == "30"
    assert "live pages already" in answer.json()["error"] and page.status_code == 200


def hold_streams(base: str, count: int, seconds: float) -> list[int]:
    """The statuses of ``count`` streams of ``/t/1/events`` asked for at once, each accepted one
    held open ``seconds``."""
    import asyncio

    async def ask() -> list[int]:
        async with httpx.AsyncClient(base_url=base, timeout=30) as web:

            async def one() -> int:
                async with web.stream("GET", "/t/1/events") as answer:
                    if answer.status_code == 200:
                        await asyncio.sleep(seconds)
                    return answer.status_code

            return list(await asyncio.gather(*(one() for _ in range(count))))

    return asyncio.run(ask())


def test_streams_asked_for_at_once_cannot_pass_the_bound_together(league_url):
    # a stream counted only from its first event let 300 of 300 asked for at once past a bound of 256
    import time

    app = build(league_url, play=False)
    app.settings.max_streams = 4
    with serving(app) as base:
        statuses = hold_streams(base, 20, 1.0)  # each held open while the others ask
        deadline = time.monotonic() + 30
        while app.settings.streams and time.monotonic() < deadline:  # each closed stream is counted out
            time.sleep(0.05)
        left = app.settings.streams
    assert sorted(set(statuses)) == [200, 503] and statuses.count(200) <= 4, statuses
    assert left == 0


def test_many_streams_of_one_tournament_read_the_database_as_one(league_url, monkeypatch):
    # each stream once read the database itself every 0.2 s: 256 of them slowed every page past 1 s
    from arena.web.site import Site

    reads = []
    real = Site.stamp
    monkeypatch.setattr(Site, "stamp", lambda self, tid: reads.append(tid) or real(self, tid))
    app = build(league_url, play=False)
    with serving(app) as base:
        statuses = hold_streams(base, 30, 2.0)
    assert statuses == [200] * 30
    assert len(reads) <= 2.5 / 0.2 + 2  # one read a poll, not one a stream (30 x 10 before)


def test_a_browser_games_bot_is_timed_by_its_cpu_not_the_servers_load(league_url):
    # under 300 live streams a random bot once lost on time at 0.2 s a move, having used no CPU
    form = {"game": "tictactoe", "bot": "bots.randombot", "seat": "o", "move_time": "0.2"}
    with client(build(league_url, play=True)) as web:
        where = web.post("/play", data=form, follow_redirects=False).headers["location"]
        seen = web.get(f"{where}/state").json()
        while not seen["moves"] and not seen["over"]:  # the bot (x) moves first
            seen = web.get(f"{where}/state", params={"after": seen["version"]}).json()
        web.post(f"{where}/act", json={"action": "resign"})
        while not seen["over"]:
            seen = web.get(f"{where}/state", params={"after": seen["version"]}).json()
    with sqlite3.connect(league_url.removeprefix("sqlite:///")) as connection:
        (clock,) = connection.execute("SELECT clock FROM games WHERE id = (SELECT max(id) FROM games)").fetchone()
    assert clock == "cpu"


def test_a_second_move_sent_before_the_bots_answer_is_refused_not_queued():
    # a double click once queued the second move, to be played at the person's next turn
    from arena.games import get_game
    from arena.web.playing import BrowserGame, Choice, PlayError

    game = get_game("tictactoe")
    table = BrowserGame(game, Choice("tictactoe", "bots.randombot", 0, 1.0), "bots.randombot", 1, 1)
    table.to_move(game.initial_state())  # the person (x) is to move
    before = table.snapshot()
    table.act("move", "4")
    after = table.snapshot()
    with pytest.raises(PlayError, match="it is not your turn"):
        table.act("move", "0")
    assert before["legal"] and not after["legal"] and after["version"] > before["version"]
    assert table.feed.readline() == "4\n" and table.feed.lines.empty()  # one move queued
    for word in ("help", "moves", "undo", "9", "4"):  # a word the player takes as a command would leave the turn stuck
        table.to_move(game.initial_state().play(4).play(0))
        with pytest.raises(PlayError, match="is not a legal move here"):
            table.act("move", word)
        assert table.snapshot()["legal"]
    table.notices.write("x to move (ply 1) > cell 4 is taken; try again ('help' lists the commands)\n")
    assert table.snapshot()["legal"]  # refused by the game: the person moves again


def test_a_shared_poll_of_keys_that_are_not_there_keeps_nothing_of_them():
    # a stream of /s/NAME/events for any NAME once left a lock behind for ever
    import asyncio

    from arena.web.app import Polled
    from arena.web.site import NotFound

    def read(key):
        raise NotFound(f"no {key}")

    polled = Polled(read)

    async def ask_all() -> int:
        refused = 0
        for key in range(500):
            try:
                await polled.get(f"season {key}")
            except NotFound:
                refused += 1
        return refused

    assert asyncio.run(ask_all()) == 500
    assert (polled.values, polled.locks) == ({}, {})


def test_one_visitor_plays_two_games_at_once_at_most(league_url):
    # a visitor who never moved once held every play slot of the server
    form = {"game": "tictactoe", "bot": "bots.randombot", "seat": "x", "move_time": "1"}
    with client(build(league_url, play=True)) as web:
        started = [web.post("/play", data=form, follow_redirects=False) for _ in range(3)]
        for answer in started[:2]:
            where = answer.headers["location"]
            web.post(f"{where}/act", json={"action": "resign"})
            seen = web.get(f"{where}/state").json()
            while not seen["over"]:
                seen = web.get(f"{where}/state", params={"after": seen["version"]}).json()
        again = web.post("/play", data=form, follow_redirects=False)
        web.post(f"{again.headers['location']}/act", json={"action": "resign"})
    assert [answer.status_code for answer in started] == [303, 303, 429]
    assert "you are playing 2 games here already" in started[2].text
    assert again.status_code == 303  # once one of them is over


def test_a_form_to_start_a_game_with_a_file_in_it_is_refused(league_url):
    # a file in the form was kept in /tmp for as long as its request stayed open
    form = {"game": "tictactoe", "bot": "bots.randombot", "seat": "x", "move_time": "1"}
    with client(build(league_url, play=True)) as web:
        with_file = web.post("/play", data=form, files={"extra": ("a.bin", b"0" * 1000)}, follow_redirects=False)
        too_long = web.post("/play", data={**form, "padding": "x" * 10_000}, follow_redirects=False)
    assert (with_file.status_code, too_long.status_code) == (400, 400)
    assert no_traceback(with_file.text) and no_traceback(too_long.text)


def test_bad_actions_in_a_game_are_refused_with_a_400(league_url):
    with client(build(league_url, play=True)) as web:
        form = {"game": "tictactoe", "bot": "bots.randombot", "seat": "o", "move_time": "1"}
        where = web.post("/play", data=form, follow_redirects=False).headers["location"]
        answers = [
            web.post(f"{where}/act", content=b"not json"),
            web.post(f"{where}/act", json={"action": "launch"}),
            web.post(f"{where}/act", json={"action": "move", "move": "<b>"}),
            web.post(f"{where}/act", json={"action": "move", "move": 4}),
            web.get(f"{where}/state?after=x"),
        ]
        web.post(f"{where}/act", json={"action": "resign"})
    assert [a.status_code for a in answers] == [400] * 5
    assert all(set(a.json()) == {"error"} for a in answers)


def test_text_from_bots_is_escaped_on_every_page(hostile_url):
    with client(build(hostile_url, play=False)) as web:
        index = web.get("/t/1/index.html").text
        team = re.search(r'href="(/t/1/teams/[^"]+)"', index)[1]
        pages = [index, web.get("/t/1/games.html").text, web.get("/t/1/games/1.html").text, web.get(team).text]
    assert all(HOSTILE not in page for page in pages)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pages[0]
    assert "&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in pages[2]


def test_a_server_bound_to_another_address_needs_its_token(league_url):
    app = build(league_url, host="0.0.0.0", play=False, token=TOKEN)
    with client(app, base="http://192.0.2.7:8000") as web:
        refused = web.get("/t/1/index.html")
        wrong = web.get("/?token=not-the-token")
        first = web.get(f"/t/1/games.html?token={TOKEN}&x=1", follow_redirects=False)
        later = web.get("/t/1/index.html")  # the cookie the first visit set
    with client(app, base="http://192.0.2.7:8000", authorization=f"Bearer {TOKEN}") as web:
        scripted = web.get("/t/1/crosstable.html")
    assert (refused.status_code, wrong.status_code) == (401, 401)
    assert "needs its token" in refused.text and no_traceback(refused.text)
    assert (first.status_code, later.status_code, scripted.status_code) == (303, 200, 200)
    # the token leaves the address for the cookie, and no address is sent on to another site
    assert first.headers["location"] == "/t/1/games.html?x=1" and "HttpOnly" in first.headers["set-cookie"]
    assert all(a.headers["referrer-policy"] == "same-origin" for a in (refused, first, later, scripted))


@pytest.mark.parametrize(
    ("host", "status"),
    [
        ("127.0.0.1:8000", 200),
        ("LOCALHOST", 200),
        ("[::1]:8000", 200),
        ("127.0.0.1:1@evil.example", 400),
        ("127.0.0.1.evil.example", 400),
        ("127.0.0.1:8000:9000", 400),
        ("", 400),
    ],
)
def test_a_local_server_reads_the_host_header_strictly(league_url, host, status):
    with client(build(league_url, play=False)) as web:
        answer = web.get("/", headers={"host": host})
    assert answer.status_code == status


def test_bodies_and_ids_out_of_bounds_are_refused_not_server_errors(league_url):
    with client(build(league_url, play=True)) as web:
        form = {"game": "tictactoe", "bot": "bots.randombot", "seat": "x", "move_time": "1"}
        where = web.post("/play", data=form, follow_redirects=False).headers["location"]
        deep = web.post(f"{where}/act", content=b"[" * 100_000 + b"]" * 100_000)
        long = web.post(f"{where}/act", json={"action": "move", "move": "4" * 10_000})
        web.post(f"{where}/act", json={"action": "resign"})
        ids = [web.get(f"/t/{'9' * digits}/index.html") for digits in (19, 30, 5000)]
    assert (deep.status_code, long.status_code) == (400, 400)
    assert [answer.status_code for answer in ids] == [404, 404, 404]
    assert all(no_traceback(answer.text) for answer in [deep, long, *ids])


def test_a_local_server_answers_to_local_names_only(league_url):
    app = build(league_url, play=False)
    with client(app, base="http://attacker.example") as web:
        rebound = web.get("/")
    with client(app, base="http://localhost:8000") as web:
        local = web.get("/")
    assert (rebound.status_code, local.status_code) == (400, 200)


def test_a_read_only_server_refuses_play_and_never_writes(league_url):
    path = Path(league_url.removeprefix("sqlite:///"))
    before = path.read_bytes()
    with client(build(league_url, play=False)) as web:
        choose = web.get("/play")
        start = web.post("/play", data={"game": "tictactoe", "bot": "bots.randombot", "seat": "x", "move_time": "1"})
        home = web.get("/")
    assert (choose.status_code, start.status_code) == (403, 403)
    assert "read-only" in start.text and 'href="/play"' not in home.text
    assert path.read_bytes() == before


def test_a_read_only_server_of_a_database_not_made_yet_says_so(tmp_path):
    with pytest.raises(ArenaError, match=r"no database at .*none\.db yet"):
        build(f"sqlite:///{tmp_path / 'none.db'}", play=False)
    assert not (tmp_path / "none.db").exists()


def test_a_form_from_another_site_is_refused(league_url):
    with client(build(league_url, play=True), origin="http://attacker.example") as web:
        answer = web.post("/play", data={"game": "tictactoe", "bot": "bots.randombot", "seat": "x", "move_time": "1"})
    assert answer.status_code == 403


def test_the_choice_lists_the_builtin_bots_of_each_game(league_url):
    with client(build(league_url, play=True)) as web:
        page = web.get("/play").text
    games = dict(re.findall(r'<option value="(bots\.[a-z]+)" data-games="([a-z ]*)"', page))
    assert games["bots.randombot"].split() == ["tictactoe", "uttt", "othello", "xtreme"]
    assert "uttt" in games["bots.uct"].split()


# ---------------------------------------------------------------- the command


def test_arena_serve_says_where_it_serves_and_stops_on_ctrl_c(league_url, tmp_path):
    port = free_port()
    server = start_arena("serve", "--db", league_url, "--port", str(port), "--no-play", cwd=tmp_path)
    try:
        page = answer(f"http://127.0.0.1:{port}/t/1/index.html")
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=60)
    finally:
        if server.poll() is None:
            stop(server)
    assert page.status_code == 200 and "<h1>league</h1>" in page.text
    assert f"http://127.0.0.1:{port}/ (read-only); Ctrl-C stops" in out
    assert server.returncode == 130 and "Traceback" not in err  # as every command stopped by Ctrl-C
    assert "arena serve stopped: signal SIGINT" in err  # a server never ends without a word


def test_arena_serve_says_why_it_could_not_start(league_url, tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = arena("serve", "--db", league_url, "--port", str(port), "--no-play", cwd=tmp_path, timeout=60)
    assert done.returncode != 0
    assert "address already in use" in done.stderr.lower() and "arena serve stopped: it could not start" in done.stderr


def test_arena_serve_on_another_address_makes_a_token_and_needs_it(league_url, tmp_path):
    port = free_port()
    server = start_arena("serve", "--db", league_url, "--host", "0.0.0.0", "--port", str(port), cwd=tmp_path)
    try:
        refused = answer(f"http://127.0.0.1:{port}/")
        server.send_signal(signal.SIGINT)
        out, _ = server.communicate(timeout=60)
    finally:
        if server.poll() is None:
            stop(server)
    token = re.search(r"\?token=([A-Za-z0-9_-]+) \(read-only\)", out)[1]
    assert refused.status_code == 401 and len(token) >= 20


def test_a_short_token_is_refused(league_url, tmp_path):
    done = arena("serve", "--db", league_url, "--token", "short", cwd=tmp_path)
    assert done.returncode == 2
    assert "--token: use at least 12 characters" in done.stderr


def main_part(html: str) -> str:
    return html.split("<main", 1)[1].split("</main>", 1)[0]


@pytest.mark.parametrize("page", ["index.html", "crosstable.html", "games.html", "games/3.html"])
def test_a_served_page_shows_what_the_static_report_writes(staged_url, tmp_path, page):
    from arena.results.report import write_report
    from arena.store.database import open_store

    write_report(open_store(staged_url), None, tmp_path / "site")
    written = (tmp_path / "site" / page).read_text()
    with client(build(staged_url, play=False)) as web:
        served = web.get(f"/t/1/{page}").text
    root = "../" if "/" in page else ""
    assert main_part(served).replace("/t/1/", root) == main_part(written)


def test_a_failure_of_the_server_is_a_500_page_without_a_traceback(league_url, monkeypatch, caplog):
    app = build(league_url, play=False)

    def fails(*args):
        raise RuntimeError("a secret of the server's own")

    monkeypatch.setattr(app.site, "index", fails)
    with client(app) as web:
        answer = web.get("/t/1/index.html")
    assert answer.status_code == 500
    assert no_traceback(answer.text) and "a secret" not in answer.text
    # ... which the server's log has, for whoever runs it
    [failed] = [record for record in caplog.records if record.getMessage() == "/t/1/index.html failed"]
    assert failed.exc_info is not None and "a secret of the server's own" in str(failed.exc_info[1])


def test_browser_games_left_unfinished_change_no_rating_and_are_counted_as_left(tmp_path):
    # two visitors start a game against the random bot (it moves first) and leave; the server stops
    # (10 s a move: a bot slowed past its time by a loaded machine would forfeit, ending a game)
    url = f"sqlite:///{tmp_path / 'played.db'}"
    with client(build(url, play=True)) as web:
        for _ in range(2):
            form = {"game": "tictactoe", "bot": "bots.randombot", "seat": "o", "move_time": "10"}
            assert web.post("/play", data=form, follow_redirects=False).status_code == 303
    [played] = json.loads(run_arena("tournaments", "--json", "--db", url).stdout)
    board = json.loads(run_arena("leaderboard", played["name"], "--json", "--db", url).stdout)
    assert (board["games_finished"], board["games_unfinished"]) == (0, 2)
    assert {(line["team"], line["games"], line["mu"]) for line in board["leaderboard"]} == {
        ("human", 0, 25.0),
        ("bots.randombot", 0, 25.0),
    }
    header = run_arena("leaderboard", played["name"], "--db", url).stdout.splitlines()[0]
    assert header.endswith("; 0 games (2 left unfinished, not rated), status running")


def test_a_browser_game_resigned_leaves_another_game_playing(tmp_path):
    # each browser game has a worker of its own in the server's process: one ending once killed
    # the bot of a game started after it, which was then stored as crashed (killed by SIGKILL)
    url = f"sqlite:///{tmp_path / 'played.db'}"
    with client(build(url, play=True)) as web:

        def state(where: str, after: int = -1) -> dict:
            return web.get(f"{where}/state", params={"after": after}).json()

        def until(where: str, ready) -> dict:
            seen = state(where)
            while not ready(seen):
                seen = state(where, seen["version"])
            return seen

        def its_turn_again(now: dict, before: int) -> bool:
            return now["over"] or (now["waiting"] and now["version"] != before)

        form = {"game": "tictactoe", "bot": "bots.randombot", "seat": "o", "move_time": "10"}
        resigned = web.post("/play", data=form, follow_redirects=False).headers["location"]
        until(resigned, lambda seen: seen["waiting"])
        playing = web.post("/play", data=form, follow_redirects=False).headers["location"]
        seen = until(playing, lambda seen: seen["waiting"])
        web.post(f"{resigned}/act", json={"action": "resign"})
        until(resigned, lambda seen: seen["over"])
        while not seen["over"]:  # the person plays the first legal move each turn
            web.post(f"{playing}/act", json={"action": "move", "move": seen["legal"][0]})
            seen = until(playing, functools.partial(its_turn_again, before=seen["version"]))
    with closing(sqlite3.connect(tmp_path / "played.db")) as connection:
        rows = connection.execute("SELECT termination, offender FROM games ORDER BY id").fetchall()
    assert rows == [("resignation", 1), ("normal", None)], rows


@pytest.mark.slow
def test_a_read_only_server_answers_fifty_clients_at_once_and_lives(league_url, tmp_path):
    # pages and live streams from many threads at once: the read-only database's connections
    # are each one thread's at a time (it once crashed the server with SIGSEGV at 6 to 8)
    port = free_port()
    server = start_arena("serve", "--db", league_url, "--port", str(port), "--no-play", cwd=tmp_path)
    base = f"http://127.0.0.1:{port}"
    pages = ["/t/1/index.html", "/t/1/crosstable.html", "/t/1/games.html", "/t/1/games/1.html"]
    statuses: list[int] = []
    try:
        assert answer(f"{base}/t/1/index.html").status_code == 200

        def visitor(number: int) -> None:
            with httpx.Client(base_url=base, timeout=60) as web, ExitStack() as open_streams:
                if number % 5 == 0:  # a live stream, held open while its visitor reads pages
                    stream = open_streams.enter_context(web.stream("GET", "/t/1/events?seen=0123456789abcdef"))
                    statuses.append(stream.status_code)
                    next(stream.iter_lines(), None)
                statuses.extend(web.get(path).status_code for path in pages * 3)

        threads = [threading.Thread(target=visitor, args=(number,)) for number in range(50)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert server.poll() is None, server.stderr.read() if server.stderr else ""
        assert answer(f"{base}/t/1/index.html").status_code == 200
    finally:
        stop(server, signal.SIGINT)
    assert statuses == [200] * len(statuses) and len(statuses) == 50 * 12 + 10

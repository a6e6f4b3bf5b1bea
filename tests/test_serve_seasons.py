"""``arena serve``'s seasons over HTTP (Starlette's TestClient) and ``arena submit`` against a real
server: the API takes a team's bot with its token and answers what became of it; a bad token,
an unknown season, a file too large, too many submissions and a frozen season are refused with
their status; a team sees its own logs only, escaped; the ladder and team pages are served."""

from __future__ import annotations

import re
import signal
import sqlite3
import threading
from contextlib import closing

import pytest
from starlette.testclient import TestClient

from arena.contests.config import GameDef, TimeDef
from arena.contests.season import create_season, play_ladder, submit
from arena.entrants.uploads import MAX_UPLOAD
from arena.runners.local import LocalRunner
from arena.store.database import open_store
from arena.store.seasons import add_teams
from arena.web.server import build
from tests.fixtures.harnesskit import arena, start_arena, stop
from tests.fixtures.servekit import CRASHING, RANDOM_BOT, answer, free_port

HOSTILE = "<script>alert(1)</script>"
API = "/api/seasons/spring/submissions"
# passes its validation against itself, then crashes in every game against another bot, and
# writes a secret to its stderr at every move
LEAKY = b"""import sys

GAMES = ["tictactoe"]


def move(state, clock):
    print("a secret of the blue team", file=sys.stderr)
    legal = sorted(state.legal_moves())
    if legal != list(range(9 - len(legal), 9)):
        raise RuntimeError("not playing myself: a secret of the blue team")
    return legal[0]
"""


@pytest.fixture
def seasons(tmp_path):
    """A database with the seasons ``spring`` (teams red and blue) and ``autumn``: its URL and
    the tokens of spring's teams."""
    url = f"sqlite:///{tmp_path / 's.db'}"
    sessions = open_store(url)
    for name in ("spring", "autumn"):
        create_season(sessions, name, GameDef(name="tictactoe"), TimeDef(move=1.0), tmp_path / name)
    return url, add_teams(sessions, "spring", ["red", "blue"])


def client(app) -> TestClient:
    return TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False)


def post(web: TestClient, token: str, data: bytes, filename: str = "mine.py", path: str = API, **headers: str):
    headers = {"authorization": f"Bearer {token}", **headers}
    return web.post(path, content=data, params={"filename": filename}, headers=headers)


def test_a_team_submits_through_the_api_and_its_version_joins_the_standings(seasons):
    url, tokens = seasons
    with client(build(url, play=False, uploads=True)) as web:
        done = post(web, tokens["red"], RANDOM_BOT)
        standings = web.get("/api/seasons/spring/standings").json()
    assert done.status_code == 201, done.text
    assert {key: done.json()[key] for key in ("team", "version", "status")} == {
        "team": "red",
        "version": 1,
        "status": "active",
    }
    assert done.json()["log"].startswith("validated: a whole game against itself")
    assert [(row["team"], row["version"], row["games"]) for row in standings] == [("red", 1, 0)]


def test_a_multipart_upload_that_fails_validation_is_a_422_with_its_log(seasons):
    url, tokens = seasons
    with client(build(url, play=False, uploads=True)) as web:
        files = {"file": ("crash.py", CRASHING, "text/x-python")}
        done = web.post(
            API, files=files, data={"interface": "python"}, headers={"authorization": f"Bearer {tokens['blue']}"}
        )
    assert done.status_code == 422
    assert (done.json()["team"], done.json()["version"], done.json()["status"]) == ("blue", 1, "error")
    assert HOSTILE in done.json()["log"]


@pytest.mark.parametrize(
    ("headers", "status", "message"),
    [
        ({"authorization": "Bearer not-a-token-of-anyone"}, 401, "not a team's token"),
        ({}, 401, "Authorization: Bearer"),
        ({"authorization": "Basic abc"}, 401, "Authorization: Bearer"),
    ],
)
def test_a_bad_token_is_a_401_that_stores_nothing(seasons, headers, status, message):
    url, _ = seasons
    with client(build(url, play=False, uploads=True)) as web:
        done = web.post(API, content=RANDOM_BOT, params={"filename": "mine.py"}, headers=headers)
    assert done.status_code == status and message in done.json()["error"]
    with closing(sqlite3.connect(url.removeprefix("sqlite:///"))) as connection:
        assert connection.execute("SELECT count(*) FROM submissions").fetchone() == (0,)


def test_an_unknown_season_is_a_404_that_names_no_other_season(seasons):
    url, tokens = seasons
    with client(build(url, play=False, uploads=True)) as web:
        done = post(web, tokens["red"], RANDOM_BOT, path="/api/seasons/winter/submissions")
        standings = web.get("/api/seasons/winter/standings")
        page = web.get("/s/winter/")
    assert (done.status_code, standings.status_code, page.status_code) == (404, 404, 404)
    for text in (done.text, standings.text, page.text):
        assert "spring" not in text and "autumn" not in text


def test_a_file_too_large_is_a_413_however_it_is_sent(seasons):
    url, tokens = seasons
    big = b"#" * (MAX_UPLOAD + 1)
    with client(build(url, play=False, uploads=True)) as web:
        raw = post(web, tokens["red"], big)
        form = web.post(API, files={"file": ("big.py", big)}, headers={"authorization": f"Bearer {tokens['red']}"})
        said = post(web, tokens["red"], b"x = 1\n", **{"content-length": str(10 * MAX_UPLOAD)})
    assert [raw.status_code, form.status_code, said.status_code] == [413, 413, 413]
    assert f"at most {MAX_UPLOAD} bytes" in raw.json()["error"]


def test_a_team_past_its_submissions_of_the_hour_gets_a_429(seasons, monkeypatch):
    monkeypatch.setattr("arena.store.seasons.MAX_PER_HOUR", 0)
    url, tokens = seasons
    with client(build(url, play=False, uploads=True)) as web:
        done = post(web, tokens["red"], RANDOM_BOT)
    assert done.status_code == 429 and "submissions for this hour" in done.json()["error"]


def test_a_teams_upload_while_its_last_is_still_validated_is_a_429_and_waits_for_nothing(seasons, monkeypatch):
    # a team's uploads sent at once used to queue in the server's memory for the one validation
    # slot, each checked against the hour's limit only when its turn came
    import arena.web.seasons

    url, tokens = seasons
    started, release = threading.Event(), threading.Event()
    real = arena.web.seasons.submit

    def slow(*args):
        started.set()
        release.wait(30)
        return real(*args)

    monkeypatch.setattr(arena.web.seasons, "submit", slow)
    first: list = []
    with client(build(url, play=False, uploads=True)) as web:
        thread = threading.Thread(target=lambda: first.append(post(web, tokens["red"], RANDOM_BOT)))
        thread.start()
        assert started.wait(30)
        second = post(web, tokens["red"], RANDOM_BOT)
        release.set()
        thread.join(60)
    assert second.status_code == 429 and "still being validated" in second.json()["error"]
    assert first[0].status_code == 201


def test_a_frozen_season_is_a_409(seasons):
    url, tokens = seasons
    with closing(sqlite3.connect(url.removeprefix("sqlite:///"))) as connection:
        connection.execute("UPDATE seasons SET status = 'frozen' WHERE name = 'spring'")
        connection.commit()
    with client(build(url, play=False, uploads=True)) as web:
        done = post(web, tokens["red"], RANDOM_BOT)
    assert done.status_code == 409 and "is frozen" in done.json()["error"]


def test_a_server_without_uploads_refuses_submissions_with_a_403(seasons):
    url, tokens = seasons
    with client(build(url, play=False, uploads=False)) as web:
        api = post(web, tokens["red"], RANDOM_BOT)
        web.post("/s/spring/team", data={"token": tokens["red"]})
        page = web.post("/s/spring/team/upload", files={"file": ("mine.py", RANDOM_BOT)})
    assert (api.status_code, page.status_code) == (403, 403)
    assert "--season-uploads" in api.json()["error"]


def test_a_team_sees_its_own_logs_only_and_escaped(seasons):
    url, tokens = seasons
    with client(build(url, play=False, uploads=True)) as web:
        post(web, tokens["red"], CRASHING, "crash.py")
        signed = web.post("/s/spring/team", data={"token": tokens["red"]}, follow_redirects=False)
        red = web.get("/s/spring/team")
        web.post("/s/spring/team/leave")
        web.post("/s/spring/team", data={"token": tokens["blue"]})
        blue = web.get("/s/spring/team")
        ladder = web.get("/s/spring/")
    cookie = signed.headers["set-cookie"]
    assert (
        signed.status_code == 303 and "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("Strict", "strict")
    )
    assert "Path=/s/spring/" in cookie
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in red.text and HOSTILE not in red.text
    assert 'data-status="error"' in red.text and "<h1>spring · red</h1>" in red.text
    assert "alert(1)" not in blue.text and "<h1>spring · blue</h1>" in blue.text and "None yet." in blue.text
    assert "alert(1)" not in ladder.text


def test_a_wrong_token_on_the_team_page_is_a_401_and_sets_no_cookie(seasons):
    url, _ = seasons
    with client(build(url, play=False, uploads=True)) as web:
        done = web.post("/s/spring/team", data={"token": "wrong"}, follow_redirects=False)
    assert done.status_code == 401 and "set-cookie" not in done.headers
    assert "not a team&#39;s token" in done.text


def test_the_seasons_and_the_ladder_pages_are_served(seasons):
    url, tokens = seasons
    with client(build(url, play=False, uploads=True)) as web:
        post(web, tokens["red"], RANDOM_BOT)
        listing = web.get("/seasons")
        ladder = web.get("/s/spring/")
    assert listing.status_code == 200 and 'href="/s/spring/"' in listing.text and 'href="/s/autumn/"' in listing.text
    assert ladder.status_code == 200 and re.search(r'data-live="/s/spring/events\?seen=[0-9a-f]{16}"', ladder.text)
    assert '<tr data-team="red" data-version="1">' in ladder.text


@pytest.mark.slow
def test_a_seasons_bots_are_not_offered_to_visitors_and_their_output_is_not_served(seasons):
    # a visitor once played a team's failed submission and read on the game's page what it printed
    url, tokens = seasons
    sessions = open_store(url)
    assert submit(sessions, "spring", tokens["red"], "crash.py", CRASHING).status == "error"
    assert submit(sessions, "spring", tokens["red"], "mine.py", RANDOM_BOT).status == "active"
    assert submit(sessions, "spring", tokens["blue"], "leaky.py", LEAKY).status == "active"
    play_ladder(sessions, "spring", LocalRunner(1), 2, 1)
    with closing(sqlite3.connect(url.removeprefix("sqlite:///"))) as connection:
        ladder = connection.execute("SELECT id FROM tournaments WHERE name = 'season spring'").fetchone()[0]
        games = [row[0] for row in connection.execute("SELECT id FROM games WHERE tournament_id = ?", (ladder,))]
    with client(build(url, play=True, uploads=True)) as web:
        choose = web.get("/play").text
        form = {"game": "tictactoe", "bot": "red@spring", "seat": "x", "move_time": "1"}
        refused = web.post("/play", data=form, follow_redirects=False)
        pages = [web.get(f"/t/{ladder}/games/{game}.html") for game in games]
        index = web.get(f"/t/{ladder}/index.html").text
        team_pages = [web.get(f"/t/{ladder}/{page}") for page in sorted(set(re.findall(r"teams/[\w.-]+\.html", index)))]
        own = {}
        for team in ("blue", "red"):
            web.post("/s/spring/team", data={"token": tokens[team]})
            own[team] = web.get("/s/spring/team").text
            web.post("/s/spring/team/leave")
    assert len(games) == 2 and len(team_pages) == 2
    assert "bots.randombot" in choose and "@spring" not in choose
    assert refused.status_code == 400 and "there is no bot &#39;red@spring&#39;" in refused.text
    assert all(page.status_code == 200 for page in pages + team_pages), [p.status_code for p in pages + team_pages]
    assert all("blue@spring" in page.text and "crash" in page.text for page in pages)
    assert not any("a secret of the blue team" in page.text for page in pages + team_pages)
    assert not any("alert(1)" in page.text for page in pages + team_pages)
    # ... but its own team reads it, on its season page
    assert own["blue"].count("a secret of the blue team") >= 2 and 'data-game="' in own["blue"]
    assert "a secret of the blue team" not in own["red"] and 'data-game="' not in own["red"]


# ---------------------------------------------------------------- arena submit


def test_arena_submit_sends_a_bot_to_a_real_server_and_says_what_became_of_it(seasons, tmp_path):
    url, tokens = seasons
    (tmp_path / "mine.py").write_bytes(RANDOM_BOT)
    (tmp_path / "crash.py").write_bytes(CRASHING)
    port = free_port()
    server = start_arena("serve", "--db", url, "--port", str(port), "--no-play", "--season-uploads", cwd=tmp_path)
    address = f"http://127.0.0.1:{port}"
    try:
        answer(f"{address}/seasons")
        submit = ("submit", "--server", address, "--season", "spring")
        good = arena(*submit, "mine.py", "--token", tokens["red"], cwd=tmp_path)
        bad = arena(*submit, "crash.py", "--token", tokens["blue"], cwd=tmp_path)
        refused = arena(*submit, "mine.py", "--token", "not-a-token-of-anyone", cwd=tmp_path)
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=60)
    finally:
        if server.poll() is None:
            stop(server)
    assert good.returncode == 0, good.stderr
    assert good.stdout.startswith("red v1: active\nvalidated: a whole game against itself")
    assert bad.returncode == 1 and bad.stdout.startswith("blue v1: error\n") and "ValueError" in bad.stdout
    assert refused.returncode == 2
    assert "the server refused the submission (HTTP 401): the token is not a team's token" in refused.stderr
    unreachable = arena(*submit, "mine.py", "--token", tokens["red"], cwd=tmp_path)
    assert unreachable.returncode == 2 and "could not be reached" in unreachable.stderr

"""The read side of a game of three seats (tests/fixtures/threeseats.py: goofspiel for three, its
three games scripted, every result known): ``arena games`` lists every seat's team and the result
as the finishing places, ``arena games show`` gives the places and the points of every seat,
``arena standings`` and ``arena leaderboard`` count what the game's seats scored (``game pts``,
not ``course pts``), the report's and the served pages show every seat of a game, its places and
the crosstable head to head; and a person takes one seat of three at ``/play``, a bot in each of
the others (its chance outcomes and simultaneous bids shown as such)."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest
from starlette.testclient import TestClient

from arena.results.replay import finishing_order, result_sentence, result_text
from arena.results.report import write_report
from arena.store.database import open_store
from arena.web.server import build
from tests.fixtures.harnesskit import run_arena
from tests.fixtures.threeseats import NAME, POINTS, RESULTS, SEATS, SENTENCES, STDERR, three_seat_tournament

LOCAL = "http://127.0.0.1"


@pytest.fixture(scope="module")
def three(tmp_path_factory) -> str:
    """The database of the tournament of goofspiel for three."""
    url, _ = three_seat_tournament(tmp_path_factory.mktemp("three"))
    return url


def arena_ok(*args: str) -> str:
    result = run_arena(*args)
    assert (result.exit_code, result.stderr) == (0, ""), result.output
    return result.stdout


def table_rows(output: str) -> list[list[str]]:
    """The body rows of a table printed by rich, each a list of its cells."""
    return [[cell.strip() for cell in line.split("│")[1:-1]] for line in output.splitlines() if line.startswith("│")]


def header(output: str) -> list[str]:
    line = next(line for line in output.splitlines() if line.startswith("┃"))
    return [cell.strip() for cell in line.split("┃")[1:-1]]


class Cells(HTMLParser):
    """The rows of the table with id ``table_id`` (head and body), each a list of its cells'
    texts (a cell's text with its whitespace folded)."""

    def __init__(self, table_id: str) -> None:
        super().__init__()
        self.table_id, self.depth, self.rows = table_id, 0, []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "table" and (self.depth or dict(attrs).get("id") == self.table_id):
            self.depth += 1
        elif self.depth and tag == "tr":
            self.rows.append([])
        elif self.depth and tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag):
        if tag == "table" and self.depth:
            self.depth -= 1
        elif self.depth and tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(" ".join("".join(self.cell).split()))
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def html_table(html: str, table_id: str) -> list[list[str]]:
    parser = Cells(table_id)
    parser.feed(html)
    assert parser.rows, f"no table {table_id!r} in the page"
    return parser.rows


# ---------------------------------------------------------------- the terminal


def test_games_lists_every_seats_team_and_the_finishing_places(three):
    shown = arena_ok("games", "--db", three)
    assert header(shown) == ["id", "tournament", "stage", "pool", "teams", "result", "ending", "plies"]
    assert table_rows(shown) == [
        ["3", NAME, "league", "A", "c · a · b", "1-2-2", "normal", "12"],
        ["2", NAME, "league", "A", "b · c · a", "1-1-1", "normal", "12"],
        ["1", NAME, "league", "A", "a · b · c", "2-3-1", "normal", "12"],
    ]
    assert all(len(line) <= 100 for line in shown.splitlines())
    rows = json.loads(arena_ok("games", "--tournament", NAME, "--json", "--db", three))
    assert [(r["id"], r["teams"], r["result"], r["points"], r["winner"]) for r in rows] == [
        (3, list(SEATS[2]), RESULTS[2], list(POINTS[2]), 0),
        (2, list(SEATS[1]), RESULTS[1], list(POINTS[1]), None),
        (1, list(SEATS[0]), RESULTS[0], list(POINTS[0]), 2),
    ]
    assert [(r["first"], r["second"]) for r in rows] == [("c", "a"), ("b", "c"), ("a", "b")]  # as ever
    only_c = json.loads(arena_ok("games", "--bot", "c", "--json", "--db", three))
    assert [r["id"] for r in only_c] == [3, 2, 1]  # c sits in the third seat of game 1, the second of game 2


@pytest.mark.parametrize("game", [1, 2, 3])
def test_games_show_gives_every_seat_its_place_and_points(three, game):
    shown = arena_ok("games", "show", str(game), "--db", three)
    lines = shown.splitlines()
    seats = SEATS[game - 1]
    assert lines[2:5] == [
        f"  p1 (first): {seats[0]} (bot {seats[0]} v1, python)",
        f"  p2 (second): {seats[1]} (bot {seats[1]} v1, python)",
        f"  p3 (third): {seats[2]} (bot {seats[2]} v1, python)",
    ]
    assert f"result: {RESULTS[game - 1]} ({SENTENCES[game - 1]})" in lines
    assert f"moves: 9 (p1 3, p2 3, p3 3) and 3 chance outcomes; see them with 'arena replay {game}'" in lines
    assert "  time of p3: 0.009 s in all, 3.0 ms a move on average, 3.0 ms at most" in lines
    assert [line for line in lines if line.startswith("error output of")] == [
        f"error output of {team} (p{seat + 1}):" + ("" if (game, team) == (1, "c") else " none")
        for seat, team in enumerate(seats)
    ]
    record = json.loads(arena_ok("games", "show", str(game), "--json", "--db", three))
    assert (record["result"], record["points"]) == (RESULTS[game - 1], list(POINTS[game - 1]))
    assert [(s["seat"], s["side"], s["team"], s["moves"]) for s in record["seats"]] == [
        (seat, f"p{seat + 1}", team, 3) for seat, team in enumerate(seats)
    ]
    if game == 1:
        assert record["seats"][2]["stderr"] == STDERR and f"  | {STDERR.strip()}" in lines


def test_replay_names_every_seat_and_confirms_the_places(three):
    shown = arena_ok("replay", "2", "--db", three)
    assert "start; p1 (b) against p2 (c) and p3 (a)" in shown
    assert "plies 2-4/12: p1 (b) plays 1 in 1.0 ms, p2 (c) plays 1 in 2.0 ms, p3 (a) plays 1 in 3.0 ms" in shown
    assert f"result: {SENTENCES[1]}" in shown
    assert shown.rstrip().endswith("re-played through the engine: every move legal, result confirmed")


def test_standings_place_by_the_share_of_the_seats_finished_ahead_of(three):
    shown = arena_ok("standings", NAME, "--db", three)
    assert header(shown) == ["place", "team", "stage", "pool", "points", "games", "W-D-L", "forfeits", "μ−3σ"]
    assert [row[:8] for row in table_rows(shown)] == [
        ["1", "c", "league", "A 1", "2.5", "3", "2-1-0", ""],
        ["2", "a", "league", "A 2", "1.25", "3", "0-1-2", ""],
        ["3", "b", "league", "A 3", "0.75", "3", "0-1-2", ""],
    ]
    assert "(a game of 3 seats: the share of the other seats a team finished ahead of, a tie counting half" in shown
    data = json.loads(arena_ok("standings", NAME, "--json", "--db", three))
    assert [(p["team"], p["points"], p["wins"], p["draws"], p["losses"]) for p in data["standings"]] == [
        ("c", 2.5, 2, 1, 0),
        ("a", 1.25, 0, 1, 2),
        ("b", 0.75, 0, 1, 2),
    ]


def test_the_leaderboard_sums_the_points_the_game_gave_as_game_points(three):
    shown = arena_ok("leaderboard", NAME, "--db", three)
    columns = header(shown)
    assert "game pts" in columns and "course pts" not in columns
    at = [columns.index(name) for name in ("team", "games", "W-D-L", "points", "game pts", "mean ms", "max ms")]
    assert [[row[i] for i in at] for row in table_rows(shown)] == [
        ["c", "3", "2-1-0", "2.5", "11", "2.0", "3.0"],
        ["a", "3", "0-1-2", "1.25", "1", "2.0", "3.0"],
        ["b", "3", "0-1-2", "0.75", "0", "2.0", "3.0"],
    ]
    assert "game pts: the points the game itself gave the team (its returns), summed" in shown
    data = json.loads(arena_ok("leaderboard", NAME, "--json", "--db", three))
    assert [(line["team"], line["points"], line["course_points"]) for line in data["leaderboard"]] == [
        ("c", 2.5, 11.0),
        ("a", 1.25, 1.0),
        ("b", 0.75, 0.0),
    ]


def test_the_elo_board_counts_the_head_to_head_games_it_fits(three):
    shown = arena_ok("leaderboard", NAME, "--rating", "elo", "--db", three)
    columns = header(shown)
    at = {name: columns.index(name) for name in ("team", "games", "W-D-L", "score")}
    assert [{name: row[i] for name, i in at.items()} for row in table_rows(shown)] == [
        {"team": "c", "games": "6", "W-D-L": "4-2-0", "score": "83.3 %"},
        {"team": "a", "games": "6", "W-D-L": "1-3-2", "score": "41.7 %"},
        {"team": "b", "games": "6", "W-D-L": "0-3-3", "score": "25.0 %"},
    ]
    assert "each game of 3 seats as games of two between every two of its seats" in shown


def test_the_result_of_a_game_of_many_seats_in_words():
    names, seats = ("p1", "p2", "p3"), ("a", "b", "c")
    assert result_text(3, 2, (1.0, 0.0, 5.0)) == "2-3-1"
    assert result_text(3, None, None) is None  # left unfinished: no places
    assert (result_text(2, 0, None), result_text(2, None, None)) == ("1-0", "½-½")
    assert finishing_order(names, seats, (2.0, 2.0, 0.0)) == "a (p1) and b (p2) share first place, c (p3) third"
    four = finishing_order(("p1", "p2", "p3", "p4"), ("a", "b", "c", "d"), (1.0, 3.0, 1.0, 0.0))
    assert four == "b (p2) wins, a (p1) and c (p3) share second place, d (p4) fourth"
    forfeit = result_sentence(names, seats, None, "timeout", 1, (1.0, 0.0, 1.0))
    assert forfeit == "a (p1) and c (p3) share first place, b (p2) third: b forfeits by timeout; points 1-0-1"
    assert result_sentence(names, seats, None, "aborted", None, None) == "no result (aborted)"
    assert result_sentence(("x", "o"), ("a", "b"), 0, "normal", None, None) == "a (x) wins"  # two seats as ever


# ---------------------------------------------------------------- the report and the served pages


@pytest.fixture(scope="module")
def pages(three, tmp_path_factory) -> dict[str, dict[str, str]]:
    """Every page of the tournament, written by the report and served by ``arena serve``:
    where -> page path -> its HTML."""
    folder = tmp_path_factory.mktemp("report")
    written = write_report(open_store(three, read_only=True), NAME, folder)
    assert (written.problems, written.unavailable) == ([], None)
    paths = ["index.html", "games.html", "crosstable.html", *(f"games/{n}.html" for n in (1, 2, 3))]
    paths += [f"teams/{n:02d}-{team}.html" for n, team in enumerate("abc", 1)]
    found: dict[str, dict[str, str]] = {"report": {p: (folder / p).read_text() for p in paths}, "served": {}}
    with TestClient(build(three, play=False), base_url=LOCAL, raise_server_exceptions=False) as web:
        for path in paths:
            answer = web.get(f"/t/1/{path}")
            assert answer.status_code == 200, (path, answer.text)
            found["served"][path] = answer.text
    return found


@pytest.fixture(params=["report", "served"])
def site(request, pages) -> dict[str, str]:
    return pages[request.param]


def test_the_games_list_has_a_column_a_seat_and_the_places(site):
    rows = html_table(site["games.html"], "games-table")
    assert rows[0][:9] == ["Game", "Stage", "Pool", "Round", "p1", "p2", "p3", "Result", "Points"]
    assert [row[4:9] for row in rows[1:]] == [
        ["a", "b", "c", "2-3-1", "1–0–5"],
        ["b", "c", "a", "1-1-1", "0–0–0"],
        ["c", "a", "b", "1-2-2", "6–0–0"],
    ]
    html = site["games.html"]
    assert [f'<option value="{key}">{name} wins</option>' in html for key, name in (("x", "p1"), ("o", "p2"))] == [
        True,
        True,
    ]
    assert '<option value="p3">p3 wins</option>' in html and "no sole winner" in html
    assert re.findall(r'data-result="([^"]+)"', html) == ["p3", "draw", "x"]
    assert re.findall(r"data-teams='([^']+)'", html) == [json.dumps(list(seats)) for seats in SEATS]


def test_a_game_page_shows_every_seat_its_place_and_its_output(site):
    html = site["games/1.html"]
    players = re.findall(r'<div class="player seat-(\w+)( winner)?" data-seat="(\d)" data-place="(\d)">', html)
    assert players == [("x", "", "0", "2"), ("o", "", "1", "3"), ("p3", " winner", "2", "1")]
    assert f'<p class="result" id="result">{SENTENCES[0]}' in html
    assert f'<summary>p3: c</summary><pre class="stderr">{STDERR}</pre>' in html
    data = json.loads(re.search(r'<script type="application/json" id="game-data">(.*?)</script>', html, re.S)[1])
    assert (data["names"], data["seats"], data["steps"]) == (["p1", "p2", "p3"], list(SEATS[0]), [1, 3] * 3)
    assert data["problem"] is None and data["result"] == SENTENCES[0]
    tied = site["games/2.html"]
    assert re.findall(r'data-seat="\d" data-place="(\d)"', tied) == ["1", "1", "1"] and " winner" not in tied


def test_a_team_page_names_its_opponents_and_its_place_at_each_table(site):
    rows = html_table(site["teams/01-a.html"], "team-games")
    assert rows[0][3:6] == ["Seat", "Opponents", "Result"]
    assert [row[3:7] for row in rows[1:]] == [
        ["p1", "b p2 · c p3", "L 2 of 3", "0.5"],
        ["p3", "b p1 · c p2", "D 1 of 3", "0.5"],
        ["p2", "c p1 · b p3", "L 2 of 3", "0.25"],
    ]


def test_the_crosstable_counts_each_opponent_head_to_head(site):
    cells = {
        (row, other): float(points)
        for row, body in re.findall(r'<tr data-team="(\w)">(.*?)</tr>', site["crosstable.html"], re.S)
        for other, points in re.findall(r'data-opponent="(\w)" data-points="([0-9.]+)"', body)
    }
    assert cells == {
        ("c", "a"): 2.5,
        ("c", "b"): 2.5,
        ("a", "b"): 2.0,
        ("a", "c"): 0.5,
        ("b", "a"): 1.0,
        ("b", "c"): 0.5,
    }
    assert "in a game of 3 seats, head to head, 1 for finishing ahead of that opponent" in site["crosstable.html"]


def test_the_overview_shows_game_points_and_the_games_without_a_sole_winner(site):
    html = site["index.html"]
    assert "Game pts</th>" in html and "Course pts" not in html
    shown = dict(re.findall(r'<tr data-team="(\w)">(?:(?!</tr>).)*?data-col="course">([^<]*)</td>', html, re.S))
    assert shown == {"c": "11", "a": "1", "b": "0"}
    assert '<dt>No sole winner</dt><dd id="total-draws">1</dd>' in html
    assert "each game of 3 seats counted as a game of two between every two of its seats" in html


# ---------------------------------------------------------------- playing one seat of three


def test_a_person_plays_one_seat_of_three_against_a_bot_in_each_other(three):
    form = {"game": "tournament:1", "bot": "bots.randombot", "seat": "p3", "move_time": "1"}
    with TestClient(build(three, play=True), base_url=LOCAL, raise_server_exceptions=False) as web:
        choose = web.get("/play").text
        assert re.search(
            r'<option value="tournament:1" data-seats=\'\["p1 \(first\)", "p2 \(second\)", "p3 \(third\)"\]\'>'
            r"goofspiel for 3 \(a game of your own, tournament three\)</option>",
            choose,
        )
        assert '<input type="radio" name="seat" value="p3">' in choose
        refused = web.post("/play", data={**form, "seat": "p4"})
        assert refused.status_code == 400 and "choose a seat of goofspiel: p1 (first), p2 (second) and p3 (third)" in (
            refused.text
        )
        started = web.post("/play", data=form, follow_redirects=False)
        assert started.status_code == 303, started.text
        where = started.headers["location"]
        assert "You play p3 (third); bots.randombot plays p1 and p2, a process of its own each" in web.get(where).text
        seen = web.get(f"{where}/state").json()
        asked = []
        while not seen["over"]:
            if seen["waiting"] and seen["legal"]:
                asked.append((seen["frame"]["to_move"], seen["frame"]["actors"], seen["can_undo"]))
                undo = web.post(f"{where}/act", json={"action": "undo"})  # its bid follows the others' in a step
                assert undo.status_code == 400 and "nothing to take back now" in undo.json()["error"]
                web.post(f"{where}/act", json={"action": "move", "move": seen["legal"][0]})
            seen = web.get(f"{where}/state", params={"after": seen["version"]}).json()
    assert asked == [(-2, [0, 1, 2], False)] * 3
    assert (seen["failure"], seen["seats"], seen["names"]) == (
        None,
        ["bots.randombot", "bots.randombot #2", "you"],
        ["p1", "p2", "p3"],
    )
    assert seen["steps"] == [1, 3] * 3 and [m[0] for m in seen["moves"]] == [-1, 0, 1, 2] * 3
    assert "you (p3)" in seen["result"] and "; points " in seen["result"]
    game_id = seen["game_url"].rsplit("/", 1)[1].removesuffix(".html")
    shown = arena_ok("games", "show", game_id, "--db", three)
    assert "  p3 (third): human (bot human v1, human)" in shown and "  p2 (second): bots.randombot #2" in shown
    assert "result confirmed" in arena_ok("replay", game_id, "--db", three)


def test_a_person_in_the_first_seat_takes_back_a_bid(three):
    form = {"game": "tournament:1", "bot": "bots.randombot", "seat": "x", "move_time": "1"}
    with TestClient(build(three, play=True), base_url=LOCAL, raise_server_exceptions=False) as web:
        where = web.post("/play", data=form, follow_redirects=False).headers["location"]
        seen = web.get(f"{where}/state").json()
        took_back = False
        while not seen["over"]:
            if seen["waiting"] and seen["legal"]:
                if seen["can_undo"] and not took_back:  # the second round: the first bid comes back
                    assert web.post(f"{where}/act", json={"action": "undo"}).status_code == 200
                    took_back = True
                else:
                    web.post(f"{where}/act", json={"action": "move", "move": seen["legal"][0]})
            seen = web.get(f"{where}/state", params={"after": seen["version"]}).json()
            if took_back and seen["waiting"] and len(seen["moves"]) == 1:
                assert seen["notice"].startswith("took back your ")
    assert took_back and seen["failure"] is None and seen["steps"] == [1, 3] * 3
    game_id = seen["game_url"].rsplit("/", 1)[1].removesuffix(".html")
    assert "result confirmed" in arena_ok("replay", game_id, "--db", three)


def test_a_game_of_three_whose_module_is_gone_still_shows_every_seat(tmp_path):
    url, source = three_seat_tournament(tmp_path)
    source.unlink()
    shown = run_arena("games", "show", "1", "--db", url)
    assert shown.exit_code != 0 and f"result: {RESULTS[0]} ({SENTENCES[0]})" in shown.stdout
    assert "  p3 (third): c (bot c v1, python)" in shown.stdout  # the record is shown, then the error
    assert str(shown.exception).endswith("does not exist; its seats are called p1, p2 and p3 here")
    standings = run_arena("standings", NAME, "--db", url)
    assert f"{NAME}: goofspiel, final standings; 3/3 games, status finished" in standings.stdout  # 3 games planned
    folder = tmp_path / "site"
    written = write_report(open_store(url, read_only=True), NAME, folder)
    assert written.unavailable and written.games == 3
    rows = html_table((folder / "games.html").read_text(), "games-table")
    assert [row[4:8] for row in rows] == [
        ["p1", "p2", "p3", "Result"],
        *([*seats, result] for seats, result in zip(SEATS, RESULTS)),
    ]
    page = (folder / "games" / "1.html").read_text()
    assert re.findall(r'<span class="seat seat-\w+">(p\d)</span><a class="team"[^>]*>(\w)</a>', page) == [
        ("p1", "a"),
        ("p2", "b"),
        ("p3", "c"),
    ]
    assert "This game cannot be replayed" in page

"""``arena games``: the stored games newest first, stages and pools by name, a cut list said so on
stderr; and ``arena games show ID``: one game's whole record, as text (every stored text escaped,
a bot's error output bounded) and as JSON."""

from __future__ import annotations

import json
import re
import time

import pytest
from sqlalchemy import select, update

from arena.core.records import GameRecord, MoveRecord, Termination
from arena.store.database import open_store
from arena.store.models import GameRow, GameVoid
from arena.store.writes import save_void
from tests.builders import X_WINS, create, league_config, play_stage, set_status, synthesize
from tests.fixtures.harnesskit import arena, arena_here, run_arena

LISTED = "showing the newest {} of {} games; --limit N or --all for more\n"
#: what D writes to stderr before it crashes in game 4 of the league
CRASH_OUTPUT = "Traceback (most recent call last):\n\x1b[2Jboom\n"


@pytest.fixture(scope="module")
def staged(tmp_path_factory) -> str:
    """8 teams of tictactoe: a group stage of two pools, then a final; 36 games, all played."""
    url = f"sqlite:///{tmp_path_factory.mktemp('staged') / 'a.db'}"
    stages = [{"name": "group", "pools": 2, "games_per_pair": 2, "advance": 2}, {"name": "final"}]
    synthesize(url, teams=8, game="tictactoe", stages=stages, name="staged", forfeit_every=4)
    return url


@pytest.fixture(scope="module")
def many(tmp_path_factory) -> str:
    """12 teams, one game a pair: 66 games, more than the listing shows unless told."""
    url = f"sqlite:///{tmp_path_factory.mktemp('many') / 'a.db'}"
    synthesize(url, teams=12, game="tictactoe", stages=[{"name": "league", "games_per_pair": 1}], name="many")
    return url


def listed(*args: str) -> tuple[list[dict], str]:
    result = run_arena("games", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout), result.stderr


def table_rows(output: str) -> dict[int, list[str]]:
    """The rows of a table printed by rich: id -> its cells."""
    rows = {}
    for line in output.splitlines():
        cells = [cell.strip() for cell in line.split("│")[1:-1]]
        if cells and cells[0].isdigit():
            rows[int(cells[0])] = cells
    return rows


# ---------------------------------------------------------------- the listing


def test_games_are_listed_with_their_stage_and_pool_by_name(staged):
    rows, _ = listed("--db", staged)
    assert len(rows) == 36
    assert {(r["stage"], r["stage_name"], r["pool"], r["pool_name"]) for r in rows} == {
        (0, "group", 0, "A"),
        (0, "group", 1, "B"),
        (1, "final", 0, "A"),
    }
    table = run_arena("games", "--db", staged)
    assert table.exit_code == 0, table.output
    header = next(line for line in table.stdout.splitlines() if "tournament" in line)
    assert [cell.strip() for cell in re.split("[│┃]", header)[1:-1]] == [
        "id",
        "tournament",
        "stage",
        "pool",
        "first",
        "second",
        "result",
        "ending",
        "plies",
    ]
    shown = table_rows(table.stdout)
    assert {game_id: cells[2:4] for game_id, cells in shown.items()} == {
        r["id"]: [r["stage_name"], r["pool_name"]] for r in rows
    }


def test_a_list_of_every_game_says_nothing_on_stderr(staged):
    rows, stderr = listed("--db", staged, "--tournament", "staged")
    assert (len(rows), stderr) == (36, "")


def test_a_cut_list_says_so_on_stderr_and_keeps_its_json_a_list(staged):
    rows, stderr = listed("--db", staged, "--limit", "10")
    assert [r["id"] for r in rows] == list(range(36, 26, -1))
    assert stderr == LISTED.format(10, 36)


def test_a_cut_table_says_so_on_stderr_only(staged):
    result = run_arena("games", "--db", staged, "--limit", "3")
    assert sorted(table_rows(result.stdout)) == [34, 35, 36]
    assert result.stderr == LISTED.format(3, 36)
    assert "showing" not in result.stdout


def test_the_newest_50_are_listed_unless_told_and_all_with_all(many):
    rows, stderr = listed("--db", many)
    assert ([r["id"] for r in rows], stderr) == (list(range(66, 16, -1)), LISTED.format(50, 66))
    every, stderr = listed("--db", many, "--all")
    assert ([r["id"] for r in every], stderr) == (list(range(66, 0, -1)), "")


def test_a_filtered_list_counts_the_games_that_match(staged):
    rows, stderr = listed("--db", staged, "--bot", "Team 01", "--limit", "2")
    assert len(rows) == 2 and all("Team 01" in (r["first"], r["second"]) for r in rows)
    everything, _ = listed("--db", staged, "--bot", "Team 01", "--all")
    assert stderr == LISTED.format(2, len(everything))


def test_a_database_without_tournaments_says_how_to_run_one_as_standings_does(tmp_path):
    url = f"sqlite:///{tmp_path / 'empty.db'}"
    open_store(url)  # the tables, and no tournament
    standings = arena_here("standings", "--db", url, cwd=tmp_path)
    for listing in (("games",), ("games", "--json"), ("games", "--tournament", "t", "--bot", "b")):
        result = arena_here(*listing, "--db", url, cwd=tmp_path)
        assert (result.returncode, result.stdout, result.stderr) == (2, "", standings.stderr)
    assert standings.stderr == (
        "error: there are no tournaments in this database yet: run one with 'arena run FILE' (or pass the right --db)\n"
    )


# ---------------------------------------------------------------- one game in full


@pytest.fixture
def league(tmp_path) -> str:
    """The 4-team league of tests/test_results.py, game 1 (A beats D, timed on both clocks, A
    wrote a line to stderr) and game 4 (D, second, crashes after B's first move, with terminal
    escapes in its error output; voided once before) played; game 3 left C a long error output;
    the others pending."""
    url = f"sqlite:///{tmp_path / 'league.db'}"
    sessions, tid = create(url, league_config())

    def play(row, first, second):
        if row.id == 1:
            moves = [MoveRecord(n % 2, move, 10.0 * (n + 1), 5.0 * (n + 1), 1.0) for n, move in enumerate(X_WINS)]
            return GameRecord(
                1, moves, 0, stderr=("thinking\n", ""), started_at=1_700_000_000.0, finished_at=1_700_000_002.5
            )
        if row.id == 3:
            moves = [MoveRecord(ply % 2, text, 1.0, None) for ply, text in enumerate(X_WINS)]
            return GameRecord(3, moves, 0, stderr=("y" * 500 + "x" * 4500, ""), started_at=1.0, finished_at=2.0)
        if row.id == 4:
            return GameRecord(
                4,
                [MoveRecord(0, "4", 3.0, None)],
                0,
                termination=Termination.CRASH,
                offender=1,
                detail="exited with status 1",
                stderr=("", CRASH_OUTPUT),
                started_at=1_700_000_010.0,
                finished_at=1_700_000_010.5,
            )
        return None

    with sessions.begin() as session:
        save_void(session, GameRecord(4, [MoveRecord(0, "4", 3.0, None)] * 2, voided="B (seat 0) at ply 3: busy"))
        session.execute(update(GameVoid).values(created_at=1_700_000_005.0))
    play_stage(sessions, tid, 0, play)
    set_status(sessions, tid, "running")
    return url


def stored(url: str, game_id: int) -> GameRow:
    with open_store(url).begin() as session:
        found = session.scalars(select(GameRow).where(GameRow.id == game_id)).one()
        session.expunge(found)
        return found


def when(moment: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(moment))


def shown(url: str, game_id: int, *more: str) -> list[str]:
    result = run_arena("games", "show", str(game_id), "--db", url, *more)
    assert (result.exit_code, result.stderr) == (0, ""), result.output
    return result.stdout.splitlines()


def test_a_game_shows_its_seats_result_times_and_error_output(league):
    game = stored(league, 1)
    assert shown(league, 1) == [
        "game 1 of league: tictactoe",
        f"  stage league, pool A, round {game.round + 1}, seed {game.seed}",
        "  x (first): A (bot A v1, python)",
        "  o (second): D (bot D v1, python)",
        f"  played {when(1_700_000_000.0)}, in 2.5 s",
        "result: 1-0 (A (x) wins)",
        "termination: normal",
        "moves: 5 (x 3, o 2); see them with 'arena replay 1'",
        "  time of x: 0.090 s in all, 30.0 ms a move on average, 50.0 ms at most, CPU 0.045 s, "
        "waited for a CPU 0.003 s",
        "  time of o: 0.060 s in all, 30.0 ms a move on average, 40.0 ms at most, CPU 0.030 s, "
        "waited for a CPU 0.002 s",
        "error output of A (x):",
        "  | thinking",
        "error output of D (o): none",
    ]


def test_a_forfeit_shows_the_offender_the_detail_the_voids_and_the_error_output_escaped(league):
    game = stored(league, 4)
    assert shown(league, 4) == [
        "game 4 of league: tictactoe",
        f"  stage league, pool A, round {game.round + 1}, seed {game.seed}",
        "  x (first): B (bot B v1, python)",
        "  o (second): D (bot D v1, python)",
        f"  played {when(1_700_000_010.0)}, in 0.5 s",
        "result: 1-0 (B (x) wins: D forfeits by crash)",
        "termination: crash",
        "offender: D (o)",
        "detail: exited with status 1",
        "voided 1x and played again (the machine was too busy to time a bot fairly):",
        f"  attempt 1, {when(1_700_000_005.0)}, after 2 moves: B (seat 0) at ply 3: busy",
        "moves: 1 (x 1, o 0); see them with 'arena replay 4'",
        "  time of x: 0.003 s in all, 3.0 ms a move on average, 3.0 ms at most",
        "error output of B (x): none",
        "error output of D (o):",
        "  | Traceback (most recent call last):",
        "  | \\x1b[2Jboom",
    ]


def test_a_long_error_output_shows_its_last_characters_and_says_so(league):
    lines = shown(league, 3)
    assert lines[-3:] == [
        "error output of C (x), its last 4000 of 5000 characters:",
        "  | " + "x" * 4000,
        "error output of A (o): none",
    ]


def test_a_pending_game_shows_who_plays_it(league):
    game = stored(league, 2)
    assert shown(league, 2) == [
        "game 2 of league: tictactoe",
        f"  stage league, pool A, round {game.round + 1}, seed {game.seed}",
        "  x (first): C (bot C v1, python)",
        "  o (second): B (bot B v1, python)",
        "result: not played yet (pending)",
        "moves: 0 (x 0, o 0)",
        "error output of C (x): none",
        "error output of B (o): none",
    ]


def test_a_game_in_json_has_every_field(league):
    game = stored(league, 4)
    record = json.loads(run_arena("games", "show", "4", "--json", "--db", league).stdout)
    assert record == {
        "id": 4,
        "tournament": "league",
        "game": {"name": "tictactoe", "params": {}},
        "stage": 0,
        "stage_name": "league",
        "pool": 0,
        "pool_name": "A",
        "round": game.round,
        "seed": game.seed,
        "status": "finished",
        "result": "1-0",
        "winner": 0,
        "points": None,
        "termination": "crash",
        "offender": 1,
        "detail": "exited with status 1",
        "plies": 1,
        "started_at": 1_700_000_010.0,
        "finished_at": 1_700_000_010.5,
        "replays": 1,
        "voids": [{"attempt": 1, "plies": 2, "reason": "B (seat 0) at ply 3: busy", "at": 1_700_000_005.0}],
        "seats": [
            {
                "seat": 0,
                "side": "x",
                "team": "B",
                "bot": "B",
                "version": 1,
                "kind": "python",
                "moves": 1,
                "wall_ms": 3.0,
                "mean_ms": 3.0,
                "max_ms": 3.0,
                "cpu_ms": None,
                "wait_ms": None,
                "cut_plies": [],
                "stderr": "",
                "stderr_chars": 0,
            },
            {
                "seat": 1,
                "side": "o",
                "team": "D",
                "bot": "D",
                "version": 1,
                "kind": "python",
                "moves": 0,
                "wall_ms": 0.0,
                "mean_ms": None,
                "max_ms": None,
                "cpu_ms": None,
                "wait_ms": None,
                "cut_plies": [],
                "stderr": CRASH_OUTPUT,
                "stderr_chars": len(CRASH_OUTPUT),
            },
        ],
    }


def test_the_json_of_a_long_error_output_is_bounded_too(league):
    record = json.loads(run_arena("games", "show", "3", "--json", "--db", league).stdout)
    assert (record["seats"][0]["stderr"], record["seats"][0]["stderr_chars"]) == ("x" * 4000, 5000)


def test_the_database_and_json_may_come_before_show(league):
    before = run_arena("games", "--db", league, "--json", "show", "1")
    after = run_arena("games", "show", "1", "--db", league, "--json")
    assert before.exit_code == after.exit_code == 0
    assert json.loads(before.stdout) == json.loads(after.stdout)


def test_options_of_the_listing_are_refused_with_show(league):
    result = run_arena("games", "--limit", "5", "--all", "show", "1", "--db", league)
    assert str(result.exception) == (
        "'arena games show' takes no --limit and --all: they choose the games that 'arena games' lists; leave them out"
    )


def test_an_unknown_game_is_one_line_on_stderr_and_exit_2(league, tmp_path):
    result = arena("games", "show", "99", "--db", league, cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "error: no game 99 in this database (game ids run from 1 to 6); list games with 'arena games' or "
        "'arena games --tournament NAME'\n"
    )


def test_the_listing_still_takes_its_options_without_show(league):
    rows, stderr = listed("--tournament", "league", "--db", league)
    assert ([r["id"] for r in rows], [r["status"] for r in rows], stderr) == (
        [6, 5, 4, 3, 2, 1],
        ["pending", "pending", "finished", "finished", "pending", "finished"],
        "",
    )

"""``arena run`` end to end: a small tic-tac-toe tournament declared in YAML, played by two
worker processes, every game and move stored with its timings and stderr tail, progress shown,
a log file written; then the listings (``arena tournaments``, ``arena games``, ``arena bots``)
with ``--json``."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.fixtures.harnesskit import BOTS, NODE_BOT, arena, arena_here, needs_node

pytestmark = pytest.mark.slow

TOURNAMENT = """\
name: e2e
game: tictactoe
seed: 7
time: {move: 1.0}
workers: 2
bots:
  reporter: {path: reports_sandbox.py}
  rand: {path: seeded_random.py}
  chatty: {path: prints_to_stdout.py}
  crasher: {path: raises_in_move.py}
stages:
  - {games_per_pair: 2}
"""
TEAMS = ("reporter", "rand", "chatty", "crasher")


def rows(database: Path, query: str, *args) -> list[sqlite3.Row]:
    with sqlite3.connect(database) as connection:
        connection.row_factory = sqlite3.Row
        return connection.execute(query, args).fetchall()


def games_with_teams(database: Path) -> list[sqlite3.Row]:
    return rows(
        database,
        "SELECT g.*, a.team AS first, b.team AS second, s0.stderr AS stderr0, s1.stderr AS stderr1 FROM games g "
        "JOIN game_seats s0 ON s0.game_id = g.id AND s0.seat = 0 JOIN entries a ON a.id = s0.entry_id "
        "JOIN game_seats s1 ON s1.game_id = g.id AND s1.seat = 1 JOIN entries b ON b.id = s1.entry_id ORDER BY g.id",
    )


def snapshot(database: Path) -> tuple:
    """Every stored game and move, for comparing a database before and after."""
    games = [
        tuple(r) for r in rows(database, "SELECT id, status, winner, termination, offender, plies, seed FROM games")
    ]
    moves = [tuple(r) for r in rows(database, "SELECT game_id, ply, seat, move, wall_ms, cpu_ms FROM moves")]
    return games, moves


class Run:
    """One tournament run in a folder of its own, then a second ``arena run`` of the same file."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.database = folder / "db" / "arena.sqlite3"
        self.db = f"sqlite:///{self.database}"
        for name in ("reports_sandbox", "seeded_random", "prints_to_stdout", "raises_in_move"):
            shutil.copy(BOTS / f"{name}.py", folder)
        (folder / "e2e.yaml").write_text(TOURNAMENT)
        self.first = arena("run", "e2e.yaml", "--db", self.db, cwd=folder)
        self.after_first = snapshot(self.database)
        self.second = arena("run", "e2e.yaml", "--db", self.db, cwd=folder)

    def cli_json(self, *args: str):
        result = arena_here(*args, "--db", self.db, "--json", cwd=self.folder)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Run:
    return Run(tmp_path_factory.mktemp("e2e"))


def test_run_plays_every_game_and_says_so(run):
    assert run.first.returncode == 0, run.first.stderr
    lines = run.first.stdout.splitlines()
    assert lines[0] == f"Running e2e: tictactoe, 4 teams, 12 games, 2 workers (log: {run.folder / 'db' / 'e2e.log'})"
    assert lines[-3].startswith("Finished: 12 games, 6 forfeits, ")


def test_a_finished_run_points_to_the_standings_for_who_won_and_says_what_the_leaderboard_ranks(run):
    # the leaderboard's first row is the best rating, which a tournament's stages need not agree with
    assert run.first.stdout.splitlines()[-2:] == [
        "  who won, place by place: 'arena standings e2e'",
        "  ratings: 'arena leaderboard e2e' (TrueSkill μ−3σ over all of a team's games: it ranks skill, which "
        "need not follow the places the stages gave)",
    ]


def test_run_shows_its_progress(run):
    last = [line for line in run.first.stdout.splitlines() if "/12 games, " in line][-1]
    assert re.fullmatch(r".*\b12/12 games, [0-9.]+ games/s, ETA 0 s, 6 forfeits", last), last


def test_the_progress_line_names_the_stage(run):
    # The line is printed as rich markup, so "[round-robin]" is taken for a style tag and
    # vanishes (and a stage named "[/x]" would raise MarkupError).
    assert "[round-robin] 12/12 games, " in run.first.stdout


def test_every_planned_game_is_stored_finished_once(run):
    games = games_with_teams(run.database)
    assert [g["status"] for g in games] == ["finished"] * 12
    pairs = sorted(tuple(sorted((g["first"], g["second"]))) for g in games)
    assert pairs == sorted(tuple(sorted(p)) for p in [(a, b) for i, a in enumerate(TEAMS) for b in TEAMS[i + 1 :]] * 2)


def test_each_pair_plays_once_from_each_seat(run):
    seats = sorted((g["first"], g["second"]) for g in games_with_teams(run.database))
    assert len(set(seats)) == 12


def test_a_forfeit_is_stored_with_its_termination_offender_winner_and_detail(run):
    crashed = [g for g in games_with_teams(run.database) if "crasher" in (g["first"], g["second"])]
    assert len(crashed) == 6
    for game in crashed:
        seat = 0 if game["first"] == "crasher" else 1
        assert (game["termination"], game["offender"], game["winner"], game["detail"]) == (
            "crash",
            seat,
            1 - seat,
            "RuntimeError: deliberate failure in move",
        )


def test_every_stored_move_has_its_wall_and_cpu_time(run):
    moves = rows(run.database, "SELECT wall_ms, cpu_ms FROM moves")
    assert len(moves) == sum(g["plies"] for g in games_with_teams(run.database)) > 0
    assert all(m["wall_ms"] > 0 and m["cpu_ms"] is not None and m["cpu_ms"] >= 0 for m in moves)


def test_a_bots_prints_are_stored_in_its_games_stderr_tail(run):
    for game in games_with_teams(run.database):
        if "chatty" in (game["first"], game["second"]) and game["termination"] == "normal":
            tail = game["stderr0"] if game["first"] == "chatty" else game["stderr1"]
            assert "chatty print" in tail and len(tail.encode()) <= 8192


def test_bot_processes_stay_warm_across_the_games_of_a_worker(run):
    pids = set()
    games = 0
    for game in games_with_teams(run.database):
        for seat, team in enumerate((game["first"], game["second"])):
            if team == "reporter":
                tail = game[f"stderr{seat}"]
                (line,) = [line for line in tail.splitlines() if line.startswith("sandbox ")]
                pids.add(json.loads(line.removeprefix("sandbox "))["pid"])
                games += 1
    assert games == 6
    assert 1 <= len(pids) <= 2  # one process a worker at most, for all six games


def test_the_run_is_logged_beside_the_database(run):
    log = (run.folder / "db" / "e2e.log").read_text()
    assert "starting tournament 'e2e'" in log
    assert log.count("forfeits (crash): RuntimeError: deliberate failure in move") == 6


def test_running_a_finished_tournament_again_changes_nothing(run):
    assert run.second.returncode == 0, run.second.stderr
    assert run.second.stdout.startswith("Resuming e2e: ")
    assert snapshot(run.database) == run.after_first


def test_the_resumption_is_logged(run):
    assert "resuming tournament 'e2e'" in (run.folder / "db" / "e2e.log").read_text()


def test_tournaments_json_lists_the_tournament_and_its_counts(run):
    (listed,) = run.cli_json("tournaments")
    assert {k: listed[k] for k in ("name", "game", "status", "teams", "games_finished", "games_planned", "seed")} == {
        "name": "e2e",
        "game": "tictactoe",
        "status": "finished",
        "teams": 4,
        "games_finished": 12,
        "games_planned": 12,
        "seed": 7,
    }


def test_games_json_lists_every_game_newest_first(run):
    listed = run.cli_json("games", "--tournament", "e2e")
    stored = games_with_teams(run.database)
    assert [g["id"] for g in listed] == [g["id"] for g in reversed(stored)]
    assert {
        g["id"]: (g["first"], g["second"], g["winner"], g["termination"], g["offender"], g["plies"]) for g in listed
    } == {g["id"]: (g["first"], g["second"], g["winner"], g["termination"], g["offender"], g["plies"]) for g in stored}


def test_games_json_filters_by_bot(run):
    listed = run.cli_json("games", "--bot", "crasher")
    assert len(listed) == 6
    assert all("crasher" in (g["first"], g["second"]) and g["termination"] == "crash" for g in listed)


def test_games_of_an_unknown_tournament_are_refused_with_the_known_ones(run):
    result = arena_here("games", "--tournament", "nope", "--db", run.db, cwd=run.folder)
    assert result.returncode == 2
    assert result.stderr == "error: no tournament 'nope'; the tournaments: e2e\n"


def test_bots_json_lists_the_declared_bots_with_their_code_hashes(run):
    import hashlib

    listed = [bot for bot in run.cli_json("bots") if not bot["built_in"]]
    assert sorted((b["name"], b["version"], b["kind"], b["registered"]) for b in listed) == sorted(
        (team, 1, "python", False) for team in TEAMS
    )
    for bot in listed:
        assert bot["code_hash"] == hashlib.sha256(Path(bot["target"]).read_bytes()).hexdigest()
        assert Path(bot["target"]).parent == run.folder


def test_an_empty_database_lists_nothing_in_json_but_its_games_say_how_to_play_some(tmp_path):
    for command in ("tournaments", "bots"):
        result = arena_here(command, "--json", "--db", f"sqlite:///{tmp_path / 'a.db'}", cwd=tmp_path)
        stored = [row for row in json.loads(result.stdout) if not row.get("built_in")]  # (arena bots lists its own)
        assert (command, result.returncode, stored) == (command, 0, [])
    games = arena_here("games", "--json", "--db", f"sqlite:///{tmp_path / 'a.db'}", cwd=tmp_path)
    assert games.returncode == 2 and "run one with 'arena run FILE'" in games.stderr  # as standings says


# ---------------------------------------------------------------- a bot in another language


@needs_node
def test_a_tournament_plays_a_node_bot_registered_by_command_and_one_declared(tmp_path):
    db = f"sqlite:///{tmp_path / 'a.db'}"
    registered = arena_here(
        "register", "--command", f"node {NODE_BOT}", "--name", "node-random", "--db", db, cwd=tmp_path
    )
    assert registered.returncode == 0, registered.stderr
    shutil.copy(BOTS / "seeded_random.py", tmp_path)
    (tmp_path / "t.yaml").write_text(
        "name: js\ngame: tictactoe\nseed: 3\ntime: {move: 1.0}\nworkers: 2\n"
        f"bots:\n  declared-js: {{command: node {NODE_BOT}}}\n  rand: {{path: seeded_random.py}}\n"
        "teams:\n  registered-js: node-random\n  declared-js: declared-js\n  rand: rand\n"
    )
    result = arena("run", "t.yaml", "--db", db, "-q", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    games = arena_here("games", "--tournament", "js", "--json", "--db", db, cwd=tmp_path)
    listed = json.loads(games.stdout)
    assert len(listed) == 6
    assert [g["termination"] for g in listed] == ["normal"] * 6
    assert {g["first"] for g in listed} == {"registered-js", "declared-js", "rand"}


# ---------------------------------------------------------------- registered bots as teams


def test_the_registered_bots_example_of_docs_bots_md_runs(tmp_path):
    text = (Path(__file__).resolve().parent.parent / "docs" / "bots.md").read_text()
    example = text.split("## Entering a tournament", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    db = f"sqlite:///{tmp_path / 'a.db'}"
    for name, bot in (("alice-bot", "first_legal.py"), ("bob-bot", "seeded_random.py")):
        registered = arena_here("register", str(BOTS / bot), "--name", name, "--db", db, cwd=tmp_path)
        assert registered.returncode == 0, registered.stderr
    (tmp_path / "section-b.yaml").write_text(example)
    result = arena("run", "section-b.yaml", "--db", db, "-q", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    board = json.loads(arena_here("leaderboard", "section-b", "--json", "--db", db, cwd=tmp_path).stdout)
    assert sorted((line["team"], line["bot"], line["games"]) for line in board["leaderboard"]) == [
        ("Alice", "alice-bot", 4),
        ("Baseline", "Baseline", 4),
        ("Bob", "bob-bot", 4),
    ]
    bots = json.loads(arena_here("bots", "--json", "--db", db, cwd=tmp_path).stdout)
    stored = [b for b in bots if b["version"] is not None]  # the built-in bots are listed too
    assert sorted((b["name"], b["version"], b["registered"], b["target"]) for b in stored) == [
        ("Baseline", 1, False, "bots.randombot"),
        ("alice-bot", 1, True, str(BOTS / "first_legal.py")),
        ("bob-bot", 1, True, str(BOTS / "seeded_random.py")),
    ]


def test_moves_the_clock_cut_are_counted_by_the_run_games_show_standings_and_the_report(tmp_path):
    # a search budget no clock of 50 ms holds: each of uct's searches is cut, and said so
    (tmp_path / "t.yaml").write_text(
        "name: cut\ngame: tictactoe\nseed: 3\ntime: {move: 0.05, clock: cpu, pace: false}\n"
        "bots:\n  greedy: {module: bots.uct, params: {iterations: 100000000}}\n  rand: {module: bots.randombot}\n"
        "stages:\n  - {games_per_pair: 1}\n"
    )
    db = f"sqlite:///{tmp_path / 'a.db'}"
    done = arena("run", "t.yaml", "--db", db, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(tmp_path / "a.db") as connection:
        cut = connection.execute("SELECT count(*) FROM moves WHERE cut").fetchone()[0]
    assert cut >= 3  # uct's moves but the one it has no choice about
    warning = (
        f"warning: {cut} of greedy's moves were cut by the clock: its search stopped short of its own budget, "
        "so its results may depend on this machine's load"
    )
    assert warning in done.stderr.splitlines()
    shown = arena_here("games", "show", "1", "--db", db, cwd=tmp_path).stdout
    assert re.search(r"moves were cut by the clock \(plies [0-9, ]+\)", shown), shown
    standings = arena_here("standings", "--db", db, cwd=tmp_path).stdout
    assert warning.removeprefix("warning: ") in standings
    assert arena_here("report", "--db", db, "--out", str(tmp_path / "site"), cwd=tmp_path).returncode == 0
    assert f'<dd id="total-cut">{cut} moves' in (tmp_path / "site" / "index.html").read_text()


def test_the_run_header_speaks_plainly_of_the_bots_sandbox_and_time(run):
    # a newcomer once read "cgroup v2 per bot: CPU time, kill, CPU pressure; memory and pids
    # limits (v1)" and "no bot budgets by the clock"
    header = run.first.stdout.split("[", 1)[0]
    assert not re.search(r"cgroup v2|\(v1\)|\(v2\)|budgets by the clock|kill,", header), header
    (bots,) = [line.strip() for line in header.splitlines() if line.strip().startswith("bots: ")]
    assert bots.startswith(("bots: each bot in a control group of its own: its CPU time", "bots: no control groups"))


def test_the_eta_waits_for_a_rate_that_means_something(monkeypatch):
    # the first ETA of the default tournament once said 3239 s: the first game's wait for the
    # workers and bots to start, taken as the time of every game
    import io

    from rich.console import Console

    import arena.commands.running as running
    from arena.contests.tournament import Progress

    now = [100.0]
    monkeypatch.setattr(running.time, "monotonic", lambda: now[0])
    display = running.ProgressDisplay(quiet=False)
    display.console = Console(file=io.StringIO(), width=200)
    update = display.__enter__()
    printed = []
    for done, at in [(1, 104.0), (5, 110.0), (21, 116.0), (790, 500.0)]:
        now[0] = at
        update(Progress(total=790, done=done, stage="group"), 100.0)
        printed.append(display.console.file.getvalue().splitlines()[-1])
    display.__exit__(None, None, None)
    assert printed[0] == "[group] 1/790 games, 0.2 games/s, ETA estimating…, 0 forfeits"
    assert printed[1] == "[group] 5/790 games, 0.7 games/s, ETA estimating…, 0 forfeits"  # 4 games since the first
    assert printed[2] == "[group] 21/790 games, 1.7 games/s, ETA 461 s, 0 forfeits"  # 20 in 12 s: 769 left
    assert printed[3].endswith("790/790 games, 2.0 games/s, ETA 0 s, 0 forfeits")

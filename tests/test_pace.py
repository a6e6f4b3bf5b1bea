"""Paces (arena/runners/pace.py): a bot that budgets by the clock turns its time into a number of steps
at the pace measured for it, so that a seed plays the same moves however busy the machine is;
paces are measured once per machine and bot, in a bot process, and stored."""

from __future__ import annotations

import random
import sqlite3
import subprocess
import sys

import pytest

from arena.clock import Clock
from arena.contests.config import parse_config
from arena.contests.tournament import TournamentRun
from arena.core import protocol
from arena.core.botspec import BotSpec
from arena.core.timing import TimeControl
from arena.games import get_game
from arena.runners.local import LocalRunner
from arena.runners.pace import SAFETY, Paced, with_paces
from arena.store.database import open_store
from arena.store.models import Pace
from bots.common import MARGIN_FLOOR, MARGIN_FRACTION
from tests.builders import before_game_seats

UCT = BotSpec("uct-clock", "python", "bots.uct")
COUNTED = BotSpec("uct-200", "python", "bots.uct", params='{"iterations":200}')
CPU = TimeControl(move=0.1, clock="cpu")


def steps(limit: float, pace: float) -> int:
    return int((limit - max(MARGIN_FLOOR, MARGIN_FRACTION * limit)) / pace)


# ---------------------------------------------------------------- the bots' side


def test_a_paced_search_does_the_steps_its_time_holds_at_that_pace():
    import bots.uct

    game = get_game("uttt")
    bot = bots.uct.make_bot(game, 0, random.Random(1))
    bot.move(game.initial_state(), Clock(0.5, kind="cpu", pace=0.002))
    assert bot.last_iterations == steps(0.5, 0.002) == 237


def test_a_pace_is_for_the_cpu_clock_only():
    assert Clock(0.5, kind="wall", pace=0.002).pace is None


def test_an_iteration_budget_ignores_the_pace():
    import bots.uct

    game = get_game("uttt")
    bot = bots.uct.make_bot(game, 0, random.Random(1), iterations=30)
    bot.move(game.initial_state(), Clock(0.5, kind="cpu", pace=0.002))
    assert bot.last_iterations == 30


def test_a_paced_alpha_beta_plays_the_same_move_and_depth_from_the_same_seed():
    import bots.minimax

    game = get_game("xtreme")
    state = game.initial_state()
    for _ in range(3):
        state = state.play(state.legal_moves()[0])
    seen = set()
    for _ in range(3):
        bot = bots.minimax.make_bot(game, state.to_move, random.Random(7))
        move = bot.move(state, Clock(1.0, kind="cpu", pace=0.0005))
        seen.add((move, bot.last_depth))
    assert len(seen) == 1, seen
    assert next(iter(seen))[1] >= 1


def test_a_search_the_clock_ends_tells_the_clock_its_steps():
    import bots.uct

    game = get_game("uttt")
    bot = bots.uct.make_bot(game, 0, random.Random(1))
    clock = Clock(0.05, kind="cpu")
    bot.move(game.initial_state(), clock)
    assert clock.searched is not None
    assert clock.searched[0] == bot.last_iterations > 0
    assert 0 < clock.searched[1] <= 0.05
    counted = Clock(5.0, kind="cpu")
    bots.uct.make_bot(game, 0, random.Random(1), iterations=20).move(game.initial_state(), counted)
    assert counted.searched is None  # its iteration budget ended it: nothing to measure


# ---------------------------------------------------------------- the protocol


@pytest.mark.parametrize("value", ['"0.1"', "-1", "0", '"fast"', "1e400", "true", "[1]"])
def test_a_pace_reply_must_be_a_positive_number_or_null(value):
    with pytest.raises(protocol.ProtocolError, match="pace"):
        protocol.parse_reply(f'{{"type":"pace","pace":{value}}}'.encode(), "pace")


def test_a_pace_reply_may_be_null():
    assert protocol.parse_reply(b'{"type":"pace","pace":null}', "pace")["pace"] is None


def test_new_game_carries_a_pace_only_when_there_is_one():
    assert b'"pace"' not in protocol.new_game({"name": "uttt"}, 0, 1, CPU)
    assert b'"pace":0.002' in protocol.new_game({"name": "uttt"}, 0, 1, CPU, 0.002)


# ---------------------------------------------------------------- measured once, stored


def test_paces_are_measured_in_bot_processes_then_stored_and_reused(tmp_path):
    sessions = open_store(f"sqlite:///{tmp_path / 'a.sqlite3'}")
    game = get_game("uttt").spec()
    specs = {1: UCT, 2: COUNTED, 3: BotSpec("random", "python", "bots.randombot")}
    hashes = dict.fromkeys(specs, "h")
    paced, what = with_paces(specs, hashes, game, CPU, sessions)
    assert what == Paced(("uct-clock",), 3)
    assert paced[1].pace is not None and 1e-6 < paced[1].pace < 0.01
    assert paced[2].pace is None and paced[3].pace is None
    with sessions.begin() as session:
        rows = {row.bot: row.pace for row in session.query(Pace)}
    assert rows['bots.uct {"iterations":200}'] is None and rows["bots.randombot {}"] is None
    assert rows["bots.uct {}"] == pytest.approx(paced[1].pace / SAFETY)

    def measure(*_args):
        raise AssertionError("a stored pace is measured again")

    again, what = with_paces(specs, hashes, game, CPU, sessions, measure)
    assert again == paced
    assert what == Paced(("uct-clock",), 0)
    assert "stored" in what.describe()


def test_other_code_or_another_time_a_move_is_measured_anew(tmp_path):
    sessions = open_store(f"sqlite:///{tmp_path / 'a.sqlite3'}")
    game = get_game("uttt").spec()
    calls = []

    def measure(spec, _game, limit, _startup):
        calls.append((spec.target, limit))
        return 0.001

    with_paces({1: UCT}, {1: "h1"}, game, CPU, sessions, measure)
    with_paces({1: UCT}, {1: "h2"}, game, CPU, sessions, measure)
    with_paces({1: UCT}, {1: "h2"}, game, TimeControl(move=0.05, clock="cpu"), sessions, measure)
    with_paces({1: UCT}, {1: "h2"}, game, TimeControl(move=0.05, clock="cpu"), sessions, measure)
    assert calls == [("bots.uct", 0.1), ("bots.uct", 0.1), ("bots.uct", 0.05)]


def test_no_pace_on_the_wall_clock_or_when_turned_off(tmp_path):
    sessions = open_store(f"sqlite:///{tmp_path / 'a.sqlite3'}")
    game = get_game("uttt").spec()
    for control in (TimeControl(move=0.1), TimeControl(move=0.1, clock="cpu", pace=False)):
        specs, what = with_paces({1: UCT}, {1: "h"}, game, control, sessions)
        assert specs == {1: UCT} and what == Paced()


def test_a_bot_that_fails_while_measured_gets_no_pace_and_is_measured_again(tmp_path, caplog):
    from arena.runners.pace import PaceError

    sessions = open_store(f"sqlite:///{tmp_path / 'a.sqlite3'}")
    game = get_game("uttt").spec()

    def failing(*_args):
        raise PaceError("it crashed")

    specs, what = with_paces({1: UCT}, {1: "h"}, game, CPU, sessions, failing)
    assert specs[1].pace is None and what.paced == ()
    assert "could not be measured: it crashed" in caplog.text
    specs, what = with_paces({1: UCT}, {1: "h"}, game, CPU, sessions, lambda *_: 0.001)
    assert specs[1].pace == pytest.approx(0.001 * SAFETY)


# ---------------------------------------------------------------- the same games on a busy machine


def _tournament(tmp_path, name: str, loops: int) -> list[list[str]]:
    text = (
        f"name: {name}\ngame: uttt\nseed: 5\nworkers: 1\n"
        "time: {move: 0.04, clock: cpu, startup: 20}\n"
        "bots:\n  uct: {module: bots.uct}\n  minimax: {module: bots.minimax}\n"
        "stages:\n  - {games_per_pair: 2}\n"
    )
    database = tmp_path / "runs.sqlite3"
    run = TournamentRun(parse_config(text), text, open_store(f"sqlite:///{database}"), tmp_path)
    run.prepare()
    assert run.pace().paced == ("minimax", "uct")
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(loops)]
    try:
        run.run(LocalRunner(1, pin=False))
    finally:
        for loop in busy:
            loop.kill()
            loop.wait()
    with sqlite3.connect(database) as connection:
        terminations = connection.execute(
            "SELECT g.termination FROM games g JOIN tournaments t ON t.id = g.tournament_id"
            " WHERE t.name = ? ORDER BY g.number",
            (name,),
        ).fetchall()
        rows = connection.execute(
            "SELECT g.number, m.move, m.cut FROM games g JOIN moves m ON m.game_id = g.id"
            " JOIN tournaments t ON t.id = g.tournament_id WHERE t.name = ? ORDER BY g.number, m.ply",
            (name,),
        ).fetchall()
    assert terminations == [("normal",), ("normal",)]
    games: dict[int, list[tuple[str, bool]]] = {}
    for number, move, cut in rows:
        games.setdefault(number, []).append((move, bool(cut)))
    return [games[number] for number in sorted(games)]


@pytest.mark.serial
def test_bots_that_budget_by_the_clock_play_the_same_games_on_a_busy_machine(tmp_path):
    # the same moves, or, where a machine busier still stretched a search's CPU time past its
    # margin, the games part at or after a move the clock cut, and the run says so (a search cut
    # short may still choose the same move, and leave a smaller tree or table for the next one)
    quiet = _tournament(tmp_path, "quiet", 0)
    loaded = _tournament(tmp_path, "loaded", 4)
    for calm, busy in zip(quiet, loaded, strict=True):
        moves = ([move for move, _ in calm], [move for move, _ in busy])
        if moves[0] == moves[1]:
            continue
        ply = next(ply for ply, (a, b) in enumerate(zip(*moves)) if a != b)
        cut = [at for at in range(ply + 1) if calm[at][1] or busy[at][1]]
        assert cut, f"move {ply} differs, and no move up to it was cut by the clock: {moves}"


@pytest.mark.slow
def test_a_match_on_the_cpu_clock_gives_its_bots_their_pace(tmp_path):
    from tests.fixtures.harnesskit import match

    args = ("bots.uct", "bots.minimax", "--game", "uttt", "--games", "2", "--time", "0.03", "--clock", "cpu")
    done, games = match(tmp_path, *args, "--name", "m1")
    assert done.returncode == 0, done.stderr
    assert "0.03 s a move (cpu clock)" in done.stdout
    assert [status for *_, status in games] == ["finished", "finished"]
    with sqlite3.connect(tmp_path / "m.sqlite3") as connection:
        rows = connection.execute("SELECT bot, pace FROM paces ORDER BY bot").fetchall()
    assert [bot for bot, _ in rows] == ["bots.minimax {}", "bots.uct {}"]
    assert all(pace is not None and pace > 0 for _, pace in rows)
    done, _ = match(tmp_path, *args, "--name", "m2")
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(tmp_path / "m.sqlite3") as connection:
        assert connection.execute("SELECT count(*) FROM paces").fetchone() == (2,)  # stored: not measured again
        first, second = (
            connection.execute(
                "SELECT group_concat(m.move, ',') FROM games g JOIN moves m ON m.game_id = g.id"
                " JOIN tournaments t ON t.id = g.tournament_id WHERE t.name = ? GROUP BY g.id ORDER BY g.number",
                (name,),
            ).fetchall()
            for name in ("m1", "m2")
        )
    assert first == second


def test_a_database_of_the_schema_before_paces_gets_their_table(tmp_path):
    from arena.store.database import MIGRATIONS, SCHEMA_VERSION

    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    open_store(url)
    before = next(number for number, what, _ in MIGRATIONS if "paces" in what) - 1
    with sqlite3.connect(tmp_path / "old.sqlite3") as connection:
        for table in ("paces", "submissions", "season_teams", "seasons"):  # the tables of the later schemas
            connection.execute(f"DROP TABLE {table}")
        connection.execute("DROP INDEX ix_moves_cut")  # and their columns, and their indexes
        connection.execute("ALTER TABLE moves DROP COLUMN cut")
        before_game_seats(connection.execute)
        connection.execute("UPDATE schema_version SET version = ?", (before,))
    sessions = open_store(url)
    with_paces({1: UCT}, {1: "h"}, get_game("uttt").spec(), CPU, sessions, lambda *_: 0.001)
    with sqlite3.connect(tmp_path / "old.sqlite3") as connection:
        assert connection.execute("SELECT version FROM schema_version").fetchone() == (SCHEMA_VERSION,)
        assert connection.execute("SELECT bot, pace FROM paces").fetchall() == [("bots.uct {}", 0.001)]

"""A machine too busy to time a bot: the request is ``Overloaded`` (nobody's fault), the game is
voided and stored as such, played again at most ``time.max_replays`` times, and then left
unplayed with a message; ``time.on_overload: forfeit`` makes it a timeout instead.

A really overloaded machine cannot be had on demand, so the tests make one up: a bot process
that seems to wait for a CPU all the time (``BotProcess.waited`` patched), or a worker whose
games come back voided (``GameWorker.play`` patched; worker processes are forked from the test
and keep the patch).
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from arena.contests.config import parse_config
from arena.contests.tournament import TournamentError, TournamentRun
from arena.core.records import BotFault, GameRecord, Overloaded, Termination
from arena.core.timing import OVERLOAD_EXTRA, OVERLOAD_FACTOR, Limit, Usage
from arena.runners.local import LocalRunner
from arena.runners.worker import GameWorker
from arena.sandbox.cgroups import Cgroup
from arena.sandbox.process import BotProcess
from arena.store.database import open_store
from tests.fixtures.harnesskit import job, python_bot

# ---------------------------------------------------------------- judging one request


def test_the_wall_clock_charges_the_time_less_the_wait_for_a_cpu():
    limit = Limit(0.2, "wall", grace=0.05)
    assert limit.judge(Usage(wall=0.6, cpu=0.1, waited=0.45), cpus=1) == pytest.approx(0.1)


@pytest.mark.parametrize(
    ("pressure", "starved"),
    [
        (
            "some avg10=1.00 avg60=0.50 avg300=0.10 total=9000\nfull avg10=0.50 avg60=0.20 avg300=0.05 total=5752\n",
            0.005752,
        ),
        ("some avg10=0.00 avg60=0.00 avg300=0.00 total=9000\n", None),  # a kernel that has no "full" line for the CPU
        ("", None),
    ],
)
def test_a_groups_wait_for_a_cpu_is_the_full_total_of_its_cpu_pressure(tmp_path, pressure, starved):
    (tmp_path / "cpu.pressure").write_text(pressure)
    assert Cgroup(tmp_path, {}).starved() == starved


def test_a_request_charged_its_limit_is_a_timeout():
    with pytest.raises(BotFault) as fault:
        Limit(0.2, "wall", grace=0.05).judge(Usage(wall=0.3, cpu=0.3, waited=0.0), cpus=1)
    assert fault.value.termination is Termination.TIMEOUT


def test_a_request_kept_from_the_cpu_for_ten_times_its_limit_is_overloaded():
    limit = Limit(0.2, "wall", grace=0.05)
    cap = OVERLOAD_FACTOR * 0.25 + OVERLOAD_EXTRA
    with pytest.raises(Overloaded) as overload:
        limit.judge(Usage(wall=cap, cpu=0.05, waited=cap - 0.05), cpus=1)
    assert str(overload.value).startswith(
        f"the machine was too busy to time it: after {cap:.3f} s it had been charged only 0.050 s of its 0.250 s"
    )


def test_with_on_overload_forfeit_an_overloaded_request_is_a_timeout():
    limit = Limit(0.2, "wall", grace=0.05, overload=False)
    with pytest.raises(BotFault) as fault:
        limit.judge(Usage(wall=10.0, cpu=0.0, waited=9.99), cpus=1)
    assert fault.value.termination is Termination.TIMEOUT
    assert fault.value.detail.startswith("the machine was too busy to time it")


def test_the_cpu_clock_charges_cpu_time_and_stops_a_sleeper_at_the_backstop():
    limit = Limit(0.2, "cpu", grace=0.05, backstop=3.0)
    assert limit.judge(Usage(wall=0.5, cpu=0.1, waited=0.0), cpus=1) == pytest.approx(0.15)
    with pytest.raises(BotFault) as fault:
        limit.judge(Usage(wall=0.7, cpu=0.0, waited=0.0), cpus=1)
    assert "backstop" in fault.value.detail


# ---------------------------------------------------------------- a game


@pytest.fixture
def starved(monkeypatch):
    """Bots named ``starved`` seem to wait for a CPU all the time: never charged any time."""
    real = BotProcess.waited

    def waited(process):
        return time.monotonic() if process.label == "starved" else real(process)

    monkeypatch.setattr(BotProcess, "waited", waited)


def test_a_game_whose_bot_never_gets_a_cpu_comes_back_voided_with_the_reason(starved, pool):
    record = pool.play(job(python_bot("hangs_in_move", "starved"), python_bot("first_legal"), move=0.05))
    assert (record.termination, record.offender) == (Termination.NORMAL, None)
    assert record.voided.startswith("starved (seat 0) at ply 1: the machine was too busy to time it: after ")


def test_with_on_overload_forfeit_such_a_game_is_a_timeout(starved, pool):
    record = pool.play(
        job(python_bot("hangs_in_move", "starved"), python_bot("first_legal"), move=0.05, on_overload="forfeit")
    )
    assert (record.termination, record.offender, record.voided) == (Termination.TIMEOUT, 0, None)
    assert record.detail.startswith("the machine was too busy to time it")


# ---------------------------------------------------------------- a tournament

TOURNAMENT = """\
name: overload
game: tictactoe
seed: 5
time: {{move: 1.0, max_replays: {replays}}}
workers: 1
bots:
  a: {{path: {bots}/first_legal.py}}
  b: {{path: {bots}/seeded_random.py}}
  c: {{path: {bots}/first_legal.py}}
stages: [{{games_per_pair: 1}}]
"""


def voided_games(monkeypatch, tmp_path: Path, game_id: int, times: int) -> None:
    """Worker processes bring game ``game_id`` back voided its first ``times`` times."""
    real = GameWorker.play
    count = tmp_path / "voided"

    def play(worker, game_job):
        if game_job.game_id == game_id:
            done = count.read_text().count("\n") if count.exists() else 0
            if done < times:
                with count.open("a") as out:
                    out.write("voided\n")
                return GameRecord(game_job.game_id, voided=f"simulated overload {done + 1}")
        return real(worker, game_job)

    monkeypatch.setattr(GameWorker, "play", play)


def run(tmp_path: Path, replays: int):
    from tests.fixtures.harnesskit import BOTS

    config = parse_config(TOURNAMENT.format(replays=replays, bots=BOTS))
    database = tmp_path / "a.db"
    tournament = TournamentRun(config, "", open_store(f"sqlite:///{database}"), tmp_path)
    tournament.prepare()
    return tournament, database


def test_a_voided_game_is_stored_as_such_and_played_again(monkeypatch, tmp_path):
    voided_games(monkeypatch, tmp_path, 2, times=1)
    tournament, database = run(tmp_path, replays=3)
    progress = tournament.run(LocalRunner(1, pin=False))
    assert (progress.done, progress.replays, progress.void_reasons) == (3, 1, ["simulated overload 1"])
    with sqlite3.connect(database) as connection:
        assert connection.execute("SELECT status, replays FROM games WHERE id = 2").fetchone() == ("finished", 1)
        assert connection.execute("SELECT game_id, attempt, reason FROM game_voids").fetchall() == [
            (2, 1, "simulated overload 1")
        ]


def test_a_game_voided_more_than_max_replays_times_stays_unplayed_and_the_run_says_so(monkeypatch, tmp_path):
    voided_games(monkeypatch, tmp_path, 2, times=100)
    tournament, database = run(tmp_path, replays=1)
    with pytest.raises(TournamentError) as stopped:
        tournament.run(LocalRunner(1, pin=False))
    assert str(stopped.value).startswith(
        "1 game(s) could not be timed fairly: the machine was so busy that their bots "
        "waited for a CPU most of the time, 2 times each (games 2)."
    )
    with sqlite3.connect(database) as connection:
        assert connection.execute("SELECT id, status, replays FROM games ORDER BY id").fetchall() == [
            (1, "finished", 0),
            (2, "pending", 2),
            (3, "finished", 0),
        ]
        assert connection.execute("SELECT count(*) FROM game_voids").fetchone() == (2,)


def test_games_and_the_report_show_the_replays_and_why(monkeypatch, tmp_path):
    import json

    from tests.fixtures.harnesskit import run_arena

    voided_games(monkeypatch, tmp_path, 2, times=1)
    tournament, database = run(tmp_path, replays=3)
    tournament.run(LocalRunner(1, pin=False))
    listed = run_arena("games", "--db", f"sqlite:///{database}", "--json")
    assert [(g["id"], g["replays"]) for g in json.loads(listed.output)] == [(3, 0), (2, 1), (1, 0)]
    table = run_arena("games", "--db", f"sqlite:///{database}")
    assert "replayed 1x (machine too busy)" in table.output
    report = run_arena("report", "overload", "--db", f"sqlite:///{database}", "--out", str(tmp_path / "report"))
    assert report.exit_code == 0, report.output
    assert "simulated overload 1" in (tmp_path / "report" / "games" / "2.html").read_text()
    assert 'Replayed</dt><dd id="total-replays">1 time:' in (tmp_path / "report" / "index.html").read_text()

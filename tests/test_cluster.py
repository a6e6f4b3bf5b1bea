"""Tournaments on a Dask cluster (issue 16), against a real one: a scheduler and two workers,
each a process of its own (tests/fixtures/daskcluster.py). The cluster plays the same games as
this machine's workers, loses a worker or its parent without losing or doubling a game, ships
bots' code by hash, says clearly what it cannot do, and records where each game was played.
"""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import time
from contextlib import closing
from pathlib import Path

import pytest

from arena.core.botspec import BotSpec
from arena.core.job import GameJob
from arena.core.records import Termination
from arena.core.timing import TimeControl
from arena.runners.dask_node import ClusterError
from arena.runners.local import RunnerError
from arena.runners.machine import this_node
from tests.fixtures.daskcluster import LocalCluster
from tests.fixtures.harnesskit import REPO, TournamentFolder, arena, stop
from tests.fixtures.pgserver import free_port

pytestmark = pytest.mark.slow

#: iteration-budgeted and seeded bots only (a file of the tournament's folder among them, whose
#: code travels to the nodes): the same games whichever machine plays them
TOURNAMENT = """\
name: on-a-cluster
game: tictactoe
seed: 16
time: {move: 5.0}
bots:
  uct: {module: bots.uct, params: {iterations: 40}}
  seeded: {module: slow_seeded_random}
  random: {module: bots.randombot}
teams: {A: uct, B: seeded, C: random, D: seeded}
stages: [{name: league, games_per_pair: 3}]
"""
GAMES = 18


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(workers=2) as running:
        yield running


@pytest.fixture(scope="module")
def local_games(tmp_path_factory):
    """The tournament's games as this machine's own workers play them."""
    folder = TournamentFolder(tmp_path_factory.mktemp("local"), TOURNAMENT, ("slow_seeded_random",))
    result = folder.run("--workers", "2")
    assert result.returncode == 0, result.stderr
    return folder.games()


def nodes(folder: TournamentFolder) -> list[tuple]:
    """Where the games were played: each (node, CPU model, clock, time scale) once."""
    with closing(sqlite3.connect(folder.database)) as connection:
        where = connection.execute("SELECT DISTINCT node, cpu, clock, time_scale FROM games").fetchall()
    return where


def moves_stored_once(folder: TournamentFolder) -> bool:
    """Whether every finished game has exactly its plies' moves (none lost, none twice)."""
    with closing(sqlite3.connect(folder.database)) as connection:
        return connection.execute(
            "SELECT count(*) FROM games g WHERE g.plies != (SELECT count(*) FROM moves m WHERE m.game_id = g.id)"
        ).fetchone() == (0,)


def test_the_cluster_plays_the_games_this_machine_plays(tmp_path, cluster, local_games):
    folder = TournamentFolder(tmp_path, TOURNAMENT, ("slow_seeded_random",))
    result = folder.run("--cluster", cluster.address)
    assert result.returncode == 0, result.stderr + cluster.log()
    assert folder.games() == local_games
    assert len(local_games) == GAMES and {g[5] for g in local_games} == {"finished"}
    (node,) = nodes(folder)
    assert node == (this_node().host, this_node().cpu, "wall", 1.0)
    report = arena("report", "on-a-cluster", "--db", folder.url, "--out", "report", cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    page = (tmp_path / "report" / "index.html").read_text()
    machines = page[page.index('id="nodes"') :].split("</table>")[0]
    row = re.search(
        r"<tr><td>([^<]*)</td><td>([^<]*)</td><td>wall</td><td class=\"num\">×1</td>"
        r"<td class=\"num\">(\d+)</td>",
        machines,
    )
    assert row is not None and row.groups() == (this_node().host, this_node().cpu, str(GAMES))


def test_a_worker_killed_mid_run_loses_no_game_and_doubles_none(tmp_path, cluster, local_games):
    folder = TournamentFolder(tmp_path, TOURNAMENT, ("slow_seeded_random",))
    run = folder.start("--cluster", cluster.address)
    try:
        folder.wait_for_games(run, 3)
        victim = sorted(cluster.worker_pids().values())[0]
        os.kill(victim, signal.SIGKILL)
        _out, err = run.communicate(timeout=240)
    finally:
        stop(run)
    assert run.returncode == 0, err + cluster.log()
    assert folder.games() == local_games
    assert moves_stored_once(folder)
    cluster.wait_for_workers(2)  # its nanny started it again


def test_a_run_whose_parent_was_killed_resumes_to_the_same_games(tmp_path, cluster, local_games):
    folder = TournamentFolder(tmp_path, TOURNAMENT, ("slow_seeded_random",))
    run = folder.start("--cluster", cluster.address)
    try:
        folder.wait_for_games(run, 3)
    finally:
        stop(run, signal.SIGKILL)
    done = [g for g in folder.games() if g[5] == "finished"]
    assert 3 <= len(done) < GAMES
    again = folder.run("--cluster", cluster.address)
    assert again.returncode == 0, again.stderr + cluster.log()
    assert folder.games() == local_games
    assert moves_stored_once(folder)


def job(game_id: int, spec: BotSpec) -> GameJob:
    other = BotSpec(name="random", kind="python", target="bots.randombot")
    return GameJob(game_id, {"name": "tictactoe", "params": {}}, (spec, other), game_id, TimeControl(move=5.0))


def test_a_node_without_a_bots_interpreter_says_so(cluster):
    from arena.runners.dask_runner import DaskRunner

    missing = BotSpec(name="old", kind="python", target="bots.randombot", python="/opt/no-such/python2.7")
    with DaskRunner(cluster.address) as runner, pytest.raises(RunnerError) as caught:
        list(runner.run([job(1, missing)]))
    said = str(caught.value)
    assert "cannot run bot 'old': it has no interpreter '/opt/no-such/python2.7'" in said
    assert said.startswith("node ") and "(Dask worker tcp://127.0.0.1:" in said


def test_an_unreachable_scheduler_is_a_clear_error_and_stores_nothing(tmp_path):
    from arena.runners.dask_runner import DaskRunner

    address = f"tcp://127.0.0.1:{free_port()}"
    started = time.monotonic()
    with pytest.raises(ClusterError, match=rf"cannot reach the Dask scheduler at {address} within 2 s"):
        DaskRunner(address, timeout=2).open()
    assert time.monotonic() - started < 60
    folder = TournamentFolder(tmp_path, TOURNAMENT, ("slow_seeded_random",))
    result = folder.run("--cluster", "udp://somewhere")
    assert result.returncode == 2
    assert result.stderr.startswith("error: cluster address: String should match pattern")
    assert not folder.database.exists() or folder.games() == []


def test_a_node_scales_time_limits_by_its_speed_and_records_it(cluster):
    from arena.runners.dask_runner import DaskRunner

    bot = BotSpec(name="random", kind="python", target="bots.randombot")
    with DaskRunner(cluster.address, scale_time=True) as runner:
        (record,) = runner.run([job(1, bot)])
    assert record.termination.value == "normal"
    assert 0.01 < record.time_scale < 100 and record.time_scale != 1.0


def test_a_bots_code_travels_by_its_hash_and_unpacks_the_same(tmp_path):
    from arena.entrants.kinds import Code, package_files
    from arena.runners.dask_node import bundle, unpack

    package = tmp_path / "planner" / "team7"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "bot.py").write_text("def move(state, clock):\n    return state.legal_moves()[0]\n")
    (package / "sub" / "table.txt").write_text("42\n")
    packed = bundle(str(package))
    root = unpack(packed, tmp_path / "node")
    assert root == tmp_path / "node" / packed.digest / "team7"
    assert Code(root, package_files(root)).digest() == packed.digest == Code(package, package_files(package)).digest()
    assert (root / "sub" / "table.txt").read_text() == "42\n"
    assert unpack(packed, tmp_path / "node") == root  # once: the folder is named by the hash


def test_a_code_pack_that_lies_about_its_hash_is_refused_and_takes_no_folder(tmp_path):
    # a pack claiming another bot's hash once took over the folder of that hash on the node
    from arena.runners.dask_node import Bundle, NodeError, bundle, unpack

    honest, other = tmp_path / "honest.py", tmp_path / "other.py"
    honest.write_text("def move(state, clock):\n    return state.legal_moves()[0]\n")
    other.write_text("def move(state, clock):\n    return state.legal_moves()[-1]\n")
    lying = Bundle(bundle(str(honest)).digest, "other.py", bundle(str(other)).data)
    with pytest.raises(NodeError, match=f"claims the hash {lying.digest} but holds code of "):
        unpack(lying, tmp_path / "node")
    assert not (tmp_path / "node" / lying.digest).exists()
    assert unpack(bundle(str(honest)), tmp_path / "node").read_text() == honest.read_text()


def test_a_game_of_your_own_travels_to_a_node_by_its_hash(tmp_path):
    from arena.games import get_game_from_spec
    from arena.games.loading import load_game
    from arena.runners.dask_node import NodeError, bundle, game_here

    mine = tmp_path / "planner" / "connect4.py"
    mine.parent.mkdir()
    mine.write_bytes((REPO / "examples" / "games" / "connect4.py").read_bytes())
    spec = load_game({"module": str(mine)}, {"rows": 5}).spec()
    here = game_here(spec, {str(mine): bundle(str(mine))}, tmp_path / "node", "worker w")
    assert Path(here["module"]).parent.parent == tmp_path / "node" and here["code_hash"] == spec["code_hash"]
    mine.unlink()  # the node loads its own copy, checked by the hash
    assert get_game_from_spec(here).params == {"rows": 5, "cols": 7}
    assert game_here({"name": "uttt", "params": {}}, {}, tmp_path / "node", "worker w") == {
        "name": "uttt",
        "params": {},
    }
    other = tmp_path / "other.py"
    other.write_text((REPO / "examples" / "games" / "connect4.py").read_text() + "\n# changed\n")
    with pytest.raises(NodeError, match=r"was sent code of hash \w+ for game 'connect4', planned with"):
        game_here(spec, {spec["module"]: bundle(str(other))}, tmp_path / "node", "worker w")
    with pytest.raises(NodeError, match="was not sent the code of game 'connect4'"):
        game_here(spec, {}, tmp_path / "node", "worker w")


@pytest.mark.slow
def test_a_seasons_ladder_plays_on_the_cluster(tmp_path, cluster):
    db = f"sqlite:///{tmp_path / 's.sqlite3'}"
    assert arena("season", "create", "fall", "--game", "tictactoe", "--db", db, cwd=tmp_path).returncode == 0
    added = arena("season", "teams", "add", "fall", "red", "blue", "--db", db, cwd=tmp_path)
    tokens = dict(line.split("\t") for line in added.stdout.splitlines())
    bots = Path(__file__).resolve().parent.parent / "bots"
    for team, bot in (("red", "randombot.py"), ("blue", "rules.py")):
        (tmp_path / bot).write_bytes((bots / bot).read_bytes())
        done = arena("season", "submit", "fall", bot, "--token", tokens[team], "--db", db, cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
    done = arena("season", "ladder", "fall", "--games", "4", "--cluster", cluster.address, "--db", db, cwd=tmp_path)
    assert done.returncode == 0, done.stderr + cluster.log()
    assert "Played 4 ladder games" in done.stdout
    with sqlite3.connect(tmp_path / "s.sqlite3") as connection:
        rows = connection.execute("SELECT status, node FROM games").fetchall()
    assert rows == [("finished", this_node().host)] * 4


def test_a_node_cannot_make_the_run_unpickle_what_it_sends_back(cluster, tmp_path):
    # game records once came back from the nodes as pickles: a node (or anyone who reached the
    # scheduler) could run code in `arena run`, on the database's machine
    from arena.runners.dask_runner import DaskRunner

    marker = tmp_path / "ran-in-the-run"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    def sends_a_pickle():
        return "tcp://node", [Payload()]

    with DaskRunner(cluster.address) as runner:
        assert runner.client is not None
        future = runner.client.submit(sends_a_pickle, pure=False)
        with pytest.raises(TypeError, match=r"only able to deserialize data with \['msgpack'\]"):
            future.result()
    assert not marker.exists()


def played(moves: list[int], **fields) -> str:
    """A node's JSON record of game 1 (tictactoe), ``moves`` played in turn."""
    from arena.core.records import GameRecord, MoveRecord, record_to_json

    record = GameRecord(1, [MoveRecord(ply % 2, str(m), 1.0, None) for ply, m in enumerate(moves)], **fields)
    return record_to_json(record)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (played([0, 3, 1, 4, 2], winner=0), None),
        (played([0, 3, 1, 4], winner=0), "ended normally before the game was over"),
        (played([0, 3, 1, 4, 2], winner=1), "its result is not the one its moves give"),
        (played([0, 0]), "ply 2: "),
        (played([0, 3], winner=0, termination=Termination.TIMEOUT, offender=1), None),
        (played([0, 3], winner=1, termination=Termination.TIMEOUT, offender=1), "its result is not"),
        (played([0]).replace('"game_id": 1', '"game_id": 7'), "game 7 was not given to it"),
        (played([0]).replace("[[0, ", "[[70, "), "70: a seat, 0 to 63"),
        (played([0]).replace("[[0, ", "[[1, "), "ply 1 was played by seat 1, not the seat to move"),
        (played([0]).replace("[[0, ", "[[-1, "), "ply 1 was played by seat -1, not the seat to move"),
        ('{"game_id": 1}', "not an object with a game record's fields"),
        (played([0, 3, 1, 4, 2], winner=0, started_at=1e300, finished_at=1e300), "its times are not those of a game"),
        ("[" * 100_000, "not JSON"),
    ],
)
def test_the_run_takes_from_a_node_only_records_of_games_it_could_have_played(text, why):
    from arena.runners.dask_runner import checked

    jobs = [job(1, BotSpec(name="random", kind="python", target="bots.randombot"))]
    if why is None:
        assert checked(text, jobs, "tcp://node").game_id == 1
    else:
        with pytest.raises(
            RunnerError, match=f"node tcp://node sent a record that is not a game it could.*{re.escape(why)}"
        ):
            checked(text, jobs, "tcp://node")

"""A course TA's first day, as the README tells it: a league file with every mistake a newcomer
makes is refused before any game, with every problem at once; the fixed file runs; the
standings, the games and one game in full answer; a changed file is refused under the same
name until ``--restart``; and ``arena delete`` removes the tournament. The real ``arena``
command throughout, in a folder of its own."""

from __future__ import annotations

import json

import pytest

from tests.fixtures.harnesskit import arena, without_root_warning

pytestmark = pytest.mark.slow

MISTAKES = """\
name: league
game: {name: othello, params: {size: 6}}
seed: 3
time: {move: 0.5, startup: 10}
bots:
  mcts: {module: bots.uct, params: {iteration: 20}}
  deep: {module: bots.minimax, params: {depth: three}}
  wide: {module: bots.uct, params: {c: -1}}
  rules: {module: bots.rules}
stages: [{games_per_pair: 1}]
"""

FIXED = """\
name: league
game: {name: othello, params: {size: 6}}
seed: 3
time: {move: 0.5, startup: 10}
bots:
  mcts: {module: bots.uct, params: {iterations: 20}}
  deep: {module: bots.minimax, params: {depth: 1}}
  rand: {module: bots.randombot}
stages: [{games_per_pair: 1}]
"""


def test_a_newcomer_sees_every_mistake_before_any_game_then_runs_reads_restarts_and_deletes(tmp_path):
    database = tmp_path / "db" / "arena.sqlite3"
    db = ("--db", f"sqlite:///{database}")

    def run(*args: str, input: str = ""):
        return arena(*args, *db, cwd=tmp_path, input=input, timeout=300)

    league = tmp_path / "league.yaml"
    league.write_text(MISTAKES)
    for command in (("run", str(league), "--check"), ("run", str(league), "-q")):
        refused = run(*command)
        problems = without_root_warning(refused.stderr).splitlines()
        assert refused.returncode == 2, refused.stderr
        assert problems[0] == f"error: {league}: 4 problems with the tournament's bots; nothing was stored or played:"
        assert problems[1].startswith("  bots.mcts: bot 'uct' has no parameter 'iteration'; its parameters: ")
        assert problems[2].startswith("  bots.deep: bot 'minimax': parameter 'depth' cannot be 'three'")
        assert problems[3].startswith("  bots.wide: bot 'uct': parameter 'c' cannot be -1")
        assert problems[4] == "  bots.rules: bot 'bots.rules' does not play 'othello'; it plays tictactoe, uttt, xtreme"
        assert not database.exists()  # nothing stored, not even the database
        assert not database.parent.exists()  # nor an empty folder for it

    league.write_text(FIXED.replace("time: {", "limits: {memory_mb: 1e20}\ntime: {"))
    absurd = run("run", str(league), "-q")
    assert absurd.returncode == 2
    assert "limits.memory_mb: at most 1048576 MB (1 TiB)" in absurd.stderr
    assert "Traceback" not in absurd.stderr
    assert not database.exists()

    league.write_text(FIXED)
    checked = run("run", str(league), "--check")
    assert (checked.returncode, checked.stdout.strip()) == (0, "ok: 3 bots of 3 teams checked")
    assert not database.exists()
    played = run("run", str(league), "-q")
    assert played.returncode == 0, played.stderr
    assert sorted(p.name for p in database.parent.iterdir()) == ["arena.sqlite3", "league.log"]

    standings = json.loads(run("standings", "--json").stdout)
    assert [place["place"] for place in standings["standings"]] == [1, 2, 3]
    listed = run("games", "--limit", "1")
    assert listed.returncode == 0
    assert "showing the newest 1 of 3 games; --limit N or --all for more" in listed.stderr
    shown = run("games", "show", "1")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("game 1 of league: othello")
    bots = {row["name"] for row in json.loads(run("bots", "--json").stdout)}
    assert {"mcts", "deep", "rand", "bots.uct", "bots.minimax"} <= bots  # declared and built-in

    league.write_text(FIXED.replace("depth: 1", "depth: 2"))
    changed = run("run", str(league), "-q")
    assert changed.returncode == 2
    assert "--restart" in changed.stderr
    restarted = run("run", str(league), "-q", "--restart")
    assert restarted.returncode == 0, restarted.stderr
    assert [row["status"] for row in json.loads(run("tournaments", "--json").stdout)] == ["finished"]

    kept = run("delete", "league", input="n\n")
    assert kept.returncode == 1
    deleted = run("delete", "league", "--yes")
    assert deleted.returncode == 0, deleted.stderr
    assert json.loads(run("tournaments", "--json").stdout) == []

"""The 2019 course tournament: the shipped event is valid, and a small one runs end to end."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from arena.contests.config import load_config
from arena.contests.stages import expected_games
from arena.games import get_game
from tests.fixtures.harnesskit import arena_here

ROOT = Path(__file__).resolve().parent.parent
COURSE_BOT = ROOT / "tests" / "fixtures" / "course" / "team2.py"


def test_the_default_tournament_is_the_72_team_course_event():
    config, _ = load_config(ROOT / "tournament.yaml")
    teams = config.team_bots()
    assert len(teams) == 72 and list(teams) == [f"Team{n}" for n in range(1, 73)]
    assert (config.game.name, config.scoring) == ("xtreme", "course2019")
    assert [(s.pools, s.seeding, s.games_per_pair, s.advance) for s in config.stages] == [
        (10, "random", 2, 3),
        (3, "snake", 2, 3),
        (1, "snake", 2, None),
    ]
    assert expected_games(config) == 790


def test_every_team_of_the_roster_is_a_bot_that_plays_xtreme():
    config, _ = load_config(ROOT / "tournament.yaml")
    game = get_game("xtreme")
    families = set()
    for name in config.team_bots().values():
        definition = config.bots[name]
        module = __import__(definition.module, fromlist=["make_bot"])
        module.make_bot(game, 0, random.Random(1), **definition.params)  # raises on a bad parameter
        families.add(definition.module)
    assert families == {
        f"bots.{name}"
        for name in (
            "randombot",
            "rules",
            "onestep",
            "flatmc",
            "uct",
            "hmcts",
            "minimax",
            "qlearning",
            "sarsa",
            "unreliable",
        )
    }


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "arena", *args], capture_output=True, text=True, cwd=cwd, timeout=300)


@pytest.mark.slow
def test_a_small_course_tournament_through_run_leaderboard_replay_and_report(tmp_path):
    (tmp_path / "small.yaml").write_text(
        yaml.safe_dump(
            {
                "name": "small-course",
                "game": "xtreme",
                "seed": 3,
                "scoring": "course2019",
                "time": {"move": 1.0},
                "workers": 2,
                "bots": {
                    "random": {"module": "bots.randombot"},
                    "onestep": {"module": "bots.onestep"},
                    "rules": {"module": "bots.rules"},
                    "team2": {"course": str(COURSE_BOT)},
                },
                "teams": {"A": "random", "B": "onestep", "C": "rules", "D": "team2", "E": "random", "F": "onestep"},
                "stages": [
                    {"name": "group", "pools": 2, "games_per_pair": 2, "advance": 1},
                    {"name": "final", "seeding": "snake", "games_per_pair": 2},
                ],
            }
        )
    )
    db = f"sqlite:///{tmp_path / 'arena.sqlite3'}"
    run = arena("run", "small.yaml", "--db", db, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "Finished: 14 games" in run.stdout

    board = json.loads(arena_here("leaderboard", "small-course", "--db", db, "--json", cwd=tmp_path).stdout)
    assert sum(line["games"] for line in board["leaderboard"]) == 28
    games = json.loads(
        arena_here("games", "--tournament", "small-course", "--db", db, "--json", "--limit", "100", cwd=tmp_path).stdout
    )
    assert len(games) == 14 and all(g["status"] == "finished" for g in games)
    for g in games:  # course points: 86/0 for a win or a forfeit, small boards on a draw
        assert (sum(g["points"]) == 86 and 86 in g["points"]) if g["winner"] is not None else sum(g["points"]) <= 86
    group = [g for g in games if g["stage"] == 0]
    final = [g for g in games if g["stage"] == 1]
    assert (len(group), len(final)) == (12, 2)
    finalists = {g["first"] for g in final} | {g["second"] for g in final}
    assert len(finalists) == 2
    assert any("D" in (g["first"], g["second"]) for g in group)  # the course bot played

    course_game = next(g for g in group if "D" in (g["first"], g["second"]))
    replay = arena_here("replay", str(course_game["id"]), "--db", db, cwd=tmp_path)
    assert replay.returncode == 0, replay.stderr
    assert "re-played through the engine" in replay.stdout

    out = tmp_path / "site"
    report = arena_here("report", "small-course", "--db", db, "--out", str(out), cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    index = (out / "index.html").read_text()
    assert "Podium" in index and "final" in index
    assert (out / "games" / f"{course_game['id']}.html").exists()

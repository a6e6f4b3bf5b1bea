"""Every stage format through ``arena run`` with real bots (``bots.rules``, which never loses at
tic-tac-toe, and ``bots.randombot``): a gauntlet, a Swiss, an adaptive stage and a knockout one
after another, their pairings observed in the stored games, the standings and the bracket shown
by ``arena leaderboard --stage`` and the report; and a Swiss killed in the middle resuming to
the games of a run never killed."""

from __future__ import annotations

import json
import signal
import sqlite3
from collections import Counter, defaultdict
from contextlib import closing

import pytest

from tests.fixtures.harnesskit import TournamentFolder, arena_here, finished_games, stop

pytestmark = pytest.mark.slow

TOURNAMENT = """\
name: formats
game: tictactoe
seed: 5
time: {move: 1.0}
workers: 2
bots:
  rules: {module: bots.rules}
  random: {module: bots.randombot}
teams: {r1: rules, r2: rules, r3: rules, x1: random, x2: random, x3: random, x4: random, x5: random}
stages:
  - {name: gauntlet, format: gauntlet, named: [r1], games_per_pair: 2, advance: 7}
  - {name: swiss, format: swiss, rounds: 3, games_per_pair: 2, seeding: order, advance: 5}
  - {name: league, format: adaptive, games_per_pair: 1, budget: 16, advance: 4}
  - {name: cup, format: knockout, seeding: order, games_per_pair: 2}
"""
RULES = {"r1", "r2", "r3"}


class Folder(TournamentFolder):
    def rounds(self) -> dict[int, int]:
        """Each game's round."""
        with closing(sqlite3.connect(self.database)) as connection:
            return dict(connection.execute("SELECT id, round FROM games").fetchall())


class Played:
    """The tournament run once with ``arena run``, and what it stored."""

    def __init__(self, folder: Folder) -> None:
        self.folder = folder
        self.result = folder.run()
        self.games = [
            {"id": g[0], "stage": g[1], "first": g[3], "second": g[4], "status": g[5], "winner": g[6]}
            for g in folder.games()
        ]
        rounds = folder.rounds()
        for game in self.games:
            game["round"] = rounds[game["id"]]

    def stage(self, number: int) -> list[dict]:
        return [game for game in self.games if game["stage"] == number]

    def leaderboard(self, stage: str, *more: str) -> str:
        result = arena_here("leaderboard", "--stage", stage, "--db", self.folder.url, *more, cwd=self.folder.path)
        assert result.returncode == 0, result.stderr
        return result.stdout


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Played:
    return Played(Folder(tmp_path_factory.mktemp("formats"), TOURNAMENT, ()))


def pair(game: dict) -> frozenset[str]:
    return frozenset((game["first"], game["second"]))


def test_every_stage_is_played_to_its_end(played):
    assert played.result.returncode == 0, played.result.stderr
    assert {game["status"] for game in played.games} == {"finished"}
    assert [game["stage"] for game in played.games] == sorted(game["stage"] for game in played.games)


def test_the_gauntlet_pairs_its_named_team_with_everyone_else_twice(played):
    assert Counter(pair(game) for game in played.stage(0)) == {
        frozenset(("r1", team)): 2 for team in ("r2", "r3", "x1", "x2", "x3", "x4", "x5")
    }


def test_the_swiss_plays_three_rounds_with_a_bye_each_and_no_pair_twice(played):
    games = played.stage(1)
    field = set().union(*(pair(game) for game in games))
    rounds = defaultdict(set)
    for game in games:
        rounds[game["round"]] |= pair(game)
    assert len(field) == 7 and sorted(rounds) == [0, 1, 2]
    byes = [field - rounds[number] for number in range(3)]
    assert [len(bye) for bye in byes] == [1, 1, 1] and len(set().union(*byes)) == 3
    assert set(Counter(pair(game) for game in games).values()) == {2}  # each pairing's mini-match, once
    assert len(games) == 18


def test_the_adaptive_stage_plays_exactly_its_budget(played):
    games = played.stage(2)
    assert len(games) == 16
    assert sum(game["round"] < 5 for game in games) == 10  # its round robin of five teams first


def test_the_knockout_decides_drawn_matches_by_extra_pairs_then_by_seed(played):
    data = json.loads(played.leaderboard("cup", "--json"))
    matches = [match for round_ in data["bracket"] for match in round_["matches"]]
    assert [round_["name"] for round_ in data["bracket"]] == ["semi-final", "final"]
    between_rules = [m for m in matches if {m["high"], m["low"]} <= RULES]
    assert between_rules, "no knockout match between two bots that never lose"
    for match in between_rules:  # bots.rules draws every game against itself
        assert (match["games"], match["points"], match["winner"], match["by_seed"]) == (
            8,
            [4.0, 4.0],
            match["high"],
            True,
        )
    champion = data["pools"][0]["standings"][0]
    assert (champion["rank"], champion["reached"]) == (1, "champion")


def test_the_run_counts_the_knockouts_extra_games_in_its_total(played):
    assert played.result.returncode == 0
    listed = json.loads(arena_here("tournaments", "--json", "--db", played.folder.url, cwd=played.folder.path).stdout)
    assert listed[0]["games_finished"] == len(played.games)
    board = json.loads(arena_here("leaderboard", "--json", "--db", played.folder.url, cwd=played.folder.path).stdout)
    assert (board["complete"], board["games_expected"]) == (True, len(played.games))


def test_each_stage_is_labelled_with_its_format(played):
    assert "stage gauntlet (gauntlet of r1; complete)" in played.leaderboard("gauntlet")
    assert "stage swiss (Swiss, 3 of 3 rounds; complete)" in played.leaderboard("swiss")
    assert "stage league (adaptive, 16 of 16 games; complete)" in played.leaderboard("league")
    cup = played.leaderboard("cup")
    assert "stage cup (knockout; complete)" in cup and "bracket" in cup and "by seed" in cup


def test_the_report_shows_each_stages_format_and_the_bracket(played, tmp_path):
    result = arena_here("report", "--db", played.folder.url, "--out", str(tmp_path / "site"), cwd=played.folder.path)
    assert result.returncode == 0, result.stderr
    index = (tmp_path / "site" / "index.html").read_text()
    for label in ("gauntlet of r1", "Swiss, 3 of 3 rounds", "adaptive, 16 of 16 games", "Buchholz", "Elo"):
        assert label in index, label
    assert 'id="bracket-3"' in index and "by seed" in index


# ---------------------------------------------------------------- killed in the middle of a Swiss

SWISS = (
    "name: swiss\ngame: tictactoe\nseed: 2\ntime: {move: 1.0}\nworkers: 2\nbots:\n"
    + "".join(f"  team-{n}: {{path: slow_seeded_random.py}}\n" for n in range(6))
    + "stages:\n  - {format: swiss, rounds: 3, games_per_pair: 1}\n"
)


def test_a_swiss_killed_in_the_middle_resumes_to_the_games_of_a_run_never_killed(tmp_path):
    (tmp_path / "whole").mkdir()
    (tmp_path / "killed").mkdir()
    whole = TournamentFolder(tmp_path / "whole", SWISS, ("slow_seeded_random",))
    assert whole.run().returncode == 0
    killed = TournamentFolder(tmp_path / "killed", SWISS, ("slow_seeded_random",))
    process = killed.start()
    killed.wait_for_games(process, 4)  # into the second round
    stop(process, signal.SIGKILL)
    assert 4 <= finished_games(killed.database) < 9
    resumed = killed.run()
    assert resumed.returncode == 0, resumed.stderr
    assert killed.games() == whole.games()
    assert len(whole.games()) == 9

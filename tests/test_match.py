"""``arena match``: two bots play pairs of games (one seed, the seats swapped) in the
tournament's sandboxed workers, stored as a tournament of their own; a line after each pair
with the score, Elo and the LLR; an SPRT that stops the match once it decides; its settings read
strictly. And the runner's drain, which lets the games under way finish and starts no more."""

from __future__ import annotations

import re
import sqlite3

import pytest

from arena.runners.local import LocalRunner
from tests.builders import create, league_config
from tests.fixtures.harnesskit import BOTS, arena, job, match, python_bot, run_arena

PAIR_LINE = re.compile(
    r"pair (\d+): (\d+) games, (\S+) (\d+)-(\d+)-(\d+) \(W-D-L\), score (\d+\.\d) %, Elo (\S+) ± (\S+)"
    r"(?:, LLR (-?\d+\.\d\d) \((-?\d+\.\d\d), (-?\d+\.\d\d)\))?$"
)


def first_bot_record(games: list[tuple], team: str) -> tuple[int, int, int]:
    """``team``'s wins, draws and losses in ``games`` (as ``match`` gives them)."""
    wins = sum(1 for _, _, a, b, _, winner, _ in games if winner is not None and (a, b)[winner] == team)
    draws = sum(1 for *_, winner, _ in games if winner is None)
    return wins, draws, len(games) - wins - draws


@pytest.mark.slow
def test_a_match_plays_its_games_in_pairs_of_one_seed_with_the_seats_swapped(tmp_path):
    done, games = match(
        tmp_path, "bots.randombot", "bots.rules", "--game", "tictactoe", "--games", "6", "--time", "1", "--name", "m1"
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == (
        "Match randombot vs rules: tictactoe, up to 6 games in pairs (seats swapped), 1 s a move (wall clock), "
        "2 workers; stored as tournament 'm1'."
    )
    assert [(r, n, a, b, status) for r, n, a, b, _, _, status in games] == [
        (0, 0, "randombot", "rules", "finished"),
        (0, 1, "rules", "randombot", "finished"),
        (1, 2, "randombot", "rules", "finished"),
        (1, 3, "rules", "randombot", "finished"),
        (2, 4, "randombot", "rules", "finished"),
        (2, 5, "rules", "randombot", "finished"),
    ]
    seeds = [seed for *_, seed, _, _ in games]
    assert seeds[0] == seeds[1] and seeds[2] == seeds[3] and seeds[4] == seeds[5] and len(set(seeds)) == 3
    pairs = [PAIR_LINE.match(line) for line in lines[1:4]]
    assert [(m.group(1), m.group(2), m.group(3)) for m in pairs] == [
        ("1", "2", "randombot"),
        ("2", "4", "randombot"),
        ("3", "6", "randombot"),
    ]
    assert all(m.group(10) is None for m in pairs)  # no test, no LLR
    wins, draws, losses = first_bot_record(games, "randombot")
    assert tuple(int(g) for g in pairs[-1].group(4, 5, 6)) == (wins, draws, losses)
    assert lines[4].startswith(f"Played 6 games: randombot {wins}-{draws}-{losses} (W-D-L), score ")
    assert lines[4].endswith(" s)") and " against rules (" in lines[4]
    assert lines[5] == "Stored as tournament 'm1': see 'arena leaderboard m1'."
    board = arena(
        "leaderboard", "m1", "--rating", "elo", "--json", "--db", f"sqlite:///{tmp_path / 'm.sqlite3'}", cwd=tmp_path
    )
    assert '"games_finished": 6' in board.stdout and '"games_expected": 6' in board.stdout
    assert '"status": "finished"' in board.stdout and '"complete": true' in board.stdout


@pytest.mark.slow
def test_the_sprt_stops_a_lopsided_match_once_it_accepts_h1(tmp_path):
    done, games = match(
        tmp_path,
        *("bots.minimax", "bots.randombot", "--game", "tictactoe", "--games", "200", "--time", "1"),
        *("--sprt", "elo0=0,elo1=100,alpha=0.2,beta=0.2", "--name", "lopsided"),
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].endswith("; SPRT elo0=0,elo1=100,alpha=0.2,beta=0.2; stored as tournament 'lopsided'.")
    pairs = [PAIR_LINE.match(line) for line in lines[1:-2]]
    assert all(pairs) and [int(m.group(1)) for m in pairs] == list(range(1, len(pairs) + 1))
    assert {(m.group(11), m.group(12)) for m in pairs} == {("-1.39", "1.39")}
    decided = next(i for i, m in enumerate(pairs) if float(m.group(10)) >= 1.39)
    # after the deciding pair only the games under way finish, one a worker (each starts the game
    # it was given ahead as it sends a record; the others given ahead are skipped): a pair each
    workers = int(re.search(r", (\d+) workers", lines[0]).group(1))
    assert len(pairs) - (decided + 1) <= workers
    played = 2 * len(pairs)
    assert played < 200 and len(games) == played and all(g[-1] == "finished" for g in games)
    late = (
        ""
        if len(pairs) == decided + 1
        else (f" ({played} played: the games under way then finished, LLR now {pairs[-1].group(10)})")
    )
    assert lines[-2].startswith(
        f"H1 accepted after {2 * (decided + 1)} games: LLR {pairs[decided].group(10)} reached 1.39{late}; for "
        "minimax against randombot the test favours elo1=100 over elo0=0 ("
    )
    wins, draws, losses = first_bot_record(games, "minimax")
    assert losses == 0 and tuple(int(g) for g in pairs[-1].group(4, 5, 6)) == (wins, draws, losses)


@pytest.mark.parametrize(
    ("counts", "shown"),
    [
        ((0, 1, 3, 4, 2), "Elo +127 ± 116"),  # pairs of every kind: a finite interval
        ((0, 0, 0, 3, 0), "Elo +191 ± inf"),  # every pair a win and a draw: no spread, the width unknown
        ((0, 0, 3, 0, 0), "Elo 0 ± inf"),  # every pair two draws (or a win and a loss)
        ((0, 0, 0, 1, 2), "Elo +417 ± inf"),  # too near 100 % for the interval to stay below it
        ((0, 0, 0, 0, 3), "Elo +inf ± inf"),  # 100 %
        ((1, 0, 0, 0, 0), "Elo -inf ± inf"),  # 0 %
    ],
)
def test_the_elo_of_a_match_is_a_number_or_inf_never_nan_nor_a_zero_width(counts, shown):
    from arena.commands.match import elo_text
    from arena.stats.matchstats import pair_stats

    assert elo_text(pair_stats(counts)) == shown


def test_one_pair_won_twice_prints_an_unbounded_elo_and_interval(tmp_path):
    done, games = match(
        tmp_path, "bots.minimax", str(BOTS / "first_legal.py"), "--game", "tictactoe", "--games", "2", "--name", "m2"
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1] == "pair 1: 2 games, minimax 2-0-0 (W-D-L), score 100.0 %, Elo +inf ± inf"
    assert lines[2].startswith("Played 2 games: minimax 2-0-0 (W-D-L), score 100.0 %, Elo +inf ± inf against ")
    assert len(games) == 2


# ---------------------------------------------------------------- refused before anything runs


@pytest.mark.parametrize(
    ("sprt", "message"),
    [
        ("", "--sprt: nothing given; write e.g. elo0=0,elo1=5,alpha=0.05,beta=0.05 (alpha and beta default to 0.05)"),
        ("elo0=0", "--sprt: elo1 is missing; write e.g. elo0=0,elo1=5,alpha=0.05,beta=0.05"),
        ("alpha=0.1", "--sprt: elo0 and elo1 are missing; write e.g. elo0=0,elo1=5,alpha=0.05,beta=0.05"),
        (
            "elo0=0,,elo1=5",
            "--sprt 'elo0=0,,elo1=5': an empty setting (a comma too many); write e.g. "
            "elo0=0,elo1=5,alpha=0.05,beta=0.05",
        ),
        (
            "elo0=0,elo1=5,",
            "--sprt 'elo0=0,elo1=5,': an empty setting (a comma too many); write e.g. "
            "elo0=0,elo1=5,alpha=0.05,beta=0.05",
        ),
        ("elo0:0,elo1=5", "--sprt: 'elo0:0' is not name=value; write e.g. elo0=0,elo1=5,alpha=0.05,beta=0.05"),
        ("elo0=0,elo1=5,gamma=1", "--sprt: unknown setting 'gamma'; the settings are elo0, elo1, alpha and beta"),
        ("ELO0=0,elo1=5", "--sprt: unknown setting 'ELO0'; the settings are elo0, elo1, alpha and beta"),
        ("elo0=0,elo1=5,elo1=6", "--sprt: elo1 is given twice"),
        ("elo0=zero,elo1=5", "--sprt: elo0='zero' is not a number"),
        ("elo0=0,elo1=inf", "--sprt: elo1='inf' is not a finite number"),
        ("elo0=nan,elo1=5", "--sprt: elo0='nan' is not a finite number"),
        ("elo0=5,elo1=0", "--sprt: elo0 must be below elo1 (both finite), got elo0=5.0 and elo1=0.0"),
        (
            "elo0=0,elo1=5,alpha=0",
            "--sprt: alpha and beta must be between 0 and 1 with alpha + beta < 1, got 0.0 and 0.05",
        ),
        (
            "elo0=0,elo1=5,alpha=0.5,beta=0.5",
            "--sprt: alpha and beta must be between 0 and 1 with alpha + beta < 1, got 0.5 and 0.5",
        ),
    ],
)
def test_a_bad_sprt_string_is_refused_saying_what_is_wrong(tmp_path, sprt, message):
    database = tmp_path / "m.sqlite3"
    result = run_arena(
        "match", "bots.randombot", "bots.rules", "--game", "tictactoe", "--sprt", sprt, "--db", f"sqlite:///{database}"
    )
    assert result.exit_code != 0
    assert str(result.exception) == message
    assert not database.exists()  # refused before the database is opened


def test_an_odd_number_of_games_is_refused():
    result = run_arena("match", "bots.randombot", "bots.rules", "--game", "tictactoe", "--games", "7")
    assert str(result.exception) == "--games 7: give an even number; the games are played in pairs, seats swapped"


def test_an_unknown_bot_name_says_what_a_bot_may_be(cli):
    result = cli("match", "nosuchbot", "bots.rules", "--game", "tictactoe")
    assert str(result.exception) == (
        "no registered bot 'nosuchbot'; registered: none (or give a module like bots.uct or a .py file)"
    )


def test_an_unknown_game_is_refused_naming_the_games(cli):
    result = cli("match", "bots.randombot", "bots.rules", "--game", "chess")
    assert str(result.exception).startswith("--game 'chess': unknown game 'chess'")


def test_a_name_taken_by_a_tournament_is_refused_and_nothing_is_stored(tmp_path):
    url = f"sqlite:///{tmp_path / 'm.sqlite3'}"
    create(url, league_config())
    result = run_arena("match", "bots.randombot", "bots.rules", "--game", "tictactoe", "--name", "league", "--db", url)
    assert str(result.exception) == (
        "tournament 'league' already exists; choose another name with --name (a match is stored as a tournament "
        "of its own)"
    )
    with sqlite3.connect(tmp_path / "m.sqlite3") as connection:
        assert connection.execute("SELECT name FROM tournaments").fetchall() == [("league",)]


# ---------------------------------------------------------------- the runner's drain


def test_a_drained_runner_finishes_the_games_under_way_and_starts_no_more():
    runner = LocalRunner(1)
    first, random = python_bot("first_legal"), python_bot("seeded_random")
    played = []
    for record in runner.run([job(first, random, game_id=n) for n in range(1, 7)]):
        played.append(record.game_id)
        runner.drain()
    # the worker was given game 2 with game 1, ahead of the drain: it finishes; game 3 is never given
    assert played == [1, 2]


def test_a_drain_skips_the_games_given_ahead_that_no_worker_started():
    fast, slow = python_bot("first_legal"), python_bot("slow_first_legal")
    runner = LocalRunner(2)
    played = []
    # the first worker plays the quick games 1, 3, 5, the second the slow ones 2, 4, 6 (its warm bots)
    jobs = [job(fast, fast, game_id=n) if n % 2 else job(slow, fast, game_id=n) for n in range(1, 7)]
    for record in runner.run(jobs):
        played.append(record.game_id)
        runner.drain()
    # game 1's worker had game 3 under way by then; game 4 waited behind the slow game 2: skipped
    assert played == [1, 3, 2]


class Scripted:
    """A runner whose games end as ``results`` says, by game number (0, 1, ...): the first
    seat's win (``0``), the second's (``1``), a draw (``None``) or ``"aborted"``, left
    unfinished by the harness; no bot is started."""

    def __init__(self, results: list[int | str | None]) -> None:
        self.results = results

    def run(self, jobs):
        from arena.core.records import GameRecord, Termination

        for number, game in enumerate(sorted(jobs, key=lambda j: j.game_id)):
            result = self.results[number]
            if result == "aborted":
                yield GameRecord(game.game_id, termination=Termination.ABORTED, detail="the harness failed")
            else:
                yield GameRecord(game.game_id, winner=result)

    def drain(self) -> None:
        pass


def test_a_game_left_unfinished_counts_for_nothing_and_its_pair_is_not_counted(tmp_path):
    """A game the harness could not finish has no result: not a draw in the score or the test,
    and its pair is left out whole; it stays stored, unrated, with why."""
    from arena.contests.config import BotDef, GameDef, TimeDef
    from arena.contests.match import Duel, match_config
    from arena.store.database import open_store

    url = f"sqlite:///{tmp_path / 'm.sqlite3'}"
    config = match_config(
        "m",
        GameDef(name="tictactoe"),
        (("a", BotDef(module="bots.randombot")), ("b", BotDef(module="bots.rules"))),
        6,
        TimeDef(move=1),
    )
    duel = Duel(config, None, open_store(url), tmp_path)
    duel.prepare()
    # pair 1: a wins both; pair 2: one game aborted (its other game a draw); pair 3: b wins as first seat, a as second
    score = duel.run(Scripted([0, 1, None, "aborted", 1, 1]))
    assert (score.pairs, score.games, score.wins, score.draws, score.losses) == (2, 4, 3, 0, 1)
    with sqlite3.connect(tmp_path / "m.sqlite3") as db:
        kept = db.execute("SELECT number, termination, detail FROM games ORDER BY number").fetchall()
    assert [(n, t) for n, t, _ in kept] == [(0, "normal"), (1, "normal"), (3, "aborted"), (4, "normal"), (5, "normal")]
    assert kept[2][2] == "the harness failed"

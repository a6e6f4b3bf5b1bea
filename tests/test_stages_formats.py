"""Stages of every format run by the tournament (``TournamentRun``): planned round by round from
the stored results, their pairings as the formats promise them, who goes on, what the read side
shows, and a run stopped in the middle of a stage resuming to the games of a run never stopped.

The games are scripted in this process (``ScriptedRunner``: tic-tac-toe games whose result a
rule picks from the two teams), so that the results, and the rounds paired from them, are known;
tests/test_formats_run.py plays formats with real bots through ``arena run``.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing
from pathlib import Path

import pytest
import yaml

from arena.contests.config import parse_config
from arena.contests.tournament import Progress, TournamentRun
from arena.core.job import GameJob
from arena.core.records import GameRecord
from arena.games import get_game
from arena.results.lookup import find_tournament
from arena.results.tournament_results import load_results
from arena.store.database import open_store
from tests.builders import scripted
from tests.fixtures.harnesskit import run_arena

ROOT = Path(__file__).resolve().parent.parent
TTT = get_game("tictactoe")
X_WINS = ["0", "3", "1", "4", "2"]
O_WINS = ["0", "3", "1", "4", "8", "5"]
DRAW = ["0", "1", "2", "4", "3", "5", "7", "6", "8"]

#: who wins a game: (first team, second team, how many games the two played before) -> the
#: winning seat, or None for a draw
Outcome = Callable[[str, str, int], int | None]


def by_number(first: str, second: str, _before: int) -> int | None:
    """The team with the lower number (``t1`` best) wins."""
    a, b = int(first[1:]), int(second[1:])
    return None if a == b else (0 if a < b else 1)


def higher_number(first: str, second: str, _before: int) -> int | None:
    """The team with the higher number (``t6`` of six best) wins."""
    a, b = int(first[1:]), int(second[1:])
    return None if a == b else (0 if a > b else 1)


def all_drawn(_first: str, _second: str, _before: int) -> None:
    return None


class ScriptedRunner:
    """A ``GameRunner`` that plays each job in this process as a scripted tic-tac-toe game whose
    result ``outcome`` picks; with ``stop_after``, it raises KeyboardInterrupt (as Ctrl-C does)
    when asked for the game after that many."""

    def __init__(self, outcome: Outcome, stop_after: int | None = None) -> None:
        self.outcome = outcome
        self.stop_after = stop_after
        self.played = 0
        self.met: Counter[frozenset[str]] = Counter()

    def run(self, jobs: Iterable[GameJob]) -> Iterator[GameRecord]:
        """Play ``jobs`` one after another."""
        for job in jobs:
            if self.stop_after is not None and self.played >= self.stop_after:
                raise KeyboardInterrupt
            first, second = job.bots[0].name, job.bots[1].name
            pair = frozenset((first, second))
            winner = self.outcome(first, second, self.met[pair])
            self.met[pair] += 1
            self.played += 1
            yield scripted(TTT, job.game_id, {0: X_WINS, 1: O_WINS, None: DRAW}[winner])


def tournament(stages: list[dict], teams: int = 6, name: str = "formats") -> str:
    """A tournament file of ``teams`` teams ``t1``... (listed best first) and ``stages``."""
    return yaml.safe_dump(
        {
            "name": name,
            "game": "tictactoe",
            "seed": 3,
            "bots": {"rand": {"module": "bots.randombot"}},
            "teams": {f"t{n}": "rand" for n in range(1, teams + 1)},
            "stages": stages,
        },
        sort_keys=False,
    )


class Stored:
    """A tournament's database after a run: its games, read back with plain SQL."""

    def __init__(self, url: str, path: Path) -> None:
        self.url = url
        self.path = path

    def games(self, stage: int | None = None) -> list[dict]:
        """Every game (of ``stage``) in schedule order: its id, stage, pool, round, number, teams,
        seed, status and winner."""
        with closing(sqlite3.connect(self.path)) as connection:
            connection.row_factory = sqlite3.Row
            rows = connection.execute(
                "SELECT g.id, g.stage, g.pool, g.round, g.number, a.team AS first, b.team AS second, g.seed, "
                "g.status, g.winner FROM games g "
                "JOIN game_seats s0 ON s0.game_id = g.id AND s0.seat = 0 JOIN entries a ON a.id = s0.entry_id "
                "JOIN game_seats s1 ON s1.game_id = g.id AND s1.seat = 1 JOIN entries b ON b.id = s1.entry_id "
                "ORDER BY g.id"
            ).fetchall()
        return [dict(row) for row in rows if stage is None or row["stage"] == stage]

    def pool(self, stage: int) -> list[str]:
        """The teams of stage ``stage``'s first pool, in seeding order."""
        with closing(sqlite3.connect(self.path)) as connection:
            return [
                team
                for (team,) in connection.execute(
                    "SELECT e.team FROM pool_entries p JOIN entries e ON e.id = p.entry_id "
                    "WHERE p.stage = ? AND p.pool = 0 ORDER BY p.seed",
                    (stage,),
                )
            ]

    def results(self):
        with open_store(self.url).begin() as session:
            return load_results(session, find_tournament(session))


def run(
    folder: Path, text: str, outcome: Outcome = by_number, stop_after: int | None = None
) -> tuple[Stored, Progress | None]:
    """Run (or resume) the tournament ``text`` in ``folder``'s database with scripted games;
    the stored games, and the run's progress (``None`` if it was stopped)."""
    path = folder / "t.db"
    url = f"sqlite:///{path}"
    config = parse_config(text)
    tournament_run = TournamentRun(config, text, open_store(url), ROOT)
    tournament_run.prepare()
    try:
        progress = tournament_run.run(ScriptedRunner(outcome, stop_after))
    except KeyboardInterrupt:
        progress = None
    return Stored(url, path), progress


def by_round(games: list[dict]) -> dict[int, list[dict]]:
    rounds: dict[int, list[dict]] = defaultdict(list)
    for game in games:
        rounds[game["round"]].append(game)
    return dict(rounds)


def pair(game: dict) -> frozenset[str]:
    return frozenset((game["first"], game["second"]))


#: a last stage: a round robin of the teams that went on, seeded in the order they came
ORDERED = {"name": "final", "seeding": "order"}

# ---------------------------------------------------------------- Swiss

SWISS = [{"name": "swiss", "format": "swiss", "rounds": 4, "games_per_pair": 2, "seeding": "order", "advance": 3}]


@pytest.fixture
def swiss(tmp_path) -> tuple[Stored, Progress]:
    """Seven teams, four Swiss rounds of two-game mini-matches, the top three on to a round robin."""
    stored, progress = run(
        tmp_path, tournament([*SWISS, {"name": "final", "seeding": "order", "games_per_pair": 1}], teams=7)
    )
    return stored, progress


def test_a_swiss_plays_its_rounds_one_after_another(swiss):
    stored, progress = swiss
    rounds = by_round(stored.games(0))
    assert {number: len(games) for number, games in rounds.items()} == {0: 6, 1: 6, 2: 6, 3: 6}
    ids = [game["id"] for number in range(4) for game in rounds[number]]
    assert ids == sorted(ids)  # round after round
    assert (progress.done, progress.total) == (27, 27)


def test_no_two_swiss_teams_meet_twice(swiss):
    stored, _ = swiss
    pairings = Counter(pair(game) for game in stored.games(0))
    assert len(pairings) == 12 and set(pairings.values()) == {2}
    assert all(len({game["round"] for game in stored.games(0) if pair(game) == p}) == 1 for p in pairings)


def test_each_swiss_team_moves_first_as_often_as_second(swiss):
    stored, _ = swiss
    balance = Counter()
    for game in stored.games(0):
        balance[game["first"]] += 1
        balance[game["second"]] -= 1
    assert set(balance.values()) == {0}


def test_each_swiss_round_has_one_bye_and_no_team_has_two(swiss):
    stored, _ = swiss
    teams = {f"t{n}" for n in range(1, 8)}
    byes = [
        teams - {team for game in games for team in (game["first"], game["second"])}
        for games in by_round(stored.games(0)).values()
    ]
    assert [len(bye) for bye in byes] == [1, 1, 1, 1]
    assert len(set().union(*byes)) == 4
    assert byes[0] == {"t7"}  # the lowest seed first


def test_swiss_standings_count_a_bye_as_a_win_of_each_game_and_rank_by_points_then_buchholz(swiss):
    stored, _ = swiss
    games = stored.games(0)
    points = Counter()
    for game in games:
        winner = game["winner"]
        for seat, team in enumerate((game["first"], game["second"])):
            points[team] += 0.5 if winner is None else float(winner == seat)
    (pool,) = stored.results().stages[0].pools
    byes = {line.team: line.byes for line in pool.lines}
    assert sorted(byes.values()) == [0, 0, 0, 1, 1, 1, 1]
    assert {line.team: line.points for line in pool.lines} == {t: points[t] + 2 * byes[t] for t in byes}
    keys = [(line.points, line.buchholz) for line in pool.lines]
    assert keys == sorted(keys, reverse=True)


def test_the_swiss_top_three_go_on_in_their_order(swiss):
    stored, _ = swiss
    (pool,) = stored.results().stages[0].pools
    assert stored.pool(1) == [line.team for line in pool.lines[:3]]
    assert pool.advanced == frozenset(stored.pool(1))


def test_the_swiss_standings_say_their_format_rounds_and_tie_breaks(swiss):
    stored, _ = swiss
    result = run_arena("leaderboard", "--stage", "swiss", "--db", stored.url)
    assert result.exit_code == 0, result.output
    assert "stage swiss (Swiss, 4 of 4 rounds; complete)" in result.output
    assert "Buchholz" in result.output and "byes" in result.output
    assert "Ranked by points (a bye scores as a win of each of its games), then Buchholz" in result.output
    data = json.loads(run_arena("leaderboard", "--stage", "swiss", "--json", "--db", stored.url).output)
    assert (data["format"], data["rounds_played"]) == ("swiss", 4)
    (pool,) = stored.results().stages[0].pools
    assert [(s["team"], s["points"], s["buchholz"], s["byes"]) for s in data["pools"][0]["standings"]] == [
        (line.team, line.points, line.buchholz, line.byes) for line in pool.lines
    ]


def test_the_final_standings_name_the_swiss_tie_break(swiss):
    stored, _ = swiss
    assert [(p.place, p.team, p.stage_name, p.line.points, p.tie_break_text) for p in stored.results().standings] == [
        (1, "t1", "final", 2.0, ""),
        (2, "t2", "final", 1.0, ""),
        (3, "t4", "final", 0.0, ""),
        (4, "t3", "swiss", 4.0, "over t6: Buchholz 20 vs 12"),
        (5, "t6", "swiss", 4.0, "behind t3: Buchholz 12 vs 20"),
        (6, "t5", "swiss", 2.0, "over t7: Buchholz 20 vs 14"),
        (7, "t7", "swiss", 2.0, "behind t5: Buchholz 14 vs 20"),
    ]


# ---------------------------------------------------------------- knockout

KNOCKOUT = {"name": "cup", "format": "knockout", "seeding": "order", "games_per_pair": 2}


def test_a_knockout_gives_the_top_seeds_the_byes_and_keeps_them_apart(tmp_path):
    stored, progress = run(tmp_path, tournament([KNOCKOUT]))
    rounds = by_round(stored.games())
    assert [sorted({tuple(sorted(pair(g))) for g in rounds[n]}) for n in range(3)] == [
        [("t3", "t6"), ("t4", "t5")],
        [("t1", "t4"), ("t2", "t3")],
        [("t1", "t2")],
    ]
    assert [(g["first"], g["second"]) for g in rounds[0]] == [("t4", "t5"), ("t5", "t4"), ("t3", "t6"), ("t6", "t3")]
    assert (progress.done, progress.total) == (10, 10)


def test_the_knockout_standings_are_the_bracket_places(tmp_path):
    stored, _ = run(tmp_path, tournament([KNOCKOUT]))
    found = stored.results()
    (pool,) = found.stages[0].pools
    assert [(line.team, line.reached) for line in pool.lines] == [
        ("t1", "champion"),
        ("t2", "final"),
        ("t3", "semi-final"),
        ("t4", "semi-final"),
        ("t5", "quarter-final"),
        ("t6", "quarter-final"),
    ]
    assert [line.team for line in found.podium] == ["t1", "t2", "t3"]
    assert (found.complete, found.totals.expected) == (True, 10)


def test_the_final_standings_of_a_knockout_say_which_went_further_or_was_seeded_higher(tmp_path):
    stored, _ = run(tmp_path, tournament([KNOCKOUT]))
    assert [(p.team, p.line.points, p.tie_break_text) for p in stored.results().standings] == [
        ("t1", 4.0, ""),
        ("t2", 2.0, "over t3: knockout matches won 2 vs 1"),
        ("t3", 2.0, "behind t2: knockout matches won 1 vs 2; over t4: seed 3 vs 4"),
        ("t4", 2.0, "behind t3: seed 4 vs 3"),
        ("t5", 0.0, "over t6: seed 5 vs 6"),
        ("t6", 0.0, "behind t5: seed 6 vs 5"),
    ]


def test_a_drawn_knockout_match_plays_colour_swapped_extra_pairs_then_the_higher_seed_goes_through(tmp_path):
    stored, progress = run(tmp_path, tournament([KNOCKOUT], teams=4), outcome=all_drawn)
    first_round = by_round(stored.games())[0]
    one_match = [(g["first"], g["second"]) for g in first_round if pair(g) == {"t1", "t4"}]
    assert one_match == [("t1", "t4"), ("t4", "t1")] * 4  # 2 games, then 3 extra pairs
    (pool,) = stored.results().stages[0].pools
    assert [line.team for line in pool.lines] == ["t1", "t2", "t3", "t4"]
    assert (progress.done, progress.total) == (24, 24)  # 3 matches of 8 games


def upset(first: str, second: str, before: int) -> int | None:
    """``by_number``, but t1 and t4 draw their games until t4, moving first in the 4th, wins it."""
    if {first, second} == {"t1", "t4"}:
        return 0 if before == 3 else None
    return by_number(first, second, before)


def test_an_extra_pair_that_breaks_the_tie_decides_the_match(tmp_path):
    stored, _ = run(tmp_path, tournament([KNOCKOUT], teams=4), outcome=upset)
    games = stored.games()
    assert [(g["round"], g["first"], g["second"], g["winner"]) for g in games if pair(g) == {"t1", "t4"}] == [
        (0, "t1", "t4", None),
        (0, "t4", "t1", None),
        (0, "t1", "t4", None),
        (0, "t4", "t1", 0),
    ]
    assert {pair(g) for g in games if g["round"] == 1} == {frozenset(("t4", "t2"))}
    semi_finals, final = stored.results().stages[0].bracket
    assert [(m.high, m.low, m.points, len(m.scores), m.winner, m.by_seed) for m in semi_finals] == [
        ("t1", "t4", (1.5, 2.5), 4, "t4", False),
        ("t2", "t3", (2.0, 0.0), 2, "t2", False),
    ]
    assert [(m.high, m.low, m.winner) for m in final] == [("t2", "t4", "t2")]


def test_the_bracket_in_json_has_each_rounds_matches(tmp_path):
    stored, _ = run(tmp_path, tournament([KNOCKOUT], teams=4), outcome=upset)
    data = json.loads(run_arena("leaderboard", "--stage", "cup", "--json", "--db", stored.url).output)
    assert data["bracket"] == [
        {
            "round": 1,
            "name": "semi-final",
            "matches": [
                {"high": "t1", "low": "t4", "points": [1.5, 2.5], "games": 4, "winner": "t4", "by_seed": False},
                {"high": "t2", "low": "t3", "points": [2.0, 0.0], "games": 2, "winner": "t2", "by_seed": False},
            ],
        },
        {
            "round": 2,
            "name": "final",
            "matches": [
                {"high": "t2", "low": "t4", "points": [2.0, 0.0], "games": 2, "winner": "t2", "by_seed": False},
            ],
        },
    ]
    assert [(s["team"], s["reached"]) for s in data["pools"][0]["standings"]] == [
        ("t2", "champion"),
        ("t4", "final"),
        ("t1", "semi-final"),
        ("t3", "semi-final"),
    ]


def test_the_bracket_is_printed_a_column_a_round(tmp_path):
    stored, _ = run(tmp_path, tournament([KNOCKOUT]))
    text = run_arena("leaderboard", "--stage", "cup", "--db", stored.url).output
    assert "stage cup (knockout; complete)" in text
    for cell in ("t1 (bye)", "t4* 2–0 t5", "t1* 2–0 t4", "t1* 2–0 t2", "quarter-final", "semi-final", "final"):
        assert cell in text, cell


def test_a_knockout_sends_its_champion_then_its_finalist_on(tmp_path):
    stages = [{**KNOCKOUT, "advance": 2}, {"name": "final", "seeding": "order", "games_per_pair": 2}]
    stored, _ = run(tmp_path, tournament(stages), outcome=higher_number)
    assert stored.pool(1) == ["t6", "t5"]


# ---------------------------------------------------------------- gauntlet


def test_a_gauntlet_pairs_its_named_teams_with_every_team_and_no_one_else(tmp_path):
    stages = [{"name": "g", "format": "gauntlet", "named": ["t4", "t5"], "games_per_pair": 2, "advance": 2}, ORDERED]
    stored, _ = run(tmp_path, tournament(stages, teams=5))
    games = stored.games(0)
    met = Counter(pair(g) for g in games)
    named_pairs = [("t4", "t5")] + [(named, other) for named in ("t4", "t5") for other in ("t1", "t2", "t3")]
    assert set(met) == {frozenset(p) for p in named_pairs}
    assert set(met.values()) == {2}
    firsts = Counter(g["first"] for g in games)
    assert all(firsts[team] * 2 == sum(team in pair(g) for g in games) for team in ("t1", "t2", "t3", "t4", "t5"))


def test_a_gauntlet_ranks_by_score_share(tmp_path):
    stages = [{"name": "g", "format": "gauntlet", "named": ["t4"], "games_per_pair": 2, "advance": 2}, ORDERED]
    stored, _ = run(tmp_path, tournament(stages, teams=5))
    (pool,) = stored.results().stages[0].pools
    shares = [(line.team, line.share) for line in pool.lines]
    assert sorted(shares[:3]) == [("t1", 1.0), ("t2", 1.0), ("t3", 1.0)]  # each beat t4 twice; then μ − 3σ
    assert shares[3:] == [("t4", 0.25), ("t5", 0.0)]  # t4 beat t5 twice, in 8 games
    assert set(stored.pool(1)) == pool.advanced < {"t1", "t2", "t3"}


# ---------------------------------------------------------------- adaptive

ADAPTIVE = {"name": "a", "format": "adaptive", "games_per_pair": 1, "budget": 31, "advance": 2}


def test_an_adaptive_stage_plays_a_round_robin_then_batches_and_exactly_its_budget(tmp_path):
    stored, progress = run(tmp_path, tournament([ADAPTIVE, ORDERED]))
    games = stored.games(0)
    assert len(games) == 31
    rounds = by_round(games)
    first = [n for n in rounds if n < 5]
    assert sum(len(rounds[n]) for n in first) == 15  # the round robin: 5 rounds
    assert len(rounds) > 6  # then at least two batches
    assert (progress.done, progress.total) == (33, 33)  # and the final's 2


def test_an_adaptive_stage_sends_on_the_top_of_its_elo_fit(tmp_path):
    stored, _ = run(tmp_path, tournament([ADAPTIVE, ORDERED]))
    (pool,) = stored.results().stages[0].pools
    assert [line.team for line in pool.lines] == ["t1", "t2", "t3", "t4", "t5", "t6"]
    elo = [line.elo for line in pool.lines]
    assert elo == sorted(elo, reverse=True)
    assert stored.pool(1) == ["t1", "t2"]


# ---------------------------------------------------------------- resuming


FORMATS = {
    "swiss": (tournament([*SWISS, ORDERED], teams=7), by_number),
    "knockout": (tournament([KNOCKOUT], teams=6), all_drawn),
    "adaptive": (tournament([ADAPTIVE, ORDERED]), by_number),
}


@pytest.mark.parametrize("stops", [(1,), (5,), (6,), (7, 5), (13, 1, 1)], ids=lambda s: "-".join(map(str, s)))
@pytest.mark.parametrize("format", list(FORMATS))
def test_a_run_stopped_in_the_middle_of_a_stage_resumes_to_the_games_of_a_run_never_stopped(tmp_path, format, stops):
    text, outcome = FORMATS[format]
    (tmp_path / "whole").mkdir()
    (tmp_path / "stopped").mkdir()
    reference, _ = run(tmp_path / "whole", text, outcome)
    for stop in stops:
        _, progress = run(tmp_path / "stopped", text, outcome, stop_after=stop)
        assert progress is None
    resumed, _ = run(tmp_path / "stopped", text, outcome)
    assert resumed.games() == reference.games()


def test_a_run_whose_rating_settings_cannot_rate_its_games_still_plays_to_its_end(tmp_path):
    # keeping the ratings fails on these settings (TrueSkill's arithmetic): the run says so in its
    # log and goes on, as it did before ratings were kept; a read says why it cannot rate
    text = yaml.safe_load(tournament([{"name": "league", "games_per_pair": 40}], teams=2))
    text["rating"] = {"mu": 1e4, "sigma": 1e-3, "beta": 1e4, "tau": 0, "draw_probability": 0}
    stored, progress = run(
        tmp_path, yaml.safe_dump(text), outcome=lambda first, second, before: (0, 1, None)[before % 3]
    )
    assert progress is not None and progress.done == 40
    with closing(sqlite3.connect(stored.path)) as connection:
        assert connection.execute("SELECT status FROM tournaments").fetchall() == [("finished",)]
        # (never kept: the last stage's ratings are kept once its games are played, and these
        # settings cannot rate them)
        assert connection.execute("SELECT through, rated FROM kept_ratings").fetchall() == []

"""Planning a stage's next games by its format (arena/formats/rounds.py) and ranking its teams
(arena/formats/format_standings.py), on plain data worked out by hand."""

from __future__ import annotations

import pytest

from arena.formats import FormatError
from arena.formats.format_standings import format_table
from arena.formats.rounds import Played, knockout_places, knockout_rounds, next_games, round_name, swiss_state
from arena.formats.stagedef import StageDef
from arena.formats.standings import GameResult

SEEDS = ["s1", "s2", "s3", "s4", "s5", "s6"]
WIN, DRAW, LOSS = (1.0, 0.0), (0.5, 0.5), (0.0, 1.0)


def swiss(rounds: int = 3, games_per_pair: int = 2) -> StageDef:
    return StageDef(format="swiss", rounds=rounds, games_per_pair=games_per_pair)


def knockout(games_per_pair: int = 2) -> StageDef:
    return StageDef(format="knockout", games_per_pair=games_per_pair)


def played(*games: tuple[int, str, str, tuple[float, float]]) -> list[Played]:
    return [Played(rnd, first, second, points) for rnd, first, second, points in games]


def pairs(games: list[tuple[int, str, str]]) -> list[tuple[str, str]]:
    """The pairs of ``games``, each in name order, sorted."""
    return sorted(tuple(sorted((first, second))) for _, first, second in games)


def as_results(games: list[Played]) -> list[GameResult]:
    """The course table's view of ``games`` (standard scoring)."""
    found = []
    for number, game in enumerate(games, 1):
        winner = None if game.points == DRAW else (0 if game.points == WIN else 1)
        found.append(GameResult(number, (game.first, game.second), winner, game.points, "normal", None))
    return found


# ---------------------------------------------------------------- round robin and gauntlet


def test_a_round_robin_is_planned_whole_then_is_done():
    stage = StageDef(games_per_pair=1)
    games = next_games(stage, ["a", "b", "c", "d"], [], seed=1)
    assert pairs(games) == [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("c", "d")]
    assert next_games(stage, ["a", "b", "c", "d"], [Played(r, a, b, WIN) for r, a, b in games], seed=1) == []


def test_a_gauntlet_pairs_the_named_team_with_every_other_in_colour_swapped_legs():
    stage = StageDef(format="gauntlet", named=["c"], games_per_pair=2)
    games = next_games(stage, ["a", "b", "c", "d"], [], seed=1)
    assert len(games) == 6
    first_leg, second_leg = games[:3], games[3:]
    assert {rnd for rnd, _, _ in first_leg} == {0} and {rnd for rnd, _, _ in second_leg} == {1}
    assert [(b, a) for _, a, b in first_leg] == [(a, b) for _, a, b in second_leg]
    assert pairs(first_leg) == [("a", "c"), ("b", "c"), ("c", "d")]


# ---------------------------------------------------------------- Swiss


def test_the_first_swiss_round_pairs_the_top_half_of_the_seeding_against_the_bottom_half():
    games = next_games(swiss(games_per_pair=1), SEEDS, [], seed=3)
    assert {rnd for rnd, _, _ in games} == {0}
    assert pairs(games) == [("s1", "s4"), ("s2", "s5"), ("s3", "s6")]


def test_a_swiss_pairing_plays_a_mini_match_of_its_games_colours_alternating():
    games = next_games(swiss(games_per_pair=2), SEEDS[:4], [], seed=3)
    assert len(games) == 4
    assert (games[1][1], games[1][2]) == (games[0][2], games[0][1])
    assert (games[3][1], games[3][2]) == (games[2][2], games[2][1])


def test_the_first_swiss_bye_of_an_odd_field_goes_to_the_lowest_seed():
    games = next_games(swiss(games_per_pair=1), SEEDS[:5], [], seed=3)
    assert {team for _, a, b in games for team in (a, b)} == {"s1", "s2", "s3", "s4"}


def test_the_next_swiss_round_is_paired_on_points_and_avoids_a_second_meeting():
    history = played((0, "s1", "s4", WIN), (0, "s5", "s2", LOSS), (0, "s3", "s6", DRAW))
    games = next_games(swiss(games_per_pair=1), SEEDS, history, seed=3)
    # s1 and s2 lead with a point and meet; s3 (a half) met s6 already, so meets s4 (none);
    # the team that moved first moves second
    assert games == [(1, "s2", "s1"), (1, "s4", "s3"), (1, "s6", "s5")]


def test_the_same_swiss_results_and_seed_plan_the_same_round():
    history = played((0, "s1", "s4", DRAW), (0, "s5", "s2", DRAW), (0, "s3", "s6", DRAW))
    stage = swiss(games_per_pair=1)
    assert next_games(stage, SEEDS, history, seed=9) == next_games(stage, SEEDS, history, seed=9)


def test_a_swiss_is_done_after_its_rounds():
    history = played((0, "s1", "s3", WIN), (0, "s2", "s4", WIN), (1, "s1", "s2", WIN), (1, "s3", "s4", WIN))
    assert next_games(swiss(rounds=2, games_per_pair=1), SEEDS[:4], history, seed=1) == []


def test_a_swiss_team_with_no_game_in_a_round_had_its_bye_and_scored_a_win_of_each_game():
    history = played((0, "a", "b", WIN), (0, "b", "a", WIN), (1, "c", "a", DRAW), (1, "a", "c", LOSS))
    state = swiss_state(["a", "b", "c"], history, bye_points=2.0)
    assert state.byes == {"c": 1, "b": 1}
    assert state.points == {"a": 1.5, "b": 3.0, "c": 3.5}
    assert state.history == [("a", "b"), ("c", None), ("c", "a"), ("b", None)]


def test_planning_waits_for_every_game_of_the_round():
    with pytest.raises(FormatError, match="once every game of the last one is finished"):
        next_games(swiss(), SEEDS, [Played(0, "s1", "s4")], seed=1)


def test_swiss_standings_rank_by_points_then_buchholz_then_wins():
    # five teams, one game a pairing, two rounds; a bye scores 1
    games = played(
        (0, "A", "B", WIN),
        (0, "C", "D", DRAW),  # E: bye
        (1, "E", "A", LOSS),
        (1, "D", "B", WIN),  # C: bye
    )
    lines = format_table(swiss(rounds=2, games_per_pair=1), list("ABCDE"), as_results(games), games, {}, 1.0)
    assert [(s.rank, s.team, s.points, s.buchholz, s.byes, s.wins) for s in lines] == [
        (1, "A", 2.0, 1.0, 0, 2),  # opponents B 0 + E 1
        (2, "D", 1.5, 1.5, 0, 1),  # C 1.5 + B 0; ahead of C on wins
        (3, "C", 1.5, 1.5, 1, 0),  # D 1.5
        (4, "E", 1.0, 2.0, 1, 0),  # A 2
        (5, "B", 0.0, 3.5, 0, 0),  # A 2 + D 1.5
    ]


# ---------------------------------------------------------------- knockout


def test_a_knockout_gives_the_byes_to_the_top_seeds_and_plays_the_others_first_round():
    games = next_games(knockout(), SEEDS, [], seed=1)
    assert games == [(0, "s4", "s5"), (0, "s5", "s4"), (0, "s3", "s6"), (0, "s6", "s3")]


def test_a_drawn_knockout_match_plays_a_colour_swapped_pair_of_extra_games():
    history = played((0, "s4", "s5", DRAW), (0, "s5", "s4", DRAW), (0, "s3", "s6", WIN), (0, "s6", "s3", LOSS))
    assert next_games(knockout(), SEEDS, history, seed=1) == [(0, "s4", "s5"), (0, "s5", "s4")]


def test_an_extra_pair_that_breaks_the_tie_sends_its_winner_on():
    history = played(
        (0, "s4", "s5", DRAW),
        (0, "s5", "s4", DRAW),
        (0, "s3", "s6", WIN),
        (0, "s6", "s3", LOSS),
        (0, "s4", "s5", DRAW),
        (0, "s5", "s4", WIN),
    )
    rounds = knockout_rounds(SEEDS, history, 2)
    assert [(m.high, m.low, m.points, m.winner) for m in rounds[0]] == [
        ("s1", None, (0.0, 0.0), "s1"),
        ("s4", "s5", (1.5, 2.5), "s5"),
        ("s2", None, (0.0, 0.0), "s2"),
        ("s3", "s6", (2.0, 0.0), "s3"),
    ]
    assert next_games(knockout(), SEEDS, history, seed=1) == [
        (1, "s1", "s5"),
        (1, "s5", "s1"),
        (1, "s2", "s3"),
        (1, "s3", "s2"),
    ]


def test_a_match_drawn_after_every_extra_pair_goes_to_the_higher_seed():
    history = played(*[(0, "a", "b", DRAW) if n % 2 == 0 else (0, "b", "a", DRAW) for n in range(8)])
    (final,) = knockout_rounds(["a", "b"], history, 2)[0]
    assert (final.winner, final.by_seed, len(final.scores)) == ("a", True, 8)
    assert next_games(knockout(), ["a", "b"], history, seed=1) == []


def test_knockout_places_and_the_round_each_team_reached():
    history = played(
        (0, "s4", "s5", WIN),
        (0, "s3", "s6", WIN),
        (1, "s1", "s4", WIN),
        (1, "s2", "s3", LOSS),
        (2, "s1", "s3", LOSS),
    )
    stage = knockout(games_per_pair=1)
    rounds = knockout_rounds(SEEDS, history, 1)
    assert knockout_places(SEEDS, rounds) == [["s3"], ["s1"], ["s2", "s4"], ["s5", "s6"]]
    lines = format_table(stage, SEEDS, as_results(history), history, {}, 1.0)
    assert [(s.rank, s.team, s.reached) for s in lines] == [
        (1, "s3", "champion"),
        (2, "s1", "final"),
        (3, "s2", "semi-final"),
        (4, "s4", "semi-final"),
        (5, "s5", "quarter-final"),
        (6, "s6", "quarter-final"),
    ]


def test_a_knockout_in_progress_ranks_the_teams_still_in_first():
    history = played((0, "s4", "s5", LOSS), (0, "s3", "s6", WIN))
    lines = format_table(knockout(games_per_pair=1), SEEDS, as_results(history), history, {}, 1.0)
    assert [(s.team, s.reached) for s in lines] == [
        ("s1", "in semi-final"),
        ("s2", "in semi-final"),
        ("s3", "in semi-final"),
        ("s5", "in semi-final"),
        ("s4", "quarter-final"),
        ("s6", "quarter-final"),
    ]


def test_rounds_are_named_for_the_teams_left():
    assert [round_name(n, 16) for n in range(4)] == ["round of 16", "quarter-final", "semi-final", "final"]


# ---------------------------------------------------------------- adaptive


def test_an_adaptive_stage_starts_with_a_round_robin_and_spends_exactly_its_budget():
    stage = StageDef(format="adaptive", budget=23, games_per_pair=1, advance=2)
    strength = {"a": 5, "b": 4, "c": 3, "d": 2, "e": 1}
    history: list[Played] = []
    batches = []
    while True:
        games = next_games(stage, list(strength), history, seed=1)
        if not games:
            break
        batches.append(len(games))
        for rnd, first, second in games:
            result = DRAW if abs(strength[first] - strength[second]) <= 1 else WIN
            if strength[first] < strength[second] and result == WIN:
                result = LOSS
            history.append(Played(rnd, first, second, result))
    assert batches[0] == 10  # the round robin
    assert sum(batches) == 23 and len(batches) > 1
    assert [game.round for game in history] == sorted(game.round for game in history)


def test_adaptive_standings_rank_by_the_elo_fit():
    history = played((0, "a", "b", WIN), (0, "b", "c", WIN), (1, "a", "c", WIN), (1, "c", "a", LOSS))
    stage = StageDef(format="adaptive", budget=4, games_per_pair=1)
    lines = format_table(stage, ["c", "b", "a"], as_results(history), history, {}, 1.0)
    assert [s.team for s in lines] == ["a", "b", "c"]
    assert lines[0].elo > 0 > lines[2].elo
    assert lines[0].elo_error > 0

"""Knockout brackets (the standard seeding order, byes for the top seeds), how a match is decided
(extra games in colour-swapped pairs, then the higher seed), whole knockouts, and gauntlets."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.formats import FormatError, bracket_order, gauntlet, knockout, match_status, play_knockout
from arena.formats.gauntlet import balanced_colours

SEEDS = [f"s{i}" for i in range(1, 9)]


def test_bracket_order_of_8_and_16_is_the_standard_one():
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert bracket_order(16) == [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]


def test_a_bracket_of_8_pairs_1_8_4_5_2_7_3_6():
    assert knockout(SEEDS).first_round == (("s1", "s8"), ("s4", "s5"), ("s2", "s7"), ("s3", "s6"))


def test_a_bracket_of_6_gives_the_two_byes_to_seeds_1_and_2():
    bracket = knockout(SEEDS[:6])
    assert bracket.size == 8
    assert bracket.first_round == (("s1", None), ("s4", "s5"), ("s2", None), ("s3", "s6"))


def test_seeds_1_and_2_meet_only_in_the_final_when_the_higher_seed_always_wins():
    def higher_seed_wins(first, second):
        return 1.0 if int(first[1:]) < int(second[1:]) else 0.0

    result = play_knockout(SEEDS, higher_seed_wins)
    assert [(m.high, m.low) for m in result.rounds[1]] == [("s1", "s4"), ("s2", "s3")]
    assert [(m.high, m.low) for m in result.rounds[2]] == [("s1", "s2")]
    assert result.champion == "s1"
    assert result.places == (("s1",), ("s2",), ("s3", "s4"), ("s5", "s6", "s7", "s8"))


def test_a_knockout_with_byes_places_the_bye_holders_by_the_round_they_reach():
    def first_mover_wins(first, second):
        return 1.0

    result = play_knockout(SEEDS[:6], first_mover_wins, games=1)
    assert [(m.high, m.low, m.scores) for m in result.rounds[0]] == [
        ("s1", None, ()),
        ("s4", "s5", (1.0,)),
        ("s2", None, ()),
        ("s3", "s6", (1.0,)),
    ]
    assert result.places[-1] == ("s5", "s6")


def test_a_match_is_decided_on_points_after_its_games():
    assert match_status([1.0], games=2).winner is None
    assert match_status([1.0, 0.5], games=2).winner == 0
    assert match_status([0.0, 0.5], games=2).winner == 1


def test_colours_alternate_the_higher_seed_moving_first_in_odd_games():
    assert [match_status([0.5] * played, games=4).next_first for played in range(4)] == [0, 1, 0, 1]


def test_a_drawn_match_goes_on_in_colour_swapped_pairs_until_a_pair_decides_it():
    assert match_status([1.0, 0.0], games=2).winner is None
    assert match_status([1.0, 0.0, 1.0], games=2).winner is None  # a pair is never cut in half
    assert match_status([1.0, 0.0, 1.0, 0.5], games=2).winner == 0
    assert match_status([1.0, 0.0, 0.5, 0.5, 0.0, 0.5], games=2).winner == 1


def test_a_match_still_drawn_after_the_extra_games_goes_to_the_higher_seed():
    status = match_status([0.5] * 8, games=2, max_extra=6)
    assert (status.winner, status.by_seed) == (0, True)
    assert match_status([0.5] * 2, games=2, max_extra=0).by_seed


def test_match_settings_are_checked():
    with pytest.raises(FormatError, match="max_extra must be even"):
        match_status([], games=2, max_extra=3)
    with pytest.raises(FormatError, match="at least 1 game"):
        match_status([], games=0)
    with pytest.raises(FormatError, match="at least 2 players"):
        knockout(["alone"])


def test_play_knockout_plays_extra_games_and_records_a_seed_decision():
    result = play_knockout(["top", "bottom"], lambda first, second: 0.5, games=2, max_extra=2)
    (final,) = result.rounds[0]
    assert (final.scores, final.winner, final.by_seed) == ((0.5, 0.5, 0.5, 0.5), "top", True)


def test_a_gauntlet_pairs_each_named_bot_with_every_other_bot_once_per_game():
    games = gauntlet(["A", "B"], list("ABCDE"), games_per_pair=2)
    meetings = Counter(frozenset(game) for game in games)
    assert meetings == {frozenset(p): 2 for p in ["AB", "AC", "AD", "AE", "BC", "BD", "BE"]}
    half = len(games) // 2
    assert games[half:] == [(b, a) for a, b in games[:half]]  # the second leg swaps colours


@pytest.mark.parametrize(
    ("named", "field", "games_per_pair"),
    [
        (["A"], list("ABCDE"), 1),
        (["A", "B", "C"], list("ABCDEFG"), 1),
        (["A", "B", "C", "D"], list("ABCDEFGH"), 3),
    ],
)
def test_every_bot_of_a_gauntlet_moves_first_in_half_its_games_give_or_take_one(named, field, games_per_pair):
    balance = Counter()
    for first, second in gauntlet(named, field, games_per_pair):
        balance[first] += 1
        balance[second] -= 1
    assert all(abs(value) <= 1 for value in balance.values())


def test_balanced_colours_keeps_each_pair_and_orders_it():
    pairs = [("A", "B"), ("A", "C"), ("B", "C"), ("C", "D")]
    oriented = balanced_colours(pairs)
    assert [frozenset(p) for p in oriented] == [frozenset(p) for p in pairs]

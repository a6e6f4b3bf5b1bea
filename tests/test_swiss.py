"""Swiss pairing: who meets whom in a round, and the properties every round of many random
tournaments keeps (everyone paired once, byes never twice, no repeats and colours within one
whenever some pairing allows it, checked against every possible pairing)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from arena.formats import BYE_POINTS, FormatError, SwissRound, play_swiss, swiss_round

EIGHT = list("ABCDEFGH")


def no_rng() -> random.Random:
    return random.Random(0)


def as_sets(round_: SwissRound) -> list[frozenset[str]]:
    return [frozenset(pair) for pair in round_.pairings]


def test_a_first_round_pairs_the_top_half_against_the_bottom_half():
    round_ = swiss_round(EIGHT, {}, [], {}, no_rng())
    assert as_sets(round_) == [frozenset("AE"), frozenset("BF"), frozenset("CG"), frozenset("DH")]
    assert round_.bye is None


def test_players_of_equal_score_meet_and_a_leftover_floats_down_to_the_next_group():
    scores = {"A": 1, "B": 1, "C": 1, "D": 0.5, "E": 0.5, "F": 0, "G": 0, "H": 0}
    round_ = swiss_round(EIGHT, scores, [], {}, no_rng())
    assert as_sets(round_) == [frozenset("AB"), frozenset("CD"), frozenset("EF"), frozenset("GH")]


def test_a_pair_that_has_met_is_not_paired_again():
    round_ = swiss_round(list("ABCD"), {}, [("A", "C")], {}, no_rng())
    assert as_sets(round_) == [frozenset("AD"), frozenset("BC")]


def test_backtracking_finds_the_pairing_the_first_choice_makes_impossible():
    # A's first choice (C) met A; its next (D) leaves B and C, who met: back up and pair A with B
    round_ = swiss_round(list("ABCD"), {}, [("A", "C"), ("B", "C")], {}, no_rng())
    assert as_sets(round_) == [frozenset("AB"), frozenset("CD")]


def test_when_every_opponent_has_been_met_a_repeat_is_allowed():
    round_ = swiss_round(list("AB"), {}, [("A", "B")], {}, no_rng())
    assert as_sets(round_) == [frozenset("AB")]


def test_the_bye_goes_to_the_lowest_ranked_player_without_a_bye():
    scores = {"A": 2, "B": 1, "C": 1, "D": 0, "E": 0}
    assert swiss_round(list("ABCDE"), scores, [], {}, no_rng()).bye == "E"
    assert swiss_round(list("ABCDE"), scores, [("E", None)], {}, no_rng()).bye == "D"


def test_the_player_with_fewer_firsts_moves_first():
    round_ = swiss_round(list("AB"), {}, [], {"A": 1, "B": -1}, no_rng())
    assert round_.pairings == (("B", "A"),)


def test_play_swiss_adds_up_points_and_scores_a_bye_as_a_win():
    def first_wins(round_):
        return [(1.0, 0.0)] * len(round_.pairings)

    result = play_swiss(list("ABC"), 3, first_wins, no_rng())
    byes = [r.bye for r in result.rounds]
    assert sorted(byes) == ["A", "B", "C"]
    assert sum(result.scores.values()) == 3 * (1 + BYE_POINTS)
    assert result.standings[0] == max(result.scores, key=lambda p: (result.scores[p], -"ABC".index(p)))


def test_play_swiss_checks_the_results_match_the_pairings():
    with pytest.raises(FormatError, match="2 pairings but 1 results"):
        play_swiss(list("ABCD"), 1, lambda round_: [(1.0, 0.0)], no_rng())


def test_a_player_twice_in_the_field_is_an_error():
    with pytest.raises(FormatError, match="'A' is in the field twice"):
        swiss_round(["A", "B", "A"], {}, [], {}, no_rng())


# -- properties over many random tournaments, against brute force -----------------------------------


def matchings(players: list[str]):
    if not players:
        yield []
        return
    first = players[0]
    for i in range(1, len(players)):
        rest = players[1:i] + players[i + 1 :]
        for tail in matchings(rest):
            yield [(first, players[i]), *tail]


def colours_ok(a: int, b: int) -> bool:
    low, high = sorted((a, b))
    return abs(low + 1) <= max(1, abs(low)) and abs(high - 1) <= max(1, abs(high))


def some_pairing(players, byes, met, balance, keep_colours: bool) -> bool:
    """Whether any pairing (with a bye allowed by rule 1) avoids repeats (and keeps colours)."""
    fewest = min(byes[p] for p in players)
    options = [p for p in players if byes[p] == fewest] if len(players) % 2 else [None]
    for bye in options:
        for pairs in matchings([p for p in players if p != bye]):
            if any(met[frozenset(pair)] for pair in pairs):
                continue
            if keep_colours and not all(colours_ok(balance[a], balance[b]) for a, b in pairs):
                continue
            return True
    return False


def test_random_tournaments_keep_every_pairing_rule_whenever_some_pairing_can():
    rng = random.Random(2024)
    checked = Counter()
    for _ in range(250):
        size = rng.randint(2, 10)
        players = [f"p{i}" for i in range(size)]
        rounds = rng.randint(1, size + 1)
        scores = Counter(dict.fromkeys(players, 0.0))
        balance = Counter(dict.fromkeys(players, 0))
        byes: Counter = Counter()
        met: Counter = Counter()
        history: list[tuple[str, str | None]] = []
        for _ in range(rounds):
            round_ = swiss_round(players, scores, history, balance, rng)
            seated = [p for pair in round_.pairings for p in pair] + ([round_.bye] if round_.bye else [])
            assert sorted(seated) == sorted(players)  # everyone exactly once
            assert (round_.bye is not None) == (size % 2 == 1)
            if round_.bye is not None:
                assert byes[round_.bye] == min(byes[p] for p in players)  # never twice while others have none
            repeats = [pair for pair in round_.pairings if met[frozenset(pair)]]
            if repeats:
                checked["repeats forced"] += 1
                assert not some_pairing(players, byes, met, balance, keep_colours=False)
            after = Counter(balance)
            for first, second in round_.pairings:
                after[first] += 1
                after[second] -= 1
            if any(abs(after[p]) > max(1, abs(balance[p])) for p in players):
                checked["colours forced"] += 1
                assert repeats or not some_pairing(players, byes, met, balance, keep_colours=True)
            checked["rounds"] += 1
            for first, second in round_.pairings:
                met[frozenset((first, second))] += 1
                result = rng.choice((1.0, 0.5, 0.0))
                scores[first] += result
                scores[second] += 1.0 - result
                history.append((first, second))
            if round_.bye is not None:
                byes[round_.bye] += 1
                scores[round_.bye] += BYE_POINTS
                history.append((round_.bye, None))
            balance = after
    assert checked["rounds"] > 900 and checked["repeats forced"] > 0 and checked["colours forced"] > 0

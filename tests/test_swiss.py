"""Swiss pairing: who meets whom in a round, and the properties every round of many random
tournaments keeps (everyone paired once, byes never twice, no repeats and colours within one
whenever some pairing allows it, and the least total score gap of the pairings keeping those
rules, checked against every possible pairing); and the blossom matching that finds that least
gap, against every matching of small graphs."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from arena.formats import BYE_POINTS, FormatError, SwissRound, play_swiss, swiss_round
from arena.formats.matching import max_weight_matching

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


def test_a_lone_leader_meets_the_group_mate_whose_pairing_lets_the_other_two_meet():
    # X, the lone leader's first choice, would leave Y and Z, who met already, to float down to a
    # and b (gap 1.5 + 1 + 2 + 0.5 + 0 = 5); the leader meeting Y lets X meet Z (1.5 + 0 + 1 + 0.5 + 0 = 3)
    players = ["L", "X", "Y", "Z", "a", "b", "c", "d", "e", "f"]
    scores = {"L": 4, "X": 2.5, "Y": 2.5, "Z": 2.5, "a": 1.5, "b": 0.5, "c": 0.5, "d": 0, "e": 0, "f": 0}
    round_ = swiss_round(players, scores, [("Y", "Z")], {}, no_rng())
    assert as_sets(round_) == [frozenset(pair) for pair in (("L", "Y"), ("X", "Z"), "ab", "cd", "ef")]
    assert gap(round_.pairings, scores) == 3 == least_gap(players, Counter({frozenset("YZ"): 1}), scores)


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


def gap(pairs, scores) -> float:
    """The total score gap of ``pairs``."""
    return sum(abs(scores[a] - scores[b]) for a, b in pairs)


def least_gap(players, met, scores, balance=None) -> float | None:
    """The least total score gap of the pairings of ``players`` without a repeat (keeping every
    colour ``balance`` within 1 too, if given), over every pairing; ``None`` if there is none."""
    return min(
        (
            gap(pairs, scores)
            for pairs in matchings(players)
            if not any(met[frozenset(pair)] for pair in pairs)
            and (balance is None or all(colours_ok(balance[a], balance[b]) for a, b in pairs))
        ),
        default=None,
    )


def previous_rounds(players, rounds, rng) -> list[tuple[str, str | None]]:
    """A history of up to ``rounds`` random rounds of ``players`` without a repeat (a bye for a
    player with the fewest byes, in an odd field); it stops early at a round no shuffle pairs."""
    history: list[tuple[str, str | None]] = []
    met: set[frozenset[str]] = set()
    byes: Counter = Counter()
    for _ in range(rounds):
        bye = None
        if len(players) % 2:
            bye = rng.choice([p for p in players if byes[p] == min(byes[q] for q in players)])
        playing = [p for p in players if p != bye]
        for _ in range(50):
            rng.shuffle(playing)
            pairs = list(zip(playing[::2], playing[1::2]))
            if not any(frozenset(pair) in met for pair in pairs):
                break
        else:
            return history
        met |= {frozenset(pair) for pair in pairs}
        history += pairs
        if bye is not None:
            byes[bye] += 1
            history.append((bye, None))
    return history


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
            colours_kept = all(abs(after[p]) <= max(1, abs(balance[p])) for p in players)
            if not colours_kept:
                checked["colours forced"] += 1
                assert repeats or not some_pairing(players, byes, met, balance, keep_colours=True)
            if not repeats:  # the least gap of the pairings (with its bye) that keep the rules this one keeps
                rest = [p for p in players if p != round_.bye]
                assert gap(round_.pairings, scores) == least_gap(rest, met, scores, balance if colours_kept else None)
                checked["least gap"] += 1
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
    assert checked["least gap"] > 800


def test_the_pairing_has_the_least_score_gap_of_every_pairing_without_a_repeat():
    # two games a pairing, as a stage plays them: every colour balance stays 0
    rng = random.Random(7)
    checked: Counter = Counter()
    worse = []
    for _ in range(200):
        size = rng.randint(4, 10)
        players = [f"p{i}" for i in range(size)]
        history = previous_rounds(players, rng.randint(0, size - 2), rng)
        met = Counter(frozenset(pair) for pair in history if pair[1] is not None)
        byes = Counter(first for first, second in history if second is None)
        scores = {p: rng.randint(0, 2 * len(history) // size + 2) / 2 for p in players}
        round_ = swiss_round(players, scores, history, {}, rng)
        ranked = sorted(players, key=lambda p: (-scores[p], players.index(p)))
        fewest = min(byes[p] for p in players)
        options = [p for p in reversed(ranked) if byes[p] == fewest] if size % 2 else [None]
        least = {bye: least_gap([p for p in players if p != bye], met, scores) for bye in options}
        possible = [bye for bye in options if least[bye] is not None]
        if not possible:
            checked["no pairing without a repeat"] += 1
            continue
        bye = possible[0]
        assert round_.bye == bye  # the lowest-ranked player who may have the bye and leaves a field to pair
        assert not any(met[frozenset(pair)] for pair in round_.pairings)
        if gap(round_.pairings, scores) != least[bye]:
            worse.append((scores, history, round_, least[bye]))
        checked["fields"] += 1
        checked["floats"] += least[bye] > 0
    assert worse == []
    assert checked["fields"] > 180 and checked["floats"] > 100


def heaviest(size: int, weights: dict[tuple[int, int], int], start: int = 0) -> int:
    """The weight of the heaviest matching of vertices ``start ..`` by brute force."""
    if start >= size:
        return 0
    best = heaviest(size, weights, start + 1)  # ``start`` unmatched
    taken = [(v, w) for (u, v), w in weights.items() if u == start]
    for v, weight in taken:
        rest = {(a, b): w for (a, b), w in weights.items() if v not in (a, b) and a != start}
        best = max(best, weight + heaviest(size, rest, start + 1))
    return best


def test_the_blossom_matching_is_the_heaviest_of_all_matchings():
    rng = random.Random(11)
    for _ in range(300):
        size = rng.randint(1, 9)
        density = rng.random()
        top = rng.choice((3, 50, 10**30))
        weights = {
            (u, v): rng.randint(1, top) for u in range(size) for v in range(u + 1, size) if rng.random() < density
        }
        mates = max_weight_matching(size, [(u, v, w) for (u, v), w in weights.items()])
        assert all(mate is None or mates[mate] == u for u, mate in enumerate(mates))
        found = sum(weights[u, mate] for u, mate in enumerate(mates) if mate is not None and u < mate)
        assert found == heaviest(size, weights)

"""Adaptive pairings: games go to the bots whose intervals straddle the advancement cut (and the
podium places), within the budget and the per-bot load of a batch."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.formats import FormatError, adaptive_pairings, play_adaptive
from arena.formats.adaptive import SPREAD
from arena.formats.rounds import Played, next_games
from arena.formats.stagedef import StageDef
from arena.stats.elo import expected_score, fit_elo

#: eight bots, P2 and P3 almost equal, the others 400 Elo apart
TRUE_ELO = {"P0": 1200, "P1": 800, "P2": 400, "P3": 390, "P4": 0, "P5": -400, "P6": -800, "P7": -1200}
BOTS = list(TRUE_ELO)


def four_games_a_pair() -> list[tuple[str, str, float]]:
    """A round robin of 4 games a pair, each pair's wins the nearest whole number to 4 E: P2 and
    P3 draw their match 2-2 and score the same against everyone else (3rd/4th place tied)."""
    games = []
    for i, a in enumerate(BOTS):
        for b in BOTS[i + 1 :]:
            wins = round(4 * expected_score(TRUE_ELO[a] - TRUE_ELO[b]))
            games += [(a, b, 1.0)] * wins + [(a, b, 0.0)] * (4 - wins)
    return games


GAMES = four_games_a_pair()
#: the same games and four draws more a pair: half the games drawn
DRAWISH = GAMES + [(a, b, 0.5) for i, a in enumerate(BOTS) for b in BOTS[i + 1 :] for _ in range(4)]


def test_the_first_pair_is_the_two_bots_tied_at_the_cut_colours_swapped():
    batch = adaptive_pairings(GAMES, BOTS, 3, len(GAMES) + 2, podium=0)
    assert sorted(batch) == [("P2", "P3"), ("P3", "P2")]


def test_bots_whose_intervals_are_clear_of_the_cut_get_no_games():
    batch = adaptive_pairings(GAMES, BOTS, 3, len(GAMES) + 1000, podium=0)
    playing = {bot for game in batch for bot in game}
    assert playing == {"P2", "P3"}


def test_the_podium_brings_in_the_bots_around_the_top_places():
    batch = adaptive_pairings(GAMES, BOTS, 3, len(GAMES) + 1000)
    assert ("P0", "P1") in batch or ("P1", "P0") in batch
    assert not {"P6", "P7"} & {bot for game in batch for bot in game}


def test_each_bot_plays_at_most_per_player_pairings_a_batch():
    batch = adaptive_pairings(GAMES, BOTS, 3, len(GAMES) + 1000, per_player=1, games_per_pair=2)
    pairings = Counter(bot for game in batch[::2] for bot in game)
    assert max(pairings.values()) == 1


def test_a_batch_never_exceeds_the_budget_left_or_the_batch_size():
    assert len(adaptive_pairings(GAMES, BOTS, 3, len(GAMES) + 3)) == 3
    assert len(adaptive_pairings(GAMES, BOTS, 3, len(GAMES) + 1000, batch=5)) == 5
    assert adaptive_pairings(GAMES, BOTS, 3, len(GAMES)) == []


def test_play_adaptive_spends_exactly_the_budget_and_advances_the_top_k():
    def stronger_wins(pairs):
        return [1.0 if TRUE_ELO[a] > TRUE_ELO[b] else 0.0 for a, b in pairs]

    run = play_adaptive(GAMES, BOTS, 3, len(GAMES) + 100, stronger_wins)
    assert len(run.games) == len(GAMES) + 100
    assert run.advancing == ("P0", "P1", "P2")
    assert run.batches >= 1


def test_on_drawish_games_the_window_is_read_from_the_intervals_spread_names():
    """The binomial intervals (+-84 to 88 Elo here) reach P1 and P4 from the cut between the tied
    P2 and P3 (70 and 74 Elo away), the draw-aware ones (+-56) do not: the batch made with no fit
    given is the one of the intervals ``SPREAD`` names (the binomial ones: the module says why)."""
    reach = {"model": {"P1", "P2", "P3", "P4"}, "draws": {"P2", "P3"}}
    for spread, bots in reach.items():
        fit = fit_elo(DRAWISH, BOTS, spread=spread)
        batch = adaptive_pairings(DRAWISH, BOTS, 3, len(DRAWISH) + 1000, podium=0, fit=fit)
        assert {bot for game in batch for bot in game} == bots
    batch = adaptive_pairings(DRAWISH, BOTS, 3, len(DRAWISH) + 1000, podium=0)
    assert {bot for game in batch for bot in game} == reach[SPREAD]


def test_play_adaptive_refits_with_the_intervals_spread_names():
    run = play_adaptive(DRAWISH, BOTS, 3, len(DRAWISH) + 40, lambda pairs: [0.5] * len(pairs))
    assert run.batches >= 1
    wanted = fit_elo(run.games, BOTS, spread=SPREAD)
    other = fit_elo(run.games, BOTS, spread="draws" if SPREAD == "model" else "model")
    for line in run.fit.players:
        assert line.error == pytest.approx(wanted[line.name].error, rel=1e-6)
        assert line.error != pytest.approx(other[line.name].error, rel=0.1)


@pytest.mark.parametrize("k", [0, 8])
def test_a_cut_outside_the_field_is_an_error(k):
    with pytest.raises(FormatError, match="the cut k must be between 1 and 7"):
        adaptive_pairings(GAMES, BOTS, k, len(GAMES) + 10)


def test_an_adaptive_stage_plans_with_the_intervals_spread_names():
    """A tournament's adaptive stage (``next_games``) aims its batch as ``adaptive_pairings`` does
    with a fit of ``SPREAD``'s intervals, not the leaderboard's draw-aware ones."""
    points = {1.0: (1.0, 0.0), 0.5: (0.5, 0.5), 0.0: (0.0, 1.0)}
    history = [Played(0, a, b, points[score]) for a, b, score in DRAWISH]
    stage = StageDef(format="adaptive", budget=len(DRAWISH) + 1000, games_per_pair=2, advance=3)
    planned = [(first, second) for _, first, second in next_games(stage, BOTS, history, seed=1)]
    batches = {
        spread: adaptive_pairings(DRAWISH, BOTS, 3, len(DRAWISH) + 1000, fit=fit_elo(DRAWISH, BOTS, spread=spread))
        for spread in ("model", "draws")
    }
    assert batches["model"] != batches["draws"]
    assert planned == batches[SPREAD]

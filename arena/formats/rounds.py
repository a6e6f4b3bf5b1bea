"""The next games of a stage's pool, by the stage's format, from the games the pool has had:
plain data in, plain data out (arena/contests/stages.py reads them from the database and stores them).

A round robin and a gauntlet are planned whole, at once. A Swiss, a knockout and an adaptive
stage are planned round by round: each round is paired from the results of the rounds before,
so the same field and the same results always give the same next round (the Swiss's colour
ties are broken by a generator seeded from the tournament's seed, the stage, the pool and the
round). An empty plan from a pool whose games are all finished means the pool is done.
The rules of each format are in docs/formats.md.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from arena.core.job import derive_seed
from arena.formats import FormatError, adaptive_pairings, gauntlet, knockout, match_status, swiss_round
from arena.formats.adaptive import SPREAD
from arena.formats.schedule import round_robin
from arena.formats.stagedef import StageDef
from arena.stats.elo import fit_elo

#: extra games a drawn knockout match may have (in colour-swapped pairs) before the higher seed
#: goes through
MAX_EXTRA = 6

#: a planned game: (round, first mover, second mover)
Planned = tuple[int, str, str]


@dataclass(frozen=True, slots=True)
class Played:
    """A game of a pool as planning sees it: its round, its teams in seat order and the points
    each scored by the tournament's scoring (``None`` while it is not finished)."""

    round: int
    first: str
    second: str
    points: tuple[float, float] | None = None

    @property
    def score(self) -> float:
        """The first mover's share of the game's points (1 a win, ½ a draw, 0 a loss in standard
        scoring; a course draw's share of its small boards)."""
        if self.points is None:
            raise FormatError("an unfinished game has no score")
        total = self.points[0] + self.points[1]
        return self.points[0] / total if total > 0 else 0.5


def next_games(
    stage: StageDef, field: Sequence[str], played: Sequence[Played], *, seed: int, bye_points: float = 1.0
) -> list[Planned]:
    """The games to plan next in a pool of ``stage``: ``field`` is the pool's teams in seeding
    order (best first), ``played`` its games so far in schedule order, every one finished.
    ``seed`` seeds what planning draws (the Swiss's colour ties, with the round's number);
    ``bye_points`` is what a Swiss bye scores. Empty when the pool is done."""
    if any(game.points is None for game in played):
        raise FormatError("the next round is planned once every game of the last one is finished")
    teams = list(field)
    if len(teams) < 2:
        return []
    if stage.format == "swiss":
        return _swiss(teams, played, stage.rounds or 0, stage.games_per_pair, seed, bye_points)
    if stage.format == "knockout":
        return [game for match in pending_matches(teams, played, stage.games_per_pair) for game in match]
    if stage.format == "gauntlet":
        if played:
            return []
        named = [team for team in stage.named or () if team in teams]
        games = gauntlet(named, teams, stage.games_per_pair)
        legs = len(games) // stage.games_per_pair
        return [(index // legs, first, second) for index, (first, second) in enumerate(games)]
    if stage.format == "adaptive":
        cut = stage.advance if stage.advance is not None and stage.advance < len(teams) else 1
        return _adaptive(teams, played, stage.budget or 0, cut, stage.games_per_pair)
    return [] if played else _round_robin(teams, stage.games_per_pair)


def _round_robin(teams: list[str], games_per_pair: int) -> list[Planned]:
    return [(p.round, teams[p.first], teams[p.second]) for p in round_robin(len(teams), games_per_pair)]


def _mini_match(first: str, second: str, games: int) -> list[tuple[str, str]]:
    """A pairing's ``games`` games, colours alternating, ``first`` moving first in the first."""
    return [(first, second) if number % 2 == 0 else (second, first) for number in range(games)]


# ---------------------------------------------------------------- Swiss


@dataclass(frozen=True, slots=True)
class SwissState:
    """A Swiss pool after the rounds played: each team's points (byes included), colour balance
    (games moving first less games moving second) and byes, the pairings met round by round
    ((first, second), a bye as (team, ``None``)), and each team's opponents."""

    rounds: int
    points: dict[str, float]
    colours: dict[str, int]
    byes: Counter[str]
    history: list[tuple[str, str | None]]
    opponents: dict[str, list[str]]


def swiss_state(teams: Sequence[str], played: Sequence[Played], bye_points: float) -> SwissState:
    """Where a Swiss pool of ``teams`` stands after its finished games ``played``: a team of the
    field with no game in a round had that round's bye."""
    points = dict.fromkeys(teams, 0.0)
    colours = dict.fromkeys(teams, 0)
    byes: Counter[str] = Counter()
    history: list[tuple[str, str | None]] = []
    opponents: dict[str, list[str]] = {team: [] for team in teams}
    numbers = sorted({game.round for game in played})
    for number in numbers:
        seen: set[frozenset[str]] = set()
        playing: set[str] = set()
        for game in played:
            if game.round != number or game.points is None:
                continue
            points[game.first] += game.points[0]
            points[game.second] += game.points[1]
            colours[game.first] += 1
            colours[game.second] -= 1
            playing |= {game.first, game.second}
            pair = frozenset((game.first, game.second))
            if pair not in seen:
                seen.add(pair)
                history.append((game.first, game.second))
                opponents[game.first].append(game.second)
                opponents[game.second].append(game.first)
        for team in teams:
            if team not in playing:
                points[team] += bye_points
                byes[team] += 1
                history.append((team, None))
    return SwissState(len(numbers), points, colours, byes, history, opponents)


def _swiss(
    teams: list[str], played: Sequence[Played], rounds: int, games_per_pair: int, seed: int, bye_points: float
) -> list[Planned]:
    state = swiss_state(teams, played, bye_points)
    if state.rounds >= rounds:
        return []
    number = state.rounds
    paired = swiss_round(teams, state.points, state.history, state.colours, random.Random(derive_seed(seed, number)))
    return [(number, a, b) for first, second in paired.pairings for a, b in _mini_match(first, second, games_per_pair)]


# ---------------------------------------------------------------- knockout


@dataclass(frozen=True, slots=True)
class Match:
    """A knockout match as far as it went: the higher seed, the lower (``None``: a bye), the
    higher seed's share of each finished game, the winner (``None`` while it goes on) and
    whether the higher seed went through by the final tie-break (every game drawn even after
    the extra pairs)."""

    round: int
    high: str
    low: str | None
    scores: tuple[float, ...]
    winner: str | None
    by_seed: bool = False

    @property
    def points(self) -> tuple[float, float]:
        """The higher and the lower seed's points in the match (a share of each game)."""
        high = sum(self.scores)
        return high, len(self.scores) - high


def knockout_rounds(teams: Sequence[str], played: Sequence[Played], games_per_pair: int) -> list[list[Match]]:
    """The bracket of ``teams`` (seeded best first) as its finished games ``played`` have
    decided it: round after round, top match first, up to the first round not yet decided."""
    bracket = knockout(teams)
    seed = {name: index for index, name in enumerate(teams)}
    alive: list[str | None] = list(bracket.lines)
    rounds: list[list[Match]] = []
    number = 0
    while len(alive) > 1:
        matches: list[Match] = []
        winners: list[str | None] = []
        for a, b in zip(alive[::2], alive[1::2]):
            if a is None or b is None:
                only = a if b is None else b
                winners.append(only)
                if only is not None:
                    matches.append(Match(number, only, None, (), only))
                continue
            high, low = (a, b) if seed[a] < seed[b] else (b, a)
            scores = tuple(
                game.score if game.first == high else 1.0 - game.score
                for game in played
                if game.round == number and game.points is not None and {game.first, game.second} == {high, low}
            )
            status = match_status(scores, games_per_pair, MAX_EXTRA)
            winner = None if status.winner is None else (high, low)[status.winner]
            matches.append(Match(number, high, low, scores, winner, status.by_seed))
            winners.append(winner)
        rounds.append(matches)
        if any(winner is None for winner in winners):
            break
        alive = winners
        number += 1
    return rounds


def pending_matches(teams: Sequence[str], played: Sequence[Played], games_per_pair: int) -> list[list[Planned]]:
    """The games each undecided match of the knockout's current round plays next: all its
    games if it has none, else a colour-swapped pair of extra games (its points are equal)."""
    rounds = knockout_rounds(teams, played, games_per_pair)
    if not rounds:
        return []
    games = []
    for match in rounds[-1]:
        if match.winner is not None or match.low is None:
            continue
        had = len(match.scores)
        more = games_per_pair - had if had < games_per_pair else 2
        pairs = [
            (match.high, match.low) if number % 2 == 0 else (match.low, match.high) for number in range(had, had + more)
        ]
        games.append([(match.round, first, second) for first, second in pairs])
    return games


def knockout_places(teams: Sequence[str], rounds: Sequence[Sequence[Match]]) -> list[list[str]]:
    """The teams grouped by how far they went, furthest first (the champion, the finalist,
    the semi-final losers, ...; those still in the bracket before those out of it), each group
    in seeding order."""
    seed = {name: index for index, name in enumerate(teams)}
    out_in: dict[str, int] = {}
    for matches in rounds:
        for match in matches:
            if match.winner is not None and match.low is not None:
                out_in[match.low if match.winner == match.high else match.high] = match.round
    alive = [team for team in teams if team not in out_in]
    groups = [alive] if alive else []
    for number in range(len(rounds) - 1, -1, -1):
        group = [team for team, went in out_in.items() if went == number]
        if group:
            groups.append(group)
    return [sorted(group, key=seed.__getitem__) for group in groups]


def round_name(number: int, size: int) -> str:
    """What round ``number`` (from 0) of a bracket of ``size`` lines is called: the final, the
    semi-finals, the quarter-finals, or the round of 16, 32, ..."""
    teams = size >> number
    return {2: "final", 4: "semi-final", 8: "quarter-final"}.get(teams, f"round of {teams}")


# ---------------------------------------------------------------- adaptive


def _adaptive(teams: list[str], played: Sequence[Played], budget: int, cut: int, games_per_pair: int) -> list[Planned]:
    if not played:
        return _round_robin(teams, games_per_pair)
    room = budget - len(played)
    if room <= 0:
        return []
    games = [(game.first, game.second, game.score) for game in played]
    fit = fit_elo(games, teams, spread=SPREAD)  # the intervals the window was tuned to
    pairs = adaptive_pairings(games, teams, cut, budget, games_per_pair=games_per_pair, fit=fit)
    if not pairs:  # no two teams near a cut (it does not happen with the fit's prior; guard anyway)
        ranked = fit.ranking()
        pairs = _mini_match(ranked[cut - 1], ranked[cut], min(room, games_per_pair))
    number = max(game.round for game in played) + 1
    return [(number, first, second) for first, second in pairs]

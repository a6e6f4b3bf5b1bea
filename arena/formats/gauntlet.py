"""A gauntlet: named bots each play every other bot of the field."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import cast

from arena.formats.base import FormatError, check_players


def gauntlet(named: Sequence[str], field: Sequence[str], games_per_pair: int = 2) -> list[tuple[str, str]]:
    """The games (first mover, second mover) of a gauntlet: each of ``named`` meets every other
    bot of ``field`` (and the other named bots, each pair of them once) ``games_per_pair`` times.

    The games come leg by leg: every pair's first game, then every pair's second game, and so on;
    a pair's games alternate who moves first, so two consecutive legs are colour-swapped pairs.
    Every bot moves first in half its games, give or take one: the first leg's colours follow
    closed walks around the graph of pairs (every walk enters a bot as often as it leaves it).
    """
    if games_per_pair < 1:
        raise FormatError(f"games_per_pair must be at least 1, got {games_per_pair}")
    names = check_players(named, least=1)
    others = [bot for bot in check_players(field) if bot not in names]
    pairs = [(bot, opponent) for index, bot in enumerate(names) for opponent in names[index + 1 :] + others]
    if not pairs:
        raise FormatError("a gauntlet needs at least two bots")
    first_leg = balanced_colours(pairs)
    games = []
    for leg in range(games_per_pair):
        games += first_leg if leg % 2 == 0 else [(b, a) for a, b in first_leg]
    return games


def balanced_colours(pairs: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """``pairs`` (distinct, unordered) each put in an order (first mover, second mover) so that
    every player moves first in half its games, give or take one. Odd-degree players are joined
    to a virtual player; then every player has an even number of games, and walking unused
    pairs from any player until stuck returns to it: orienting each pair along the walk gives
    each player as many firsts as seconds, less the one game with the virtual player."""
    virtual = None
    links: dict[str | None, list[tuple[str | None, int]]] = defaultdict(list)
    ends: list[tuple[str | None, str | None]] = []
    for a, b in pairs:
        links[a].append((b, len(ends)))
        links[b].append((a, len(ends)))
        ends.append((a, b))
    for player in [p for p, edges in links.items() if len(edges) % 2]:
        links[player].append((virtual, len(ends)))
        links[virtual].append((player, len(ends)))
        ends.append((player, virtual))
    used = [False] * len(ends)
    oriented: dict[int, tuple[str | None, str | None]] = {}
    position = dict.fromkeys(links, 0)
    for start in list(links):
        here = start
        while True:
            edges = links[here]
            while position[here] < len(edges) and used[edges[position[here]][1]]:
                position[here] += 1
            if position[here] == len(edges):
                break  # stuck: back at this walk's start
            there, edge = edges[position[here]]
            used[edge] = True
            oriented[edge] = (here, there)
            here = there
    return [cast(tuple[str, str], oriented[number]) for number in range(len(pairs))]

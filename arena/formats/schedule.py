"""Planning a stage: drawing pools, round-robin pairings with balanced colours (and tables of
more than two seats with the seats rotated), game seeds."""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Pairing:
    """One game of a pool's round robin: indexes into the pool's team list."""

    round: int
    first: int
    second: int


def round_robin(teams: int, games_per_pair: int) -> list[Pairing]:
    """Every pair of ``teams`` meets ``games_per_pair`` times, in rounds (circle method).

    Each leg is a full round robin; legs alternate colours, so with an even number of games
    each team of a pair moves first equally often, and within a leg the circle method gives
    every team as many firsts as seconds, give or take one.
    """
    slots: list[int | None] = list(range(teams))
    if teams % 2:
        slots.append(None)  # a bye
    size = len(slots)
    legs = []
    for leg in range(games_per_pair):
        ring = list(slots)
        for rnd in range(size - 1):
            for i in range(size // 2):
                a, b = ring[i], ring[size - 1 - i]
                if a is None or b is None:
                    continue
                swap = (rnd % 2 == 1) if i == 0 else (i % 2 == 1)
                if leg % 2:
                    swap = not swap
                first, second = (b, a) if swap else (a, b)
                legs.append(Pairing(leg * (size - 1) + rnd, first, second))
            ring = [ring[0], ring[-1], *ring[1:-1]]  # rotate all but the first
    return legs


@dataclass(frozen=True, slots=True)
class Table:
    """One game of a pool's round robin of tables: indexes into the pool's team list, in seat
    order."""

    round: int
    seats: tuple[int, ...]


def round_robin_tables(teams: int, seats: int, games_per_table: int) -> list[Table]:
    """Every ``seats``-subset of ``teams`` plays ``games_per_table`` games, its seats rotated one
    place a game (and the first game of each subset rotated by the subset's number, so that the
    seats are shared out with one game a table too): with a multiple of ``seats`` games every
    team of a table plays every seat equally often. Tables are packed into rounds in which no
    team plays twice (the first round with room for a table takes it)."""
    rounds: list[set[int]] = []
    tables = []
    for leg in range(games_per_table):
        for index, subset in enumerate(itertools.combinations(range(teams), seats)):
            turn = (leg + index) % seats
            order = subset[turn:] + subset[:turn]
            number = next((i for i, busy in enumerate(rounds) if busy.isdisjoint(subset)), len(rounds))
            if number == len(rounds):
                rounds.append(set())
            rounds[number].update(subset)
            tables.append(Table(number, order))
    return sorted(tables, key=lambda table: table.round)


def drawn_tables(teams: int, seats: int, rounds: int, games_per_table: int, rng: random.Random) -> list[Table]:
    """``rounds`` rounds of tables of ``seats`` drawn from ``teams``: each round seats every team
    at one table, except the ``teams % seats`` left over, who are those that sat out least so far
    (ties drawn); a table's seats go to its teams in the order that evens out the seats each has
    played (ties drawn), and the table plays ``games_per_table`` games, its seats rotated one
    place a game. For a field too large for every table (``round_robin_tables``): every team
    plays as often, and every seat as evenly, as the draw allows."""
    sat_out = [0] * teams
    seat_counts = [[0] * seats for _ in range(teams)]
    tables = []
    for number in range(rounds):
        order = sorted(range(teams), key=lambda team: (-sat_out[team], rng.random()))
        playing = order[: teams - teams % seats]
        for team in order[len(playing) :]:
            sat_out[team] += 1
        rng.shuffle(playing)
        for start in range(0, len(playing), seats):
            members = playing[start : start + seats]  # (in drawn order: ties go the draw's way)
            seated = list(
                min(
                    itertools.permutations(members),
                    key=lambda order: sum(seat_counts[team][seat] ** 2 for seat, team in enumerate(order)),
                )
            )
            for leg in range(games_per_table):
                order_now = tuple(seated[leg % seats :] + seated[: leg % seats])
                for seat, team in enumerate(order_now):
                    seat_counts[team][seat] += 1
                tables.append(Table(number, order_now))
    return tables


def draw_pools(ranked: list[T], pools: int, seeding: str, rng: random.Random) -> list[list[T]]:
    """Deal ``ranked`` (best first) into ``pools``: ``random`` shuffles first, ``snake`` deals
    1->A, 2->B, 3->C, 4->C, 5->B, 6->A, ..., ``order`` deals round in order (1->A, 2->B, ...)."""
    teams = list(ranked)
    if seeding == "random":
        rng.shuffle(teams)
    result: list[list[T]] = [[] for _ in range(pools)]
    for index, team in enumerate(teams):
        lap, place = divmod(index, pools)
        if seeding == "snake" and lap % 2:
            place = pools - 1 - place
        result[place].append(team)
    return result

"""How strong the built-in bots are: match results between them, and MCTS iterations per second.

Run: python benchmarks/strength.py [--games uttt,xtreme] [--time 0.1] [--pairings 24] [--jobs 2]
     python benchmarks/strength.py --bots uct,hmcts,minimax --games othello   (a full matrix)

By default it plays the pairings that back the claims below, each ``--pairings`` games (half
with each bot moving first), every move under a ``Clock`` of ``--time`` seconds, bots called
directly in worker processes (``--jobs``), then measures iterations per second. Every figure is
printed with its sample size; W/D/L are from the first bot's side, "score" counts a draw as a
half. The claims (a row is marked ok or NO):

- tictactoe: minimax and rules (combined) never lose;
- uttt, xtreme: uct wins >= 95% against random and >= 80% against onestep; hmcts beats uct at
  equal time (score > 50%); uct with 4x the time (2 x --time against --time / 2) wins >= 60%;
- othello: uct, hmcts and minimax win >= 90% against random.

Moves over the clock are counted too ("over": in wall time / in CPU time; a move over in wall
time only was descheduled by a loaded machine), with each side's longest move.
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import json
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.clock import Clock
from arena.games import get_game

ALL_GAMES = ("tictactoe", "uttt", "xtreme", "othello")


@dataclass(frozen=True)
class Player:
    """A bot module, its parameters and its time per move (a multiple of ``--time``)."""

    bot: str
    params: tuple[tuple[str, object], ...] = ()
    time_factor: float = 1.0

    @property
    def label(self) -> str:
        args = ",".join(f"{k}={v}" for k, v in self.params)
        time = "" if self.time_factor == 1 else f"@{self.time_factor:g}t"
        return f"{self.bot}{'(' + args + ')' if args else ''}{time}"


def player(text: str) -> Player:
    """``bot``, ``bot(k=v,...)`` or ``bot@4t`` (4 times the time)."""
    factor = 1.0
    if "@" in text:
        text, _, times = text.partition("@")
        factor = float(times.rstrip("t"))
    name, _, args = text.partition("(")
    params = []
    for item in filter(None, args.rstrip(")").split(",")):
        key, _, value = item.partition("=")
        params.append((key, json.loads(value) if value[:1] in '-0123456789tfn"' else value))
    return Player(name, tuple(params), factor)


@dataclass
class Check:
    """A pairing and the claim it backs: ``kind`` is ``never_loses``, ``wins`` (win share at
    least ``share``), ``beats`` (score above one half) or ``none`` (a matrix game, no claim)."""

    game: str
    first: Player
    second: Player
    kind: str
    share: float = 0.0
    results: list[tuple[int | None, int, int]] = field(default_factory=list)

    def claim(self) -> str:
        if self.kind == "never_loses":
            return "never loses"
        if self.kind == "wins":
            return f"wins >= {self.share:.0%}"
        return "score > 50%" if self.kind == "beats" else ""


def default_checks(games: list[str]) -> list[Check]:
    """The pairings that back the claims in the module docstring."""
    p = player
    checks: list[Check] = []
    if "tictactoe" in games:
        for strong in ("minimax", "rules(variant=combined)"):
            others = ("randombot", "uct", "minimax", "rules(variant=combined)", "flatmc")
            checks.extend(Check("tictactoe", p(strong), p(other), "never_loses") for other in others if other != strong)
    for game in ("uttt", "xtreme"):
        if game in games:
            checks += [
                Check(game, p("uct"), p("randombot"), "wins", 0.95),
                Check(game, p("uct"), p("onestep"), "wins", 0.80),
                Check(game, p("hmcts"), p("uct"), "beats"),
                Check(game, p("uct@2t"), p("uct@0.5t"), "wins", 0.60),
            ]
    if "othello" in games:
        for bot in ("uct", "hmcts", "minimax"):
            checks.append(Check("othello", p(bot), p("randombot"), "wins", 0.90))
    return checks


def play_game(game_name: str, players: tuple[Player, Player], seconds: float, seed: int) -> tuple:
    """One game: (winner seat, plies, and per seat: moves over the clock in wall time, in CPU
    time, and the longest move in seconds)."""
    game = get_game(game_name)
    bots = []
    for seat, who in enumerate(players):
        module = importlib.import_module(f"bots.{who.bot}")
        bots.append(module.make_bot(game, seat, random.Random(seed * 2 + seat), **dict(who.params)))
    state = game.initial_state()
    overruns, cpu_overruns, longest = [0, 0], [0, 0], [0.0, 0.0]
    while not state.is_terminal:
        seat = state.to_move
        limit = seconds * players[seat].time_factor
        cpu = time.thread_time()
        start = time.monotonic()
        move = bots[seat].move(state, Clock(limit, start=start))
        elapsed = time.monotonic() - start
        cpu = time.thread_time() - cpu
        longest[seat] = max(longest[seat], elapsed)
        # a move over the clock in wall time but not in CPU time was descheduled (machine load)
        overruns[seat] += elapsed > limit
        cpu_overruns[seat] += cpu > limit
        if not state.is_legal(move):
            raise RuntimeError(f"{players[seat].label} played an illegal move {move} in {game_name}")
        other = bots[1 - seat]
        if other is not bots[seat] and hasattr(other, "observe"):
            other.observe(state, move)
        state = state.play(move)
    for bot in bots:
        if hasattr(bot, "close"):
            bot.close()
    outcome = state.outcome
    assert outcome is not None
    return outcome.winner, state.ply, overruns, cpu_overruns, longest


def _job(args: tuple) -> tuple:
    index, game, first, second, swapped, seconds, seed = args
    players = (second, first) if swapped else (first, second)
    winner, plies, overruns, cpu_overruns, longest = play_game(game, players, seconds, seed)
    if swapped:  # results from the first player's side
        winner = None if winner is None else 1 - winner
        overruns, cpu_overruns, longest = overruns[::-1], cpu_overruns[::-1], longest[::-1]
    return index, winner, plies, overruns, cpu_overruns, longest


def run_checks(checks: list[Check], seconds: float, pairings: int, jobs: int) -> None:
    """Play every check's games (half with each bot first), in ``jobs`` processes."""
    tasks = [
        (index, check.game, check.first, check.second, n % 2 == 1, seconds, 1000 * index + n)
        for index, check in enumerate(checks)
        for n in range(pairings)
    ]
    overruns = [[0, 0] for _ in checks]
    cpu_overruns = [[0, 0] for _ in checks]
    longest = [[0.0, 0.0] for _ in checks]
    done = 0
    started = time.monotonic()
    with ProcessPoolExecutor(jobs) as pool:
        for index, winner, plies, over, cpu_over, long in pool.map(_job, tasks):
            checks[index].results.append((winner, plies, sum(over)))
            for seat in (0, 1):
                overruns[index][seat] += over[seat]
                cpu_overruns[index][seat] += cpu_over[seat]
                longest[index][seat] = max(longest[index][seat], long[seat])
            done += 1
            print(
                f"\r  {done}/{len(tasks)} games, {time.monotonic() - started:.0f} s",
                end="",
                file=sys.stderr,
                flush=True,
            )
    print(file=sys.stderr)
    report(checks, overruns, cpu_overruns, longest, seconds, pairings)


def report(checks, overruns, cpu_overruns, longest, seconds, pairings) -> None:
    print(
        f"\nMatches: {pairings} games a pairing (half with each bot first), {seconds:g} s a move "
        "unless marked @Nt (N times that)"
    )
    header = (
        f"{'game':<10} {'first':<26} {'second':<26} {'W':>3} {'D':>3} {'L':>3} {'win%':>5} "
        f"{'score%':>6}  {'claim':<15} {'ok':<3} {'over':>9}  longest move ms"
    )
    print(header)
    print("-" * len(header))
    for check, over, cpu_over, long in zip(checks, overruns, cpu_overruns, longest):
        results = [winner for winner, _, _ in check.results]
        n = len(results)
        wins, draws, losses = results.count(0), results.count(None), results.count(1)
        win_share, score = wins / n, (wins + draws / 2) / n
        if check.kind == "never_loses":
            ok = losses == 0
        elif check.kind == "wins":
            ok = win_share >= check.share
        else:
            ok = score > 0.5
        verdict = "" if check.kind == "none" else "ok" if ok else "NO"
        print(
            f"{check.game:<10} {check.first.label:<26} {check.second.label:<26} {wins:>3} "
            f"{draws:>3} {losses:>3} {win_share:>5.0%} {score:>6.0%}  {check.claim():<15} "
            f"{verdict:<3} {sum(over):>4}/{sum(cpu_over):<4}  "
            f"{long[0] * 1000:.0f} / {long[1] * 1000:.0f}"
        )


def run_matrix(bots: list[Player], games: list[str], seconds: float, pairings: int, jobs: int) -> None:
    """Every pair of ``bots`` on every game they all play."""
    checks: list[Check] = []
    for game in games:
        playing = [b for b in bots if game in importlib.import_module(f"bots.{b.bot}").GAMES]
        for first, second in itertools.combinations(playing, 2):
            checks.append(Check(game, first, second, "none"))
    run_checks(checks, seconds, pairings, jobs)


def iterations_per_second(games: list[str], seconds: float) -> None:
    """Iterations per second of uct and hmcts (and qlearning episodes) on three positions of a
    random game per game (start, a third in, two thirds in): median of the three."""
    print(f"\nSearch speed: iterations per second (median over three positions, {seconds:g} s each)")
    print(f"{'game':<10} {'uct':>8} {'hmcts':>8} {'hmcts(heavy=0)':>15} {'qlearning':>10} {'random playouts':>16}")
    for name in games:
        game = get_game(name)
        rng = random.Random(1)
        line = [game.initial_state()]
        while not line[-1].is_terminal:
            line.append(line[-1].play(rng.choice(line[-1].legal_moves())))
        positions = [line[0], line[len(line) // 3], line[2 * len(line) // 3]]
        row = []
        for bot, params, attr in (
            ("uct", {}, "last_iterations"),
            ("hmcts", {}, "last_iterations"),
            ("hmcts", {"heavy": 0.0}, "last_iterations"),
            ("qlearning", {}, "last_episodes"),
        ):
            module = importlib.import_module(f"bots.{bot}")
            rates = []
            for state in positions:
                player_ = module.make_bot(game, state.to_move, random.Random(2), **params)
                start = time.monotonic()
                player_.move(state, Clock(seconds, start=start))
                rates.append(getattr(player_, attr) / (time.monotonic() - start))
            row.append(statistics.median(rates))
        playout_rates = []
        for state in positions:
            count, start = 0, time.monotonic()
            while time.monotonic() - start < seconds:
                state.random_playout(rng)
                count += 1
            playout_rates.append(count / (time.monotonic() - start))
        row.append(statistics.median(playout_rates))
        print(f"{name:<10} {row[0]:>8,.0f} {row[1]:>8,.0f} {row[2]:>15,.0f} {row[3]:>10,.0f} {row[4]:>16,.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(ALL_GAMES), help="comma-separated games (default: all four)")
    parser.add_argument("--time", type=float, default=0.1, help="seconds a move (default 0.1)")
    parser.add_argument(
        "--pairings", type=int, default=24, help="games per pairing, half with each bot first (default 24)"
    )
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument(
        "--bots",
        help="comma-separated bots for a full matrix instead of the "
        "default pairings, e.g. 'uct,hmcts(heavy=0.5),minimax@4t'",
    )
    parser.add_argument(
        "--speed-seconds", type=float, default=0.5, help="seconds per position of the speed measurement (0: skip it)"
    )
    args = parser.parse_args()
    games = [g for g in args.games.split(",") if g]
    unknown = set(games) - set(ALL_GAMES)
    if unknown:
        parser.error(f"unknown games {sorted(unknown)}; choose from {', '.join(ALL_GAMES)}")
    started = time.monotonic()
    if args.bots:
        bots = [player(text) for text in split_bots(args.bots)]
        run_matrix(bots, games, args.time, args.pairings, args.jobs)
    else:
        run_checks(default_checks(games), args.time, args.pairings, args.jobs)
    if args.speed_seconds > 0:
        iterations_per_second(games, args.speed_seconds)
    print(f"\n{time.monotonic() - started:.0f} s in all")


def split_bots(text: str) -> list[str]:
    """Split 'a,b(x=1,y=2),c' at the commas outside parentheses."""
    parts, depth, current = [], 0, ""
    for char in text:
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        depth += (char == "(") - (char == ")")
        current += char
    return parts + [current] if current else parts


if __name__ == "__main__":
    main()

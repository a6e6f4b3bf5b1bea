"""The learning bots: training data from games of the built-in bots, both networks trained on
it, and how they play.

Run: python benchmarks/learning.py [--games tictactoe,uttt] [--jobs 2] [--eval 100] [--no-tournament]

For each game it plays games between built-in bots in-process (their ``make_bot``, no clock,
fixed budgets and seeds, so every run plays the same games; ``--jobs`` worker processes), makes
one dataset of every position (``arena.learning.dataset``), trains ``nnvalue`` and ``nnpolicy`` on it
(``arena.learning.training``), then plays each network bot against ``bots.randombot``, ``bots.onestep``
and ``bots.uct`` with 50 iterations, ``--eval`` games from each seat (half that against uct).
W-D-L are from the network bot's side. For tic-tac-toe it also works out, over every game a
uniformly random opponent can play, the exact probability that ``nnvalue`` loses.

The targets (each printed as met or NOT met): both bots win >= 90% of their uttt games against
random; ``nnvalue`` loses no tic-tac-toe game to random.

Unless ``--no-tournament``, it also runs a small real tic-tac-toe tournament (sandboxed bot
processes, every move stored in SQLite, in a temporary folder) and exports its games with
``arena.learning.dataset.export_dataset``: the way datasets are made from stored tournaments.
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import arena.learning.numeric  # noqa: F401 - before numpy: its BLAS in one thread
from arena.clock import Clock
from arena.games import Game, get_game
from arena.learning.dataset import PlayedGame, dataset_from_games
from arena.learning.training import Settings, train


@dataclass(frozen=True)
class Bot:
    """A built-in bot module and its parameters; ``name`` is what the dataset calls its player."""

    module: str
    params: tuple[tuple[str, object], ...] = ()

    @property
    def name(self) -> str:
        """The module's name without ``bots.``."""
        return self.module.removeprefix("bots.")

    @property
    def label(self) -> str:
        """The name and the parameters, for the printed figures."""
        args = ",".join(f"{k}={v}" for k, v in self.params)
        return self.name + (f"({args})" if args else "")


RANDOM, ONESTEP = Bot("bots.randombot"), Bot("bots.onestep")
MINIMAX, MINIMAX2, MINIMAX3 = (Bot("bots.minimax", (("depth", n),) if n else ()) for n in (None, 2, 3))
UCT30, UCT50, UCT200 = (Bot("bots.uct", (("iterations", n),)) for n in (30, 50, 200))

#: per game: the pairings played for the dataset, each (first bot, second bot, pairs of games:
#: one game with each bot moving first)
PAIRINGS = {
    # tic-tac-toe: many games of perfect play against random (it shows what a mistake costs)
    # and of players that take wins and block, but not always well (onestep, a small uct)
    "tictactoe": [
        (MINIMAX, RANDOM, 600),
        (ONESTEP, ONESTEP, 150),
        (UCT30, UCT30, 150),
        (UCT30, ONESTEP, 150),
        (MINIMAX, ONESTEP, 150),
        (ONESTEP, RANDOM, 150),
        (UCT200, RANDOM, 150),
        (MINIMAX, UCT30, 150),
    ],
    # uttt: a shallow minimax (cheap, strong against weak play) against everyone, uct, and many
    # cheap games of onestep and random for the variety of positions they reach
    "uttt": [
        (MINIMAX2, RANDOM, 400),
        (MINIMAX2, ONESTEP, 300),
        (MINIMAX2, MINIMAX2, 600),
        (MINIMAX3, RANDOM, 50),
        (UCT50, UCT50, 200),
        (UCT50, ONESTEP, 60),
        (UCT200, RANDOM, 60),
        (UCT200, UCT200, 40),
        (MINIMAX2, UCT200, 40),
        (ONESTEP, RANDOM, 60),
        (ONESTEP, ONESTEP, 1060),
        (RANDOM, RANDOM, 1000),
    ],
}
#: per game and network: how it is trained, and whose moves a policy learns from
TRAINING = {
    ("tictactoe", "nnvalue"): (Settings(hidden=(128, 128), epochs=30, seed=1), ()),
    ("tictactoe", "nnpolicy"): (Settings(hidden=(128,), epochs=30, seed=1), ("minimax", "uct")),
    ("uttt", "nnvalue"): (Settings(hidden=(128,), epochs=10, seed=1), ()),
    ("uttt", "nnpolicy"): (Settings(hidden=(256,), epochs=10, seed=1), ("minimax", "uct")),
}
OPPONENTS = (RANDOM, ONESTEP, UCT50)
TARGET_SHARE = 0.9


def play(game: Game, bots: tuple[Bot, Bot], seed: int) -> tuple[list[int], int | None]:
    """One game between ``bots`` (seat order), each seeded from ``seed``: its moves and winner."""
    players = [
        importlib.import_module(bot.module).make_bot(game, seat, random.Random(seed * 2 + seat), **dict(bot.params))
        for seat, bot in enumerate(bots)
    ]
    state = game.initial_state()
    moves = []
    while not state.is_terminal:
        mover = players[state.to_move]
        move = mover.move(state, Clock(None))
        other = players[1 - state.to_move]
        if other is not mover and hasattr(other, "observe"):
            other.observe(state, move)
        moves.append(move)
        state = state.play(move)
    assert state.outcome is not None  # the game is over
    return moves, state.outcome.winner


def _task(args: tuple[str, tuple[Bot, Bot], int]) -> tuple[list[int], int | None]:
    name, bots, seed = args
    return play(get_game(name), bots, seed)


def play_all(
    pool: ProcessPoolExecutor, name: str, games: list[tuple[tuple[Bot, Bot], int]]
) -> list[tuple[list[int], int | None]]:
    """Every game of ``games`` (bots, seed), in order, played in the pool."""
    return list(pool.map(_task, [(name, bots, seed) for bots, seed in games], chunksize=8))


def build_dataset(pool: ProcessPoolExecutor, name: str):
    """The pairings' games played and made into one dataset."""
    game = get_game(name)
    schedule: list[tuple[tuple[Bot, Bot], int]] = []
    for first, second, pairs in PAIRINGS[name]:
        for _ in range(pairs):
            seed = len(schedule)
            schedule += [((first, second), seed), ((second, first), seed + 1)]
    started = time.perf_counter()
    results = play_all(pool, name, schedule)
    played = time.perf_counter() - started
    games = [
        PlayedGame(number, moves, (bots[0].name, bots[1].name))
        for number, ((bots, _), (moves, _)) in enumerate(zip(schedule, results))
    ]
    started = time.perf_counter()
    data = dataset_from_games(game, games, ["benchmarks/learning.py"])
    built = time.perf_counter() - started
    pairings = ", ".join(f"{a.label}-{b.label} {2 * n}" for a, b, n in PAIRINGS[name])
    print(f"{name}: {len(games)} games played in {played:.1f} s ({pairings})")
    print(
        f"  dataset: {len(data)} positions, {data.columns['features'].shape[1]} features, "
        f"{data.columns['legal'].shape[1]} moves; made in {built:.1f} s"
    )
    return data


def evaluate(pool: ProcessPoolExecutor, name: str, bot: Bot, opponent: Bot, per_seat: int) -> list[list[int]]:
    """W, D, L of ``bot`` against ``opponent``, per seat of ``bot``."""
    schedule: list[tuple[tuple[Bot, Bot], int]] = []
    for seat in (0, 1):
        for i in range(per_seat):
            bots = (bot, opponent) if seat == 0 else (opponent, bot)
            schedule.append((bots, 1_000_000 + 2 * i))
    results = play_all(pool, name, schedule)
    tally = [[0, 0, 0], [0, 0, 0]]
    for (bots, _), (_, winner) in zip(schedule, results):
        seat = 0 if bots[0] is bot else 1
        tally[seat][0 if winner == seat else 1 if winner is None else 2] += 1
    return tally


def loss_probability(path: str, seat: int) -> float:
    """The exact probability that ``nnvalue`` with the model ``path``, in ``seat``, loses a
    tic-tac-toe game to a player choosing uniformly among the legal moves (its own ties split
    evenly, as its generator breaks them)."""
    import bots.nnvalue as nnvalue

    game = get_game("tictactoe")
    bot = nnvalue.make_bot(game, seat, random.Random(0), model=path)
    cache: dict[tuple[int, int], float] = {}

    def lose(state) -> float:
        """The probability of losing from ``state`` on."""
        key = (state.x, state.o)
        if key not in cache:
            if state.is_terminal:
                cache[key] = float(state.outcome.winner == 1 - seat)
            elif state.to_move == seat:
                ratings = bot.ratings(state)
                best = max(ratings.values())
                chosen = [move for move, rating in ratings.items() if rating == best]
                cache[key] = sum(lose(state.play(move)) for move in chosen) / len(chosen)
            else:
                moves = state.legal_moves()
                cache[key] = sum(lose(state.play(move)) for move in moves) / len(moves)
        return cache[key]

    return lose(game.initial_state())


def play_and_export() -> None:
    """A small tic-tac-toe tournament in sandboxed processes, stored, then exported."""
    from arena.contests.config import parse_config
    from arena.contests.run import Silent, run_tournament
    from arena.learning.dataset import export_dataset
    from arena.store.database import open_store

    class Timed(Silent):
        def header(self, header: object) -> None:
            self.started = time.perf_counter()

    text = (
        "name: learning-demo\ngame: tictactoe\nseed: 3\ntime: {move: 0.2}\nworkers: 2\nbots:\n"
        "  uct: {module: bots.uct, params: {iterations: 200}}\n  minimax: {module: bots.minimax}\n"
        "  onestep: {module: bots.onestep}\n  random: {module: bots.randombot}\n"
        "stages:\n  - {games_per_pair: 6}\n"
    )
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{folder}/arena.sqlite3"
        timed = Timed()
        progress = run_tournament(parse_config(text), text, url, Path(folder), workers=2, listener=timed)
        played = time.perf_counter() - timed.started
        sessions = open_store(url)
        started = time.perf_counter()
        with sessions.begin() as session:
            data, left_out = export_dataset(session, ["learning-demo"])
        exported = time.perf_counter() - started
    print(
        f"tournament (database path): {progress.done} tictactoe games of 4 bots in sandboxed processes in "
        f"{played:.1f} s; exported {len(data)} positions of {data.games} games ({left_out} left out) in "
        f"{exported:.2f} s"
    )


def main() -> None:
    """Play, train, measure and print, for each game asked."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="tictactoe,uttt", help="comma-separated: tictactoe, uttt")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes playing games")
    parser.add_argument("--eval", type=int, default=100, help="games from each seat against each opponent")
    parser.add_argument("--no-tournament", action="store_true", help="skip the small stored tournament")
    parser.add_argument("--models", default=None, help="folder to keep the model files in (default: a temporary one)")
    options = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    started = time.perf_counter()
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; {options.jobs} jobs")
    targets: list[tuple[str, bool, str]] = []
    folder = Path(options.models or tempfile.mkdtemp(prefix="arena-learning-"))
    folder.mkdir(parents=True, exist_ok=True)
    with ProcessPoolExecutor(options.jobs) as pool:
        for name in options.games.split(","):
            data = build_dataset(pool, name)
            for kind in ("nnvalue", "nnpolicy"):
                settings, players = TRAINING[(name, kind)]
                network, report = train(kind, data, settings, players)
                path = folder / f"{name}-{kind}.npz"
                network.save(path)
                learners = f" (moves of {', '.join(players)})" if players else ""
                print(
                    f"  {kind}: trained in {report.seconds:.1f} s on {report.positions} positions{learners}, "
                    f"layers {'-'.join(map(str, network.sizes))}, {settings.epochs} epochs, final loss "
                    f"{report.losses[-1]:.4f}"
                )
                bot = Bot(f"bots.{kind}", (("model", str(path)),))
                for opponent in OPPONENTS:
                    per_seat = options.eval // 2 if opponent is UCT50 else options.eval
                    first, second = evaluate(pool, name, bot, opponent, per_seat)
                    wins, draws, losses = (first[i] + second[i] for i in range(3))
                    total = wins + draws + losses
                    print(
                        f"    vs {opponent.label:<17} first {'-'.join(map(str, first)):>9}   second "
                        f"{'-'.join(map(str, second)):>9}   wins {wins / total:6.1%}, draws {draws / total:6.1%}, "
                        f"losses {losses / total:6.1%} of {total}"
                    )
                    if opponent is RANDOM and name == "uttt":
                        claim = f"uttt {kind} wins >= {TARGET_SHARE:.0%} against random"
                        targets.append((claim, wins >= TARGET_SHARE * total, f"{wins}/{total}"))
                    if opponent is RANDOM and name == "tictactoe" and kind == "nnvalue":
                        claim = "tictactoe nnvalue loses no game to random"
                        targets.append((claim, losses == 0, f"{losses}/{total} lost"))
                if name == "tictactoe" and kind == "nnvalue":
                    exact = [loss_probability(str(path), seat) for seat in (0, 1)]
                    print(
                        f"    exactly, over every game a uniformly random opponent can play: loses with probability "
                        f"{exact[0]:.4f} moving first, {exact[1]:.4f} second"
                    )
    if not options.no_tournament:
        play_and_export()
    print("targets:")
    for claim, met, figure in targets:
        print(f"  [{'met' if met else 'NOT met'}] {claim}: {figure}")
    print(
        f"models in {folder}; the whole benchmark took {time.perf_counter() - started:.0f} s; load average "
        f"{os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()

"""Games and opponents from outside arena, measured beside their own loops.

Run: python benchmarks/outside.py [SECTION ...] [--seconds S] [--runs N] [--quick]
Sections: ``openspiel`` (the default): random playouts a second of OpenSpiel's games through
arena's adapter (``arena.games.openspiel``) beside OpenSpiel's own Python loop, in this one
process, interleaved so that both see the same machine load; each figure the median of N runs
of about S seconds. Two figures for the adapter: the game contract's loop (``legal_moves`` and
an immutable ``play`` a move, as the harness's game loop walks a game) and its
``random_playout`` (the fast path searching bots use). The target: the contract's loop at most
1.5 times OpenSpiel's. ``--quick`` is the smoke run (short, one run, two games).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.games import CHANCE, SIMULTANEOUS, State

#: the games measured (OpenSpiel's game strings): turns, chance, hidden cards, simultaneous bids
OPENSPIEL_GAMES = (
    "tic_tac_toe",
    "connect_four",
    "breakthrough(rows=6,columns=6)",
    "backgammon",
    "kuhn_poker",
    "goofspiel",
)
#: the most the contract's loop may cost, as a multiple of OpenSpiel's own loop
TARGET = 1.5


def rate(playout: Callable[[], object], seconds: float) -> float:
    """Playouts a second of ``playout()`` over about ``seconds``."""
    count, start = 0, time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(5):
            playout()
        count += 5
        now = time.perf_counter()
        if now >= deadline:
            return count / (now - start)


def spiel_loop(spiel_game: Any, rng: random.Random) -> Callable[[], object]:
    """OpenSpiel's own random playout in Python: one state, actions applied to it in place."""

    def playout() -> object:
        state = spiel_game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, weights = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, weights)[0])
            elif state.is_simultaneous_node():
                state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(spiel_game.num_players())])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        return state.returns()

    return playout


def contract_loop(start: State, rng: random.Random) -> Callable[[], object]:
    """A random game through arena's contract, as the game loop walks one: each step's legal
    moves (chance outcomes with their probabilities, each actor's moves at a simultaneous step),
    then an immutable ``play`` or ``play_joint``."""

    def playout() -> object:
        state = start
        while not state.is_terminal:
            mover = state.to_move
            if mover == CHANCE:
                outcomes, weights = zip(*state.chance_outcomes())
                state = state.play(rng.choices(outcomes, weights)[0])
            elif mover == SIMULTANEOUS:
                state = state.play_joint([rng.choice(state.moves_of(seat)) for seat in state.actors()])
            else:
                state = state.play(rng.choice(state.legal_moves()))
        return state.returns()

    return playout


def fast_loop(start: State, rng: random.Random) -> Callable[[], object]:
    """A random game by the state's fast path, ``random_playout``."""
    return lambda: start.random_playout(rng)


def openspiel_section(games: list[str], seconds: float, runs: int) -> list[tuple[str, float, float, float]]:
    """For each game: OpenSpiel's loop, the contract's loop and ``random_playout``, playouts a
    second (medians of ``runs``); printed as a table with the cost of each against OpenSpiel's."""
    from arena.games.openspiel import openspiel_game, pyspiel_module

    pyspiel = pyspiel_module()
    print(f"{'game':<32} {'openspiel/s':>11} {'contract/s':>10} {'cost':>5} {'playout/s':>10} {'cost':>5}  met")
    found = []
    for text in games:
        game = openspiel_game(text)
        spiel_game = pyspiel.load_game(game.source_string())
        start = game.initial_state()
        rng = random.Random(1)
        loops = [spiel_loop(spiel_game, rng), contract_loop(start, rng), fast_loop(start, rng)]
        measured: list[list[float]] = [[], [], []]
        for _ in range(runs):  # interleaved: every loop sees the same load
            for figures, loop in zip(measured, loops):
                figures.append(rate(loop, seconds))
        own, contract, fast = (statistics.median(figures) for figures in measured)
        met = "yes" if own / contract <= TARGET else "no"
        print(
            f"{text:<32} {own:>11.0f} {contract:>10.0f} {own / contract:>5.2f} {fast:>10.0f} {own / fast:>5.2f}  {met}"
        )
        found.append((text, own, contract, fast))
    return found


def openspiel(args: argparse.Namespace) -> None:
    """The ``openspiel`` section as the command line asks for it."""
    games = list(OPENSPIEL_GAMES[:2] if args.quick else OPENSPIEL_GAMES)
    openspiel_section(games, 0.05 if args.quick else args.seconds, 1 if args.quick else args.runs)


def bare_uci_moves(program: str, games: int) -> tuple[int, float]:
    """Fairy-Stockfish playing tic-tac-toe against itself at depth 1, driven directly over a
    pipe (no sandbox, no clock, no checks): (moves, seconds)."""
    import subprocess

    from arena.entrants.engines import VARIANTS

    engine = subprocess.Popen([program], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    assert engine.stdin is not None and engine.stdout is not None
    pipe_in, pipe_out = engine.stdin, engine.stdout

    def ask(*commands: str, until: str) -> str:
        pipe_in.write("".join(f"{command}\n" for command in commands))
        pipe_in.flush()
        while not (line := pipe_out.readline()).startswith(until):
            pass
        return line

    ask("uci", until="uciok")
    ask(
        f"setoption name VariantPath value {VARIANTS}",
        "setoption name UCI_Variant value tictactoe",
        "isready",
        until="readyok",
    )
    moves, start = 0, time.perf_counter()
    for _ in range(games):
        ask("ucinewgame", "isready", until="readyok")
        played: list[str] = []
        while len(played) < 9:
            position = "position startpos" + "".join(f" {word}" for word in ["moves", *played] if played)
            move = ask(position, "go depth 1", until="bestmove")
            if "(none)" in move:  # the game is over
                break
            played.append(move.split()[1])
        moves += len(played)
    seconds = time.perf_counter() - start
    engine.kill()
    engine.wait()
    return moves, seconds


def arena_uci_moves(games: int) -> tuple[int, float]:
    """The same games under arena: the engine as a ``uci`` bot in its sandbox, each move timed
    and checked (the worker's processes warm from a first game): (moves, seconds)."""
    import json

    from arena.core.botspec import BotSpec
    from arena.core.job import GameJob
    from arena.core.timing import TimeControl
    from arena.runners.worker import GameWorker

    spec = BotSpec("fairy", "uci", "fairy-stockfish", json.dumps({"depth": 1, "variant": "tictactoe"}))
    other = BotSpec("fairy-2", "uci", "fairy-stockfish", json.dumps({"depth": 1, "variant": "tictactoe"}))
    game = {"name": "tictactoe", "params": {}}
    with GameWorker(fork=False) as worker:
        worker.play(GameJob(0, game, (spec, other), 0, TimeControl(move=1.0)))  # warm
        moves, start = 0, time.perf_counter()
        for number in range(games):
            record = worker.play(GameJob(number + 1, game, (spec, other), number, TimeControl(move=1.0)))
            assert record.termination.value == "normal", record.detail
            moves += len(record.moves)
        return moves, time.perf_counter() - start


def uci(args: argparse.Namespace) -> None:
    """The ``uci`` section: the time a move of a UCI engine (Fairy-Stockfish, tic-tac-toe at
    depth 1, so that its search costs next to nothing) takes under arena beside a bare loop
    over a pipe; medians of N runs."""
    from arena.entrants.kinds import engine_program

    program = engine_program("fairy-stockfish")
    if program is None:
        print("fairy-stockfish is not installed (apt-get install fairy-stockfish): nothing measured")
        return
    games, runs = (2, 1) if args.quick else (20, args.runs)
    bare, harnessed = [], []
    for _ in range(runs):  # interleaved: both see the same load
        moves, seconds = bare_uci_moves(program, games)
        bare.append(seconds / moves)
        moves, seconds = arena_uci_moves(games)
        harnessed.append(seconds / moves)
    own, under = statistics.median(bare), statistics.median(harnessed)
    print(f"{'loop':<28} {'ms a move':>9}")
    print(f"{'bare UCI over a pipe':<28} {own * 1000:>9.3f}")
    print(f"{'arena (sandbox, clock)':<28} {under * 1000:>9.3f}")
    print(f"overhead: {(under - own) * 1000:.3f} ms a move ({under / own:.1f}x)")


#: each section's name and the function that runs it from the command line's options
SECTIONS: dict[str, Callable[[argparse.Namespace], None]] = {"openspiel": openspiel, "uci": uci}


def main(argv: list[str] | None = None) -> None:
    """Run the sections named (all by default)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("sections", nargs="*", help=f"of {', '.join(SECTIONS)} (default: all)")
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="a smoke run: short, one run, a few games")
    args = parser.parse_args(argv)
    unknown = [name for name in args.sections if name not in SECTIONS]
    if unknown:
        parser.error(f"no section {', '.join(unknown)}; the sections: {', '.join(SECTIONS)}")
    for name in args.sections or list(SECTIONS):
        print(f"== {name}")
        SECTIONS[name](args)


if __name__ == "__main__":
    main()

"""Is a tournament fair on a busy machine? One fixed-seed tournament of built-in bots (the
default tournament's families, at budgets it uses, its heaviest included, plus two bots that
budget by the clock) is run twice in one invocation: on the machine as it is, and beside
neighbours as a shared machine has them (started and stopped here): busy loops and memory hogs,
which stream through more memory than the caches hold and so stretch the CPU time every other
program's work takes (``--busy`` and ``--hogs`` a core, 2 of each by default). For each run it
prints the forfeits by well-behaved bots (every bot here is one), the games replayed for an
overloaded machine and the moves the clock cut; then how far the two runs agree: the Spearman
correlation of the two rankings by points, whether the podium (the last stage's) is the same,
and the share of games whose move lists are identical, for games between bots that budget by
iterations and for games with a bot that budgets by the clock.

    python benchmarks/fairness.py [--clock cpu|wall] [--move S] [--games-per-pair 2] [--runs 1]
    python benchmarks/fairness.py --tournament tournament.yaml      # any tournament file

The time a move is the default tournament's unless ``--move`` says otherwise. With ``--runs N``
the quiet and loaded runs are repeated N times (medians printed), each pair compared. ``--clock
wall`` shows what the wall clock gives the same field. ``--tournament FILE`` plays that file
instead (its own names, the same comparison; its bots' folder is the file's). ``--db FILE`` keeps
the runs (tournaments ``quiet-0``, ``loaded-0``, ...) for ``arena standings`` and the like.

All runs share one database, as runs on one machine do: under the cpu clock the bots that budget
by the clock run at the pace (arena/runners/pace.py) measured, before the first quiet run, the first time
they play here; every later run finds it stored. ``--no-pace`` shows the same field without paces.
"""

from __future__ import annotations

import argparse
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.contests.config import parse_config
from arena.contests.run import RunHeader, Silent, run_tournament
from arena.contests.tournament import Progress
from arena.core.records import GameRecord
from arena.results.lookup import find_tournament
from arena.results.tournament_results import load_results
from arena.store.database import open_store

ROOT = Path(__file__).resolve().parent.parent
#: team -> (module, parameters); the last two budget by the clock
FIELD = {
    "random": ("bots.randombot", {}),
    "rules": ("bots.rules", {}),
    "onestep": ("bots.onestep", {}),
    "flatmc": ("bots.flatmc", {"playouts": 100, "loss": -10.0}),
    "qlearning": ("bots.qlearning", {"episodes": 25, "epsilon": 0.2}),
    "sarsa": ("bots.sarsa", {"episodes": 25, "epsilon": 0.2}),
    "minimax": ("bots.minimax", {"depth": 2}),
    "minimax-3": ("bots.minimax", {"depth": 3}),
    "uct": ("bots.uct", {"iterations": 200, "c": 1.41}),
    "uct-400": ("bots.uct", {"iterations": 400, "c": 1.41}),
    "hmcts": ("bots.hmcts", {"iterations": 200}),
    "hmcts-300": ("bots.hmcts", {"iterations": 300}),
    "uct-clock": ("bots.uct", {}),
    "minimax-clock": ("bots.minimax", {}),
}
CLOCK_BUDGETED = {"uct-clock", "minimax-clock"}


def tournament_yaml(clock: str, move: float, games_per_pair: int, pace: bool, name: str) -> str:
    bots = "\n".join(
        f"  {team}: {{module: {module}, params: {params!r}}}".replace("'", '"')
        for team, (module, params) in FIELD.items()
    )
    return (
        f"game: xtreme\nseed: 2019\nscoring: course2019\n"
        f"name: {name}\ntime: {{move: {move}, grace: 0.05, startup: 20, clock: {clock}, pace: {str(pace).lower()}}}\n"
        f"bots:\n{bots}\n"
        f"stages:\n  - {{games_per_pair: {games_per_pair}}}\n"
    )


#: a neighbour that streams through 128 MiB again and again: more than any cache holds, so it
#: takes the caches and the memory bandwidth from everything else
HOG = "import numpy as np\na = np.ones(16 << 20)\nwhile True:\n    np.add(a, 1.0, out=a)"


class Neighbours:
    """Busy loops and memory hogs (each so many per CPU this process may use), started and
    stopped here."""

    def __init__(self, busy: int, hogs: int) -> None:
        cpus = len(os.sched_getaffinity(0))
        programs = ["while True: pass"] * (busy * cpus) + [HOG] * (hogs * cpus)
        self.processes = [subprocess.Popen([sys.executable, "-c", program]) for program in programs]

    def stop(self) -> None:
        for process in self.processes:
            process.kill()
            process.wait()


def run(database: Path, label: str, yaml: str, load: tuple[int, int] | None, base: Path = ROOT) -> dict:
    """Play the tournament once (``load``: busy loops and memory hogs a core beside it); what it
    gave."""
    config = parse_config(yaml)

    class Loaded(Silent):
        """The neighbours start once the paces are measured, as a user's machine would be busy."""

        neighbours: Neighbours | None = None
        start = 0.0
        paces = ""

        def header(self, header: RunHeader) -> None:
            self.paces = header.paces
            self.neighbours = Neighbours(*load) if load else None
            self.start = time.perf_counter()

        def record(self, record: GameRecord, progress: Progress) -> None:
            loads.append(os.getloadavg()[0])

    run = Loaded()
    loads: list[float] = []
    try:
        progress = run_tournament(config, yaml, f"sqlite:///{database}", base, listener=run)
    finally:
        if run.neighbours is not None:
            run.neighbours.stop()
    elapsed = time.perf_counter() - run.start
    with sqlite3.connect(database) as connection:
        (tournament_id,) = connection.execute("SELECT id FROM tournaments WHERE name = ?", (config.name,)).fetchone()
        of_it = (tournament_id,)
        teams = dict(connection.execute("SELECT id, team FROM entries WHERE tournament_id = ?", of_it))
        # a game is known by its place in the plan, the same in every run of the tournament
        games = connection.execute(
            "SELECT g.stage, g.pool, g.number, s0.entry_id, s1.entry_id, g.winner, s0.points, s1.points,"
            " g.termination, g.offender FROM games g "
            "JOIN game_seats s0 ON s0.game_id = g.id AND s0.seat = 0 "
            "JOIN game_seats s1 ON s1.game_id = g.id AND s1.seat = 1"
            " WHERE g.tournament_id = ?",
            of_it,
        )
        moves: dict[tuple[int, int, int], list[str]] = {}
        for stage, pool, number, move in connection.execute(
            "SELECT g.stage, g.pool, g.number, m.move FROM moves m JOIN games g ON g.id = m.game_id"
            " WHERE g.tournament_id = ? ORDER BY g.id, m.ply",
            of_it,
        ):
            moves.setdefault((stage, pool, number), []).append(move)
        points: dict[str, float] = dict.fromkeys(teams.values(), 0.0)
        wins: dict[str, int] = dict.fromkeys(teams.values(), 0)
        forfeits, seats = [], {}
        for stage, pool, number, first, second, winner, p0, p1, termination, offender in games.fetchall():
            pair = (teams[first], teams[second])
            seats[(stage, pool, number)] = pair
            points[pair[0]] += p0 or 0.0
            points[pair[1]] += p1 or 0.0
            if winner is not None:
                wins[pair[winner]] += 1
            if offender is not None:
                forfeits.append(f"{pair[offender]} {termination}")
        waits = [
            row[0]
            for row in connection.execute(
                "SELECT m.wait_ms FROM moves m JOIN games g ON g.id = m.game_id"
                " WHERE g.tournament_id = ? AND m.wait_ms IS NOT NULL",
                of_it,
            )
        ]
        (cut,) = connection.execute(
            "SELECT count(*) FROM moves m JOIN games g ON g.id = m.game_id WHERE g.tournament_id = ? AND m.cut",
            of_it,
        ).fetchone()
    ranking = sorted(points, key=lambda team: (-points[team], -wins[team], team))
    with open_store(f"sqlite:///{database}", read_only=True)() as session:
        podium = [place.team for place in load_results(session, find_tournament(session, config.name)).podium]
    return {
        "podium": podium,
        "label": label,
        "paced": run.paces,
        "seconds": elapsed,
        "forfeits": forfeits,
        "replays": progress.replays,
        "ranking": ranking,
        "moves": moves,
        "seats": seats,
        "waited": sum(waits) / 1000,
        "max_wait_ms": max(waits, default=0.0),
        "cut": cut,
        "load": statistics.median(loads) if loads else 0.0,
    }


def spearman(first: list[str], second: list[str]) -> float:
    """Spearman's rank correlation of two rankings of the same teams (no ties)."""
    n = len(first)
    position = {team: index for index, team in enumerate(second)}
    return 1 - 6 * sum((index - position[team]) ** 2 for index, team in enumerate(first)) / (n * (n * n - 1))


def compare(quiet: dict, loaded: dict, clock_budgeted: set[str]) -> dict:
    """How far two runs of one tournament agree: the rankings, the podium, and the games whose
    move lists are identical, by kind of budget and by team (a game counts for both its teams)."""
    same: dict[str, list[bool]] = {"iterations": [], "clock": []}
    by_team: dict[str, list[bool]] = {}
    for game_id, pair in quiet["seats"].items():
        kind = "clock" if set(pair) & clock_budgeted else "iterations"
        equal = quiet["moves"].get(game_id) == loaded["moves"].get(game_id)
        same[kind].append(equal)
        for team in pair:
            by_team.setdefault(team, []).append(equal)
    return {
        "spearman": spearman(quiet["ranking"], loaded["ranking"]),
        "podium": quiet["podium"] == loaded["podium"],
        "identical": {kind: (sum(values), len(values)) for kind, values in same.items()},
        "teams": {team: sum(values) / len(values) for team, values in by_team.items()},
    }


def default_move() -> float:
    """The time a move of the default tournament (tournament.yaml)."""
    from arena.contests.config import load_config

    return load_config(ROOT / "tournament.yaml")[0].time.move or 0.5


def main() -> None:
    # stopped with a signal, it still stops the neighbours it started (the finally blocks run)
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(128 + number))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    parser.add_argument("--move", type=float, default=None, help="seconds a move (default: the default tournament's)")
    parser.add_argument("--games-per-pair", type=int, default=2)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--busy", type=int, default=2, help="busy loops a core beside the loaded run")
    parser.add_argument("--hogs", type=int, default=2, help="memory hogs a core beside the loaded run")
    parser.add_argument("--tournament", type=Path, default=None, help="play this tournament file instead")
    parser.add_argument(
        "--db", type=Path, default=None, help="keep the runs in this SQLite file (default: a temporary one)"
    )
    parser.add_argument("--no-pace", dest="pace", action="store_false", help="no paces (arena/runners/pace.py)")
    options = parser.parse_args()
    move = options.move or default_move()
    cpus = len(os.sched_getaffinity(0))
    if options.tournament is None:
        teams = len(FIELD)
        games = teams * (teams - 1) // 2 * options.games_per_pair
        clock_budgeted = CLOCK_BUDGETED
        print(
            f"xtreme, {teams} built-in bots ({len(CLOCK_BUDGETED)} budget by the clock), {games} games, "
            f"{move:g} s a move on the {options.clock} clock, {os.cpu_count()} CPUs"
        )
    else:
        clock_budgeted = set()
        print(f"{options.tournament}, {os.cpu_count()} CPUs")
    print(f"loaded: {options.busy * cpus} busy loops and {options.hogs * cpus} memory hogs beside the run")
    comparisons = []
    with tempfile.TemporaryDirectory(prefix="arena-fairness-") as folder:
        database = options.db or Path(folder) / "fairness.sqlite3"
        for number in range(options.runs):
            results = []
            for kind in ("quiet", "loaded"):
                label = f"{kind}-{number}"
                load = (options.busy, options.hogs) if kind == "loaded" else None
                if options.tournament is None:
                    yaml = tournament_yaml(options.clock, move, options.games_per_pair, options.pace, label)
                    results.append(run(database, label, yaml, load))
                else:
                    text = options.tournament.read_text()
                    yaml = renamed(text, label)
                    results.append(run(database, label, yaml, load, options.tournament.resolve().parent))
            for result in results:
                print(
                    f"  {result['label']:9} {result['seconds']:6.1f} s, load average {result['load']:.1f} "
                    f"({result['paced']}); forfeits: {len(result['forfeits'])} {result['forfeits'][:5]}; "
                    f"games replayed for overload: {result['replays']}; moves cut by the clock: {result['cut']}; "
                    f"time the bots waited for a CPU: {result['waited']:.1f} s in all "
                    f"(longest {result['max_wait_ms']:.0f} ms a move)"
                )
                more = " ..." if len(result["ranking"]) > 12 else ""
                podium, ranking = ", ".join(result["podium"]), ", ".join(result["ranking"][:12])
                print(f"            podium: {podium}; by points: {ranking}{more}")
            comparison = compare(results[0], results[1], clock_budgeted)
            comparisons.append(comparison)
            identical = comparison["identical"]
            budgeted = {team: share for team, share in comparison["teams"].items() if team not in clock_budgeted}
            lowest = min(budgeted.items(), key=lambda item: item[1]) if budgeted else ("-", 1.0)
            print(
                f"  agreement: Spearman {comparison['spearman']:.3f}; same podium: {comparison['podium']}; "
                "identical move lists: "
                + "; ".join(
                    f"{kind}-budgeted {same}/{total} ({100 * same / max(total, 1):.1f} %)"
                    for kind, (same, total) in identical.items()
                    if total
                )
                + f"; the lowest share of a bot with a budget of its own: {lowest[0]} {100 * lowest[1]:.1f} %"
            )
    if options.runs > 1:
        print(
            f"median Spearman {statistics.median(c['spearman'] for c in comparisons):.3f}; podium the same in "
            f"{sum(c['podium'] for c in comparisons)} of {options.runs}"
        )


def renamed(text: str, name: str) -> str:
    """The tournament file ``text`` under the name ``name``."""
    return "\n".join(f"name: {name}" if line.startswith("name:") else line for line in text.splitlines()) + "\n"


if __name__ == "__main__":
    main()

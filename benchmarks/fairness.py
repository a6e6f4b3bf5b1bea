"""Is a tournament fair on a busy machine? One fixed-seed tournament of built-in bots (the
default tournament's families, at budgets it uses, plus two bots that budget by the clock) is
run twice in one invocation: on the machine as it is, and with busy loops beside it (2 per core,
started and stopped here). For each run it prints the forfeits by well-behaved bots (every bot
here is one) and the games replayed for an overloaded machine; then how far the two runs agree:
the Spearman correlation of the two rankings, whether the podium is the same, and the share of
games whose move lists are identical, for games between bots that budget by iterations and for
games with a bot that budgets by the clock.

    python benchmarks/fairness.py [--clock cpu|wall] [--move 0.1] [--games-per-pair 2] [--runs 1]

With ``--runs N`` the quiet and loaded runs are repeated N times (medians printed), each pair
compared. ``--clock wall`` shows what the wall clock gives the same field.

All runs share one database, as runs on one machine do: under the cpu clock the bots that budget
by the clock run at the pace (arena/runners/pace.py) measured, before the first quiet run, the first time
they play here; every later run finds it stored. ``--no-pace`` shows the same field without paces.
"""

from __future__ import annotations

import argparse
import os
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
    "uct": ("bots.uct", {"iterations": 200, "c": 1.41}),
    "hmcts": ("bots.hmcts", {"iterations": 200}),
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
        f"name: fairness\ngame: xtreme\nseed: 2019\nscoring: course2019\n"
        f"name: {name}\ntime: {{move: {move}, grace: 0.05, startup: 20, clock: {clock}, pace: {str(pace).lower()}}}\n"
        f"bots:\n{bots}\n"
        f"stages:\n  - {{games_per_pair: {games_per_pair}}}\n"
    )


class Loops:
    """Busy loops (``per_core`` per CPU this process may use), started and stopped here."""

    def __init__(self, per_core: int) -> None:
        cpus = len(os.sched_getaffinity(0))
        self.processes = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(per_core * cpus)]

    def stop(self) -> None:
        for process in self.processes:
            process.kill()
            process.wait()


def run(database: Path, label: str, yaml: str, loaded: bool) -> dict:
    """Play the tournament once; what it gave."""
    config = parse_config(yaml)

    class Loaded(Silent):
        """The loops start once the paces are measured, as a user's machine would be busy."""

        loops: Loops | None = None
        start = 0.0
        paces = ""

        def header(self, header: RunHeader) -> None:
            self.paces = header.paces
            self.loops = Loops(2) if loaded else None
            self.start = time.perf_counter()

    run = Loaded()
    try:
        progress = run_tournament(config, yaml, f"sqlite:///{database}", ROOT, listener=run)
    finally:
        if run.loops is not None:
            run.loops.stop()
    elapsed = time.perf_counter() - run.start
    with sqlite3.connect(database) as connection:
        (tournament_id,) = connection.execute("SELECT id FROM tournaments WHERE name = ?", (config.name,)).fetchone()
        of_it = (tournament_id,)
        teams = dict(connection.execute("SELECT id, team FROM entries WHERE tournament_id = ?", of_it))
        games = connection.execute(
            "SELECT number, seat0, seat1, winner, points0, points1, termination, offender FROM games"
            " WHERE tournament_id = ?",
            of_it,
        )
        moves: dict[int, list[str]] = {}
        for game_id, move in connection.execute(
            "SELECT g.number, m.move FROM moves m JOIN games g ON g.id = m.game_id"
            " WHERE g.tournament_id = ? ORDER BY g.number, m.ply",
            of_it,
        ):
            moves.setdefault(game_id, []).append(move)
        points: dict[str, float] = dict.fromkeys(teams.values(), 0.0)
        wins: dict[str, int] = dict.fromkeys(teams.values(), 0)
        forfeits, seats = [], {}
        for game_id, first, second, winner, p0, p1, termination, offender in games.fetchall():
            pair = (teams[first], teams[second])
            seats[game_id] = pair
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
    ranking = sorted(points, key=lambda team: (-points[team], -wins[team], team))
    return {
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
    }


def spearman(first: list[str], second: list[str]) -> float:
    """Spearman's rank correlation of two rankings of the same teams (no ties)."""
    n = len(first)
    position = {team: index for index, team in enumerate(second)}
    return 1 - 6 * sum((index - position[team]) ** 2 for index, team in enumerate(first)) / (n * (n * n - 1))


def compare(quiet: dict, loaded: dict) -> dict:
    same: dict[str, list[int]] = {"iterations": [], "clock": []}
    for game_id, pair in quiet["seats"].items():
        kind = "clock" if set(pair) & CLOCK_BUDGETED else "iterations"
        same[kind].append(quiet["moves"].get(game_id) == loaded["moves"].get(game_id))
    return {
        "spearman": spearman(quiet["ranking"], loaded["ranking"]),
        "podium": quiet["ranking"][:3] == loaded["ranking"][:3],
        "identical": {kind: (sum(values), len(values)) for kind, values in same.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    parser.add_argument("--move", type=float, default=0.1)
    parser.add_argument("--games-per-pair", type=int, default=2)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--no-pace", dest="pace", action="store_false", help="no paces (arena/runners/pace.py)")
    options = parser.parse_args()
    teams = len(FIELD)
    games = teams * (teams - 1) // 2 * options.games_per_pair
    print(
        f"xtreme, {teams} built-in bots ({len(CLOCK_BUDGETED)} budget by the clock), {games} games, "
        f"{options.move:g} s a move on the {options.clock} clock, {os.cpu_count()} CPUs; "
        f"loaded: {2 * len(os.sched_getaffinity(0))} busy loops"
    )
    comparisons = []
    with tempfile.TemporaryDirectory(prefix="arena-fairness-") as folder:
        database = Path(folder) / "fairness.sqlite3"
        for number in range(options.runs):
            results = []
            for kind in ("quiet", "loaded"):
                label = f"{kind}-{number}"
                yaml = tournament_yaml(options.clock, options.move, options.games_per_pair, options.pace, label)
                results.append(run(database, label, yaml, kind == "loaded"))
            for result in results:
                print(
                    f"  {result['label']:9} {result['seconds']:6.1f} s ({result['paced']}); "
                    f"forfeits by well-behaved bots: {len(result['forfeits'])} {result['forfeits'][:5]}; "
                    f"games replayed for overload: "
                    f"{result['replays']}; time the bots waited for a CPU: {result['waited']:.1f} s in all "
                    f"(longest {result['max_wait_ms']:.0f} ms a move)"
                )
                print(f"            ranking: {', '.join(result['ranking'])}")
            comparison = compare(*results)
            comparisons.append(comparison)
            identical = comparison["identical"]
            print(
                f"  agreement: Spearman {comparison['spearman']:.3f}; same podium: {comparison['podium']}; "
                "identical move lists: "
                + "; ".join(
                    f"{kind}-budgeted {same}/{total} ({100 * same / max(total, 1):.1f} %)"
                    for kind, (same, total) in identical.items()
                )
            )
    if options.runs > 1:
        print(
            f"median Spearman {statistics.median(c['spearman'] for c in comparisons):.3f}; podium the same in "
            f"{sum(c['podium'] for c in comparisons)} of {options.runs}"
        )


if __name__ == "__main__":
    main()

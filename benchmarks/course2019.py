"""The figures docs/course2019.md sets beside the real 2019 event, from a finished run.

Run after 'arena run' (tournament.yaml): python benchmarks/course2019.py [--db URL] [NAME]
Prints the winner's course points out of the maximum (the whole event and the final alone),
its losses and the seat it had in each, forfeits by kind, games, moves and run time.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.results.lookup import find_tournament
from arena.results.tournament_results import load_results
from arena.store.database import DEFAULT_URL, open_store

REAL = "the real winner: 1548 of 1892 points over 22 games, 4 losses, each when moving second"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", nargs="?", default="course2019")
    parser.add_argument("--db", default=DEFAULT_URL)
    args = parser.parse_args()
    with open_store(args.db)() as session:
        found = load_results(session, find_tournament(session, args.name))
    if not found.podium:
        sys.exit(f"tournament {args.name!r} has no finished stage yet")
    stages = [s.name for s in found.config.stages]
    winner = found.podium[0].team
    bot = next(t.bot for t in found.teams if t.name == winner)
    games = [g for g in found.games if g.finished and winner in (g.first, g.second)]
    print(
        f"{found.tournament.name}: {len(found.teams)} teams, {found.totals.finished} games, "
        f"{found.totals.moves} moves, run time {found.tournament.run_seconds:.0f} s"
    )
    print(
        "podium: "
        + ", ".join(f"{s.team} ({next(t.bot for t in found.teams if t.name == s.team)})" for s in found.podium)
    )
    for label, chosen in (
        ("whole event", games),
        (f"{stages[-1]} alone", [g for g in games if g.stage == len(stages) - 1]),
    ):
        seats = [0 if g.first == winner else 1 for g in chosen]
        points = sum(g.raw_points[seat] for g, seat in zip(chosen, seats) if g.raw_points)
        losses = [(g, seat) for g, seat in zip(chosen, seats) if g.winner is not None and g.winner != seat]
        second = sum(1 for _, seat in losses if seat == 1)
        draws = sum(1 for g in chosen if g.winner is None)
        print(
            f"winner {winner} ({bot}), {label}: {points:.0f} of {86 * len(chosen)} points over {len(chosen)} "
            f"games, {len(losses)} losses ({second} moving second, {len(losses) - second} moving first), "
            f"{draws} draws"
        )
    print(REAL)
    forfeits = Counter(g.termination for g in found.games if g.finished and g.offender is not None)
    print("forfeits: " + (", ".join(f"{kind} {count}" for kind, count in sorted(forfeits.items())) or "none"))
    per_stage = Counter(stages[g.stage] for g in found.games if g.finished)
    print("games by stage: " + ", ".join(f"{name} {per_stage[name]}" for name in stages))


if __name__ == "__main__":
    main()

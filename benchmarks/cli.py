"""How soon the command line answers: ``arena --help``, the read commands on a course-sized
database (72 teams, about 790 xtreme games, made with the tests' ``synthesize``), and ``arena run
--check`` of a 5-bot tournament file, each run as a person runs it (a new process) several times.

    python benchmarks/cli.py [--runs 5] [--quick]

It prints the median and the spread of each, against the targets below (a quiet machine).
``--quick`` runs each command twice on a small tournament, to check that it works.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.builders import synthesize  # noqa: E402

#: seconds each command should take at most, median of the runs, on a quiet machine
TARGETS = {"--help": 0.3, "standings": 0.8, "leaderboard": 0.8, "games": 0.8, "run --check": 1.5}
FIVE_BOTS = """\
name: five
game: tictactoe
time: {move: 0.5}
bots:
  rnd: {module: bots.randombot}
  rules: {module: bots.rules}
  uct: {module: bots.uct, params: {iterations: 50}}
  mm: {module: bots.minimax}
  onestep: {module: bots.onestep}
stages: [{name: league}]
"""


def timed(argv: list[str], cwd: Path, runs: int) -> list[float]:
    """Seconds each of ``runs`` runs of ``arena ARGV`` took (it must succeed)."""
    command = [str(Path(sys.executable).parent / "arena"), *argv]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, env={**os.environ, "COLUMNS": "100"})
        times.append(time.perf_counter() - start)
        if done.returncode != 0:
            raise SystemExit(f"arena {' '.join(argv)} failed ({done.returncode}):\n{done.stderr}")
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="two runs each, a small tournament")
    options = parser.parse_args()
    runs = 2 if options.quick else options.runs
    with tempfile.TemporaryDirectory(prefix="arena-cli-bench-") as scratch:
        folder = Path(scratch)
        url = f"sqlite:///{folder / 'course.db'}"
        made = time.perf_counter()
        synthesize(url, teams=8 if options.quick else 72, stages=[{"name": "league"}] if options.quick else None)
        print(f"database made in {time.perf_counter() - made:.1f} s ({url})")
        (folder / "five.yaml").write_text(FIVE_BOTS)
        db = ["--db", url]
        commands = {
            "--help": ["--help"],
            "standings": ["standings", *db],
            "leaderboard": ["leaderboard", *db],
            "games": ["games", *db],
            "run --check": ["run", "five.yaml", "--check", "--db", f"sqlite:///{folder / 'five.db'}"],
        }
        failed = []
        print(f"{'command':14} {'median':>8} {'min':>7} {'max':>7} {'target':>7}   ({runs} runs each)")
        for name, argv in commands.items():
            times = timed(argv, folder, runs)
            median = statistics.median(times)
            ok = median <= TARGETS[name]
            failed += [] if ok else [name]
            print(
                f"{name:14} {median:7.3f}s {min(times):6.3f}s {max(times):6.3f}s {TARGETS[name]:6.1f}s"
                f"   {'ok' if ok else 'OVER'}"
            )
    print("all within their targets" if not failed else f"over their targets: {', '.join(failed)}")


if __name__ == "__main__":
    main()

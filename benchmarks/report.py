"""How long ``arena report`` takes for a course-sized tournament: 72 teams, three stages,
about 790 xtreme games and 85,000 moves, with forfeits of every kind.

The database is synthesised with the harness's own planning and store (random legal games
played in-process, so every record re-plays), then ``arena report`` is run a few times as a
user runs it; the median time and the size of the largest game page are printed.

    python benchmarks/report.py [--runs 3] [--db PATH] [--keep]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import func, select  # noqa: E402

from arena.store.database import open_store  # noqa: E402
from arena.store.models import GameRow, MoveRow  # noqa: E402
from tests.builders import synthesize  # noqa: E402

#: the target of issue 5: the course-sized report in at most this many seconds
BUDGET = 10.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="times to run arena report (the median is shown)")
    parser.add_argument("--db", type=Path, help="reuse or create the database here (default: a temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (to open the report)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="arena-report-bench-"))
    db = args.db or folder / "course.sqlite3"
    url = f"sqlite:///{db}"
    if not db.exists():
        start = time.perf_counter()
        synthesize(url)
        print(f"synthesised the tournament in {time.perf_counter() - start:.1f} s ({db})")
    sessions = open_store(url)
    with sessions.begin() as session:
        games = session.scalar(select(func.count()).select_from(GameRow))
        moves = session.scalar(select(func.count()).select_from(MoveRow))
        forfeits = session.scalar(select(func.count()).select_from(GameRow).where(GameRow.offender.is_not(None)))
    print(f"database: {games} games, {moves} moves, {forfeits} forfeits")
    out = folder / "report"
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-c",
                "from arena.commands.cli import main; main()",
                "report",
                "--db",
                url,
                "--out",
                str(out),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            cwd=ROOT,
        )
        times.append(time.perf_counter() - start)
    pages = list((out / "games").glob("*.html"))
    largest = max(pages, key=lambda p: p.stat().st_size)
    total = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    median = statistics.median(times)
    print(
        f"arena report: median {median:.2f} s over {args.runs} runs ({', '.join(f'{t:.2f}' for t in times)}); "
        f"budget {BUDGET:.0f} s: {'ok' if median <= BUDGET else 'OVER'}"
    )
    print(
        f"pages: {len(list(out.rglob('*.html')))}, site {total / 1e6:.1f} MB; largest game page "
        f"{largest.name}: {largest.stat().st_size / 1024:.1f} KiB; "
        f"index {(out / 'index.html').stat().st_size / 1024:.1f} KiB, "
        f"crosstable {(out / 'crosstable.html').stat().st_size / 1024:.1f} KiB"
    )
    if args.keep or args.db:
        print(f"report kept in {out}")
    else:
        import shutil

        shutil.rmtree(folder)


if __name__ == "__main__":
    main()

"""How arena's read side grows with the database: a tic-tac-toe league of 1,000, 10,000 and
100,000 games (1,000,000 with ``--big``), each read command and served page timed on each.

The leagues are one round-robin stage of random legal games with forfeits of every kind, made by
the tests' own ``synthesize`` (tests/builders.py: the harness's planning and ``save_record``):

    ~1,000 games      10 teams x 22 games a pair      990 games
    ~10,000 games     32 teams x 20 games a pair    9,920 games
    ~100,000 games   100 teams x 20 games a pair   99,000 games  (the issue's season)
    ~1,000,000 games 317 teams x 20 games a pair  1,001,720 games  (--big)

``synthesize`` makes some 1,500 games a second (10,000 in about 7 s, 100,000 in about 70 s),
so no faster synthesiser is needed. Each database is kept in ``--cache`` (by size) and reused.

For each size it prints, as a subprocess of the installed ``arena`` (wall clock, peak RSS from
``resource.getrusage(RUSAGE_CHILDREN)`` of a one-shot wrapper): ``leaderboard``,
``standings``, ``leaderboard --rating elo``, ``games --limit 50``, ``games show`` (a middle game)
and ``report`` (its time, and its output size); then the served overview, games list, a team
page and a game page, each from a new ``arena serve`` (127.0.0.1, read-only, its peak RSS from
/proc VmHWM): cold is the page's first request after the server started (it loads the
tournament's results), warm the median of ``--repeat`` more. The games list's first and last
pages are ``games.html?page=1`` and ``?page=N`` (``GAMES_A_PAGE`` games a page, as
arena/web/site.py serves them).

    python benchmarks/scale.py [--sizes 1000,10000,100000] [--big] [--only leaderboard,serve]
        [--repeat 3] [--timeout 120] [--cache DIR] [--json FILE]

A figure that did not finish within ``--timeout`` seconds prints as ``>120 s`` and the benchmark
goes on (``-``: not measured, as a page's warm time after its cold request timed out, or the
peak RSS and output of a report killed at the timeout). The growth columns are the ratio of a
figure at one size to the one before; the last column is the issue's target at 100,000 games
(2 cores): each command <= 2 s, a served page <= 200 ms warm and <= 1 s cold, ``report`` <= 60 s
and <= 100 MB, any process <= 300 MB peak RSS, and from 10,000 to 100,000 games no figure
growing more than ~10x. SQLite's, or PostgreSQL's with ``--postgres`` (a server of the tests'
own on 127.0.0.1, the leagues synthesised afresh in it, not cached).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import ExitStack, closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.web.site import GAMES_A_PAGE  # noqa: E402 (the games list's pages, as served)

#: size -> (teams, games a pair)
LEAGUES = {1_000: (10, 22), 10_000: (32, 20), 100_000: (100, 20), 1_000_000: (317, 20)}
NAME = "league"
#: the commands timed: figure -> ``arena`` arguments ({game}: a game's id, {out}: a folder)
COMMANDS = {
    "leaderboard": ["leaderboard", NAME],
    "standings": ["standings", NAME],
    "leaderboard-elo": ["leaderboard", NAME, "--rating", "elo"],
    "games": ["games", "--tournament", NAME, "--limit", "50"],
    "games-show": ["games", "show", "{game}"],
    "report": ["report", NAME, "--out", "{out}"],
}
PAGES = ("serve-overview", "serve-games-first", "serve-games-last", "serve-team", "serve-game")
#: the targets at 100,000 games (seconds; MB for memory and the report's size)
COMMAND_TARGET, REPORT_TARGET, COLD_TARGET, WARM_TARGET = 2.0, 60.0, 1.0, 0.2
MEMORY_TARGET, REPORT_SIZE_TARGET, GROWTH_TARGET = 300.0, 100.0, 10.0
#: runs a command in a child and prints its peak RSS (KiB) on stderr's last line, so that the
#: figure is the command's own, not the largest of every child this process ever waited for
WRAPPER = """\
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
sys.stderr.write(done.stderr.decode(errors="replace")[-2000:])
sys.stderr.write("\\nmaxrss %d\\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(done.returncode)
"""


@dataclass
class Figure:
    """One measured figure: seconds (``None``: timed out), with peak RSS (MB) if measured."""

    seconds: float | None
    rss: float | None = None
    extra: dict[str, float] = field(default_factory=dict)
    failed: str | None = None


# ---------------------------------------------------------------- the databases


def database(cache: Path, size: int) -> Path:
    """The league of ``size`` games in ``cache``, synthesised if it is not there yet."""
    from arena.store.database import SCHEMA_VERSION
    from tests.builders import synthesize

    teams, per_pair = LEAGUES[size]
    path = cache / f"tictactoe-{teams}x{per_pair}-schema{SCHEMA_VERSION}.sqlite3"  # (a new schema: made again)
    if path.exists():
        return path
    cache.mkdir(parents=True, exist_ok=True)
    build = Path(tempfile.mkdtemp(prefix=f"building-{size}-", dir=cache))
    start = time.perf_counter()
    try:
        made = build / "league.sqlite3"
        synthesize(
            f"sqlite:///{made}",
            teams=teams,
            game="tictactoe",
            stages=[{"name": "league", "games_per_pair": per_pair}],
            name=NAME,
        )
        # one file, its WAL folded in (the synthesiser's connections are still open), and only
        # a whole database in the cache
        with closing(sqlite3.connect(made)) as connection:
            connection.execute("VACUUM INTO ?", (str(build / "whole.sqlite3"),))
        (build / "whole.sqlite3").rename(path)
    finally:
        shutil.rmtree(build, ignore_errors=True)
    print(f"synthesised {size:,} games ({teams} teams x {per_pair}) in {time.perf_counter() - start:.0f} s: {path}")
    return path


@contextmanager
def postgres() -> Iterator[Any]:
    """A PostgreSQL server of the tests' own (tests/fixtures/pgserver.py) on 127.0.0.1, removed
    at the end."""
    from tests.fixtures.pgserver import PostgresServer, require_server

    server = PostgresServer(require_server())  # (the folder of its programs)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def in_postgres(server: Any, size: int) -> str:
    """The league of ``size`` games, synthesised in a new database of ``server``: its URL."""
    from tests.builders import synthesize

    teams, per_pair = LEAGUES[size]
    url = str(server.new_database())
    start = time.perf_counter()
    synthesize(url, teams=teams, game="tictactoe", stages=[{"name": "league", "games_per_pair": per_pair}], name=NAME)
    seconds = time.perf_counter() - start
    print(f"synthesised {size:,} games ({teams} teams x {per_pair}) in PostgreSQL in {seconds:.0f} s")
    return url


@dataclass(frozen=True)
class Facts:
    """What the figures need of a league: its tournament's id, its games and moves, a game in
    the middle of its schedule and the file of its first team's page."""

    tid: int
    games: int
    moves: int
    middle: int
    team: str


def facts(url: str) -> Facts:
    """The facts of the league in the database at ``url``."""
    from types import SimpleNamespace

    from sqlalchemy import func, select

    from arena.results.pages import team_file
    from arena.store.database import open_store
    from arena.store.models import Entry, GameRow, MoveRow, Tournament

    with open_store(url, read_only=True)() as session:
        tid = session.scalars(select(Tournament.id).where(Tournament.name == NAME)).one()
        games = session.scalar(select(func.count()).select_from(GameRow).where(GameRow.tournament_id == tid)) or 0
        moves = session.scalar(select(func.count()).select_from(MoveRow)) or 0
        ordered = select(GameRow.id).where(GameRow.tournament_id == tid).order_by(GameRow.id)
        middle = session.scalars(ordered.offset(games // 2).limit(1)).one()
        entry = session.scalars(select(Entry).where(Entry.tournament_id == tid).order_by(Entry.number).limit(1)).one()
        team = team_file(SimpleNamespace(name=entry.team, number=entry.number))
    return Facts(tid, games, moves, middle, team)


# ---------------------------------------------------------------- the commands


def run_command(argv: list[str], timeout: float) -> Figure:
    """``arena ARGV`` timed (wall clock) with its peak RSS; ``seconds`` ``None`` past ``timeout``."""
    arena = str(Path(sys.executable).parent / "arena")
    env = {**os.environ, "COLUMNS": "120", "PYTHONDONTWRITEBYTECODE": "1"}
    process = subprocess.Popen(
        [sys.executable, "-c", WRAPPER, arena, *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        cwd=ROOT,
        start_new_session=True,  # killed with its child on a timeout
    )
    start = time.perf_counter()
    try:
        _, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, 9)
        process.communicate()
        return Figure(None)
    seconds = time.perf_counter() - start
    text = stderr.decode(errors="replace").rstrip()
    head, _, last = text.rpartition("\n")
    rss = int(last.split()[1]) / 1024 if last.startswith("maxrss ") else None
    if process.returncode != 0:
        return Figure(seconds, rss, failed=head.strip().splitlines()[-1] if head.strip() else "failed")
    return Figure(seconds, rss)


def folder_mb(folder: Path) -> float:
    """The size of the files in ``folder`` (MB)."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def commands(url: str, info: Facts, only: set[str], repeat: int, timeout: float) -> dict[str, Figure]:
    """Each chosen command's median time over ``repeat`` runs (one run once one times out)."""
    figures: dict[str, Figure] = {}
    for name, template in COMMANDS.items():
        if name not in only:
            continue
        runs: list[Figure] = []
        scratch = Path(tempfile.mkdtemp(prefix="arena-scale-report-"))
        try:
            for _ in range(1 if name == "report" else repeat):
                out = scratch / "site"
                shutil.rmtree(out, ignore_errors=True)
                argv = [part.format(game=info.middle, out=out) for part in template]
                figure = run_command([*argv, "--db", url], timeout)
                if name == "report" and figure.seconds is not None:
                    figure.extra["MB"] = folder_mb(out)
                runs.append(figure)
                if figure.seconds is None or figure.failed:
                    break
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        done = [r for r in runs if r.seconds is not None and not r.failed]
        if len(done) == len(runs):
            figures[name] = Figure(
                statistics.median(r.seconds for r in done if r.seconds is not None),
                max((r.rss for r in done if r.rss is not None), default=None),
                runs[-1].extra,
            )
        else:
            figures[name] = runs[-1]
        print(f"  {name:18} {show(figures[name], timeout)}", flush=True)
    return figures


# ---------------------------------------------------------------- the served pages


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def get(address: str, timeout: float) -> float | None:
    """Seconds to fetch ``address`` whole; ``None`` past ``timeout``; ``OSError`` (``HTTPError``)
    if it does not answer 200."""
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(address, timeout=timeout) as answer:
            answer.read()
    except TimeoutError:
        return None
    except urllib.error.URLError as error:
        if isinstance(error.reason, TimeoutError):
            return None
        raise
    return time.perf_counter() - start


def serve(url: str, port: int) -> subprocess.Popen[bytes]:
    """``arena serve`` of the database, read-only, once it answers (its home page is cheap)."""
    arena = str(Path(sys.executable).parent / "arena")
    process = subprocess.Popen(
        [arena, "serve", "--db", url, "--port", str(port), "--no-play"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/favicon.ico", timeout=5).read()
            return process
        except (urllib.error.URLError, ConnectionError):
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                raise SystemExit("arena serve did not start") from None
            time.sleep(0.2)


def peak_rss(pid: int) -> float | None:
    """A live process's peak RSS so far (MB), from /proc (``None`` where there is none)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def stop(server: subprocess.Popen[bytes]) -> None:
    """End ``arena serve`` (its process group), killed if it has not stopped in 30 s."""
    os.killpg(server.pid, 15)
    try:
        server.wait(30)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, 9)
        server.wait()


def pages(url: str, info: Facts, only: set[str], repeat: int, timeout: float) -> dict[str, Figure]:
    """Each chosen page of its own new ``arena serve``: cold (its first request, which loads the
    tournament's results) and warm (the median of ``repeat`` more), and the server's peak RSS."""
    base = f"/t/{info.tid}"
    games = info.games
    first, last = "?page=1", f"?page={max(1, -(-games // GAMES_A_PAGE))}"
    addresses = {
        "serve-overview": f"{base}/index.html",
        "serve-games-first": f"{base}/games.html{first}",
        "serve-games-last": f"{base}/games.html{last}",
        "serve-team": f"{base}/teams/{info.team}",
        "serve-game": f"{base}/games/{info.middle}.html",
    }
    figures: dict[str, Figure] = {}
    for name in (name for name in PAGES if name in only):
        port = free_port()
        server = serve(url, port)
        address = f"http://127.0.0.1:{port}{addresses[name]}"
        cold: float | None = None
        warm: list[float] = []
        failed: str | None = None
        try:
            cold = get(address, timeout)
            for _ in range(repeat if cold is not None else 0):
                took = get(address, timeout)
                if took is None:
                    warm = []
                    break
                warm.append(took)
        except OSError as error:  # an error page (HTTPError), a connection lost
            failed = str(error)
        finally:
            rss = peak_rss(server.pid)
            stop(server)
        figures[name] = Figure(cold, rss, {"warm": statistics.median(warm)} if warm else {}, failed)
        print(f"  {name:18} {show(figures[name], timeout)}", flush=True)
    return figures


# ---------------------------------------------------------------- the table


def seconds_text(value: float | None, timeout: float) -> str:
    """``850 ms``, ``4.2 s``, ``>120 s`` (``None``: timed out)."""
    if value is None:
        return f">{timeout:.0f} s"
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.1f} s"


def show(figure: Figure, timeout: float) -> str:
    """A figure as measured, on one line."""
    if figure.failed:
        return f"FAILED: {figure.failed}"
    parts = [seconds_text(figure.seconds, timeout)]
    if "warm" in figure.extra:
        parts.append(f"warm {seconds_text(figure.extra['warm'], 0)}")
    if figure.rss is not None:
        parts.append(f"{figure.rss:.0f} MB")
    if "MB" in figure.extra:
        parts.append(f"out {figure.extra['MB']:.0f} MB")
    return ", ".join(parts)


Row = tuple[str, dict[int, str], str, dict[int, float]]


def rows(results: dict[int, dict[str, Figure]], timeout: float) -> list[Row]:
    """The table's rows: (label, size -> the figure as text, target, size -> the figure as a
    number, ``inf`` when it timed out), the rows of figures not measured left out."""
    table: list[tuple[str, str, Callable[[Figure], float | None], str, str]] = []
    for name in COMMANDS:
        target = f"<= {REPORT_TARGET:.0f} s" if name == "report" else f"<= {COMMAND_TARGET:.0f} s"
        table.append((name, name, lambda f: f.seconds, "s", target))
        if name == "report":
            table.append(("report output", name, lambda f: f.extra.get("MB"), "MB", f"<= {REPORT_SIZE_TARGET:.0f} MB"))
        table.append((f"  {name} RSS", name, lambda f: f.rss, "MB", f"<= {MEMORY_TARGET:.0f} MB"))
    for name in PAGES:
        table.append((f"{name} cold", name, lambda f: f.seconds, "s", f"<= {COLD_TARGET:.0f} s"))
        table.append((f"{name} warm", name, lambda f: f.extra.get("warm"), "s", f"<= {WARM_TARGET * 1000:.0f} ms"))
        table.append((f"  {name} RSS", name, lambda f: f.rss, "MB", f"<= {MEMORY_TARGET:.0f} MB"))
    lines = []
    for label, key, value, unit, target in table:
        cells: dict[int, str] = {}
        numbers: dict[int, float] = {}
        for size, figures in results.items():
            figure = figures.get(key)
            if figure is None:
                continue
            number = value(figure)
            if figure.failed:
                cells[size] = "failed"
            elif figure.seconds is None and unit == "s" and not label.endswith("warm"):
                cells[size], numbers[size] = f">{timeout:.0f} s", float("inf")
            elif number is None:
                cells[size] = "-"
            else:
                cells[size] = seconds_text(number, timeout) if unit == "s" else f"{number:.0f} MB"
                numbers[size] = number
        if cells:
            lines.append((label, cells, target, numbers))
    return lines


def growth(numbers: dict[int, float], small: int, large: int, timeout: float) -> str:
    """How many times ``large``'s figure is ``small``'s (``>Nx`` when ``large`` timed out)."""
    a, b = numbers.get(small), numbers.get(large)
    if a is None or b is None or a == 0 or a == float("inf"):
        return "?" if a == float("inf") and b is not None else ""
    return f">{timeout / a:.0f}x" if b == float("inf") else f"{b / a:.1f}x"


def short(size: int) -> str:
    """1k, 10k, 100k, 1M."""
    return f"{size // 1_000_000}M" if size >= 1_000_000 else f"{size // 1000}k"


def print_table(results: dict[int, dict[str, Figure]], timeout: float) -> None:
    sizes = sorted(results)
    lines = rows(results, timeout)
    pairs = list(itertools.pairwise(sizes))
    head = f"{'figure':26}" + "".join(f"{f'{s:,} games':>16}" for s in sizes)
    head += "".join(f"{f'{short(b)}/{short(a)}':>10}" for a, b in pairs) + f"   {'target (100k)':<14}"
    print()
    print(head)
    print("-" * len(head))
    for label, cells, target, numbers in lines:
        text = f"{label:26}" + "".join(f"{cells.get(s) or '':>16}" for s in sizes)
        text += "".join(f"{growth(numbers, a, b, timeout):>10}" for a, b in pairs)
        print(f"{text}   {target}")
    print(f"growth from 10,000 to 100,000 games: target <= ~{GROWTH_TARGET:.0f}x for every figure")


def main() -> None:
    figures = [*COMMANDS, *PAGES]
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,100000", help="games in each league (1000, 10000, 100000)")
    parser.add_argument("--big", action="store_true", help="add the league of 1,000,000 games")
    parser.add_argument("--only", help=f"figures to measure, comma-separated: {', '.join(figures)}; serve: the pages")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each command, warm requests of each page")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds a command or request may take")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "arena-scale-bench")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--postgres", action="store_true", help="the leagues in PostgreSQL (made afresh, not cached)")
    args = parser.parse_args()
    sizes = [int(s.replace("_", "").replace(",", "")) for s in args.sizes.split(",") if s]
    sizes += [1_000_000] if args.big and 1_000_000 not in sizes else []
    unknown = [s for s in sizes if s not in LEAGUES]
    if unknown:
        raise SystemExit(f"no league of {unknown} games; sizes: {', '.join(map(str, LEAGUES))}")
    only = set(figures)
    if args.only:
        only = set()
        for name in args.only.split(","):
            only |= set(PAGES) if name == "serve" else {name}
        if only - set(figures):
            raise SystemExit(f"unknown figures {sorted(only - set(figures))}; of: {', '.join(figures)}")
    results: dict[int, dict[str, Figure]] = {}
    with ExitStack() as stack:
        server = stack.enter_context(postgres()) if args.postgres else None
        for size in sorted(sizes):
            if server is None:
                path = database(args.cache, size)
                url, where = f"sqlite:///{path}", f"{path.stat().st_size / 1e6:.0f} MB ({path})"
            else:
                url, where = in_postgres(server, size), "PostgreSQL"
            info = facts(url)
            print(f"{size:,}: {info.games:,} games, {info.moves:,} moves, {where}", flush=True)
            results[size] = commands(url, info, only, args.repeat, args.timeout)
            results[size] |= pages(url, info, only, args.repeat, args.timeout)
    print_table(results, args.timeout)
    if args.json:
        data = {
            size: {name: {"seconds": f.seconds, "rss": f.rss, **f.extra, "failed": f.failed} for name, f in got.items()}
            for size, got in results.items()
        }
        args.json.write_text(json.dumps(data, indent=1))


if __name__ == "__main__":
    main()

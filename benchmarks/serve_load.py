"""``arena serve`` under load: the real server (read-write, 127.0.0.1) over a small finished
tournament and a season whose ladder ``arena season ladder`` plays meanwhile. For ``--seconds``:
``--games`` browser visitors, each from an address of its own (127.0.0.N: 2 games a visitor),
play tic-tac-toe against ``bots.randombot`` on ``/play``, game after game, by long polls, any
legal move each turn (a start refused while 8 games are played is retried, not a failure); two
teams submit a bot through the API (at the start, midway); ``--streams`` live streams (the
tournament's and the season's events) are held open (past 256 a 503 is expected); ``--readers``
clients read pages in a loop, each request timed; the server's memory (its bots included) is
sampled every second.

PASS (exit 0) or FAIL (1): no failure (a game not ended by its moves unless by the visitor's
fault, a validation not active, a page or stream error, a stream dropped early), page p95 at
most 1 s, peak memory at most 500 MB, the server alive at the end.

    python benchmarks/serve_load.py [--seconds 60] [--games 20] [--streams 300] [--readers 8] [--read-only] [--quick]

``--read-only`` serves with ``--no-play`` to 50 clients (25 streams, 25 page readers): no crash
under many simultaneous readers. ``--quick`` (10 s, 4 games, 20 streams, 2 readers) checks that
it works.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import shutil
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from arena.sandbox.procfs import descendants, stat_cpu  # noqa: E402
from arena.web.app import Settings  # noqa: E402
from arena.web.server import LONG_POLL  # noqa: E402

ARENA = [sys.executable, "-c", "from arena.commands.cli import main; main()"]
#: this environment without a token or database of the caller's
ENV = {k: v for k, v in os.environ.items() if k not in ("ARENA_TOKEN", "ARENA_DB")} | {"PYTHONDONTWRITEBYTECODE": "1"}
SEASON = "spring"
#: red and blue submit before the load (``arena season submit``), green and gold through the API
TEAMS = {"red": "randombot.py", "blue": "rules.py", "green": "randombot.py", "gold": "rules.py"}
TOURNAMENT = """\
name: load
game: tictactoe
time: {move: 0.2}
bots: {rules: {module: bots.rules}, random: {module: bots.randombot}}
teams: {r1: rules, r2: rules, x1: random, x2: random}
stages: [{name: league, games_per_pair: 1}]
"""
PLAY_BOT, MOVE_TIME = "bots.randombot", 0.2
#: the longest a visitor's game or a validation may take (seconds)
GAME_LIMIT, VALIDATION_LIMIT = 90.0, 120.0
TARGET_P95, TARGET_MB = 1.0, 500.0


@dataclass
class Played:
    """A visitor's game: its seat, its stored id, what went wrong on the server's side if anything."""

    seat: int
    game_id: int | None = None
    problem: str | None = None


@dataclass
class Tally:
    """What the clients saw, from their threads."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    games: list[Played] = field(default_factory=list)
    busy: Counter[int] = field(default_factory=Counter)  # starts refused, by status
    validations: list[tuple[str, float, float, str, bool]] = field(default_factory=list)
    streams: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    page_errors: Counter[str] = field(default_factory=Counter)
    memory: list[tuple[float, float]] = field(default_factory=list)  # MB: the server's, with its children
    expected_validations: int = 2


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def arena(*args: str, **env: str) -> str:
    """The output of an arena command that must succeed."""
    done = subprocess.run([*ARENA, *args], cwd=ROOT, env=ENV | env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"arena {' '.join(args[:2])} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def prepare(folder: Path, url: str) -> dict[str, str]:
    """The finished tournament, the season and its teams, red and blue submitted: the tokens."""
    (folder / "load.yaml").write_text(TOURNAMENT)
    arena("run", str(folder / "load.yaml"), "--db", url, "--quiet", "--workers", "2")
    arena("season", "create", SEASON, "--game", "tictactoe", "--time", "0.2", "--db", url, "--folder", str(folder))
    lines = arena("season", "teams", "add", SEASON, *TEAMS, "--db", url).splitlines()
    tokens = dict(line.split("\t") for line in lines if "\t" in line)
    for team in ("red", "blue"):
        arena("season", "submit", SEASON, f"bots/{TEAMS[team]}", "--db", url, ARENA_TOKEN=tokens[team])
    return tokens


def start(args: list[str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen([*ARENA, *args], cwd=ROOT, env=ENV, stdout=out, stderr=subprocess.STDOUT)


def stop(process: subprocess.Popen[bytes], sig: int) -> None:
    if process.poll() is None:
        process.send_signal(sig)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def wait_answer(base: str, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(base, timeout=5)
            return
        except httpx.TransportError:
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit("arena serve did not start") from None
            time.sleep(0.2)


def visitor(base: str, address: str, until: float, tally: Tally) -> None:
    """A browser from ``address``: games against the bot one after another until ``until``."""
    rng = random.Random(address)
    transport = httpx.HTTPTransport(local_address=address)
    with httpx.Client(base_url=base, transport=transport, headers={"origin": base}, timeout=LONG_POLL + 10) as client:
        while time.monotonic() < until:
            seat = rng.choice((0, 1))
            form = {"game": "tictactoe", "bot": PLAY_BOT, "seat": "xo"[seat], "move_time": str(MOVE_TIME)}
            try:
                answer = client.post("/play", data=form)
                status, location = answer.status_code, answer.headers.get("location", "")
                problem = f"start: HTTP {status}"
            except httpx.HTTPError as error:
                status, location, problem = 0, "", f"start: {type(error).__name__}"
            if status in (429, 503):  # 8 games at once, or 2 of its own
                with tally.lock:
                    tally.busy[status] += 1
                time.sleep(rng.uniform(0.2, 1.0))
                continue
            if status == 303:
                played = play(client, location, seat, rng)
            else:
                played = Played(seat, problem=problem)
                time.sleep(1.0)
            with tally.lock:
                tally.games.append(played)


def play(client: httpx.Client, table: str, seat: int, rng: random.Random) -> Played:
    """The game at ``table`` played to its end by long polls, any legal move each turn."""
    played, version = Played(seat), -1
    deadline = time.monotonic() + GAME_LIMIT
    try:
        while time.monotonic() < deadline:
            answer = client.get(f"{table}/state", params={"after": version})
            answer.raise_for_status()
            snapshot = answer.json()
            version = snapshot["version"]
            played.game_id = int(re.findall(r"\d+", snapshot["game_url"])[-1])
            if snapshot["over"]:
                if snapshot["failure"]:
                    played.problem = f"could not go on: {snapshot['failure']}"
                return played
            if snapshot["legal"]:
                moved = client.post(f"{table}/act", json={"action": "move", "move": rng.choice(snapshot["legal"])})
                if moved.status_code != 200:
                    played.problem = f"move refused: {moved.text[:100]}"
                    break
        else:
            played.problem = f"not over after {GAME_LIMIT:.0f} s"
    except httpx.HTTPError as error:
        played.problem = f"{type(error).__name__}: {error}"[:120]
    try:
        client.post(f"{table}/act", json={"action": "resign"})  # its place among the 8 games freed
    except httpx.HTTPError:
        pass
    return played


def validate(base: str, team: str, token: str, at: float, begun: float, tally: Tally) -> None:
    """Team ``team`` submits its bot through the API ``at`` seconds into the load."""
    time.sleep(max(0.0, begun + at - time.monotonic()))
    bot, sent = ROOT / "bots" / TEAMS[team], time.monotonic()
    try:
        answer = httpx.post(
            f"{base}/api/seasons/{SEASON}/submissions",
            params={"filename": bot.name},
            content=bot.read_bytes(),
            headers={"authorization": f"Bearer {token}", "origin": base},
            timeout=VALIDATION_LIMIT,
        )
        body = answer.json()
        outcome = f"{answer.status_code}, v{body.get('version')} {body.get('status') or body.get('error')}"
        active = body.get("status") == "active"
    except (httpx.HTTPError, ValueError) as error:
        outcome, active = f"{type(error).__name__}: {error}"[:120], False
    with tally.lock:
        tally.validations.append((team, at, time.monotonic() - sent, outcome, active))


def hold_streams(port: int, paths: list[str], until: float, tally: Tally) -> None:
    """A live stream opened on each of ``paths`` at once, each held open until ``until``."""

    async def hold(path: str) -> str:
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 30)
        except (OSError, TimeoutError) as error:
            return f"failed: {type(error).__name__}"
        try:
            writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n\r\n".encode())
            status = (await asyncio.wait_for(reader.readline(), 30)).split()[1:2]
            if status != [b"200"]:
                return "refused (503)" if status == [b"503"] else f"failed: {status}"
            while (left := until - time.monotonic()) > 0:
                try:
                    if not await asyncio.wait_for(reader.read(65536), left):
                        return "dropped early"
                except TimeoutError:
                    break
            return "held to the end"
        except (OSError, TimeoutError) as error:
            return f"failed: {type(error).__name__}"
        finally:
            writer.close()

    async def every() -> None:
        verdicts = await asyncio.gather(*(hold(path) for path in paths))
        with tally.lock:
            for path, verdict in zip(paths, verdicts):
                tally.streams[path][verdict] += 1

    asyncio.run(every())


def reader(base: str, routes: dict[str, str], first: int, until: float, tally: Tally) -> None:
    """Pages read in turn until ``until``, each request timed."""
    names = list(routes)
    with httpx.Client(base_url=base, timeout=30) as client:
        turn = first
        while time.monotonic() < until:
            name, begun = names[turn % len(names)], time.perf_counter()
            turn += 1
            try:
                status = str(client.get(routes[name]).status_code)
            except httpx.HTTPError as error:
                status = type(error).__name__
            with tally.lock:
                if status == "200":
                    tally.latencies[name].append(time.perf_counter() - begun)
                else:
                    tally.page_errors[f"{name}: {status}"] += 1
            if status != "200":
                time.sleep(0.5)


def rss_mb(pid: int) -> float:
    """Resident memory of process ``pid`` (MB; 0 if it is gone)."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return 0.0
    return next((int(line.split()[1]) / 1024 for line in lines if line.startswith("VmRSS:")), 0.0)


def sample_memory(pid: int, done: threading.Event, tally: Tally) -> None:
    """The server's memory, its own and with every process below it, each second."""
    while not done.wait(1.0):
        own = rss_mb(pid)
        tally.memory.append((own, own + sum(rss_mb(child) for child in descendants(pid))))


def read(database: Path, sql: str, *params: object) -> list[tuple]:
    """Rows of ``sql`` in the database, opened read-only."""
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as connection:
        return connection.execute(sql, params).fetchall()


def ladder_games(database: Path) -> int:
    """The season's ladder games stored so far."""
    query = "SELECT count(*) FROM games g JOIN seasons s ON s.tournament_id = g.tournament_id WHERE s.name = ?"
    return int(read(database, query + " AND g.status = 'finished'", SEASON)[0][0])


def outcomes(database: Path, games: list[Played]) -> dict[str, Counter[str]]:
    """How the visitors' games ended, from their stored rows: by their moves, by the visitor's
    fault, or failures; and how."""
    moves, own, failed = Counter[str](), Counter[str](), Counter[str]()
    for game in games:
        query = "SELECT status, winner, termination, offender, detail FROM games WHERE id = ?"
        found = read(database, query, game.game_id)
        status, winner, termination, offender, detail = found[0] if found else ("not stored", None, None, None, "")
        if game.problem is not None or status != "finished":
            failed[game.problem or status] += 1
        elif termination == "normal":
            moves["draw" if winner is None else ("visitor won", "bot won")[winner != game.seat]] += 1
        elif offender == game.seat:
            own[termination] += 1
        else:
            failed[f"{termination} of {'the bot' if offender is not None else 'no one'} ({detail or ''})"[:160]] += 1
    return {"ended by their moves": moves, "ended by the visitor's fault": own, "failures": failed}


def quantile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def listed(counts: Counter[str] | Counter[int]) -> str:
    return ", ".join(f"{what} {n}" for what, n in counts.most_common()) or "none"


def report(tally: Tally, ended: dict[str, Counter[str]], ladder: int, cpu: float, alive: bool) -> bool:
    """Print the figures; whether they meet the targets."""
    print(f"visitor games: {len(tally.games)}; starts refused while busy, retried (by status): {listed(tally.busy)}")
    for kind, how in ended.items():
        print(f"  {kind}: {sum(how.values())} ({listed(how)})")
    failures = sum(ended["failures"].values()) + tally.expected_validations - len(tally.validations)
    for team, at, took, outcome, active in sorted(tally.validations, key=lambda v: v[1]):
        print(f"validation of {team}'s bot sent at {at:.0f} s: {outcome} in {took:.1f} s")
        failures += not active
    print(f"ladder: {ladder} games stored while the load ran")
    verdicts = sum(tally.streams.values(), Counter[str]())
    failures += sum(n for verdict, n in verdicts.items() if verdict.startswith(("failed", "dropped")))
    accepted = verdicts["held to the end"] + verdicts["dropped early"]
    bound = Settings().max_streams
    print(f"streams: {accepted} accepted{' OVER' if accepted > bound else ''} (the bound {bound}): {listed(verdicts)}")
    for path, counts in tally.streams.items():
        print(f"  {path}: {listed(counts)}")
    every = [t for times in tally.latencies.values() for t in times]
    failures += sum(tally.page_errors.values())
    print(f"pages: {len(every)} answered; errors: {listed(tally.page_errors)}")
    for name, times in [*tally.latencies.items(), ("all", every)]:
        if times:
            median, p95, worst = statistics.median(times), quantile(times, 0.95), max(times)
            print(f"  {name:<10} {len(times):>6}  median {median:6.3f} s  p95 {p95:6.3f} s  max {worst:6.3f} s")
    p95 = quantile(every, 0.95) if every else float("inf")
    own, peak = (max((sample[i] for sample in tally.memory), default=0.0) for i in (0, 1))
    print(f"memory: peak {peak:.0f} MB with its bots (the server alone: {own:.0f} MB)")
    print(f"server CPU: {cpu:.2f} cores on average (of {os.cpu_count()}); alive at the end: {'yes' if alive else 'no'}")
    passed = failures == 0 and p95 <= TARGET_P95 and peak <= TARGET_MB and alive
    print(
        f"{'PASS' if passed else 'FAIL'}: {failures} failures (target 0), page p95 {p95:.3f} s (<= {TARGET_P95:g} s), "
        f"peak memory {peak:.0f} MB (<= {TARGET_MB:.0f} MB), server {'alive' if alive else 'dead'}"
    )
    return passed


def measure(args: argparse.Namespace, folder: Path, processes: list[tuple[subprocess.Popen[bytes], int]]) -> bool:
    """Set up, load the server for ``args.seconds``, print the figures: whether they pass."""
    database = folder / "load.sqlite3"
    url = f"sqlite:///{database}"
    tokens = prepare(folder, url)
    query = "SELECT t.id, min(g.id) FROM tournaments t JOIN games g ON g.tournament_id = t.id WHERE t.name = 'load'"
    ((tid, gid),) = read(database, query)
    playing = start(["season", "ladder", SEASON, "--workers", "1", "--db", url], folder / "ladder.log")
    processes.append((playing, signal.SIGINT))  # its Ctrl-C: the games played are kept
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    mode = "--no-play" if args.read_only else "--play"  # read-only: no visitor plays, no team submits
    server = start(["serve", "--db", url, "--port", str(port), mode], folder / "serve.log")
    processes.append((server, signal.SIGTERM))
    wait_answer(base, server)
    pages = ("/", f"/t/{tid}/index.html", f"/t/{tid}/games/{gid}.html", "/seasons", f"/s/{SEASON}/", "/play")
    routes = dict(zip(("overview", "tournament", "game", "seasons", "ladder", "play"), pages, strict=True))
    if args.read_only:
        del routes["play"]
    paths = [(f"/t/{tid}/events", f"/s/{SEASON}/events")[i % 2] for i in range(args.streams)]
    tally, done = Tally(), threading.Event()
    ladder_before, cpu_before, begun = ladder_games(database), stat_cpu(server.pid), time.monotonic()
    until = begun + args.seconds
    validations = [] if args.read_only else [("green", 0.0), ("gold", args.seconds / 2)]
    tally.expected_validations = len(validations)
    threads = [
        threading.Thread(target=hold_streams, args=(port, paths, until, tally)),
        *(threading.Thread(target=validate, args=(base, t, tokens[t], at, begun, tally)) for t, at in validations),
        *(threading.Thread(target=reader, args=(base, routes, i, until, tally)) for i in range(args.readers)),
        *(threading.Thread(target=visitor, args=(base, f"127.0.0.{10 + i}", until, tally)) for i in range(args.games)),
    ]
    print(
        f"{args.seconds:g} s{', read-only' if args.read_only else ''}: {args.games} visitors, {len(validations)} "
        f"validations, the ladder, {args.streams} streams, {args.readers} page readers"
    )
    for thread in [threading.Thread(target=sample_memory, args=(server.pid, done, tally)), *threads]:
        thread.daemon = True  # (a Ctrl-C ends the run without them)
        thread.start()
    time.sleep(max(0.0, until - time.monotonic()))
    ladder, cpu = ladder_games(database) - ladder_before, (stat_cpu(server.pid) - cpu_before) / args.seconds
    for thread in threads:  # the visitors' last games, the second validation
        thread.join(max(0.0, until + VALIDATION_LIMIT - time.monotonic()))
    done.set()
    alive = server.poll() is None
    passed = report(tally, outcomes(database, tally.games), ladder, cpu, alive)
    if not alive:
        print((folder / "serve.log").read_text()[-3000:])
    return passed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the load lasts")
    parser.add_argument("--games", type=int, default=20, help="browser visitors playing the bot")
    parser.add_argument("--streams", type=int, default=300, help="live streams held open")
    parser.add_argument("--readers", type=int, default=8, help="clients reading pages in a loop")
    parser.add_argument(
        "--read-only", action="store_true", help="arena serve --no-play: 25 streams and 25 readers, no visitors"
    )
    parser.add_argument("--quick", action="store_true", help="a short, light run: check that it works")
    args = parser.parse_args()
    if args.read_only:
        args.games, args.streams, args.readers = 0, 25, 25
    if args.quick:
        args.seconds, args.games, args.streams, args.readers = 10.0, 0 if args.read_only else 4, 20, 2
    folder = Path(tempfile.mkdtemp(prefix="arena-serve-load-"))
    processes: list[tuple[subprocess.Popen[bytes], int]] = []
    try:
        passed = measure(args, folder, processes)
    except KeyboardInterrupt:
        raise SystemExit("interrupted") from None
    finally:
        for process, sig in reversed(processes):  # the server, then the ladder
            stop(process, sig)
        shutil.rmtree(folder, ignore_errors=True)
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()

"""The harness's own costs and timing, in one run.

(a) uttt random-vs-random games per second, bots in their own processes and every move
    stored in SQLite, with 1 and 2 workers, beside the same games in one process with no
    processes and no storage (the floor); and with 2 workers not pinned to CPUs, without the
    launcher (every bot process started the plain way), and without either (the baseline the
    ratios are against);
(b) the harness's overhead per move: the wall time the harness charges a bot that answers at
    once (``cat`` started as a bot, in the full sandbox: what the harness adds to the pipes),
    and a random bot's move (pipes, JSON both ways, the Python host's bookkeeping and the bot's
    pick, the scheduler), median and p99, beside a bare pipe round trip (a line to ``cat`` and
    back, both on one CPU as a pinned worker and its bots are) measured in the same run; and
    (a) and (b) again with the cpu clock (``time: {clock: cpu}``);
(c) how far past its limit a bot that never answers is killed (median, max) with every
    worker doing it at once, and the forfeits of a bot that thinks for 90 % of a 50 ms limit
    over 2,000 moves with every worker busy (target 0).

Run: python benchmarks/harness.py [--teams N] [--games-per-pair N] [--runs R] [--workers W]

``--profile [--games N]`` instead plays N uttt random games (after 20 to warm up) in one
``GameWorker`` in this process under cProfile and prints where the worker's time a move goes,
by part of the harness: the wait for the bot's reply, the pipe writes (which hand the CPU to
the bot), the cgroup and /proc reads of the clocks, JSON both ways, the game's rules, and the
rest of the match loop and seat bookkeeping. The profiler about doubles every figure but the
waits; the shares are what to read.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import select  # noqa: E402

from arena.contests.config import parse_config  # noqa: E402
from arena.contests.run import RunHeader, Silent, run_tournament  # noqa: E402
from arena.core.botspec import BotSpec  # noqa: E402
from arena.core.records import BotFault  # noqa: E402
from arena.core.timing import TimeControl  # noqa: E402
from arena.games import get_game  # noqa: E402
from arena.runners import worker  # noqa: E402
from arena.runners.worker import GameWorker  # noqa: E402
from arena.store.database import open_store  # noqa: E402
from arena.store.models import MoveRow  # noqa: E402

launcher_limit = worker.MAX_LAUNCHERS

BOTS = Path(__file__).resolve().parent / "bots"


def floor_rate(games: int) -> float:
    """uttt random-vs-random games a second in this process: no bot processes, no storage."""
    game = get_game("uttt")
    rng = random.Random(1)
    start = time.perf_counter()
    for _ in range(games):
        state = game.initial_state()
        while not state.is_terminal:
            state = state.play(rng.choice(state.legal_moves()))
    return games / (time.perf_counter() - start)


class Timed(Silent):
    """A run's start: when its first game is about to be played (its bots checked)."""

    started = 0.0

    def header(self, header: RunHeader) -> None:
        self.started = time.perf_counter()


def tournament_yaml(name: str, teams: int, games_per_pair: int, clock: str = "wall") -> str:
    bots = "\n".join(f"  r{i}: {{module: bots.randombot}}" for i in range(teams))
    return (
        f"name: {name}\ngame: uttt\nseed: 1\ntime: {{move: 1.0, clock: {clock}}}\nbots:\n{bots}\n"
        f"stages:\n  - {{games_per_pair: {games_per_pair}}}\n"
    )


#: the echoes of ``pipe_round_trips``: the pipes' floor, and a Python bot's (its interpreter's
#: read and write, as the host's)
ECHOES = {
    "cat": ["cat"],
    "a Python echo": [
        sys.executable,
        "-c",
        "import os\nwhile data := os.read(0, 65536):\n    os.write(1, data)",
    ],
}


#: the line the echoes send back: a move reply
LINE = b'{"type":"move","move":"44"}\n'


def pipe_round_trips(count: int, echo_argv: list[str]) -> list[float]:
    """Seconds of ``count`` round trips of a short line through an echo (``ECHOES``) and back
    over pipes, this process and the echo on one CPU (as a pinned worker and its bots): the
    floor of a move."""
    import os
    import subprocess

    cpu = min(os.sched_getaffinity(0))
    saved = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {cpu})
    echo = subprocess.Popen(echo_argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert echo.stdin is not None and echo.stdout is not None
    line, trips = LINE, []
    try:
        for _ in range(count):
            start = time.perf_counter()
            os.write(echo.stdin.fileno(), line)
            got = b""
            while len(got) < len(line):
                got += os.read(echo.stdout.fileno(), 4096)
            trips.append(time.perf_counter() - start)
    finally:
        echo.stdin.close()
        echo.wait()
        os.sched_setaffinity(0, saved)
    return trips[count // 10 :]  # the first ones warm up


def charged_echoes(count: int) -> list[float]:
    """Seconds the harness charged ``count`` requests to a bot that answers at once: ``cat``
    started as a bot (a control group of its own, seccomp, Landlock, namespaces), a line sent
    through ``BotProcess.exchange`` and its stretch as the harness measures it (its reads at
    either end outside it), this process and the bot on one CPU: the harness's own part of a
    move, no bot program in it."""
    import os
    import shutil

    with GameWorker(cpu=min(os.sched_getaffinity(0)), fork=False) as playing:
        echo = playing.start_bot(BotSpec("echo", "command", shutil.which("cat") or "cat"), None, warm_up=False)
        try:
            stretches = [echo.exchange(LINE, None)[1].wall for _ in range(count)]
        finally:
            echo.close()
    return stretches[count // 10 :]  # the first ones warm up


def harness_rate(
    workers: int,
    teams: int,
    games_per_pair: int,
    folder: Path,
    pin: bool = True,
    launcher: bool = True,
    clock: str = "wall",
) -> tuple[float, int, list[float]]:
    """Games a second of a whole uttt random tournament through the harness, and its moves'
    wall ms; ``pin``: workers on CPUs of their own; ``launcher``: Python bots forked from each
    worker's launcher (else started the plain way, through the sandbox wrapper); ``clock``: the
    time control's clock."""
    url = f"sqlite:///{folder}/bench-{workers}-{time.monotonic_ns()}.sqlite3"
    text = tournament_yaml("bench", teams, games_per_pair, clock)
    worker.MAX_LAUNCHERS = launcher_limit if launcher else 0  # the workers are forked from here
    timed = Timed()
    try:
        progress = run_tournament(parse_config(text), text, url, ROOT, workers=workers, pin=pin, listener=timed)
    finally:
        worker.MAX_LAUNCHERS = launcher_limit
    elapsed = time.perf_counter() - timed.started
    with open_store(url)() as session:
        walls = list(session.scalars(select(MoveRow.wall_ms)))
    return progress.done / elapsed, progress.done, walls


def _kill_delays(limit: float, count: int, queue) -> None:
    spec = BotSpec("hang", "python", str(BOTS / "never_answers.py"))
    control = TimeControl(move=limit, grace=TimeControl().grace)
    game = get_game("uttt")
    delays = []
    with GameWorker(fork=False) as worker:
        for i in range(count):
            player = worker.player(spec)
            player.start_game(game, 0, i, control)
            start = time.monotonic()
            try:
                player.request_move(game.initial_state(), [], control.seat())
            except BotFault:
                delays.append(time.monotonic() - start - limit)
            player.close()
    queue.put(delays)


def kill_delays(workers: int, limit: float, count: int) -> list[float]:
    """Seconds past ``limit`` at which never-answering bots were killed, ``workers`` at once."""
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    processes = [context.Process(target=_kill_delays, args=(limit, count, queue)) for _ in range(workers)]
    for p in processes:
        p.start()
    delays = [d for _ in processes for d in queue.get()]
    for p in processes:
        p.join()
    return delays


def busy_forfeits(workers: int, moves: int, folder: Path) -> tuple[int, int]:
    """(moves played, forfeits) of busy90 bots (90 % of a 50 ms limit), every worker busy."""
    per_game = 40  # about: uttt random games last 40-60 plies
    pairs = max(1, moves // per_game)
    yaml = (
        f"name: busy\ngame: uttt\nseed: 2\ntime: {{move: 0.05}}\nbots:\n"
        f"  a: {{path: {BOTS / 'busy90.py'}}}\n  b: {{path: {BOTS / 'busy90.py'}}}\n"
        f"stages:\n  - {{games_per_pair: {pairs}}}\n"
    )
    url = f"sqlite:///{folder}/busy-{time.monotonic_ns()}.sqlite3"
    run_tournament(parse_config(yaml), yaml, url, ROOT, workers=workers)
    with open_store(url)() as session:
        played = session.scalar(select(MoveRow.id).order_by(MoveRow.id.desc()).limit(1)) or 0
        from arena.store.models import GameRow

        forfeits = len(list(session.scalars(select(GameRow.id).where(GameRow.offender.is_not(None)))))
    return played, forfeits


#: the parts of a worker's time a move, by where the profiler found it (a function's file or name)
PARTS = [
    ("waiting for the bot (poll)", ("select.poll",)),
    ("pipe writes (wake the bot)", ("posix.write",)),
    ("pipe reads", ("posix.read",)),
    ("clock reads (cgroup, /proc)", ("posix.pread", "sandbox/cgroups.py", "sandbox/procfs.py")),
    ("JSON both ways", ("json/", "core/protocol.py")),
    ("the game's rules", ("arena/games/",)),
    ("bot process: timing, limits", ("sandbox/process.py", "core/timing.py")),
    ("match loop and seats", ("core/gameloop.py", "runners/seat.py", "runners/worker.py")),
]


def profile(games: int) -> None:
    """Where a worker's time a move goes (see the module docstring, ``--profile``)."""
    import cProfile
    import pstats

    from arena.core.job import GameJob

    bot = BotSpec(name="random", kind="python", target="bots.randombot")
    jobs = [GameJob(i, {"name": "uttt", "params": {}}, (bot, bot), i, TimeControl(move=1.0)) for i in range(games + 20)]
    profiler, moves = cProfile.Profile(), 0
    with worker.GameWorker() as playing:
        for job in jobs[:20]:
            playing.play(job)
        started = time.perf_counter()
        profiler.enable()
        for job in jobs[20:]:
            moves += len(playing.play(job).moves)
        profiler.disable()
        wall = time.perf_counter() - started
    by_part = dict.fromkeys([name for name, _ in PARTS] + ["other"], 0.0)
    for (path, _, function), (_, _, own, _, _) in pstats.Stats(profiler).stats.items():  # type: ignore[attr-defined]
        where = f"{path} {function}"
        part = next((name for name, marks in PARTS if any(mark in where for mark in marks)), "other")
        by_part[part] += own
    print(f"{games} uttt games, {moves} moves, one worker in this process: {1e6 * wall / moves:.0f} us a move (wall)")
    total = sum(by_part.values())
    for part, seconds in by_part.items():
        print(f"    {part:32} {1e6 * seconds / moves:7.1f} us a move  {100 * seconds / total:5.1f} %")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--teams", type=int, default=12, help="random bots in the throughput tournament")
    parser.add_argument("--games-per-pair", type=int, default=6)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--busy-moves", type=int, default=2000)
    parser.add_argument("--profile", action="store_true", help="where a worker's time a move goes, then stop")
    parser.add_argument("--games", type=int, default=300, help="games --profile plays")
    args = parser.parse_args()
    if args.profile:
        profile(args.games)
        return
    games = args.teams * (args.teams - 1) // 2 * args.games_per_pair
    print(f"(a) uttt random vs random, {games} games a run, median of {args.runs} runs")
    w = args.workers
    setups = {
        (1, True, True, "wall"): "1 worker",
        (w, True, True, "wall"): f"{w} workers",
        (w, False, True, "wall"): f"{w} workers, not pinned",
        (w, True, False, "wall"): f"{w} workers, no launcher",
        (w, False, False, "wall"): f"{w} workers, neither (plain)",
        (1, True, True, "cpu"): "1 worker, cpu clock",
        (w, True, True, "cpu"): f"{w} workers, cpu clock",
    }
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        floors: list[float] = []
        rates: dict[tuple, list[float]] = {setup: [] for setup in setups}
        walls: dict[str, list[float]] = {}
        trips: dict[str, list[float]] = {name: [] for name in ECHOES}
        charged: list[float] = []
        for _ in range(args.runs):
            floors.append(floor_rate(min(games, 400)))
            for name, argv in ECHOES.items():
                trips[name] += pipe_round_trips(5000, argv)
            charged += charged_echoes(5000)
            for setup in setups:
                workers, pin, launcher, clock = setup
                teams, per_pair = args.teams, args.games_per_pair
                rate, _, run_walls = harness_rate(workers, teams, per_pair, folder, pin, launcher, clock)
                rates[setup].append(rate)
                if workers == 1:
                    walls[clock] = run_walls
        floor = statistics.median(floors)
        plain = statistics.median(rates[(w, False, False, "wall")])
        print(f"    floor, one process, no storage:     {floor:8.1f} games/s")
        for setup, values in rates.items():
            median = statistics.median(values)
            print(
                f"    harness, {setups[setup] + ':':27} {median:8.1f} games/s ({median / plain:.2f} x plain; "
                f"runs: {', '.join(f'{v:.0f}' for v in values)})"
            )
        print("(b) a pipe round trip, one CPU:")
        for name, found in trips.items():
            found.sort()
            print(
                f"    through {name + ':':15} median {statistics.median(found) * 1e6:5.1f} us, "
                f"p99 {found[int(len(found) * 0.99)] * 1e6:5.1f} us ({len(found)} trips)"
            )
        floors_us = {name: statistics.median(found) * 1e6 for name, found in trips.items()}
        charged.sort()
        median, p99 = statistics.median(charged) * 1e6, charged[int(len(charged) * 0.99)] * 1e6
        print(
            f"    charged a bot that answers at once (cat in the sandbox, {len(charged)} requests): "
            f"median {median:.1f} us ({median / floors_us['cat']:.1f} x cat's round trip), p99 {p99:.1f} us"
        )
        for clock, found in walls.items():
            found.sort()
            median, p99 = statistics.median(found) * 1000, found[int(len(found) * 0.99)] * 1000
            against = ", ".join(f"{median / trip:.1f} x {name}'s" for name, trip in floors_us.items())
            print(
                f"    a random bot's move, {clock} clock (its host and pick included, 1 worker, {len(found)} moves): "
                f"median {median:.0f} us ({against}), p99 {p99:.0f} us"
            )
        delays = kill_delays(args.workers, 0.1, 10)
        print(
            f"(c) never-answering bot, limit 100 ms, grace {TimeControl().grace * 1000:.0f} ms, "
            f"{args.workers} at once, {len(delays)} kills: killed past the limit by median "
            f"{statistics.median(delays) * 1000:.1f} ms, max {max(delays) * 1000:.1f} ms"
        )
        played, forfeits = busy_forfeits(args.workers, args.busy_moves, folder)
        print(
            f"    bot thinking 90 % of a 50 ms limit, {args.workers} workers: {played} moves, "
            f"{forfeits} forfeits (target 0)"
        )


if __name__ == "__main__":
    main()

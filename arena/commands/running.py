"""``arena run``: run a tournament, or resume it."""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from arena.commands.common import DEFAULT_DB, Db, check_text, err, out, sessions, warn_if_root
from arena.core.text import printable

if TYPE_CHECKING:
    from rich.progress import Progress as Bar
    from rich.progress import TaskID

    from arena.contests.config import ClusterDef, TournamentDef
    from arena.contests.run import RunHeader
    from arena.contests.tournament import Progress
    from arena.core.records import GameRecord
    from arena.store.writes import Contents

app = typer.Typer()


@app.command()
def run(
    file: Annotated[Path, typer.Argument(help="The tournament file.")] = Path("tournament.yaml"),
    db: Db = DEFAULT_DB,
    workers: Annotated[
        int | None, typer.Option(min=1, help="Worker processes (default: the file's, else the cores).")
    ] = None,
    name: Annotated[str | None, typer.Option(help="Run under this name instead of the file's.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress display.")] = False,
    pin: Annotated[
        bool | None,
        typer.Option(
            "--pin/--no-pin",
            help="Keep each worker and its bots to a CPU of their own (default: only to CPUs that are idle now).",
        ),
    ] = None,
    check: Annotated[
        bool, typer.Option("--check", help="Only check the file and its bots; store nothing, play nothing.")
    ] = False,
    restart: Annotated[
        bool,
        typer.Option("--restart", help="Delete the stored tournament of this name first, then run it from scratch."),
    ] = False,
    cluster: Annotated[
        str | None,
        typer.Option(
            envvar="ARENA_CLUSTER",
            help="Play the games on the Dask cluster whose scheduler is here (tcp://HOST:8786, tls://HOST:8786; "
            "default: the file's cluster:, else this machine). See docs/cluster.md.",
        ),
    ] = None,
    scale_time: Annotated[
        bool | None,
        typer.Option(
            "--scale-time/--no-scale-time",
            help="On a cluster, scale time limits by each node's measured speed (default: the file's).",
        ),
    ] = None,
    tls_ca_file: Annotated[
        str | None, typer.Option(help="TLS: the certificate authority's file (with --cluster).")
    ] = None,
    tls_cert: Annotated[str | None, typer.Option(help="TLS: this client's certificate (with --cluster).")] = None,
    tls_key: Annotated[str | None, typer.Option(help="TLS: this client's private key (with --cluster).")] = None,
) -> None:
    """Run the tournament in FILE, or resume it if it exists already. Every bot is checked
    first; every problem found is listed, and nothing is stored or played."""
    from pydantic import ValidationError

    from arena.contests.config import load_config
    from arena.contests.preflight import check_tournament
    from arena.contests.run import run_tournament
    from arena.errors import ConfigError

    check_text("the tournament file's folder", str(file.resolve().parent))  # bot paths are stored relative to it
    config, text = load_config(file)
    if name is not None:
        try:
            config = type(config).model_validate({**config.model_dump(), "name": name})
        except ValidationError as error:
            raise ConfigError(f"--name {name!r}: {error.errors()[0]['msg'].removeprefix('Value error, ')}") from None
    base = file.resolve().parent
    where = cluster_def(config.cluster, cluster, scale_time, (tls_ca_file, tls_cert, tls_key))
    if check:
        found = check_tournament(config, base, lambda: sessions(db, read_only=True), Once(warn_if_root))
        _warn(found.warnings)
        if found.problems:
            raise found.error(str(file))
        out().print(f"ok: {found.bots} bots of {found.teams} teams checked", markup=False, highlight=False)
        return
    shown = Shown(config, quiet)
    try:
        final = run_tournament(
            config,
            text,
            db,
            base,
            workers=workers,
            pin=pin,
            cluster=where,
            restart=restart,
            listener=shown,
            keep_log=True,
            source=str(file),
        )
    except KeyboardInterrupt:
        again = shlex.join(
            [
                "arena",
                "run",
                str(file),
                *(["--name", name] if name else []),
                *(["--db", db] if db != DEFAULT_DB else []),
            ]
        )
        err().print(f"stopped; run '{again}' again to resume where it stopped", markup=False)
        raise typer.Exit(130) from None
    finally:
        shown.close()
    if not quiet:
        elapsed = time.monotonic() - (shown.started or time.monotonic())
        replays = f", {final.replays} replayed for an overloaded machine" if final.replays else ""
        named = shlex.quote(config.name)
        system = {"trueskill": "TrueSkill", "openskill": "OpenSkill"}[config.rating.system]
        for line in (
            f"Finished: {final.done} games, {final.forfeits} forfeits{replays}, {elapsed:.1f} s in this run.",
            f"  who won, place by place: 'arena standings {named}'",
            f"  ratings: 'arena leaderboard {named}' ({system} μ−3σ over all of a team's games: it ranks "
            "skill, which need not follow the places the stages gave)",
        ):
            out().print(line, highlight=False, markup=False)
        for reason in final.void_reasons[:5]:
            out().print(f"  replayed: {reason}", highlight=False, markup=False)
    _warn(_cut_notes(db, config.name))


class Shown:
    """A run as the terminal shows it: warnings and notes on stderr, the header, then a progress
    bar (or a line every few seconds when the output is not a terminal)."""

    def __init__(self, config: TournamentDef, quiet: bool) -> None:
        self.name, self.game, self.quiet = config.name, config.game.name, quiet
        self.root_warning = Once(warn_if_root)
        self.display = ProgressDisplay(quiet)
        self.started: float | None = None
        self.update: Callable[[Progress, float], None] = lambda progress, start: None

    def starting(self) -> None:
        """Warn, once, that arena runs as root, before its first bot starts."""
        self.root_warning()

    def warnings(self, lines: list[str]) -> None:
        """The pre-flight check's warnings, one a line, on stderr."""
        _warn(lines)

    def deleted(self, contents: Contents) -> None:
        """What ``--restart`` deleted first."""
        if not self.quiet:
            say = f"Deleted the stored tournament {printable(repr(self.name))}: {contents.describe()}"
            out().print(say, markup=False, highlight=False)

    def taking_over(self, holder: str) -> None:
        """A note that the last run stopped without finishing."""
        if not self.quiet:
            note = f"the last run of this tournament ({holder}) stopped without finishing; taking over its lock"
            err().print(f"note: {note}", markup=False, highlight=False)

    def measuring(self, count: int) -> None:
        """A note that bots' paces are being measured (it takes a while, once)."""
        if not self.quiet:
            what = f"measuring the pace of {count} bot{'s' if count != 1 else ''} on this machine (once; stored)"
            err().print(f"note: {what}", markup=False, highlight=False)

    def header(self, header: RunHeader) -> None:
        """The run's header (what, how many, where, its time control, its bots' isolation), then
        the progress display."""
        self.started = time.monotonic()
        if not self.quiet:
            out().print(
                f"{'Resuming' if header.resumed else 'Running'} [bold]{escape(self.name)}[/]: {escape(self.game)}, "
                f"{header.teams} teams, {header.games} games, {escape(header.playing)} "
                f"(log: {escape(str(header.log))})",
                highlight=False,
            )
            out().print(
                f"  time: {header.time}; {header.placing}\n  bots: {header.isolation}",
                highlight=False,
                markup=False,
            )
        self.update = self.display.__enter__()

    def record(self, record: GameRecord, progress: Progress) -> None:
        """The progress after each game."""
        self.update(progress, self.started or time.monotonic())

    def close(self) -> None:
        """End the progress display."""
        if self.started is not None:
            self.display.__exit__(None, None, None)


def cluster_def(
    configured: ClusterDef | None, address: str | None, scale_time: bool | None, tls: tuple[str | None, ...]
) -> ClusterDef | None:
    """Where the games are played: the file's ``cluster:`` with what the command line says
    instead (``None``: on this machine); ``ConfigError`` if it does not make sense."""
    from pydantic import ValidationError

    from arena.contests.config import ClusterDef
    from arena.errors import ConfigError

    given = {key: value for key, value in zip(("tls_ca_file", "tls_cert", "tls_key"), tls) if value is not None}
    if address is None and configured is None:
        if given or scale_time:
            raise ConfigError("--scale-time and the --tls options are for a cluster: give --cluster ADDRESS too")
        return None
    settings = configured.model_dump() if configured is not None else {}
    if address:
        settings["address"] = address
    if scale_time is not None:
        settings["scale_time"] = scale_time
    settings.update(given)
    try:
        return ClusterDef.model_validate(settings)
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(map(str, problem["loc"])) or "cluster"
        raise ConfigError(
            f"cluster {where}: {problem['msg'].removeprefix('Value error, ')} (e.g. --cluster tcp://HOST:8786)"
        ) from None


class Once:
    """A function called at most once, however often this is called (the root warning: said
    once, before the first bot starts)."""

    def __init__(self, function: Callable[[], None]) -> None:
        self.function: Callable[[], None] | None = function

    def __call__(self) -> None:
        function, self.function = self.function, None
        if function is not None:
            function()


def _cut_notes(db: str, name: str) -> list[str]:
    """A sentence for each team of tournament ``name`` some of whose moves the clock cut."""
    from arena.results.lookup import find_tournament
    from arena.results.tournament_results import cut_moves, cut_note
    from arena.store.database import close_store

    # opened as the run opened it: a reader would leave the file's -wal and -shm beside it
    store = sessions(db)
    try:
        with store.begin() as session:
            cut = cut_moves(session, find_tournament(session, name).id)
    finally:
        close_store(store)
    return [cut_note(team, count) for team, count in sorted(cut.items())]


def _warn(warnings: list[str]) -> None:
    """Print the pre-flight check's warnings, one a line, on stderr."""
    for line in warnings:
        err().print(f"warning: {line}", markup=False, highlight=False, soft_wrap=True)


#: games after the first of a run, and seconds, before its rate gives an ETA worth printing
ETA_GAMES, ETA_SECONDS = 8, 5.0


class ProgressDisplay:
    """A live progress bar on a terminal, a line every few seconds otherwise."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.console = out()
        self.live: Bar | None = None
        self.task: TaskID | None = None
        self.last = 0.0
        self.done_at_start: int | None = None
        #: when the run's first game came in, and the games done then: the rate is counted from
        #: there, not from the start, whose workers and bots starting up would make it look slow
        self.first: tuple[float, int] | None = None

    def __enter__(self) -> Callable[[Progress, float], None]:
        if not self.quiet and self.console.is_terminal:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            live = self.live = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]} games/s"),
                TimeRemainingColumn(),
                TextColumn("forfeits {task.fields[forfeits]}"),
                console=self.console,
            )
            live.__enter__()
            self.task = live.add_task("games", total=None, rate="-", forfeits=0)
        return self.update

    def update(self, progress: Progress, start: float) -> None:
        """Show ``progress`` (a ``tournament.Progress``) of a run started at ``start``."""
        if self.quiet:
            return
        now = time.monotonic()
        if self.done_at_start is None:
            self.done_at_start = progress.done - 1
        if self.first is None:
            self.first = (now, progress.done)
        since, done_since = now - self.first[0], progress.done - self.first[1]
        if done_since > 0 and since > 0:
            rate = done_since / since
        else:
            rate = (progress.done - self.done_at_start) / max(now - start, 1e-9)
        if self.live is not None and self.task is not None:
            self.live.update(
                self.task,
                completed=progress.done,
                total=progress.total,
                description=progress.stage,
                rate=f"{rate:.1f}",
                forfeits=progress.forfeits,
            )
        elif time.monotonic() - self.last >= 5 or progress.done == progress.total:
            self.last = time.monotonic()
            if progress.done >= progress.total:
                eta = "ETA 0 s"
            elif done_since < ETA_GAMES or since < ETA_SECONDS:
                eta = "ETA estimating…"
            else:
                eta = f"ETA {(progress.total - progress.done) / rate:.0f} s"
            self.console.print(
                f"[{progress.stage}] {progress.done}/{progress.total} games, {rate:.1f} games/s, "
                f"{eta}, {progress.forfeits} forfeits",
                highlight=False,
                markup=False,
            )

    def __exit__(self, *exc: Any) -> None:
        if self.live is not None:
            self.live.__exit__(*exc)

"""Running a tournament, the one way every face does it (``arena run``, benchmarks, tests): hold
its lock, refuse at once what cannot be resumed, check every bot before anything is stored,
reach its cluster if it has one, store it (deleting the stored one of its name first, when
asked), give the bots that budget by the clock their paces, and play it out on this machine's
workers or the cluster. What happens on the way is told to a ``RunListener``; the run's log goes
to ``log`` when one is given."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from arena.contests.config import ClusterDef, TournamentDef
from arena.contests.preflight import check_tournament
from arena.contests.stages import expected_games
from arena.contests.tournament import Progress, TournamentRun, run_lock
from arena.core.job import GameRunner
from arena.core.live import live_folder
from arena.core.records import GameRecord
from arena.errors import ConfigError
from arena.runners.local import LocalRunner
from arena.store.database import close_store, open_store
from arena.store.writes import Contents, delete_tournament

if TYPE_CHECKING:
    from arena.runners.dask_runner import DaskRunner

log = logging.getLogger("arena")


@dataclass(frozen=True)
class RunHeader:
    """What a run says before its first game: whether it resumes, its size, where it plays, its
    time control with the bots' paces (``""``: not a cpu clock that paces bots) and how its bots
    are kept apart."""

    resumed: bool
    teams: int
    games: int
    playing: str
    placing: str
    control: str
    paces: str
    isolation: str
    #: the run's log (``None``: not logged)
    log: Path | None

    @property
    def time(self) -> str:
        """The time control and the paces, in one line."""
        return f"{self.control}; {self.paces}" if self.paces else self.control


class RunListener(Protocol):
    """What a face is told as a run goes."""

    def warnings(self, lines: list[str]) -> None:
        """The pre-flight check's warnings (its problems stop the run: a ``ConfigError``)."""

    def starting(self) -> None:
        """The first bot is about to start."""

    def deleted(self, contents: Contents) -> None:
        """The stored tournament of this name was deleted first (``restart``)."""

    def taking_over(self, holder: str) -> None:
        """The last run of this tournament stopped without letting its lock go (``holder``)."""

    def measuring(self, count: int) -> None:
        """The paces of ``count`` bots are being measured, once, on this machine."""

    def header(self, header: RunHeader) -> None:
        """The run is about to play its first game."""

    def record(self, record: GameRecord, progress: Progress) -> None:
        """A game was played and stored."""


class Silent(RunListener):
    """A listener told everything that says nothing (benchmarks, tests)."""

    def warnings(self, lines: list[str]) -> None:
        pass

    def starting(self) -> None:
        pass

    def deleted(self, contents: Contents) -> None:
        pass

    def taking_over(self, holder: str) -> None:
        pass

    def measuring(self, count: int) -> None:
        pass

    def header(self, header: RunHeader) -> None:
        pass

    def record(self, record: GameRecord, progress: Progress) -> None:
        pass


def run_tournament(
    config: TournamentDef,
    text: str,
    url: str,
    base: Path,
    *,
    workers: int | None = None,
    pin: bool | None = None,
    cluster: ClusterDef | None = None,
    restart: bool = False,
    runner: GameRunner | None = None,
    listener: RunListener | None = None,
    keep_log: bool = False,
    source: str = "the tournament file",
) -> Progress:
    """Run the tournament ``config`` (its file's ``text``, its bots' paths relative to ``base``)
    in the database at ``url``, or resume it: its final progress. ``runner``: play on this
    runner instead of this machine's workers or ``cluster``'s; ``keep_log``: log the run beside
    the database (``log_file``); ``source``: the file, as the pre-flight check's error names it."""
    listener = listener or Silent()
    with run_lock(url, config.name) as stale, ExitStack() as closing:
        # a database not made yet is not made for a tournament that cannot start
        existing = open_store(url, create=False)
        if not restart:  # refused at once if it cannot be resumed, before its bots are checked
            TournamentRun(config, text, existing, base, workers).check_resumable()
        found = check_tournament(config, base, lambda: existing, listener.starting)
        listener.warnings(found.warnings)
        if found.problems:
            raise found.error(source)
        path = log_file(url, config.name) if keep_log else None
        closing.enter_context(logging_to(path))  # (before the workers are forked: they log through it)
        local = None
        if runner is None and cluster is None:  # this machine's workers get ready while the run does
            local = closing.enter_context(LocalRunner(workers or config.workers, pin=pin, live=live_folder(url)))
            local.open(config.game.spec())
        # the cluster is reached before anything is stored: a run that cannot play stores nothing
        remote = None if cluster is None or runner is not None else closing.enter_context(cluster_runner(cluster))
        store = open_store(url)
        closing.callback(close_store, store)
        closing.callback(close_store, existing)
        removed = None
        if restart:
            with store.begin() as session:
                removed = delete_tournament(session, config.name)
            if removed is not None:
                listener.deleted(removed)
        tournament_run = TournamentRun(config, text, store, base, workers)
        _tournament, resumed = tournament_run.prepare()
        listener.starting()

        def measuring(count: int) -> None:  # paces are measured one bot process at a time: none slowed by a launcher
            if local is not None:
                local.wait_ready()
            listener.measuring(count)

        # paces are measured on this machine: a cluster's nodes are others (docs/cluster.md)
        paced = tournament_run.pace(measuring) if remote is None else None
        log.info("%s tournament %r", "resuming" if resumed else "starting", config.name)
        if removed is not None:
            log.info("the stored tournament of this name was deleted first: %s", removed.describe())
        if stale:
            log.warning("the last run of this tournament (%s) stopped without finishing; taking over its lock", stale)
            listener.taking_over(stale)
        progress = Progress(expected_games(config))
        if runner is not None:
            placing = playing = type(runner).__name__
        elif local is not None:
            runner, placing, playing = local, f"CPUs: {local.pinning}", f"{tournament_run.workers} workers"
        else:
            assert remote is not None  # (no runner given, and a cluster named)
            runner, placing = remote, remote.describe()
            playing = placing
        paces = ""
        if config.time.clock == "cpu" and config.time.pace:
            paces = paced.describe() if paced else "no paces on a cluster"
        teams, control = len(config.team_bots()), config.time.control().describe()
        header = RunHeader(resumed, teams, progress.total, playing, placing, control, paces, _isolation(), path)
        log.info("time: %s; %s; bots: %s", header.time, placing, header.isolation)
        listener.header(header)
        return tournament_run.run(runner, on_record=listener.record, progress=progress)


def cluster_runner(where: ClusterDef) -> DaskRunner:
    """The runner of the cluster ``where`` (it connects when entered); ``ConfigError`` if Dask
    is not installed."""
    try:
        from arena.runners.dask_node import TlsFiles
        from arena.runners.dask_runner import DaskRunner
    except ImportError as error:
        raise ConfigError(
            f"a cluster needs Dask's distributed package ({error}): pip install 'arena[cluster]'"
        ) from None
    tls = None
    if where.tls_ca_file and where.tls_cert and where.tls_key:
        tls = TlsFiles(where.tls_ca_file, where.tls_cert, where.tls_key)
    return DaskRunner(where.address, tls, where.scale_time)


def log_file(url: str, name: str) -> Path:
    """Where a tournament's log goes: beside the database file (or in ./db)."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    beside = parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:")
    folder = Path(parsed.database).parent if beside and parsed.database else Path("db")
    folder.mkdir(parents=True, exist_ok=True)
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
    return folder / f"{safe}.log"


@contextmanager
def logging_to(path: Path | None) -> Iterator[None]:
    """Log the harness (workers included, through multiprocessing-logging) to ``path``, for as
    long as the run; nothing when ``path`` is ``None``."""
    if path is None:
        yield
        return
    from multiprocessing_logging import MultiProcessingHandler

    handler = logging.FileHandler(path)
    handler.setFormatter(logging.Formatter("%(asctime)s %(processName)s %(name)s %(levelname)s %(message)s"))
    # the workers are forked with it: what they log comes through a queue to this process's file
    shared = MultiProcessingHandler(f"arena-log-{path.name}", sub_handler=handler)
    log.setLevel(logging.INFO)
    log.addHandler(shared)
    try:
        yield
    finally:
        log.removeHandler(shared)
        shared.close()


def _isolation() -> str:
    """How bots are kept apart and measured on this system, in one line."""
    from arena.sandbox.cgroups import support

    found = support()
    if found is None:
        return "no control groups here: process groups, /proc scans and a child subreaper"
    return found.describe()

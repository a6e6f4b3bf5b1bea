"""The pre-flight check of a tournament: before anything is stored and before any game is
planned, every bot its teams play is checked as its games will use it, and every problem is
reported at once.

First, without running any bot code, each bot is resolved as the roster would store it (its
file or module found, its code hashed), the interpreter named for it is asked its version in
the sandbox, and a command bot's program is looked up. Then each bot is asked, in its own
sandboxed process and within the tournament's startup time: a Python bot is made for the
tournament's game with the team's parameters, as every game makes it (the host's ``check``
request: ``make_bot`` is where bots check their parameters), one process a module for all its
sets of parameters; a course or command bot is asked to ``describe`` itself, and the games it
names are compared with the tournament's (a command bot need not answer).

A problem is something the tournament file can fix: a parameter the bot does not have or
cannot take, a game it does not play, a file, module, program or interpreter that is not
there, limits it cannot start under. A bot that fails in its own code (it cannot be imported,
it crashes or hangs while starting) is a warning: the tournament can run, and that bot
forfeits the games it cannot play, as it would have.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
from collections import deque
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from arena.contests import roster
from arena.contests.config import BotDef, TournamentDef
from arena.core import protocol
from arena.core.botspec import BotSpec
from arena.core.records import BotFault, Overloaded, Termination
from arena.core.text import printable
from arena.core.timing import ClockKind, Limit
from arena.entrants.engines.notation import NotationError, notation_for
from arena.entrants.kinds import ENGINES, BotKindError, command_line, kind_of
from arena.errors import ArenaError
from arena.games import Game, get_game_from_spec
from arena.host.loader import is_path
from arena.runners.engine_seat import EnginePlayer
from arena.runners.worker import GameWorker
from arena.sandbox.interpreter import InterpreterError, check_interpreter
from arena.sandbox.process import BotProcess
from arena.store.models import Bot

#: the most bot processes the check keeps running at once
MAX_PROCESSES = 8


class PreflightError(ArenaError):
    """Bots of a tournament that cannot play it as its file declares them."""


@dataclass
class Entrant:
    """A bot the tournament's teams play: the field that declares it (``bots.NAME``;
    ``teams.TEAM`` for a team's own bot or a registered one), its name, the teams that play it,
    how it starts, and what the check found: (the field below it the finding is about, such as
    ``.python``, or ``""``; the finding, on one line)."""

    where: str
    name: str
    teams: list[str]
    spec: BotSpec | None = None
    problems: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)

    def problem(self, text: object, below: str = "") -> None:
        """Note a problem (with the field ``below`` its own it is about)."""
        self.problems.append((below, printable(text)))

    def warn(self, text: object) -> None:
        """Note a warning."""
        self.warnings.append(("", printable(text)))

    def lines(self, found: list[tuple[str, str]]) -> list[str]:
        """The findings ``found`` as lines naming the field, and the teams where the field does
        not: ``bots.mcts (teams A, B): ...``."""
        others = [team for team in self.teams if f"teams.{team}" != self.where and team != self.name]
        teams = ""
        if others and self.where.startswith("bots."):
            teams = f" (team{'s' if len(others) > 1 else ''} {', '.join(others)})"
        elif others:  # a registered bot, named in the field of its first team
            teams = f" (also team{'s' if len(others) > 1 else ''} {', '.join(others)})"
        return [f"{self.where}{below}{teams}: {text}" for below, text in found]


@dataclass(frozen=True)
class Preflight:
    """What the check found: how many bots of how many teams it checked, the problems (the
    tournament may not start) and the warnings (it may)."""

    bots: int
    teams: int
    problems: list[str]
    warnings: list[str]

    def error(self, source: str) -> PreflightError:
        """The error that lists every problem, for the tournament file ``source``."""
        count = len(self.problems)
        return PreflightError(
            f"{source}: {count} problem{'s' if count != 1 else ''} with the tournament's bots; "
            "nothing was stored or played:\n" + "\n".join(f"  {line}" for line in self.problems)
        )


def check_tournament(
    config: TournamentDef,
    base: Path,
    database: Callable[[], sessionmaker[Session]],
    starting: Callable[[], None] = lambda: None,
) -> Preflight:
    """Check every bot the teams of ``config`` (declared in folder ``base``) play; registered
    bots are read from ``database()``, called only if a team plays one, and only read.
    ``starting`` is called once, before the first bot process starts."""
    with ExitStack() as stack:
        entrants = _entrants(config, base, lambda: stack.enter_context(database().begin()))
    ready = [entrant for entrant in entrants if not entrant.problems]
    game = get_game_from_spec(config.game.spec())
    for entrant in ready:
        _check_without_running(entrant, base, game)
    asks = _asks([e for e in ready if not e.problems and e.spec is not None and e.spec.kind not in ENGINES], config)
    engines = [e for e in ready if not e.problems and e.spec is not None and e.spec.kind in ENGINES]
    if asks or engines:
        starting()
        with GameWorker() as worker:
            _ask_all(worker, asks, config.time.startup, config.time.clock, config)
            for entrant in engines:
                _greet_engine(worker, entrant, game, config.time.startup)
    return Preflight(
        bots=len(entrants),
        teams=len(config.team_bots()),
        problems=[line for entrant in entrants for line in entrant.lines(entrant.problems)],
        warnings=[line for entrant in entrants for line in entrant.lines(entrant.warnings)],
    )


def _entrants(config: TournamentDef, base: Path, session: Callable[[], Session]) -> list[Entrant]:
    """The bots the teams play, each once, resolved as the roster stores them (without
    storing anything), with the problems found on the way; ``session()`` gives the session to
    look up registered bots in."""
    found: dict[str, Entrant] = {}
    opened: list[Session] = []
    for team, ref in config.team_bots().items():
        if isinstance(ref, BotDef):
            where, name, definition = f"teams.{team}", team, ref
        elif ref in config.bots:
            where, name, definition = f"bots.{ref}", ref, config.bots[ref]
        else:
            where, name, definition = f"teams.{team}", ref, None
        key = where if definition is not None else f"registered {ref}"
        if key in found:
            found[key].teams.append(team)
            continue
        entrant = found[key] = Entrant(where, name, [team])
        try:
            if definition is not None:
                bot = Bot(name=name, version=0, **roster.bot_fields(definition, base))
            else:
                opened = opened or [session()]
                bot = roster.registered_bot(opened[0], config, team, str(ref))
            entrant.spec = roster.spec(bot, name, config.limits)
        except (BotKindError, roster.RosterError, OSError) as error:
            entrant.problem(error)
    return list(found.values())


def _check_without_running(entrant: Entrant, base: Path, game: Game) -> None:
    """What can be checked of a bot without running it: its interpreter (asked its version in
    the sandbox), a command bot's program, and an engine's program and notation for ``game``
    (an engine is not asked to describe itself: it speaks its own protocol)."""
    spec = entrant.spec
    assert spec is not None
    if spec.python is not None:
        try:
            check_interpreter(spec.python)
        except InterpreterError as error:
            entrant.problem(error, ".python")
    if spec.kind == "command":
        problem = program_problem(spec.target, Path(spec.path or base))
        if problem is not None:
            entrant.problem(problem, ".command")
    if spec.kind in ENGINES:
        problem = engine_problem(spec, game, base)
        if problem is not None:
            entrant.problem(problem, f".{spec.kind}")


def engine_problem(spec: BotSpec, game: Game, base: Path) -> str | None:
    """What is wrong with an engine for ``game`` (``None``: nothing): its program is not there
    (on the PATH or in /usr/games), or its protocol has no notation for the game here."""
    program = kind_of(spec.kind).command(dataclasses.replace(spec, path=spec.path or str(base)), None)[0]
    if os.sep not in program:
        return f"no program {program!r} on the PATH (nor in /usr/games); install it, or give its path"
    if not os.access(program, os.X_OK):
        return f"the program {program!r} cannot be executed; give an engine's program"
    try:
        notation_for(spec.kind, game)
    except NotationError as error:
        return str(error)
    return None


def _greet_engine(worker: GameWorker, entrant: Entrant, game: Game, startup: float) -> None:
    """Start ``entrant``'s engine in its sandbox and shake hands with it as its first game would
    (its options, its variant) within the start-up time. An engine that fails to is a warning,
    as a bot failing in its own code, and so is one that does not say it plays the variant
    declared (Fairy-Stockfish says ``info string variant NAME`` once it does: silence is a
    variant it does not know; other engines may say nothing)."""
    assert entrant.spec is not None
    player = EnginePlayer(entrant.spec, worker)
    try:
        player.prepare(game, startup)
    except (BotFault, Overloaded, OSError) as error:
        entrant.warn(f"could not be checked: it did not start: {error}")
        return
    finally:
        player.close()
    declared = player.settings.variant
    if declared is not None and player.variant is None and player.settings.variant_path is not None:
        entrant.warn(f"the engine did not say it plays variant {declared!r} (Fairy-Stockfish says so once it does)")


def program_problem(command: str, base: Path) -> str | None:
    """What is wrong with the program a command bot's line starts (``None``: nothing): a path
    that is not an executable file, or a name not found on the ``PATH``."""
    try:
        program = command_line(command, str(base))[0]
    except BotKindError as error:
        return str(error)
    if os.sep not in program:
        if shutil.which(program) is None:
            return f"no program {program!r} on the PATH; install it, or give its path"
        return None
    path = base / program
    if not path.is_file():
        return f"no program {program!r} (looked in {base})"
    if not os.access(path, os.X_OK):
        return (
            f"the program {program!r} cannot be executed (permission denied); make it executable, "
            "or name its interpreter first"
        )
    return None


@dataclass
class Ask:
    """One bot process of the check: what it starts, the reply it is expected to give, and its
    requests, each for the entrants it asks about (a Python bot is sent one ``check`` a set of
    parameters, for every entrant that gives its module those parameters)."""

    spec: BotSpec
    expected: str
    requests: dict[bytes, list[Entrant]]


def _asks(entrants: list[Entrant], config: TournamentDef) -> list[Ask]:
    """The processes that check ``entrants``: one a Python module (whatever its parameters),
    one a course or command bot."""
    game = config.game.spec()
    asks: dict[BotSpec, Ask] = {}
    for entrant in entrants:
        spec = entrant.spec
        assert spec is not None
        python = spec.kind == "python"
        key = dataclasses.replace(spec, name="check", params="{}" if python else spec.params)
        ask = asks.setdefault(
            key, Ask(dataclasses.replace(key, name=entrant.name), "checked" if python else "description", {})
        )
        request = protocol.check(game, spec.parameters) if python else protocol.DESCRIBE
        ask.requests.setdefault(request, []).append(entrant)
    return list(asks.values())


def _ask_all(worker: GameWorker, asks: list[Ask], startup: float, clock: ClockKind, config: TournamentDef) -> None:
    """Ask every process its questions, ``MAX_PROCESSES`` processes at a time: each is started
    and sent its first request at once (so that they load their bots side by side), then their
    replies are read in turn. Python bots are forked from the worker's launcher, ready for the
    tournament's game, but not warmed up: they are only made, never asked to move."""
    game = get_game_from_spec(config.game.spec())
    running: deque[tuple[Ask, BotProcess | None]] = deque()
    for ask in asks:
        if len(running) >= MAX_PROCESSES:
            _finish(*running.popleft(), startup, clock, config)
        running.append((ask, _start(worker, ask, game)))
    while running:
        _finish(*running.popleft(), startup, clock, config)


def _start(worker: GameWorker, ask: Ask, game: Game) -> BotProcess | None:
    """The process of ``ask``, sent its first request; ``None`` (the entrants told why) if it
    could not be started."""
    process = None
    try:
        process = worker.start_bot(ask.spec, game, warm_up=False)
        process.send(next(iter(ask.requests)))
    except BotKindError as error:  # its code changed since it was resolved
        for entrants in ask.requests.values():
            for entrant in entrants:
                entrant.problem(error)
    except (BotFault, OSError) as error:
        for entrants in ask.requests.values():
            for entrant in entrants:
                entrant.warn(f"could not be checked: it did not start: {error}")
    else:
        return process
    if process is not None:
        process.close()
    return None


def _finish(ask: Ask, process: BotProcess | None, startup: float, clock: ClockKind, config: TournamentDef) -> None:
    """Read the replies of ``ask``'s process (the first request was sent by ``_start``) and
    note what they say of each entrant; then close it."""
    if process is None:
        return
    limit = Limit(startup, kind_of(ask.spec.kind).clock or clock, 0.0)
    requests = list(ask.requests.items())
    try:
        for number, (request, entrants) in enumerate(requests):
            try:
                line = process.receive(limit) if number == 0 else process.exchange(request, limit)[0]
                reply = protocol.parse_reply(line, ask.expected)
            except (BotFault, Overloaded, protocol.ProtocolError) as error:
                said = _last_words(process)
                for _, later in requests[number:]:
                    for entrant in later:
                        _failed(entrant, ask, error, said, config)
                return
            for entrant in entrants:
                _judge(entrant, ask, reply, config)
    finally:
        process.close()


def _judge(entrant: Entrant, ask: Ask, reply: dict[str, Any], config: TournamentDef) -> None:
    """Note what ``reply`` says of ``entrant``."""
    game = config.game.name
    if reply["type"] == "error":
        if reply["kind"] == "resource_limit":
            entrant.problem(_over_limits(config, reply["message"]))
        elif (own := _own_module(ask.spec, reply["message"])) is not None:
            entrant.problem(own)
        elif ask.spec.kind != "command":  # a command bot need not answer describe
            entrant.warn(f"could not be checked: {reply['message']}")
    elif reply["type"] == "checked":
        if reply["problem"] is not None:
            entrant.problem(reply["problem"])
    elif reply.get("games") and reply.get("every_game") is not True and game not in reply["games"]:
        entrant.problem(f"bot {entrant.name!r} does not play {game!r}; it plays {', '.join(reply['games'])}")


def _own_module(spec: BotSpec, message: str) -> str | None:
    """What to do when a bot given as a file cannot import a module of its own (a file or folder
    beside it, or its folder as a package): in the sandbox a bot file is that one file. A bot of
    several files is a package, given by its module name (``None``: not such a failure)."""
    missing = re.search(r"No module named '([\w.]+)'", message)
    if spec.kind != "python" or not is_path(spec.target) or missing is None:
        return None
    file = Path(spec.target)
    name, folder = missing[1].split(".")[0], file.parent
    if name != folder.name and not (folder / f"{name}.py").is_file() and not (folder / name).is_dir():
        return None
    module = f"{folder.name}.{file.stem}"
    return (
        f"bot file {str(file)!r} imports its own module {name!r}, but a bot given by path is that one file "
        f"(the sandbox lets it read nothing beside it): a bot of several files is a package; put an "
        f"__init__.py in {str(folder)!r}, import its modules as '{folder.name}.MODULE' (or 'from . import "
        f"MODULE'), and give it as module: {module} from a tournament file in {str(folder.parent)!r} "
        "(docs/bots.md, 'A bot of several files')"
    )


def _last_words(process: BotProcess) -> str | None:
    """The last line a bot wrote on stderr (besides the sandbox's report), if any."""
    said = [line for line in process.stderr.take().splitlines() if line and not line.startswith("arena sandbox:")]
    return said[-1] if said else None


def _failed(entrant: Entrant, ask: Ask, error: Exception, said: str | None, config: TournamentDef) -> None:
    """Note that ``entrant``'s process failed with ``error`` (its last words on stderr:
    ``said``) before it answered for it."""
    if isinstance(error, BotFault) and error.termination is Termination.RESOURCE_LIMIT:
        entrant.problem(_over_limits(config, error.detail))
        return
    if ask.spec.kind == "command":  # it may ignore describe, or end on a request it does not know
        return
    if isinstance(error, Overloaded):
        entrant.warn(f"could not be checked: the machine is too busy ({error})")
        return
    entrant.warn(f"could not be checked: {error}" + (f"; its last words: {said}" if said else ""))


def _over_limits(config: TournamentDef, detail: str) -> str:
    """A bot that cannot start within the tournament's limits, and why."""
    limits = config.limits
    return (
        f"cannot start within the tournament's limits: {detail}; raise them under limits: (now "
        f"memory_mb {limits.memory_mb}, file_size_mb {limits.file_size_mb}, processes {limits.processes})"
    )

"""The tournament YAML: its schema, its validation and its errors.

A bad file gets a ``ConfigError`` naming the field, what is wrong with it and, for YAML syntax,
the line and column. Tournament files and rosters come from many hands: they are read only as
regular files of at most ``MAX_FILE`` bytes (``read_file``), parsed within bounds of nesting and
of size after expanding aliases (``load_yaml``), names in them must be plain text, and every
other string is ``clean`` (``arena.text``) before it is used.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import shlex
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import ErrorDetails

from arena.errors import ArenaError
from arena.games import GameParameterError, UnknownGameError, get_game
from arena.text import clean_data, is_plain

#: the largest tournament file or roster read, in bytes
MAX_FILE = 1 << 20
#: the deepest a YAML document may nest sequences and mappings (aliases expanded)
MAX_YAML_DEPTH = 32
#: the most values (scalars, sequences, mappings) a YAML document may hold once its aliases are
#: expanded, and the most characters its scalars may add up to: a few hundred bytes of nested
#: aliases ("billion laughs") would otherwise expand to gigabytes
MAX_YAML_NODES = 100_000
MAX_YAML_TEXT = 4 << 20
#: the longest file name and path the file system takes, in bytes (Linux's NAME_MAX and PATH_MAX)
MAX_FILE_NAME = 255
MAX_PATH = 4096
#: the longest team, bot or stage name, in characters
MAX_NAME = 100
#: upper bounds of the time control, in seconds, and of the limits, in MiB (1 TiB)
MAX_MOVE_TIME = 86_400.0
MAX_STARTUP = 3_600.0
MAX_GRACE = 60.0
MAX_MEGABYTES = 1 << 20
#: the most games a stage may plan (its games are planned, and stored, when it starts)
MAX_STAGE_GAMES = 1_000_000
#: the largest TrueSkill setting (in size): beyond, its arithmetic overflows
MAX_RATING = 1e6

if TYPE_CHECKING:
    from arena.job import TimeControl


class ConfigError(ArenaError):
    """A tournament file that cannot be read or does not describe a tournament."""


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


def not_plain(value: Any) -> str | None:
    """What in ``value`` is not plain data (text, numbers, booleans, null, lists, mappings with
    text keys): YAML can also write dates, sets and bytes, which JSON cannot store."""
    if value is None or isinstance(value, (str, bool, int)):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{value} (not a finite number)"
    if isinstance(value, list):
        return next((found for found in map(not_plain, value) if found), None)
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"the key {key!r} (keys are text)"
            found = not_plain(item)
            if found:
                return found
        return None
    return f"{value!r} (a {type(value).__name__})"


F = TypeVar("F", float, float | None)


def _at_most(value: F, bound: float, unit: str) -> F:
    if value is not None and value > bound:
        raise ValueError(f"at most {bound:.15g} {unit}; got {value:.15g}")
    return value


class BotDef(Strict):
    """How to start a bot: exactly one of ``module``, ``path``, ``command`` or ``course``."""

    module: str | None = None
    path: str | None = None
    command: str | None = None
    course: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    python: str | None = None

    @field_validator("params")
    @classmethod
    def _plain_params(cls, value: dict[str, Any]) -> dict[str, Any]:
        found = not_plain(value)
        if found:
            raise ValueError(f"parameters are text, numbers, true/false, null, lists and mappings; not {found}")
        return value

    @model_validator(mode="after")
    def _one_target(self) -> BotDef:
        given = [k for k in ("module", "path", "command", "course") if getattr(self, k)]
        if len(given) != 1:
            raise ValueError(
                "give exactly one of module (e.g. bots.uct), path (a .py file), "
                "command (a program speaking the protocol) or course (a 2019 "
                f"course bot file); got {', '.join(given) or 'none'}"
            )
        if self.command and self.params:
            raise ValueError("a command bot takes its parameters on its command line, not params")
        from arena.botkinds import kind_of

        if self.command:
            check_command(self.command)
        kind_of(self.kind).check_params(self.params)
        return self

    @classmethod
    def of(cls, kind: str, target: str, params: dict[str, Any] | None = None, python: str | None = None) -> BotDef:
        """The definition of a bot of ``kind`` (as stored) with ``target``."""
        from arena.loader import is_path

        key = {"command": "command", "course2019": "course"}.get(kind) or ("path" if is_path(target) else "module")
        return cls(**{key: target}, params=params or {}, python=python)

    @property
    def kind(self) -> str:
        if self.command:
            return "command"
        return "course2019" if self.course else "python"

    @property
    def target(self) -> str:
        return self.module or self.path or self.command or self.course or ""


class GameDef(Strict):
    name: str
    params: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _exists(self) -> GameDef:
        try:
            get_game(self.name, **self.params)
        except (UnknownGameError, GameParameterError) as error:
            raise ValueError(str(error)) from None
        return self


class TimeDef(Strict):
    """The time control (``job.TimeControl``): per move, a bank with an increment, or both;
    on the wall or the CPU clock."""

    move: float | None = Field(1.0, gt=0, description="seconds a move; null for no limit")
    bank: float | None = Field(None, gt=0, description="seconds a seat has for the game beyond its moves' own")
    increment: float = Field(0.0, ge=0, description="seconds added to the bank after each move")
    clock: Literal["wall", "cpu"] = "wall"
    grace: float = Field(0.05, ge=0)
    startup: float = Field(10.0, gt=0)
    backstop: float = Field(3.0, ge=1, le=100, description="cpu clock: a move's wall time at most this times its limit")
    on_overload: Literal["replay", "forfeit"] = "replay"
    max_replays: int = Field(3, ge=0, le=100)

    @model_validator(mode="before")
    @classmethod
    def _bank_alone(cls, data: Any) -> Any:
        """A bank without a per-move time means a chess clock: no per-move allowance."""
        if isinstance(data, dict) and data.get("bank") is not None and "move" not in data:
            return {**data, "move": None}
        return data

    @model_validator(mode="after")
    def _increment_needs_bank(self) -> TimeDef:
        if self.increment and self.bank is None:
            raise ValueError("increment needs a bank (time: {bank: 60, increment: 1})")
        return self

    def control(self) -> TimeControl:
        """The time control every game of the tournament is played under."""
        from arena.job import TimeControl

        return TimeControl(
            move=self.move,
            bank=self.bank,
            increment=self.increment,
            clock=self.clock,
            grace=self.grace,
            startup=self.startup,
            backstop=self.backstop,
            on_overload=self.on_overload,
            max_replays=self.max_replays,
        )

    @field_validator("move")
    @classmethod
    def _move(cls, value: float | None) -> float | None:
        return _at_most(value, MAX_MOVE_TIME, "seconds (a day); null for no limit")

    @field_validator("bank", "increment")
    @classmethod
    def _bank(cls, value: float | None) -> float | None:
        return _at_most(value, MAX_MOVE_TIME, "seconds (a day)")

    @field_validator("grace")
    @classmethod
    def _grace(cls, value: float) -> float:
        return _at_most(value, MAX_GRACE, "seconds")

    @field_validator("startup")
    @classmethod
    def _startup(cls, value: float) -> float:
        return _at_most(value, MAX_STARTUP, "seconds (an hour)")


class LimitsDef(Strict):
    memory_mb: int | None = Field(1024, ge=16)
    file_size_mb: int | None = Field(16, ge=0)
    processes: int | None = Field(256, ge=1, le=100_000, description="processes and threads a bot may have at once")

    @field_validator("memory_mb", "file_size_mb", mode="before")
    @classmethod
    def _megabytes(cls, value: Any) -> Any:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            _at_most(value, MAX_MEGABYTES, "MB (1 TiB); null for no limit")
        return value


class RatingDef(Strict):
    """The TrueSkill environment."""

    mu: float = Field(25.0, ge=-MAX_RATING, le=MAX_RATING)
    sigma: float = Field(25.0 / 3, gt=0, le=MAX_RATING)
    beta: float = Field(25.0 / 6, gt=0, le=MAX_RATING)
    tau: float = Field(25.0 / 300, ge=0, le=MAX_RATING)
    draw_probability: float = Field(0.10, ge=0, lt=1)


class StageDef(Strict):
    """One stage: pools of round robins; ``advance`` teams a pool go on to the next stage."""

    name: str = "round-robin"
    pools: int = Field(1, ge=1)
    seeding: Literal["random", "snake", "order"] = "random"
    games_per_pair: int = Field(2, ge=1, le=100)
    advance: int | None = Field(None, ge=1)


NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._+-]{0,99}$")


class TournamentDef(Strict):
    """A whole tournament file."""

    name: str
    game: GameDef
    seed: int = Field(0, ge=-(2**63), lt=2**63)
    scoring: Literal["standard", "course2019"] = "standard"
    time: TimeDef = TimeDef()
    limits: LimitsDef = LimitsDef()
    workers: int | None = Field(None, ge=1, le=256)
    rating: RatingDef = RatingDef()
    bots: dict[str, BotDef] = Field(default_factory=dict)
    teams: dict[str, str | BotDef] | None = None
    stages: list[StageDef] = Field(default_factory=lambda: [StageDef()], min_length=1)

    @field_validator("game", mode="before")
    @classmethod
    def _game_shorthand(cls, value: Any) -> Any:
        return {"name": value} if isinstance(value, str) else value

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not NAME.fullmatch(value):
            raise ValueError("use letters, digits, spaces and . _ + - (at most 100)")
        return value

    def problems(self) -> list[tuple[str, str]]:
        """What does not fit together, as (field, what is wrong): checks across fields that
        the fields' own validation cannot make."""
        found = []
        if self.scoring == "course2019" and self.game.name != "xtreme":
            found.append(("scoring", "course2019 needs game xtreme (its draws score small boards)"))
        count = len(self.team_bots())
        if count < 2:
            where = "teams" if self.teams is not None else "bots"
            found.append(
                (where, "a tournament needs at least two teams (under teams:, or bots: when every bot is a team)")
            )
            return found
        for number, stage in enumerate(self.stages):
            where, name = f"stages.{number}", f"stage {stage.name!r}"
            if stage.pools > count:
                found.append((f"{where}.pools", f"{name} has {stage.pools} pools for {count} teams"))
                return found
            size, larger = divmod(count, stage.pools)
            pairs = larger * (size + 1) * size // 2 + (stage.pools - larger) * size * (size - 1) // 2
            games = pairs * stage.games_per_pair
            if games > MAX_STAGE_GAMES:
                found.append(
                    (
                        where,
                        f"{name} would play {games:,} games; a stage plays at most {MAX_STAGE_GAMES:,} "
                        "(fewer teams a pool, or fewer games a pair)",
                    )
                )
                return found
            if number == len(self.stages) - 1:
                if size < 2:
                    found.append((f"{where}.pools", f"{name} has pools of fewer than two teams"))
                break
            if stage.advance is None:
                found.append((f"{where}.advance", f"{name} needs 'advance' (teams a pool sends to the next stage)"))
                return found
            if stage.advance > size:
                found.append((f"{where}.advance", f"{name}: cannot advance {stage.advance} from pools of {size}"))
                return found
            count = stage.advance * stage.pools
        return found

    def definitions(self) -> list[tuple[str, BotDef]]:
        """Every bot the file defines, with the field it is defined at (``bots.NAME`` or
        ``teams.TEAM`` for a team's inline bot)."""
        found = [(f"bots.{name}", definition) for name, definition in self.bots.items()]
        found += [(f"teams.{team}", ref) for team, ref in (self.teams or {}).items() if isinstance(ref, BotDef)]
        return found

    def team_bots(self) -> dict[str, str | BotDef]:
        """Team name -> bot (a name under ``bots:`` or registered, or a definition)."""
        if self.teams is not None:
            return dict(self.teams)
        return {name: name for name in self.bots}

    def canonical(self) -> str:
        """The config as canonical JSON: equal for files that mean the same tournament."""
        return json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))

    def digest(self) -> str:
        return hashlib.sha256(self.canonical().encode()).hexdigest()


def _location(error: ErrorDetails) -> str:
    return ".".join(str(part) for part in error["loc"] if not str(part).startswith("function-")) or "(top)"


def _message(error: ErrorDetails) -> str:
    return error["msg"].removeprefix("Value error, ")


def name_problem(name: str) -> str | None:
    """What is wrong with ``name`` as a team, bot or stage name (``None``: nothing)."""
    if not name.strip():
        return "a name cannot be empty"
    if not is_plain(name):
        return "a name cannot hold control characters or invalid text (a lone surrogate)"
    if len(name) > MAX_NAME:
        return f"a name has at most {MAX_NAME} characters; this one has {len(name)}"
    return None


def _name_problems(data: dict[str, Any]) -> list[tuple[str, str]]:
    """(field, what is wrong) for each bad team, bot and stage name of a raw tournament."""
    found = []
    for section in ("bots", "teams"):
        names = data.get(section)
        for name in names if isinstance(names, dict) else ():
            problem = name_problem(name) if isinstance(name, str) else None
            if problem:
                found.append((section, f"{section[:-1]} {name!r}: {problem}"))
    stages = data.get("stages")
    for number, stage in enumerate(stages if isinstance(stages, list) else ()):
        name = stage.get("name") if isinstance(stage, dict) else None
        problem = name_problem(name) if isinstance(name, str) else None
        if problem:
            found.append((f"stages.{number}.name", f"{name!r}: {problem}"))
    return found


def check_command(command: str) -> list[str]:
    """The words of a command bot's command line; ``ValueError`` if it cannot be split."""
    try:
        words = shlex.split(command)
    except ValueError as error:
        raise ValueError(
            f"the command line {command!r} cannot be split into words ({error}); check its quotes"
        ) from None
    if not words:
        raise ValueError("the command line is empty")
    for number, word in enumerate(words, 1):
        # arena looks each word up as a file; a name the file system cannot hold fails that look
        longest = max(len(os.fsencode(part)) for part in word.split("/"))
        if len(os.fsencode(word)) >= MAX_PATH or longest > MAX_FILE_NAME:
            raise ValueError(
                f"word {number} of the command line is longer than a file name or path may be "
                f"({MAX_FILE_NAME} and {MAX_PATH - 1} bytes); pass long data in a file"
            )
    return words


def read_file(path: str | os.PathLike[str], what: str) -> str:
    """The text of ``path``, a regular UTF-8 file of at most ``MAX_FILE`` bytes; ``ConfigError``
    otherwise. Opened without blocking, so that a FIFO or a device cannot hang or flood arena."""
    name = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise ConfigError(f"no {what} {name!r}") from None
    except OSError as error:
        raise ConfigError(f"cannot read the {what} {name!r}: {error.strerror}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
            raise ConfigError(f"the {what} {name!r} is {kind}; give a YAML file")
        chunks, size = [], 0
        while size <= MAX_FILE:
            chunk = os.read(fd, MAX_FILE + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as error:
        raise ConfigError(f"cannot read the {what} {name!r}: {error.strerror}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) > MAX_FILE:
        raise ConfigError(
            f"the {what} {name!r} is larger than {MAX_FILE // 1024} KiB; a tournament file is a few lines of YAML"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise ConfigError(
            f"the {what} {name!r} is not UTF-8 text (byte {error.start + 1}, line {line}); save it as UTF-8"
        ) from None


class _TooDeep(Exception):
    """A YAML document nested deeper than ``MAX_YAML_DEPTH`` (at ``mark``)."""

    def __init__(self, mark: Any) -> None:
        super().__init__()
        self.mark = mark


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing to compose deeper than ``MAX_YAML_DEPTH``: its composer
    recurses, and a document of a million ``[`` would exhaust the stack."""

    depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self.depth += 1
        try:
            if self.depth > MAX_YAML_DEPTH:
                raise _TooDeep(self.peek_event().start_mark)  # type: ignore[no-untyped-call]
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _expanded_problem(root: yaml.Node) -> str | None:
    """What makes the document ``root`` too large once its aliases are expanded (``None``:
    nothing). Each node is measured once (an alias shares its anchor's node), so this takes
    time linear in the document as written, however much it expands."""
    sizes: dict[int, tuple[int, int, int]] = {}  # id(node) -> (nodes, characters, depth)
    open_nodes: set[int] = set()  # the nodes being measured: the path from the root
    stack = [(root, False)]
    while stack:
        node, leaving = stack.pop()
        key = id(node)
        if not leaving:
            if key in sizes:
                continue
            if key in open_nodes:
                return "an alias refers to a node that contains it"
            open_nodes.add(key)
            stack.append((node, True))
            stack.extend((child, False) for child in _children(node) if id(child) not in sizes)
            continue
        open_nodes.discard(key)
        measured = [sizes[id(child)] for child in _children(node)]
        nodes = 1 + sum(m[0] for m in measured)
        characters = (len(node.value) if isinstance(node, yaml.ScalarNode) else 0) + sum(m[1] for m in measured)
        depth = 1 + max((m[2] for m in measured), default=0)
        if nodes > MAX_YAML_NODES:
            return f"it holds more than {MAX_YAML_NODES:,} values once its aliases are expanded"
        if characters > MAX_YAML_TEXT:
            return f"its text adds up to more than {MAX_YAML_TEXT >> 20} MiB once its aliases are expanded"
        if depth > MAX_YAML_DEPTH:
            return f"it nests deeper than {MAX_YAML_DEPTH} levels once its aliases are expanded"
        sizes[key] = (nodes, characters, depth)
    return None


def load_yaml(text: str, source: str) -> Any:
    """The YAML document ``text`` as Python data, within the bounds above (``MAX_YAML_DEPTH``,
    ``MAX_YAML_NODES``, ``MAX_YAML_TEXT``); ``ConfigError`` naming ``source`` otherwise."""
    loader = None
    try:
        loader = _BoundedLoader(text)  # its reader refuses control characters at once
        node = loader.get_single_node()
        if node is None:
            return None
        problem = _expanded_problem(node)
        if problem:
            raise ConfigError(f"{source} is refused: {problem}")
        return loader.construct_document(node)
    except yaml.reader.ReaderError as error:
        line = text.count("\n", 0, error.position) + 1
        raise ConfigError(
            f"{source}: not valid YAML at line {line}: the character {error.character:#06x} (a control "
            "or other special character) is not allowed in YAML"
        ) from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(error, "problem", None) or str(error)
        raise ConfigError(f"{source}: not valid YAML{where}: {problem}") from None
    except (_TooDeep, RecursionError) as error:
        mark = getattr(error, "mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ConfigError(f"{source} is refused: it nests deeper than {MAX_YAML_DEPTH} levels{where}") from None
    except ValueError as error:  # a value YAML recognises but Python cannot make (a date of month 13)
        raise ConfigError(f"{source}: a value cannot be read: {error}") from None
    finally:
        if loader is not None:
            loader.dispose()


def parse_config(text: str, source: str = "tournament file", base: Path | None = None) -> TournamentDef:
    """The tournament described by YAML ``text``; ``ConfigError`` naming what is wrong."""
    data = load_yaml(text, source)
    if data is None:
        raise ConfigError(f"{source} is empty; a tournament needs at least name, game and bots")
    if not isinstance(data, dict):
        raise ConfigError(
            f"{source}: expected a mapping with at least name, game and bots or teams; got {type(data).__name__}"
        )
    data = _include_roster(data, source, base)
    names = _name_problems(data)
    if names:
        lines = [f"  {where}: {what}" for where, what in names]
        raise ConfigError(f"{source} is not a valid tournament:\n" + "\n".join(lines))
    try:
        config = TournamentDef.model_validate(clean_data(data))
    except ValidationError as error:
        lines = [f"  {_location(e)}: {_message(e)}" for e in error.errors()[:12]]
        raise ConfigError(f"{source} is not a valid tournament:\n" + "\n".join(lines)) from None
    problems = config.problems()
    if problems:
        lines = [f"  {where}: {what}" for where, what in problems]
        raise ConfigError(f"{source} is not a valid tournament:\n" + "\n".join(lines))
    return config


def _include_roster(data: dict[str, Any], source: str, base: Path | None) -> dict[str, Any]:
    """Merge ``roster: FILE`` (a YAML file of ``bots:`` and ``teams:``) into the config."""
    roster = data.pop("roster", None)
    if roster is None:
        return data
    if not isinstance(roster, str):
        raise ConfigError(f"{source}: roster must be a file name")
    if not is_plain(roster) or not roster.strip():
        raise ConfigError(f"{source}: the roster {roster!r} is not a file name")
    path = (base or Path.cwd()) / roster
    included = load_yaml(read_file(path, "roster"), f"roster {roster!r}")
    if not isinstance(included, dict) or not set(included) <= {"bots", "teams"}:
        raise ConfigError(f"roster {roster!r} must be a mapping with bots: and/or teams:")
    merged = dict(data)
    for key in ("bots", "teams"):
        if key in included:
            if not isinstance(data.get(key) or {}, dict) or not isinstance(included[key], dict):
                raise ConfigError(f"roster {roster!r}: {key} must be a mapping")
            merged[key] = {**included[key], **(data.get(key) or {})}
    return merged


def load_config(path: str | os.PathLike[str]) -> tuple[TournamentDef, str]:
    """The tournament in the file ``path`` and the file's text."""
    file = Path(path)
    text = read_file(file, "tournament file")
    return parse_config(text, str(file), file.resolve().parent), text

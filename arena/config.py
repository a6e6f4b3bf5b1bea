"""The tournament YAML: its schema, its validation and its errors.

A bad file gets a ``ConfigError`` naming the field, what is wrong with it and, for YAML syntax,
the line and column.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from arena.errors import ArenaError
from arena.games import GameParameterError, UnknownGameError, get_game

if TYPE_CHECKING:
    from arena.job import TimeControl


class ConfigError(ArenaError):
    """A tournament file that cannot be read or does not describe a tournament."""


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class BotDef(Strict):
    """How to start a bot: exactly one of ``module``, ``path``, ``command`` or ``course``."""

    module: str | None = None
    path: str | None = None
    command: str | None = None
    course: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    python: str | None = None

    @model_validator(mode="after")
    def _one_target(self) -> BotDef:
        given = [k for k in ("module", "path", "command", "course") if getattr(self, k)]
        if len(given) != 1:
            raise ValueError("give exactly one of module (e.g. bots.uct), path (a .py file), "
                             "command (a program speaking the protocol) or course (a 2019 "
                             f"course bot file); got {', '.join(given) or 'none'}")  # fmt: skip
        if self.command and self.params:
            raise ValueError("a command bot takes its parameters on its command line, not params")
        from arena.botkinds import command_line, kind_of

        kind_of(self.kind).check_params(self.params)
        if self.command:
            command_line(self.command, None)  # only read: nothing is run by validating a file
        return self

    @classmethod
    def of(cls, kind: str, target: str, params: dict[str, Any] | None = None, python: str | None = None) -> BotDef:
        """The definition of a bot of ``kind`` (as stored) with ``target``."""
        from arena.botkinds import is_path

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
    grace: float = Field(0.05, ge=0, le=60)
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

        return TimeControl(move=self.move, bank=self.bank, increment=self.increment, clock=self.clock,
                           grace=self.grace, startup=self.startup, backstop=self.backstop,
                           on_overload=self.on_overload, max_replays=self.max_replays)  # fmt: skip


class LimitsDef(Strict):
    memory_mb: int | None = Field(1024, ge=16)
    file_size_mb: int | None = Field(16, ge=0)
    processes: int | None = Field(256, ge=1, le=100_000, description="processes and threads a bot may have at once")


class RatingDef(Strict):
    """The TrueSkill environment."""

    mu: float = 25.0
    sigma: float = Field(25.0 / 3, gt=0)
    beta: float = Field(25.0 / 6, gt=0)
    tau: float = Field(25.0 / 300, ge=0)
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
    seed: int = 0
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
        if not NAME.match(value):
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
            found.append((where, "a tournament needs at least two teams (under teams:, or bots: when every "
                                 "bot is a team)"))  # fmt: skip
            return found
        for number, stage in enumerate(self.stages):
            where, name = f"stages.{number}", f"stage {stage.name!r}"
            if stage.pools > count:
                found.append((f"{where}.pools", f"{name} has {stage.pools} pools for {count} teams"))
                return found
            size = count // stage.pools
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


def _location(error: dict[str, Any]) -> str:
    return ".".join(str(part) for part in error["loc"] if not str(part).startswith("function-")) or "(top)"


def _message(error: dict[str, Any]) -> str:
    message = error["msg"]
    return message.removeprefix("Value error, ")


def parse_config(text: str, source: str = "tournament file", base: Path | None = None) -> TournamentDef:
    """The tournament described by YAML ``text``; ``ConfigError`` naming what is wrong."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(error, "problem", None) or str(error)
        raise ConfigError(f"{source}: not valid YAML{where}: {problem}") from None
    if data is None:
        raise ConfigError(f"{source} is empty; a tournament needs at least name, game and bots")
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: expected a mapping with at least name, game and bots or "
                          f"teams; got {type(data).__name__}")  # fmt: skip
    data = _include_roster(data, source, base)
    try:
        config = TournamentDef.model_validate(data)
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
    path = (base or Path.cwd()) / roster
    try:
        included = yaml.safe_load(path.read_text())
    except OSError as error:
        raise ConfigError(f"{source}: cannot read the roster {roster!r}: {error.strerror}") from None
    except yaml.YAMLError as error:
        raise ConfigError(f"roster {roster!r} is not valid YAML: {error}") from None
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
    try:
        text = file.read_text()
    except FileNotFoundError:
        raise ConfigError(f"no tournament file {str(file)!r}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read {str(file)!r}: {error}") from None
    return parse_config(text, str(file), file.resolve().parent), text

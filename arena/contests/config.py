"""The tournament YAML: its schema, its validation and its errors.

A bad file gets a ``ConfigError`` naming the field, what is wrong with it and, for YAML syntax,
the line and column. Tournament files and rosters come from many hands: they are read and
parsed within bounds (arena/contests/yamlfile.py), names in them must be plain text, and every other
string is ``clean`` (``arena.core.text``) before it is used.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shlex
from collections.abc import Mapping
from difflib import get_close_matches
from pathlib import Path
from types import UnionType
from typing import TYPE_CHECKING, Any, Literal, TypeVar, Union, get_args, get_origin

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_serializer,
    model_validator,
)
from pydantic_core import ErrorDetails

from arena.contests.yamlfile import load_yaml, read_file
from arena.core.text import TOURNAMENT_NAME, clean_data, is_plain, name_problem
from arena.errors import ConfigError
from arena.formats.stagedef import MAX_STAGE_GAMES, ONE_POOL, StageDef
from arena.games import Game, GameParameterError, UnknownGameError, get_game

#: upper bounds of the time control, in seconds, and of the limits, in MiB (1 TiB)
MAX_MOVE_TIME = 86_400.0
MAX_STARTUP = 3_600.0
MAX_GRACE = 60.0
MAX_MEGABYTES = 1 << 20
#: the largest rating setting (in size): beyond, TrueSkill's arithmetic overflows
MAX_RATING = 1e6

if TYPE_CHECKING:
    from arena.core.timing import TimeControl


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


#: the keys that say what a bot is started from, the engines' keys (their protocols) last
TARGET_KEYS = ("module", "path", "command", "course")
ENGINE_KEYS = ("uci", "ugi", "gtp")
#: an engine's settings, which are its parameters (arena/entrants/engines/protocols.py)
ENGINE_SETTINGS = ("variant", "variants", "options", "depth", "nodes")


class BotDef(Strict):
    """How to start a bot: exactly one of ``module``, ``path``, ``command`` or ``course``, or
    an engine's command under its protocol (``uci``, ``ugi``, ``gtp``) with its settings
    (``variant``, ``variants``, ``options``, ``depth``, ``nodes``: docs/engines.md), which are
    then its parameters."""

    module: str | None = None
    path: str | None = None
    command: str | None = None
    course: str | None = None
    uci: str | None = None
    ugi: str | None = None
    gtp: str | None = None
    variant: str | None = None
    variants: str | None = None
    options: dict[str, Any] | None = None
    depth: int | None = None
    nodes: int | None = None
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
        given = [k for k in (*TARGET_KEYS, *ENGINE_KEYS) if getattr(self, k)]
        if len(given) != 1:
            raise ValueError(
                "give exactly one of module (e.g. bots.uct), path (a .py file), "
                "command (a program speaking the protocol), course (a 2019 "
                "course bot file) or an engine's command as uci, ugi or gtp; "
                f"got {', '.join(given) or 'none'}"
            )
        if self.command and self.params:
            raise ValueError("a command bot takes its parameters on its command line, not params")
        from arena.entrants.kinds import check_command, kind_of

        settings = {key: getattr(self, key) for key in ENGINE_SETTINGS if getattr(self, key) is not None}
        engine = given[0] in ENGINE_KEYS
        # (a stored declaration has both, alike: its settings were made its parameters)
        if engine and self.params and settings and self.params != settings:
            raise ValueError("an engine's settings are variant, variants, options, depth and nodes, not params")
        if engine and not self.params:  # its settings are its parameters, as stored
            object.__setattr__(self, "params", settings)
        elif not engine and settings:
            named = ", ".join(settings)
            raise ValueError(f"{named}: settings of an engine (uci, ugi or gtp), not of a {self.kind} bot")
        if self.command or engine:
            check_command(self.target)
        kind_of(self.kind).check_params(self.params)
        return self

    @model_serializer(mode="wrap")
    def _as_written(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """The bot as data: the engine's keys only where given (a bot of another kind, or
        declared before engines were, is what it always was, with the same digest)."""
        data: dict[str, Any] = handler(self)
        for key in (*ENGINE_KEYS, *ENGINE_SETTINGS):
            if data.get(key) is None:
                data.pop(key, None)
        return data

    @classmethod
    def of(cls, kind: str, target: str, params: dict[str, Any] | None = None, python: str | None = None) -> BotDef:
        """The definition of a bot of ``kind`` (as stored) with ``target``."""
        from arena.host.loader import is_path

        key = {"command": "command", "course2019": "course"}.get(kind) or ("path" if is_path(target) else "module")
        if kind in ENGINE_KEYS:
            key = kind
        return cls(**{key: target}, params=params or {}, python=python)

    @property
    def kind(self) -> str:
        """``python``, ``command``, ``course2019``, or an engine's protocol: which field is given."""
        for key in ENGINE_KEYS:
            if getattr(self, key):
                return key
        if self.command:
            return "command"
        return "course2019" if self.course else "python"

    @property
    def target(self) -> str:
        """The module, path, command, course file or engine command the bot is started from."""
        return self.module or self.path or self.command or self.course or self.uci or self.ugi or self.gtp or ""


class GameDef(Strict):
    """The game: one of arena's or an installed package's by ``name``, or a user's from
    ``module`` (a ``.py`` path, relative to the tournament file, or a dotted name; ``class``
    when it defines several), with its ``params``; or one of OpenSpiel's by ``openspiel`` (its
    game string, ``"goofspiel(num_cards=6,players=3)"``; ``params`` are added to it); or a
    referee program's by ``command`` (its files relative to the tournament file: docs/referee.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, populate_by_name=True)

    name: str = ""
    module: str | None = None
    openspiel: str | None = None
    command: str | None = None
    class_: str | None = Field(None, alias="class")
    params: dict[str, Any] = Field(default_factory=dict)
    _spec: dict[str, Any] = PrivateAttr(default_factory=dict)
    _players: int = PrivateAttr(2)

    @model_validator(mode="after")
    def _exists(self) -> GameDef:
        from arena.games.loading import load_game

        try:
            if self.openspiel is not None:
                game = _openspiel_game(self)
            elif self.command is not None:
                game = _referee_game(self)
            elif self.module is not None:
                source = {"module": self.module} | ({} if self.class_ is None else {"class": self.class_})
                game = load_game(source, self.params)
                if self.name and self.name != game.name:
                    raise ValueError(f"the game in {self.module!r} is called {game.name!r}, not {self.name!r}")
                object.__setattr__(self, "name", game.name)
            elif not self.name:
                raise ValueError("give the game's name (e.g. uttt), or module: path/to/game.py for a game of your own")
            else:
                game = get_game(self.name, **self.params)
        except (UnknownGameError, GameParameterError) as error:
            raise ValueError(str(error)) from None
        self._spec = {"name": game.name, "params": dict(self.params), **(game.source or {})}
        self._players = game.players
        return self

    @model_serializer(mode="wrap")
    def _as_written(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """The game as data: arena's own games as they always were (name and parameters)."""
        data: dict[str, Any] = handler(self)
        for key in ("module", "class_", "class", "openspiel", "command"):
            if data.get(key) is None:
                data.pop(key, None)
        return data

    @property
    def players(self) -> int:
        """The number of seats a game has."""
        return self._players

    def spec(self) -> dict[str, Any]:
        """The game's spec (``Game.spec()`` with the parameters as written): what is stored with
        the tournament and sent to every process that plays it; a user's game with where it is
        loaded from and the hash of its code."""
        return dict(self._spec)


def command_line_game(word: str, params: Mapping[str, Any] | None = None) -> GameDef:
    """The game a command line names by ``word``, with ``params``: OpenSpiel's game string after
    ``openspiel:`` (a tournament file's ``game: {openspiel: ...}``), a referee program's command
    after ``command:`` (``game: {command: ...}``), a user's game by its ``.py`` file, else a game's
    name; files resolved from the current folder. ``ValueError`` (pydantic's) saying what is wrong."""
    from arena.games.loading import is_path

    values = dict(params or {})
    if word.startswith("openspiel:"):
        return GameDef(openspiel=word.removeprefix("openspiel:"), params=values)
    if word.startswith("command:"):
        return GameDef(command=word.removeprefix("command:"), params=values)
    if is_path(word):
        return GameDef(module=str(Path(word).resolve()), params=values)
    return GameDef(name=word, params=values)


def _referee_game(definition: GameDef) -> Game:
    """The game of the referee program ``definition`` names by its ``command``."""
    from arena.games.referee import referee_game

    if definition.module is not None or definition.class_ is not None:
        raise ValueError("give command: (a referee program) or module:, not both")
    game = referee_game(str(definition.command), None, definition.params)
    if definition.name and definition.name != game.name:
        raise ValueError(f"the referee {definition.command!r} says its game is {game.name!r}, not {definition.name!r}")
    object.__setattr__(definition, "name", game.name)
    return game


def _openspiel_game(definition: GameDef) -> Game:
    """The OpenSpiel game ``definition`` names, its parameters written into its game string (one
    canonical form: the string alone)."""
    from arena.games.openspiel import openspiel_game

    if definition.module is not None:
        raise ValueError("give openspiel: or module:, not both")
    game = openspiel_game(str(definition.openspiel), definition.params)
    if definition.name and definition.name != game.name:
        raise ValueError(
            f"the OpenSpiel game {definition.openspiel!r} is called {game.name!r}, not {definition.name!r}"
        )
    object.__setattr__(definition, "name", game.name)
    object.__setattr__(definition, "openspiel", game.source_string())
    object.__setattr__(definition, "params", {})
    return game


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
    pace: bool = Field(True, description="cpu clock: bots that budget by the clock run at their measured pace")

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
        from arena.core.timing import TimeControl

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
            pace=self.pace,
        )

    @field_validator("move", "bank", "increment", "grace", "startup")
    @classmethod
    def _bounded(cls, value: float | None, info: ValidationInfo) -> float | None:
        bound, unit = _TIME_BOUNDS[info.field_name or ""]
        return _at_most(value, bound, unit)


#: the largest value of each time setting, and its unit in the message that refuses more
_TIME_BOUNDS = {
    "move": (MAX_MOVE_TIME, "seconds (a day); null for no limit"),
    "bank": (MAX_MOVE_TIME, "seconds (a day)"),
    "increment": (MAX_MOVE_TIME, "seconds (a day)"),
    "grace": (MAX_GRACE, "seconds"),
    "startup": (MAX_STARTUP, "seconds (an hour)"),
}


class LimitsDef(Strict):
    memory_mb: int | None = Field(1024, ge=16)
    file_size_mb: int | None = Field(16, ge=0)
    processes: int | None = Field(256, ge=1, le=100_000, description="processes and threads a bot may have at once")

    @field_validator("memory_mb", "file_size_mb", mode="before")
    @classmethod
    def _megabytes(cls, value: Any) -> Any:
        number = value
        if isinstance(value, str):  # YAML reads 1e20 (no dot) as text
            try:
                number = float(value)
            except ValueError:
                return value
        if isinstance(number, (int, float)) and not isinstance(number, bool) and math.isfinite(number):
            _at_most(number, MAX_MEGABYTES, "MB (1 TiB); null for no limit")
        return value


class RatingDef(Strict):
    """The rating system the leaderboard ranks by and the tie-breaks use, and its settings:
    ``trueskill`` (the default) or ``openskill`` (Weng-Lin's Plackett-Luce model), each ranking
    by ``mu - 3 sigma``; ``draw_probability`` is TrueSkill's alone (OpenSkill has none)."""

    system: Literal["trueskill", "openskill"] = "trueskill"
    mu: float = Field(25.0, ge=-MAX_RATING, le=MAX_RATING)
    sigma: float = Field(25.0 / 3, gt=0, le=MAX_RATING)
    beta: float = Field(25.0 / 6, gt=0, le=MAX_RATING)
    tau: float = Field(25.0 / 300, ge=0, le=MAX_RATING)
    draw_probability: float = Field(0.10, ge=0, lt=1)


class ClusterDef(Strict):
    """Where games are played when one machine is not enough (docs/cluster.md): the Dask
    scheduler's address, whether each node scales time limits by its speed, and TLS files."""

    address: str = Field(pattern=r"^(tcp|tls)://[^\s/]+$", max_length=300)
    scale_time: bool = False
    tls_ca_file: str | None = None
    tls_cert: str | None = None
    tls_key: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _address_shorthand(cls, value: Any) -> Any:
        return {"address": value} if isinstance(value, str) else value

    @model_validator(mode="after")
    def _tls_whole(self) -> ClusterDef:
        given = [f is not None for f in (self.tls_ca_file, self.tls_cert, self.tls_key)]
        if any(given) and not all(given):
            raise ValueError("give tls_ca_file, tls_cert and tls_key together, or none of them")
        return self


class TournamentDef(Strict):
    """A whole tournament file."""

    name: str
    game: GameDef
    seed: int = Field(0, ge=-(2**63), lt=2**63)
    scoring: Literal["standard", "course2019"] = "standard"
    time: TimeDef = TimeDef()
    limits: LimitsDef = LimitsDef()
    workers: int | None = Field(None, ge=1, le=256)
    #: where its games are played (not part of what the tournament is: it may resume elsewhere)
    cluster: ClusterDef | None = None
    rating: RatingDef = RatingDef()
    bots: dict[str, BotDef] = Field(default_factory=dict)
    teams: dict[str, str | BotDef] | None = None
    stages: list[StageDef] = Field(default_factory=lambda: [StageDef()], min_length=1)
    #: the openings its games start from (``openings: FILE``, read when the file is parsed):
    #: each played by a pair of teams twice, seats swapped (arena/formats/openings.py)
    openings: list[list[str]] | None = None

    @model_serializer(mode="wrap")
    def _as_written(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """The tournament as data: ``openings`` only where given (a tournament without is what
        it always was, with the same digest)."""
        data: dict[str, Any] = handler(self)
        if data.get("openings") is None:
            data.pop("openings", None)
        return data

    @model_validator(mode="after")
    def _openings_fit_the_game(self) -> TournamentDef:
        if self.openings is not None:
            from arena.formats.openings import OpeningError, check_openings
            from arena.games import get_game_from_spec

            try:
                checked = check_openings(get_game_from_spec(self.game.spec()), self.openings)
            except OpeningError as error:
                raise ValueError(f"openings: {error}") from None
            object.__setattr__(self, "openings", checked)
        return self

    @field_validator("game", mode="before")
    @classmethod
    def _game_shorthand(cls, value: Any) -> Any:
        return {"name": value} if isinstance(value, str) else value

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not TOURNAMENT_NAME.fullmatch(value):
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
        teams = self.team_bots()
        seats = self.game.players
        for number, stage in enumerate(self.stages):
            where, name = f"stages.{number}", f"stage {stage.name!r}"
            if stage.pools > count:
                found.append((f"{where}.pools", f"{name} has {stage.pools} pools for {count} teams"))
                return found
            size = count // stage.pools
            problem = _format_problem(stage, number, count, size, teams) or _seats_problem(stage, number, size, seats)
            if problem is not None:
                found.append((f"{where}.{problem[0]}" if problem[0] else where, f"{name}: {problem[1]}"))
                return found
            games = stage.games(count, seats)
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
        meaning = self.model_dump(mode="json", exclude={"cluster"})
        return json.dumps(meaning, sort_keys=True, separators=(",", ":"))

    def digest(self) -> str:
        """A hash of the tournament's meaning (its settings after validation), to tell whether a
        stored tournament is this one."""
        return hashlib.sha256(self.canonical().encode()).hexdigest()


def _format_problem(
    stage: StageDef, number: int, count: int, size: int, teams: dict[str, str | BotDef]
) -> tuple[str, str] | None:
    """(setting, what is wrong) with stage ``number``'s format for ``count`` teams in pools of
    at least ``size``; ``None`` if nothing is."""
    if stage.format in ONE_POOL and count < 2:
        return "", f"a {stage.format} needs at least two teams; advance more from the stage before"
    if stage.format == "swiss" and stage.rounds is not None and stage.rounds >= size:
        teams_a_pool = "a pool" if stage.pools > 1 else "in all"
        most = f"{size - 1} round{'s' if size > 2 else ''}"
        return "rounds", f"a Swiss of {size} teams {teams_a_pool} plays at most {most}; got {stage.rounds}"
    if stage.format == "gauntlet":
        if number:
            return "format", "a gauntlet is the first stage (its named teams must all be in its field)"
        unknown = [team for team in stage.named or () if team not in teams]
        if unknown:
            return "named", f"no team {unknown[0]!r}; the teams: {', '.join(list(teams)[:20])}"
    if stage.format == "adaptive":
        least = stage.round_robin_games(count)
        if stage.budget is not None and stage.budget < least:
            return "budget", (
                f"the budget counts the first round robin's {least} games; give at least {least} "
                "(or fewer games_per_pair)"
            )
        if stage.advance is not None and stage.advance >= count:
            return "advance", f"the cut must leave someone out: advance fewer than its {count} teams"
    return None


def _seats_problem(stage: StageDef, number: int, size: int, seats: int) -> tuple[str, str] | None:
    """(setting, what is wrong) with stage ``number`` of pools of at least ``size`` teams for a
    game of ``seats`` seats; ``None`` if nothing is. A game of more than two seats is played in
    round robins of tables (every ``seats`` teams of a pool at one table, ``games_per_pair``
    games a table, seats rotated, or ``table_rounds`` rounds of tables drawn); the other formats
    pair two teams."""
    if seats <= 2:
        if stage.table_rounds is not None:
            return "table_rounds", "table_rounds draws tables of a game of more than two seats; this game has two"
        return None
    if stage.format != "round_robin":
        article = "an" if stage.format[0] in "aeiou" else "a"
        return "format", (
            f"a game of {seats} seats is played in round robins of tables of {seats}; "
            f"{article} {stage.format} pairs two teams (use format: round_robin)"
        )
    if size >= seats:
        return None
    table = f"a table of this game seats {seats} teams"
    if stage.pools > 1:
        return "pools", f"{table}; its pools have {size}: make fewer pools"
    if number:  # one pool, of the teams the stage before sends: fewer pools cannot help
        return "", f"{table}; {size} teams advance to it: advance more from the stage before"
    return "", f"{table}; the tournament has {size} teams: add teams"


def _location(error: ErrorDetails) -> str:
    return ".".join(str(part) for part in error["loc"] if not str(part).startswith("function-")) or "(top)"


def _message(error: ErrorDetails) -> str:
    """What is wrong at the field of pydantic's ``error``, said for the person who wrote the file."""
    if error["type"] == "extra_forbidden":
        return unknown_key(error["loc"])
    return error["msg"].removeprefix("Value error, ")


def unknown_key(location: tuple[int | str, ...]) -> str:
    """What to say of a key (at ``location``, pydantic's path to it) that the part of the
    tournament file holding it does not take: the allowed key it is most like, and them all."""
    key = str(location[-1])
    allowed = keys_at(location[:-1])
    close = get_close_matches(key, allowed, n=1)
    guess = f" — did you mean {close[0]!r}?" if close else ""
    return f"unknown key {key!r}{guess}" + (f" (allowed here: {', '.join(allowed)})" if allowed else "")


def keys_at(path: tuple[int | str, ...]) -> list[str]:
    """The keys the part of a tournament file at ``path`` (pydantic's location of it) takes:
    the file's own, a bot's, a stage's, time's, ...; none if no part of the file is there."""
    kind: Any = TournamentDef
    for part in path:
        options = _options(kind)
        models = [option for option in options if _is_model(option)]
        owner = next((model for model in models if part in model.model_fields), None)
        container = next((option for option in options if get_origin(option) in (list, dict)), None)
        if owner is not None:  # a key of a part: its value
            kind = owner.model_fields[str(part)].annotation
        elif container is not None:  # an item of a list or a mapping: a stage, a bot
            kind = get_args(container)[-1]
        else:  # the member of a union pydantic tried, e.g. ``function-after[_one_target(), BotDef]``
            kind = next((model for model in models if model.__name__ in str(part)), None)
    model = next((option for option in _options(kind) if _is_model(option)), None)
    if model is None:
        return []
    keys = [field.alias or name for name, field in model.model_fields.items()]
    return [*keys, *(["roster"] if model is TournamentDef else [])]  # (a roster is merged in first)


def _options(kind: Any) -> tuple[Any, ...]:
    """The types a field's type allows: the members of a union, else the type itself."""
    return get_args(kind) if get_origin(kind) in (Union, UnionType) else (kind,)


def _is_model(kind: Any) -> bool:
    """Whether ``kind`` is a part of the file with keys of its own (a pydantic model)."""
    return isinstance(kind, type) and get_origin(kind) is None and issubclass(kind, BaseModel)


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
    data = _include_openings(data, source, base)
    data = _game_beside(data, base)
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


def _game_beside(data: dict[str, Any], base: Path | None) -> dict[str, Any]:
    """The config with its game's ``module``, a path, made absolute from the tournament file's
    folder (where the file says it is); so too the files a referee's ``command`` names."""
    from arena.games.loading import is_path

    game = data.get("game")
    if isinstance(game, dict) and isinstance(game.get("command"), str):
        from arena.games.referee_process import RefereeLoadError, command_words

        try:
            words = command_words(game["command"], base or Path.cwd())
        except RefereeLoadError:  # refused, saying why, when the game is checked
            return data
        return {**data, "game": {**game, "command": shlex.join(words)}}
    if not isinstance(game, dict) or not isinstance(game.get("module"), str) or not is_path(game["module"]):
        return data
    path = Path(game["module"]).expanduser()
    return {**data, "game": {**game, "module": str((base or Path.cwd()) / path if not path.is_absolute() else path)}}


def _include_openings(data: dict[str, Any], source: str, base: Path | None) -> dict[str, Any]:
    """The config with ``openings: FILE`` read: its openings, as moves (the file's text is the
    tournament's meaning, so a changed file is another tournament)."""
    openings = data.get("openings")
    if not isinstance(openings, str):
        return data
    from arena.formats.openings import OpeningError, parse_openings

    if not is_plain(openings) or not openings.strip():
        raise ConfigError(f"{source}: the openings {openings!r} is not a file name")
    try:
        return {**data, "openings": parse_openings(read_file((base or Path.cwd()) / openings, "openings file"))}
    except OpeningError as error:
        raise ConfigError(f"openings file {openings!r}: {error}") from None


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

"""A match between two bots (``arena match``): pairs of games, each pair one seed with the seats
swapped, played by the tournament's runner and stored as a tournament of its own, with the
first bot's running score, its Elo over the second from the pentanomial statistics of the pairs
(``arena.stats.matchstats.pair_stats``) and, when asked, a sequential probability ratio test
(``arena.stats.sprt``) that stops the match once it accepts a hypothesis.

The stored tournament has the two bots as its teams and one stage, ``match``, of one pool; a
pair is a round, its two games numbered in turn. Every game is planned before the first one is
played; when the match ends (the test decided, the games ran out, or it was stopped) the games
not played are removed and the stage's ``games_per_pair`` set to the games played, so the stored
tournament is the match as it was played: finished, and complete.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import yaml
from sqlalchemy import delete, select
from sqlalchemy.orm import Session, sessionmaker

from arena.contests import roster
from arena.contests.config import BotDef, GameDef, TimeDef, TournamentDef
from arena.contests.preflight import engine_problem
from arena.contests.tournament import pending_jobs, play_and_store
from arena.core.botspec import BotSpec
from arena.core.job import GameJob, GameRunner, derive_seed
from arena.core.records import GameRecord, Termination
from arena.entrants.kinds import ENGINES
from arena.errors import ArenaError
from arena.formats.stagedef import StageDef
from arena.games import get_game_from_spec
from arena.runners.pace import with_paces
from arena.stats.matchstats import MatchStats, pair_stats
from arena.stats.sprt import PENTANOMIAL, SprtSettings, SprtState
from arena.store.models import (
    Bot,
    Entry,
    GameRow,
    GameSeat,
    GameVoid,
    KeptRatings,
    MoveRow,
    PoolEntry,
    Tournament,
    count,
    get_row,
    not_aborted,
)
from arena.store.writes import PlannedGame, add_entry, add_games, add_pool, add_tournament

#: the stage a match's games are stored in
STAGE = "match"
#: the most characters of each bot's name in a match's default tournament name
NAME_PART = 30


class DuelError(ArenaError):
    """A match that cannot be set up as asked (the message says why and what to do)."""


class DrainableRunner(GameRunner, Protocol):
    """A runner that can be told to start no more games of the run under way."""

    def drain(self) -> None:
        """Start no more games; those being played finish and their records still come."""
        ...


def side(session: Session, text: str) -> tuple[str, str | BotDef]:
    """The team name and the bot reference (a registered bot's name, or a definition) of a
    bot given on the command line as ``arena play`` takes it: a registered name, else a module
    (``bots.uct``) or a ``.py`` file."""
    registered = session.scalars(select(Bot.id).where(Bot.name == text, Bot.registered.is_(True))).first()
    if registered is not None:
        return text, text
    if text.endswith(".py") or "/" in text:
        return Path(text).stem or "bot", BotDef(path=text)
    if "." in text:
        return text.rsplit(".", 1)[-1] or "bot", BotDef(module=text)
    known = ", ".join(sorted(set(session.scalars(select(Bot.name).where(Bot.registered.is_(True)))))) or "none"
    raise DuelError(f"no registered bot {text!r}; registered: {known} (or give a module like bots.uct or a .py file)")


def default_name(first: str, second: str, now: float | None = None) -> str:
    """``match-FIRST-SECOND-YYYYmmdd-HHMMSS``, with what a tournament name cannot hold replaced."""

    def part(name: str) -> str:
        return re.sub(r"[^A-Za-z0-9._+-]", "_", name)[:NAME_PART]

    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    return f"match-{part(first)}-{part(second)}-{stamp}"


def match_config(
    name: str,
    game: GameDef,
    sides: tuple[tuple[str, str | BotDef], tuple[str, str | BotDef]],
    games: int,
    time_control: TimeDef,
    seed: int = 0,
    openings: list[list[str]] | None = None,
) -> TournamentDef:
    """The tournament a match is stored as: the two bots as teams, one stage of ``games``
    (each pair from the next of ``openings``, if any)."""
    (first, first_ref), (second, second_ref) = sides
    if second == first:
        second = f"{second}-2"
    return TournamentDef(
        name=name,
        game=game,
        seed=seed,
        time=time_control,
        teams={first: first_ref, second: second_ref},
        stages=[StageDef(name=STAGE, seeding="order", games_per_pair=games)],
        openings=openings,
    )


@dataclass(frozen=True, slots=True)
class DuelScore:
    """The first bot's results against the second over the pairs finished so far: its wins,
    draws and losses, the pentanomial counts of the pairs (0, 0.5, 1, 1.5 and 2 points), the
    test if there is one, and the games and LLR at which it decided."""

    pairs: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    counts: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)
    test: SprtState | None = None
    decided_games: int | None = None
    decided_llr: float | None = None

    @property
    def games(self) -> int:
        """The games of the pairs finished."""
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float | None:
        """The first bot's share of the points (``None`` before the first pair)."""
        return (self.wins + self.draws / 2) / self.games if self.games else None

    def stats(self, confidence: float = 0.95) -> MatchStats | None:
        """The pentanomial statistics of the pairs: Elo with its interval, LOS (``None`` before
        the first pair)."""
        return pair_stats(self.counts, confidence) if self.pairs else None

    def add_pair(self, first: float, second: float) -> DuelScore:
        """The score after a pair in which the first bot scored ``first`` and ``second``."""
        outcomes = [first, second]
        counts = list(self.counts)
        counts[round(2 * (first + second))] += 1
        test = None if self.test is None else self.test.add_pair(first, second)
        decided = (self.decided_games, self.decided_llr)
        if test is not None and test.finished and self.decided_games is None:
            decided = (self.games + 2, test.llr)
        return DuelScore(
            self.pairs + 1,
            self.wins + outcomes.count(1.0),
            self.draws + outcomes.count(0.5),
            self.losses + outcomes.count(0.0),
            (counts[0], counts[1], counts[2], counts[3], counts[4]),
            test,
            *decided,
        )


@dataclass(slots=True)
class Duel:
    """One match: ``config`` (from ``match_config``), its test ``settings`` if any, the
    database and the folder bot files are resolved from."""

    config: TournamentDef
    settings: SprtSettings | None
    sessions: sessionmaker[Session]
    base: Path
    #: set by ``prepare``: the stored tournament, the two teams, each entry's bot
    tournament_id: int | None = field(default=None, init=False)
    teams: tuple[str, str] = field(default=("", ""), init=False)
    specs: dict[int, BotSpec] = field(default_factory=dict, init=False)
    #: games voided more often than ``time.max_replays`` allows, left unplayed
    unplayable: list[int] = field(default_factory=list, init=False)

    @property
    def pairs(self) -> int:
        """How many pairs the match plays at most."""
        return self.config.stages[0].games_per_pair // 2

    def prepare(self) -> Tournament:
        """Store the match as a new tournament with every game planned, and give its bots
        their paces (arena/runners/pace.py); ``DuelError`` if a tournament of its name exists,
        or an engine cannot play the game (its program missing, or no notation for it)."""
        tournament, code_hashes = self._store()
        config = self.config
        self.specs, _paced = with_paces(
            self.specs, code_hashes, config.game.spec(), config.time.control(), self.sessions
        )
        return tournament

    def _store(self) -> tuple[Tournament, dict[int, str | None]]:
        config = self.config
        code_hashes: dict[int, str | None] = {}
        with self.sessions.begin() as session:
            if session.scalars(select(Tournament.id).where(Tournament.name == config.name)).first() is not None:
                raise DuelError(
                    f"tournament {config.name!r} already exists; choose another name with --name "
                    "(a match is stored as a tournament of its own)"
                )
            tournament = add_tournament(
                session,
                config.name,
                config.game.spec(),
                config.model_dump(mode="json"),
                _config_text(config),
                config.digest(),
                seed=config.seed,
                status="running",
                started_at=time.time(),
            )
            entries = []
            game = get_game_from_spec(config.game.spec())
            for team, ref in config.team_bots().items():
                bot = roster.resolve_team_bot(session, config, team, ref, self.base)
                spec = roster.spec(bot, team, config.limits)
                problem = engine_problem(spec, game, self.base) if spec.kind in ENGINES else None
                if problem is not None:
                    raise DuelError(f"bot {team!r}: {problem}")
                entry = add_entry(session, tournament.id, team, bot.id)
                entries.append(entry)
                self.specs[entry.id] = spec
                code_hashes[entry.id] = bot.code_hash
            first, second = entries
            self.teams = (first.team, second.team)
            add_pool(session, tournament.id, 0, 0, [entry.id for entry in entries])
            planned = []
            for pair in range(self.pairs):
                seed = derive_seed(config.seed, "pair", pair)
                for turn, (seat0, seat1) in enumerate(((first, second), (second, first))):
                    planned.append(PlannedGame(0, 0, pair, 2 * pair + turn, (seat0.id, seat1.id), seed))
            add_games(session, tournament.id, planned)  # in ids of schedule order, as a tournament's
            self.tournament_id = tournament.id
            session.expunge(tournament)
            return tournament, code_hashes

    def jobs(self) -> list[GameJob]:
        """The match's games still to play, in order (a match is one stage)."""
        with self.sessions.begin() as session:
            return pending_jobs(session, self.tournament_id, self.config, self.specs, 0)

    def run(self, runner: DrainableRunner, on_pair: Callable[[DuelScore], None] | None = None) -> DuelScore:
        """Play the match; ``on_pair`` is told the score after each pair. Once the test accepts
        a hypothesis no game is started, and the games under way finish and count (the decision
        stays). A game voided for an overloaded machine is played again, at most
        ``time.max_replays`` times. Whatever ends it, the stored tournament is then the games
        played (``finish``)."""
        if self.tournament_id is None:
            raise DuelError("the match is not prepared: call prepare() before run()")
        score = DuelScore(test=None if self.settings is None else self.settings.start(PENTANOMIAL))
        started = time.monotonic()
        halves: dict[int, dict[int, float]] = {}  # pair -> game number in the pair -> first bot's score
        spoiled: set[int] = set()  # the pairs with a game left unfinished
        pair_of: dict[int, tuple[int, int]] = {}
        with self.sessions.begin() as session:
            for g in session.scalars(select(GameRow).where(GameRow.tournament_id == self.tournament_id)):
                pair_of[g.id] = (g.round, g.number % 2)

        def undecided() -> bool:
            """Whether the test has not accepted a hypothesis yet (the score of the latest pair)."""
            return score.test is None or not score.test.finished

        try:
            played = play_and_store(
                self.sessions, runner, self.jobs(), self.config.time.max_replays, _ignore, self.unplayable, undecided
            )
            for record in played:
                pair, turn = pair_of[record.game_id]
                if record.termination is Termination.ABORTED or pair in spoiled:
                    spoiled.add(pair)  # a game left unfinished has no result: its pair is not counted
                    halves.pop(pair, None)
                    continue
                halves.setdefault(pair, {})[turn] = first_score(record, turn)
                if len(halves[pair]) == 2:
                    done = halves.pop(pair)
                    score = score.add_pair(done[0], done[1])
                    if on_pair is not None:
                        on_pair(score)
                    if not undecided():
                        runner.drain()
        finally:
            self.finish(time.monotonic() - started)
        return score

    def finish(self, seconds: float) -> None:
        """Store the match as it was counted: its unplayed games removed, and the lone finished
        game of a pair whose other game was not played or was left unfinished (a game under way
        when the test decided, or when the match was stopped; one the harness could not finish,
        which stays stored, unrated, with why: the match counts pairs only); its stage's games
        set to the games kept, finished; with no game played, nothing of it is kept."""
        with self.sessions.begin() as session:
            tournament = get_row(session, Tournament, self.tournament_id or 0)
            finished = session.execute(
                select(GameRow.id, GameRow.round).where(
                    GameRow.tournament_id == tournament.id, GameRow.status == "finished", not_aborted()
                )
            ).all()
            rounds = Counter(pair for _, pair in finished)
            halves = [game_id for game_id, pair in finished if rounds[pair] == 1]
            session.execute(delete(MoveRow).where(MoveRow.game_id.in_(halves)))
            unplayed = select(GameRow.id).where(
                GameRow.tournament_id == tournament.id, (GameRow.status != "finished") | GameRow.id.in_(halves)
            )
            session.execute(delete(GameVoid).where(GameVoid.game_id.in_(unplayed)))
            session.execute(delete(GameSeat).where(GameSeat.game_id.in_(unplayed)))
            session.execute(delete(GameRow).where(GameRow.id.in_(unplayed)))
            played = count(session, GameRow, GameRow.tournament_id == tournament.id)
            if not played:
                session.execute(delete(PoolEntry).where(PoolEntry.tournament_id == tournament.id))
                session.execute(delete(Entry).where(Entry.tournament_id == tournament.id))
                session.execute(delete(KeptRatings).where(KeptRatings.tournament_id == tournament.id))
                session.delete(tournament)
                return
            stage = self.config.stages[0].model_copy(update={"games_per_pair": played})
            config = self.config.model_copy(update={"stages": [stage]})
            tournament.config = config.model_dump(mode="json")
            tournament.config_text = _config_text(config)
            tournament.config_hash = config.digest()
            tournament.status = "finished"
            tournament.finished_at = time.time()
            tournament.run_seconds = seconds


def first_score(record: GameRecord, turn: int) -> float:
    """The first bot's score in a game of a pair: it has seat 0 in the pair's first game
    (``turn`` 0) and seat 1 in its second; a draw is half a point, a forfeit a loss (a game
    left unfinished has none: it is not counted)."""
    if record.winner is None:
        return 0.5
    return 1.0 if record.winner == turn else 0.0


def _config_text(config: TournamentDef) -> str:
    """The match's tournament as a tournament file would write it (settings left at their
    defaults are left out)."""
    data = config.model_dump(mode="json", exclude_defaults=True)
    return "# stored by arena match\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def _ignore(record: GameRecord, attempts: int) -> None:
    """A match counts no voids beyond those ``play_and_store`` logs and stores."""

"""A person playing a bot in the browser: ``arena play``'s game (``arena.contests.human_play.play_against``: the
same ``HumanPlayer`` with its undo and resign, the bot sandboxed in its process, the game
stored in the play tournament of that game and bot) run in a thread, the person's lines coming
from the page instead of a terminal.

The page sends moves and commands (``undo``, ``resign``) as the lines a person would type; a
``Watcher`` keeps the position and the moves for the page, which asks for them again whenever
they change (a long poll on ``version``).

The games: arena's four (``PLAYABLE``), and the game of a stored tournament (``tournament:ID``:
a user's game, loaded from the tournament's spec and checked by the hash of its code), drawn from
its boards (``pages.generic_frame``). In a game of more than two seats the person takes one seat
and the bot chosen plays every other, a process of its own each, a team of its own each (its
name, then ``NAME #2``...). In a game of hidden information the person sees what their seat may
know (``State.view``) and not the others' moves until it is over; at a simultaneous step they
choose their move among their own (``State.moves_of``), and see the others' once all have moved.
"""

from __future__ import annotations

import logging
import queue
import re
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy.orm import Session, sessionmaker

from arena.core.gameloop import Watcher
from arena.core.live import remove_live, write_live
from arena.core.records import GameRecord, MoveRecord
from arena.core.text import clean
from arena.core.timing import TimeControl
from arena.errors import ArenaError
from arena.games import CHANCE, Game, State, from_outside, get_game
from arena.results.pages import board_kind, frames, generic_frame
from arena.results.replay import joined, ordinal, result_sentence, seat_names, stored_game
from arena.store.models import PLAY_HASH, Bot, GameRow, Tournament

if TYPE_CHECKING:
    pass

log = logging.getLogger(__name__)

#: arena's games a person can play in the browser
PLAYABLE = ("tictactoe", "uttt", "othello", "xtreme")
#: how a choice names the game of a stored tournament (a user's game): ``tournament:ID``
TOURNAMENT_GAME = "tournament:"
#: a move as the page sends it (any game's notation: OpenSpiel's write captures ``c4b3*`` and
#: bets ``(1, 2)``; the game reads it), or a command: printable, at most 64 characters
MOVE_TEXT = re.compile(r"[^\s\x00-\x1f\x7f][^\x00-\x1f\x7f]{0,63}")
COMMANDS = ("undo", "resign")
#: a game nobody has moved in for this long is left (stored without a result); ``arena serve
#: --idle-minutes`` sets it
IDLE_SECONDS = 600.0
#: games in progress at once; more are refused until one ends
MAX_GAMES = 8
#: games in progress at once by one visitor (one address): one visitor cannot hold them all
PER_VISITOR = 2
#: the longest move time a visitor may give the bot (seconds)
MAX_MOVE_TIME = 60.0


class PlayError(ValueError):
    """A request to play that cannot be met (its message says why; ``status`` the HTTP status)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class Feed:
    """The person's input: the lines the page sends, read by the ``HumanPlayer``; none for
    ``IDLE_SECONDS`` reads as the end of the input, and the game is left."""

    def __init__(self, idle: float = IDLE_SECONDS) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        self.idle = idle

    def readline(self) -> str:
        """The next line from the page; empty when none came for ``idle`` seconds."""
        try:
            return self.lines.get(timeout=self.idle)
        except queue.Empty:
            return ""

    def send(self, line: str) -> None:
        """A line from the page."""
        self.lines.put(line + "\n")


class Notices:
    """The person's output: what the ``HumanPlayer`` says to them. The page shows what answers
    a request (a move refused, a take-back, nothing to take back); the board and the prompts it
    draws itself."""

    SHOWN = re.compile(r"(took back|nothing to take back|.*try again)")

    def __init__(self, changed: Callable[[], None], refused: Callable[[], None] = lambda: None) -> None:
        self.changed, self.refused = changed, refused
        self.pending = ""
        self.notices: deque[str] = deque(maxlen=5)

    def flush(self) -> None:
        """Nothing to flush: every line is taken as it comes."""

    def write(self, text: str) -> int:
        """Take what the player says; keep the lines the page shows."""
        self.pending += text
        *lines, self.pending = self.pending.split("\n")
        for line in lines:
            said = re.sub(r"^.* to move \(ply \d+\) > ", "", line).strip()
            if self.SHOWN.match(said):
                self.notices.append(said)
                if "try again" in said:  # the move sent was refused: the person moves again
                    self.refused()
                self.changed()
        return len(text)


@dataclass(frozen=True, slots=True)
class Choice:
    """What a person chose to play: the game (one of ``PLAYABLE``, or ``tournament:ID``, the
    game of a stored tournament), the bot (in every other seat), their seat (from 0) and the
    bot's move time."""

    game: str
    bot: str
    seat: int
    move_time: float


@dataclass(frozen=True, slots=True)
class Offer:
    """A game the choice page offers: its choice (``Choice.game``), what the page calls it, its
    seats as the page names them (``p2 (second)``) and the bots that play it."""

    game: str
    title: str
    seats: tuple[str, ...]
    bots: tuple[str, ...]


def seat_key(seat: int) -> str:
    """How the choice form names a seat (from 0): ``x`` and ``o`` for the first two (as ever),
    ``p3``, ``p4``... for the others (as the pages' seat classes do)."""
    return "xo"[seat] if seat < 2 else f"p{seat + 1}"


def seat_of_key(key: str) -> int:
    """The seat (from 0) the choice form's ``key`` names (``seat_key``); ``ValueError`` for
    anything else."""
    if key in ("x", "o"):
        return "xo".index(key)
    if re.fullmatch(r"p[3-9]", key):
        return int(key[1:]) - 1
    raise ValueError(f"no seat {key!r}")


def seat_labels(game: Game) -> tuple[str, ...]:
    """What the choice page calls each seat of ``game``: its name and its order, ``p2 (second)``."""
    return tuple(f"{name} ({ordinal(seat + 1)})" for seat, name in enumerate(seat_names(game)))


def tournament_id_of(game: str) -> int | None:
    """The tournament whose game a choice names (``tournament:ID``), or ``None``."""
    number = game.removeprefix(TOURNAMENT_GAME) if game.startswith(TOURNAMENT_GAME) else ""
    return int(number) if number.isdecimal() and len(number) <= 18 else None


class BrowserGame(Watcher):
    """One game of a person in the browser against a bot, played in a thread of its own."""

    def __init__(
        self,
        game: Game,
        choice: Choice,
        bot_name: str,
        game_id: int,
        tournament_id: int,
        live: Path | None = None,
        visitor: str = "",
        idle: float = IDLE_SECONDS,
        teams: Sequence[str] | None = None,
    ) -> None:
        self.id = secrets.token_urlsafe(16)
        self.visitor = visitor  # who started it (their address)
        self.live = live  # where onlookers read its moves as it goes (``arena.core.live``), if anywhere
        self.game, self.choice = game, choice
        self.board = board_kind(game)
        #: what the page calls the game, and the person's side
        self.title = game.name
        names = seat_names(game)
        self.side = f"{names[choice.seat]} ({ordinal(choice.seat + 1)})"
        if self.board != "generic":
            self.side = "x / black (first)" if choice.seat == 0 else "o / white (second)"
        self.bot_name = bot_name
        #: who sits in each seat as the page names them: ``you``, and the bots' teams
        if teams is None:
            from arena.contests.human_play import bot_teams

            teams = bot_teams(bot_name, game.players, choice.seat)
        chosen = list(teams)
        self.teams = ["you" if seat == choice.seat else team for seat, team in enumerate(chosen)]
        #: the seats the bot plays, in words (``p1 and p3``)
        self.others = joined([name for seat, name in enumerate(names) if seat != choice.seat])
        self.game_id, self.tournament_id = game_id, tournament_id
        self.state: State = game.initial_state()
        self.moves: list[tuple[int, str, float]] = []
        #: the step of each move (a simultaneous step's moves share one), counted from 1
        self.steps: list[int] = []
        self._stepped: State | None = None  # the state the last move led to
        self.asked: int | None = None  # the seat asked for its move now
        self.waiting = False  # the person is to move
        self.over = False
        self.record: GameRecord | None = None
        self.failure: str | None = None
        self.version = 0
        self.changes = threading.Condition()
        self.feed = Feed(idle)
        self.notices = Notices(self._changed, self._refused)
        self.thread: threading.Thread | None = None
        self.last_seen = time.monotonic()

    # -- the match loop's side -------------------------------------------------------------

    def _changed(self) -> None:
        with self.changes:
            self.version += 1
            self.changes.notify_all()

    def _refused(self) -> None:
        with self.changes:
            self.waiting = not self.over

    def _show(self) -> None:
        """Let onlookers of the game's page see its moves (a take-back too)."""
        if self.live is not None:
            write_live(self.live, self.game_id, self.moves)

    def to_move(self, state: State, seat: int | None = None) -> None:
        seat = state.to_move if seat is None else seat
        with self.changes:
            self.state = state.shared()  # (read by the page's requests while this thread plays on)
            if len(self.moves) > state.ply:  # a take-back
                del self.moves[state.ply :], self.steps[state.ply :]
                self._stepped = None
                self._show()
            self.waiting = seat == self.choice.seat
            self.asked = seat
        self._changed()

    def moved(self, state: State, move: MoveRecord) -> bool:
        with self.changes:
            self.state = state.shared()
            self.moves.append((move.seat, move.move, move.wall_ms))
            # the moves of a simultaneous step are told one by one, each with the state they lead to
            joint = state is self._stepped
            self.steps.append((self.steps[-1] if self.steps else 0) + (0 if joint else 1))
            self._stepped = state
            self.waiting, self.asked = False, None
            self.notices.notices.clear()  # they answered the request this move ends
            self._show()
        self._changed()
        return True

    def finish(self, record: GameRecord | None, failure: str | None) -> None:
        """The game is over (``record``), or could not be played (``failure``)."""
        if self.live is not None:
            remove_live(self.live, [self.game_id])
        with self.changes:
            self.record, self.failure = record, failure
            self.over, self.waiting = True, False
        self._changed()

    # -- the page's side -------------------------------------------------------------------

    def act(self, action: str, move: str | None) -> None:
        """A move (``action`` "move") or a command from the page; ``PlayError`` if it is not one."""
        if self.over:
            raise PlayError("the game is over")
        if action == "undo" and not self.can_undo():
            raise PlayError(
                "nothing to take back now: a move is taken back on your turn, and not one "
                "played at once after another seat's"
            )
        if action in COMMANDS:
            self.feed.send(action)
        elif action == "move" and move is not None and MOVE_TEXT.fullmatch(move):
            with self.changes:  # taken at once: a second move before the bot's answer is not queued
                if not self.waiting:
                    raise PlayError("it is not your turn")
                try:  # a legal move only: a command's word ("help", "undo") is not one, and would stick
                    legal = self.game.parse_move(move) in self.state.moves_of(self.choice.seat)
                except ValueError:
                    legal = False
                if not legal:
                    raise PlayError(f"{move!r} is not a legal move here")
                self.waiting = False
            self.feed.send(move)
            self._changed()
        else:
            raise PlayError("send a move, undo or resign")

    def can_undo(self) -> bool:
        """Whether the person may take back their last move now: on their turn, having moved,
        where their move is the first of its step (a take-back removes their move and every
        one after it: a simultaneous step where another seat moved first would be cut in two)."""
        with self.changes:
            if not self.waiting or self.over:
                return False
            mine = [index for index, (seat, _, _) in enumerate(self.moves) if seat == self.choice.seat]
            if not mine:
                return False
            last = mine[-1]
            return last == 0 or self.steps[last - 1] != self.steps[last]

    def leave(self) -> None:
        """The person (or the server) leaves: the game is stored without a result."""
        if not self.over:
            self.feed.send("quit")

    def seen(self) -> None:
        """Its page asked for news: it is kept for a while after it ends."""
        self.last_seen = time.monotonic()

    def snapshot(self) -> dict[str, Any]:
        """What the page shows: the position, the moves, whose turn, the legal moves when it is
        the person's, and the result when it is over. In a game of hidden information, while
        it goes on, the position is what the person's seat may know, and the others' moves
        (and the chance outcomes) are not shown."""
        can_undo = self.can_undo()
        with self.changes:
            state, moves, waiting, over = self.state, list(self.moves), self.waiting, self.over
            record, failure, version = self.record, self.failure, self.version
            notices, steps, asked = list(self.notices.notices), list(self.steps), self.asked
        game, seat = self.game, self.choice.seat
        names = seat_names(game)
        seats = list(self.teams)
        result = None
        if record is not None:
            result = result_sentence(
                names,
                seats,
                record.winner,
                record.termination.value,
                record.offender,
                record.points,
                "finished",
            )
        legal = [game.format_move(m) for m in state.moves_of(seat)] if waiting and not state.is_terminal else []
        hidden = game.HIDDEN and not over
        if self.board == "generic":
            frame = generic_frame(state, seat if hidden else None)
            before = None
        else:
            frame = frames(game, [state])[0]
            before = frames(game, [game.replay([t for _, t, _ in moves[:-1]])])[0] if moves else None
        shown = [[s, "?" if hidden and s != seat else t, 0 if s == CHANCE else round(w, 2)] for s, t, w in moves]
        counts: list[int] = []  # the moves of each step (a simultaneous step's together)
        for index, step in enumerate(steps):
            if index and step == steps[index - 1]:
                counts[-1] += 1
            else:
                counts.append(1)
        return {
            "version": version,
            "game": game.name,
            "board": self.board,
            "marks": list(game.MARKS[: game.players]),
            "seat": seat,
            "names": list(names),
            "seats": seats,
            "others": self.others,
            "moves": shown,
            "steps": counts,
            "frame": frame,
            "before": before,
            "last": moves[-1][1] if moves and not hidden else None,
            "waiting": waiting,
            "thinking": None if waiting or over or asked is None or asked == seat else asked,
            "legal": legal,
            "over": over,
            "result": result,
            "failure": failure,
            "notice": notices[-1] if notices else None,
            "game_url": f"/t/{self.tournament_id}/games/{self.game_id}.html",
            "can_undo": can_undo,
        }


class Tables:
    """The games people are playing on this server: started, found by id, left at shutdown."""

    def __init__(
        self, sessions: sessionmaker[Session], base: Path, live: Path | None = None, idle: float = IDLE_SECONDS
    ) -> None:
        self.sessions = sessions
        self.base = base
        self.live = live
        self.idle = idle  # seconds without a move from the person before a game is left
        self.games: dict[str, BrowserGame] = {}
        self.lock = threading.Lock()

    def choices(self) -> list[tuple[str, str]]:
        """The games a person may choose, as (choice, what the page calls it): arena's four,
        then the games of the stored tournaments that are not arena's, of two seats or more
        (newest first, each game once), where they can be loaded."""
        return [(choice, title) for choice, title, _ in self._games()]

    def offers(self) -> list[Offer]:
        """What the choice page offers: each game of ``choices`` with its seats and its bots."""
        return [
            Offer(choice, title, seat_labels(game), tuple(self._bots_of(choice, game)))
            for choice, title, game in self._games()
        ]

    def _games(self) -> list[tuple[str, str, Game]]:
        """``choices``, each with its game."""
        from sqlalchemy import select

        found: list[tuple[str, str, Game]] = [(name, name, get_game(name)) for name in PLAYABLE]
        seen: set[str] = set()
        with self.sessions() as session:
            rows = session.execute(
                select(Tournament.id, Tournament.name, Tournament.game, Tournament.config_hash).order_by(
                    Tournament.id.desc()
                )
            ).all()
        # each game once: named by its newest tournament, one of 'arena run' before one of play
        for tid, name, spec, config_hash in sorted(rows, key=lambda row: row[3] == PLAY_HASH):
            key = repr(sorted(spec.items())) if isinstance(spec, dict) else ""
            if not isinstance(spec, dict) or not from_outside(spec) or key in seen:
                continue
            seen.add(key)
            try:
                game = stored_game(spec)
            except ArenaError:
                continue
            where = "" if config_hash == PLAY_HASH else f", tournament {name}"
            seats = "" if game.players == 2 else f" for {game.players}"
            found.append(
                (f"{TOURNAMENT_GAME}{tid}", clean(f"{game.name}{seats} (a game of your own{where})", 120), game)
            )
        return found

    def game_of(self, choice: str) -> Game:
        """The game ``choice`` names: one of ``PLAYABLE``, or the game of a stored tournament
        (``tournament:ID``, not one of arena's own); ``PlayError`` if none."""
        if choice in PLAYABLE:
            return get_game(choice)
        tid = tournament_id_of(choice)
        if tid is None:
            raise PlayError(f"choose a game: {', '.join(PLAYABLE)}, or the game of a tournament (tournament:ID)")
        with self.sessions() as session:
            tournament = session.get(Tournament, tid)
            spec = None if tournament is None else dict(tournament.game)
        if spec is None or not from_outside(spec):
            raise PlayError(f"there is no game from outside arena in a tournament {tid} here")
        try:
            return stored_game(spec)
        except ArenaError as error:
            raise PlayError(f"that game cannot be loaded: {error}") from None

    def bots(self, game: str) -> list[str]:
        """The bots a person may play at ``game`` (a choice's game, or a game's name): the
        built-in ones that play it, then the registered ones (a visitor never names a file or a
        module of their own), but no season's submission: a team's bot, passed or failed, is
        played on its ladder only."""
        if tournament_id_of(game) is not None:
            try:
                return self._bots_of(game, self.game_of(game))
            except PlayError:
                return []
        return self._bots_of(game, None)

    def _bots_of(self, choice: str, game: Game | None) -> list[str]:
        """``bots`` of the choice ``choice``, whose game (a user's) is ``game``."""
        import importlib

        from sqlalchemy import select

        from arena.entrants.builtins import builtin_bots
        from arena.store.seasons import submitted_bots

        if tournament_id_of(choice) is not None and game is not None:  # a user's game: the bots that play any game
            names = [bot.module for bot in builtin_bots() if game.name in importlib.import_module(bot.module).GAMES]
        else:
            names = [bot.module for bot in builtin_bots() if choice in bot.games]
        with self.sessions() as session:
            registered = session.scalars(
                select(Bot.name).where(Bot.registered.is_(True), Bot.id.not_in(submitted_bots())).distinct()
            )
            names += sorted(set(registered) - set(names))
        return names

    def start(self, choice: Choice, visitor: str = "") -> BrowserGame:
        """Start a game as ``choice`` says for ``visitor`` (their address); ``PlayError`` if it
        cannot be played."""
        from arena.contests import roster
        from arena.contests.human_play import bot_teams, find_opponent, play_against, prepare_game

        if choice.game not in PLAYABLE and tournament_id_of(choice.game) is None:
            raise PlayError(f"choose a game: {', '.join(PLAYABLE)}, or the game of a tournament (tournament:ID)")
        if choice.seat not in (0, 1) and choice.game in PLAYABLE:
            raise PlayError("choose a side: x (first) or o (second)")
        if not 0.01 <= choice.move_time <= MAX_MOVE_TIME:
            raise PlayError(f"the bot's move time is from 0.01 to {MAX_MOVE_TIME:g} seconds")
        game = self.game_of(choice.game)
        if not 0 <= choice.seat < game.players:
            raise PlayError(f"choose a seat of {game.name}: {joined(seat_labels(game))}")
        if choice.bot not in self.bots(choice.game):
            raise PlayError(f"there is no bot {choice.bot!r} for {game.name} here")
        with self.lock:
            self._forget_finished()
            playing = [g for g in self.games.values() if not g.over]
            if sum(g.visitor == visitor for g in playing) >= PER_VISITOR:
                raise PlayError(f"you are playing {PER_VISITOR} games here already; finish or resign one first", 429)
            if len(playing) >= MAX_GAMES:
                raise PlayError(f"{MAX_GAMES} games are being played here already; try again when one ends", 503)
            with self.sessions.begin() as session:
                bot = find_opponent(session, choice.bot, {}, self.base)
                teams = bot_teams(bot.name, game.players, choice.seat)
                game_id = prepare_game(session, game, bot, teams)
                tournament_id = session.get_one(GameRow, game_id).tournament_id
                specs = [None if team == "human" else roster.spec(bot, team) for team in teams]
                session.expunge(bot)
            table = BrowserGame(
                game,
                choice,
                clean(bot.name, 60),
                game_id,
                tournament_id,
                self.live,
                visitor,
                self.idle,
                teams=[clean(team, 64) for team in teams],
            )
            self.games[table.id] = table
        # the bot's own CPU time, not the wall clock: the server's load (pages, streams, other
        # games, all in this process) must not cost the bot a move (wall time stays a backstop)
        control = TimeControl(move=choice.move_time, grace=0.1, startup=30.0, clock="cpu")

        def run() -> None:
            record, failure = None, None
            try:
                record = play_against(
                    self.sessions,
                    game,
                    bot,
                    specs,
                    choice.seat,
                    control,
                    table.feed,
                    table.notices,
                    watch=table,
                    game_id=game_id,
                )
            except Exception as error:  # the page says so; the server goes on
                log.exception("game %d in the browser failed", game_id)
                failure = clean(f"the game could not go on: {error}", 500)
            table.finish(record, failure)

        table.thread = threading.Thread(target=run, name=f"arena-play-{game_id}", daemon=True)
        table.thread.start()
        return table

    def find(self, table_id: str) -> BrowserGame | None:
        """The game ``table_id``, if it is here."""
        with self.lock:
            return self.games.get(table_id)

    def _forget_finished(self) -> None:
        """Forget games over for a while (their pages then point to the stored game)."""
        now = time.monotonic()
        for key, table in list(self.games.items()):
            if table.over and now - table.last_seen > 600:
                del self.games[key]

    def close(self, timeout: float = 10.0) -> None:
        """Leave every game in progress (stored without a result) and wait for them."""
        with self.lock:
            tables = list(self.games.values())
        for table in tables:
            table.leave()
        deadline = time.monotonic() + timeout
        for table in tables:
            if table.thread is not None:
                table.thread.join(max(0.0, deadline - time.monotonic()))

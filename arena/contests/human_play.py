"""A person in a seat: the terminal player, and the storing of games people play.

The person is a ``Player`` like any bot, so ``arena play`` runs the one match loop and its
games are stored, replayed and reported like every other game.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from arena.contests.config import BotDef
from arena.contests.roster import bot_row
from arena.core.botspec import BotSpec
from arena.core.gameloop import Abandoned, Player, Reply, Resigned, TakeBack, Watcher, play_game
from arena.core.job import derive_seed
from arena.core.records import GameRecord, MoveRecord, Termination
from arena.core.text import printable
from arena.core.timing import SeatClock, TimeControl
from arena.errors import ArenaError
from arena.games import SIMULTANEOUS, Game, IllegalMoveError, MoveSyntaxError, State
from arena.runners.seat import BotPlayer
from arena.runners.worker import GameWorker
from arena.store.models import PLAY_HASH, Base, Bot, Entry, GameRow, Tournament, count, get_row
from arena.store.writes import PlannedGame, add_entry, add_game, add_tournament, save_record

HELP = """commands: a move in the game's notation, or
  moves   list the legal moves          hint    ask the bot what it would play here
  undo    take back your last move      resign  give up the game (a loss)
  quit    leave (the game is stored without a result)   help    this list"""
#: at most this many legal moves are listed under the board
SHOWN_MOVES = 24

#: what a hint comes from: the position and every move played so far -> what to say
Hint = Callable[[State, list[str]], str]
Row = TypeVar("Row", bound=Base)


class LineSource(Protocol):
    """Where a person's lines come from: a terminal, or the page of ``arena serve``."""

    def readline(self) -> str:
        """The next line, ending in a newline; empty at the end of the input."""
        ...


class LineSink(Protocol):
    """Where what is said to a person goes."""

    def write(self, text: str, /) -> int:
        """Say ``text``; how many characters were taken."""
        ...

    def flush(self) -> None:
        """Send what was said on its way."""
        ...


def symbol(game: Game, seat: int) -> str:
    """How a seat is written on the board: x/o, or b/w in Othello (a game of many seats without
    marks: its name, p3)."""
    return game.MARKS[seat] if seat < len(game.MARKS) else game.seat_names(game.players)[seat]


def board_text(data: dict[str, Any]) -> str:
    """What a seat may know of a position (``State.view``) as text: its boards as rows of
    cells (``.`` for an empty one) with their labels, then its notes; other data as
    ``key: value`` lines."""
    boards = data.get("boards")
    if not isinstance(boards, list):
        shown = {key: value for key, value in data.items() if key not in ("legal", "game")}
        return "\n".join(f"{key}: {json.dumps(value)}" for key, value in shown.items())
    lines: list[str] = []
    for board in boards:
        cells = [str(cell) or "." for cell in board.get("cells", [])]
        cols = max(int(board.get("cols", 1)), 1)
        width = max((len(cell) for cell in cells), default=1)
        if board.get("label"):
            lines.append(f"{board['label']}:")
        lines += [" ".join(cell.rjust(width) for cell in cells[row : row + cols]) for row in range(0, len(cells), cols)]
    return "\n".join(lines + [str(note) for note in data.get("notes") or []])


class HumanPlayer(Player):
    """A person at a terminal (or anything that writes lines to ``stdin``)."""

    def __init__(
        self,
        stdin: LineSource,
        stdout: LineSink,
        hint: Hint | None = None,
        name: str = "human",
        opponent: str = "opponent",
    ) -> None:
        self.stdin, self.stdout = stdin, stdout
        self.hint = hint
        self.name = name
        self.opponent = opponent  # how the other seat is named when it has moved
        self.times: list[float] = []  # the seconds of each opponent's move not yet said (``heard``)
        self.game: Game | None = None
        self.seat = 0
        self.moves: list[str] = []  # every move of the game so far, for hints
        self.movers: list[int] = []  # the seat that played each of them
        self.own_moves = 0
        self.taking_back = False
        self.took_back = False  # the next request follows a take-back: say what it took back

    def say(self, text: str) -> None:
        """Write a line to the person."""
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def start_game(self, game: Game, seat: int, seed: int, control: TimeControl) -> None:
        self.game, self.seat = game, seat
        if not self.taking_back:
            self.moves, self.movers, self.own_moves = [], [], 0
        self.took_back, self.taking_back = self.taking_back, False
        self.times = []

    def request_move(self, state: State, unseen: list[str], clock: SeatClock) -> Reply:
        game = self.game
        assert game is not None
        if self.took_back:  # ``unseen`` is every move left on the board: those after them are taken back
            self.took_back = False
            self.say(f"took back {self.describe(len(unseen))}")
            del self.moves[len(unseen) :], self.movers[len(unseen) :]
        else:  # the opponent's moves since this player's last one
            self.moves += unseen
            self.movers += [1 - self.seat] * len(unseen)
            if unseen and not game.HIDDEN:  # (hidden: the others' moves and the draws are the game's to show)
                self.say(self.played(game, unseen))
        self.say(board_text(state.view(self.seat)) if game.HIDDEN else state.render())
        self.show_moves(game, state)
        start = time.monotonic()
        while True:
            self.stdout.write(f"{symbol(game, self.seat)} to move (ply {state.ply + 1}) > ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:
                self.say("")
                raise Abandoned
            text = line.strip()
            command = text.lower()
            if not text:
                continue
            if command in ("quit", "exit"):
                raise Abandoned
            if command == "resign":
                raise Resigned
            if command in ("help", "?"):
                self.say(HELP + f"\nmoves: {game.NOTATION}")
            elif command in ("moves", "legal"):
                self.show_moves(game, state, every=True)
            elif command == "hint":
                self.say(self.ask_hint(state))
            elif command == "undo":
                if self.own_moves == 0:
                    self.say("nothing to take back: you have not moved yet")
                    continue
                self.own_moves -= 1
                self.taking_back = True
                raise TakeBack
            else:
                try:
                    move = game.parse_move(text)
                    if state.to_move == SIMULTANEOUS:  # the others' moves of the step are not known yet
                        if move not in state.moves_of(self.seat):
                            raise IllegalMoveError(f"{text!r} is not one of your moves here")
                    else:
                        state.play(move)
                except (MoveSyntaxError, IllegalMoveError) as error:
                    self.say(f"{error}; try again ('help' lists the commands)")
                    continue
                self.own_moves += 1
                played = game.format_move(move)
                self.moves.append(played)
                self.movers.append(self.seat)
                return Reply(played, time.monotonic() - start)

    def heard(self, move: MoveRecord) -> None:
        """The opponent played ``move`` (told by the game's watcher): keep its time to say it."""
        self.times.append(move.wall_ms / 1000)

    def played(self, game: Game, moves: list[str]) -> str:
        """The opponent's ``moves`` since this player's last one, with their times: ``bots.uct
        (o) played 6 in 0.12 s``."""
        times, self.times = self.times[-len(moves) :], []
        if len(times) == len(moves):
            moves = [f"{move} in {seconds:.2f} s" for move, seconds in zip(moves, times)]
        return f"{self.opponent} ({symbol(game, 1 - self.seat)}) played {', '.join(moves)}"

    def describe(self, kept: int) -> str:
        """The moves after the first ``kept``, each named as this player's or the opponent's:
        ``your 2 and the opponent's 1``."""
        whose = ("your", "the opponent's")
        taken = zip(self.moves[kept:], self.movers[kept:], strict=True)
        named = [f"{whose[mover != self.seat]} {move}" for move, mover in taken]
        return ", ".join(named[:-1]) + " and " + named[-1] if len(named) > 1 else "".join(named)

    def show_moves(self, game: Game, state: State, every: bool = False) -> None:
        """List the legal moves under the board (the first ``SHOWN_MOVES`` unless ``every``)."""
        legal = [game.format_move(m) for m in state.moves_of(self.seat)]
        shown = legal if every or len(legal) <= SHOWN_MOVES else legal[:SHOWN_MOVES]
        more = "" if len(shown) == len(legal) else f" ... ({len(legal)} in all: 'moves' lists them)"
        self.say("legal: " + ", ".join(shown) + more)

    def ask_hint(self, state: State) -> str:
        """What the bot would play here, or why there is no hint."""
        if self.hint is None:
            return "no hints in this game"
        try:
            return f"hint: {self.hint(state, list(self.moves))}"
        except Exception as error:  # a hint is a courtesy: its failure never ends the game
            return f"no hint: {error}"


class Timing(Watcher):
    """The watcher of a person's game: it tells the person's player how long each of the bot's
    moves took, and passes every turn and move on to ``then`` (if any)."""

    def __init__(self, human: HumanPlayer, then: Watcher | None = None) -> None:
        self.human, self.then = human, then

    def to_move(self, state: State, seat: int) -> None:
        if self.then is not None:
            self.then.to_move(state, seat)

    def moved(self, state: State, move: MoveRecord) -> bool:
        if move.seat != self.human.seat:
            self.human.heard(move)
        return self.then is None or self.then.moved(state, move)


def bot_hint(worker: GameWorker, spec: BotSpec, game: Game, seat: int, control: TimeControl) -> Hint:
    """A hint source: a fresh process of the bot, put in the person's seat and position."""

    def hint(state: State, moves: list[str]) -> str:
        helper = worker.player(spec)
        try:
            helper.start_game(game, seat, random.randrange(1 << 62), control)
            return helper.request_move(state, moves, control.seat()).text
        finally:
            helper.close()

    return hint


def _one(session: Session, model: type[Row], **where: object) -> Row | None:
    return session.scalars(select(model).filter_by(**where)).first()


def bot_teams(bot: str, seats: int, person: int) -> list[str]:
    """Who sits in each of ``seats`` seats when a person takes seat ``person`` against ``bot``
    in every other: ``human`` there, the bot's name in the first other seat, then ``BOT #2``...
    (a team of its own each, so that every seat's results are its own)."""
    teams, number = [], 0
    for seat in range(seats):
        if seat == person:
            teams.append("human")
            continue
        number += 1
        teams.append(bot if number == 1 else f"{bot} #{number}")
    return teams


def prepare_game(session: Session, game: Game, bot: Bot, teams: Sequence[str]) -> int:
    """A pending game row for a person against ``bot``: ``teams`` names the team of each seat,
    ``human`` the person's and the others ``bot``'s (its name, or more names where it plays
    several seats), each a team of the play tournament of that game and bot (created on first
    use); its id."""
    human = _one(session, Bot, name="human", kind="human")
    if human is None:
        human = Bot(name="human", kind="human", target="terminal", description="a person at the terminal")
        session.add(human)
    safe = "".join(c if c.isalnum() or c in "._+-" else "-" for c in bot.name)[:60]
    name = f"play {game.name} {safe} v{bot.version}"
    if game.source is not None:  # a user's game: its play tournament is that of its code and parameters
        digest = hashlib.sha256(json.dumps(game.spec(), sort_keys=True).encode()).hexdigest()[:10]
        title = "".join(c if c.isalnum() or c in "._+-" else "-" for c in game.name)[:24]
        name = f"play {title} {digest} {safe} v{bot.version}"
    tournament = _one(session, Tournament, name=name)
    if tournament is None:
        tournament = add_tournament(
            session,
            name,
            game.spec(),
            {"name": name, "game": game.spec(), "scoring": "standard", "stages": [{"name": "play"}]},
            f"# games played by a person: {game.name} against {bot.name}\n",
            PLAY_HASH,
            status="running",
        )
    session.flush()
    seats = []
    for team in teams:
        entry = _one(session, Entry, tournament_id=tournament.id, team=team)
        if entry is None:
            entry = add_entry(session, tournament.id, team, (human if team == "human" else bot).id)
        seats.append(entry.id)
    played = count(session, GameRow, GameRow.tournament_id == tournament.id)
    seed = derive_seed("play", time.time_ns())
    return add_game(session, tournament.id, PlannedGame(0, 0, played, played, tuple(seats), seed))


def find_opponent(session: Session, bot: str, params: dict[str, Any], base: Path) -> Bot:
    """The bot a person plays: the latest registered version of ``bot`` (with ``params`` over
    its own, a new version if they differ), else the module or file ``bot`` (from ``base``)."""
    row = session.scalars(
        select(Bot).where(Bot.name == bot, Bot.registered.is_(True)).order_by(Bot.version.desc())
    ).first()
    if row is not None and params:
        merged = {**json.loads(row.params), **params}
        row = bot_row(session, row.name, _bot_def(row.kind, row.target, merged, row.python), Path(row.path or "."))
    if row is None:
        if not (bot.endswith(".py") or "." in bot or "/" in bot):
            known = ", ".join(sorted(set(session.scalars(select(Bot.name).where(Bot.registered.is_(True)))))) or "none"
            raise ArenaError(
                f"no registered bot {bot!r}; registered: {known} (or give a module like bots.uct or a .py file)"
            )
        row = bot_row(session, bot, _bot_def("python", bot, params), base)
    return row


def _bot_def(kind: str, target: str, params: dict[str, Any], python: str | None = None) -> BotDef:
    """The ``BotDef`` of a bot; a bad one (parameters for a command bot) is an ``ArenaError``."""
    from pydantic import ValidationError

    try:
        return BotDef.of(kind, target, params, python)
    except ValidationError as error:
        problem = error.errors()[0]["msg"].removeprefix("Value error, ")
        raise ArenaError(f"bot {target!r}: {problem}") from None


def play_against(
    sessions: sessionmaker[Session],
    game: Game,
    bot: Bot,
    spec: BotSpec | Sequence[BotSpec | None],
    human_seat: int,
    control: TimeControl,
    stdin: LineSource,
    stdout: LineSink,
    watch: Watcher | None = None,
    game_id: int | None = None,
) -> GameRecord:
    """One game of a person against a bot, stored like any other game: ``spec`` is the bot's
    (the other seat of two), or each seat's (``None`` for the person's: a game of more seats,
    a process of its own each, its row made already by ``prepare_game``); ``watch`` is told of
    each turn and move, and ``game_id`` is the game's row if it is made already. Chance
    outcomes are drawn from the game's own seed."""
    specs = list(spec) if isinstance(spec, Sequence) else [None if s == human_seat else spec for s in range(2)]
    with sessions.begin() as session:
        if game_id is None:
            game_id = prepare_game(session, game, bot, bot_teams(bot.name, len(specs), human_seat))
        seed = get_row(session, GameRow, game_id).seed
    with GameWorker() as worker:
        other = next(s for s in specs if s is not None)
        hint = bot_hint(worker, other, game, human_seat, control) if len(specs) == 2 else None
        human = HumanPlayer(stdin, stdout, hint=hint, opponent=printable(bot.name))
        bots: dict[int, BotPlayer] = {}
        try:
            for seat, seated in enumerate(specs):
                if seat != human_seat and seated is not None:
                    bots[seat] = worker.player(seated)
            players: list[Player] = [human if seat == human_seat else bots[seat] for seat in range(len(specs))]
            seeds = [derive_seed(seed, seat) for seat in range(len(specs))]
            chance = derive_seed(seed, "chance")
            record = play_game(game, players, seeds, control, game_id, Timing(human, watch), chance)
        finally:
            for player in bots.values():
                player.close()
    record.clock = control.clock  # stored with the game, as a tournament's games are
    if record.voided is not None:  # nobody to play it again with: it ends without a result
        record.termination, record.detail = Termination.ABORTED, record.voided
    with sessions.begin() as session:
        save_record(session, record)
    return record

"""A seat played by an engine over its own protocol (UCI, UGI, GTP): ``EnginePlayer``.

The harness speaks the engine's protocol itself, over the same sandboxed process, clock and
checks as any bot (``BotPlayer``): its handshake (``uci``/``uciok`` and its options, or GTP's
``protocol_version``) and each new game (``ucinewgame``/``isready``, or ``boardsize``,
``clear_board``, ``komi``) within the start-up time; each move under the move's limit, counted
from the request to the engine's last line (``bestmove``, or GTP's reply to ``genmove``). The
engine's moves are mapped to the game's (arena/entrants/engines/notation.py) and checked by the
game like any bot's; what it said of its search (the last ``info`` line's score, depth and
nodes) goes with each move. A silent, late, crashing, flooding or confused engine forfeits as
any bot does (docs/protocol.md, Forfeits), and the CPU it uses while it is not its turn (a
search left running, pondering) is checked the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.core.gameloop import Reply, Resigned
from arena.core.records import BotFault, Termination
from arena.core.timing import Limit, SeatClock, TimeControl, Usage
from arena.entrants.engines import protocols
from arena.entrants.engines.notation import Notation, go_size, notation_for
from arena.entrants.kinds import BotKindError
from arena.games import Game, Move, Outcome, State
from arena.runners.seat import BotPlayer, move_limit
from arena.sandbox.process import BotProcess

if TYPE_CHECKING:
    from arena.core.botspec import BotSpec
    from arena.runners.worker import GameWorker


class EnginePlayer(BotPlayer):
    """A seat played by an engine process of ``worker``, spoken to in its protocol (its kind)."""

    def __init__(self, spec: BotSpec, worker: GameWorker) -> None:
        super().__init__(spec, worker)
        self.protocol = spec.kind
        self.settings = protocols.engine_settings(self.protocol, spec.parameters)
        self.notation: Notation | None = None
        self.played: list[Move] = []  # the game's moves so far
        self.told = 0  # how many of them a GTP engine has on its board
        self.greeted = False  # its process has had its handshake
        self.variant: str | None = None  # the variant it said it plays, if it said

    def _running(self, game: Game) -> BotProcess:
        process = super()._running(game)
        if self._fresh:
            self.greeted = False
        return process

    def prepare(self, game: Game, startup: float) -> None:
        """Start a new process now and shake hands with it, so that its next game starts warm."""
        self.launch(game)
        self._greet(Limit(startup, grace=0.0))

    def _greet(self, limit: Limit) -> None:
        """The handshake, once a process: ``uci``/``uciok`` and the options, then ``isready``."""
        if self.greeted:
            return
        self._talk(protocols.hello(self.protocol), limit)
        setup = protocols.setup(self.protocol, self.settings)
        if setup is not None:
            self._talk(setup, limit)
            assert isinstance(setup.reader, protocols.UntilWord)
            self.variant = setup.reader.variant
        self.greeted = True

    def start_game(self, game: Game, seat: int, seed: int, control: TimeControl) -> None:
        try:
            notation = notation_for(self.protocol, game)
        except LookupError as error:
            raise BotKindError(f"bot {self.name!r}: {error}") from None
        self._begin_game(game, seat)
        self.notation, self.played, self.told = notation, [], 0
        limit = Limit(control.startup, self.clock_kind or "wall", 0.0, overload=control.on_overload == "replay")
        try:
            self._greet(limit)
            self._talk(protocols.new_game(self.protocol, _gtp_board(game), _gtp_seconds(control)), limit)
        except BotFault as fault:
            if fault.termination is Termination.TIMEOUT:
                fault.detail += " during startup"
            raise

    def request_move(self, state: State, unseen: list[str], clock: SeatClock) -> Reply:
        game, notation = state.game, self.notation
        assert notation is not None
        if state.to_move != self.seat:  # a simultaneous step: no engine protocol has one
            raise BotKindError(f"bot {self.name!r}: an engine plays games whose seats take turns, not {game.name}")
        self.played += [game.parse_move(text) for text in unseen]
        words = [notation.to_engine(self.played[:ply], move) for ply, move in enumerate(self.played)]
        if self.protocol == "gtp":
            plays = [(ply % 2, words[ply]) for ply in range(self.told, len(words))]
            talk = protocols.gtp_move(plays, self.seat, _gtp_left(clock))
        else:
            control = clock.control
            talk = protocols.go(
                self.protocol, words, self.seat, clock.limit(), clock.bank, control.increment, self.settings
            )
        usage = self._talk(talk, move_limit(clock))
        reader = talk.reader
        if isinstance(reader, protocols.GtpReplies):
            said, info = reader.answers[-1], None
            if said.lower() == "resign":
                raise Resigned(self.seat)
        else:
            assert isinstance(reader, protocols.BestMove) and reader.move is not None
            said, info = reader.move, reader.info_text()
        try:
            move = notation.from_engine(self.played, said)
        except ValueError as error:
            raise self._fault(BotFault(Termination.ILLEGAL_MOVE, f"the engine played {said!r}: {error}")) from None
        self.played.append(move)
        self.told = len(self.played)
        text = game.format_move(move)
        return Reply(text, usage.wall, usage.cpu, usage.waited, usage.charged(clock.kind), False, info)

    def _talk(self, talk: protocols.Talk, limit: Limit | None) -> Usage:
        """Say ``talk`` and read its reply under ``limit``, with a bot's checks: the CPU it used
        since its last answer, and no process left running after this one."""
        process = self.process
        assert process is not None
        try:
            mark = process.mark()
            self._check_rest("while not its turn", mark)
            usage = process.converse(talk.data, limit, talk.reader, mark)
        except BotFault as fault:
            raise self._fault(fault) from None
        self._check_children()
        assert process.last is not None
        answered, cpu, _ = process.last
        self._rest = None if cpu is None else (cpu, answered)
        return usage

    def _game_over(self, unseen: list[str], outcome: Outcome, termination: Termination) -> None:
        """An engine is not told how a game ended: its next game starts afresh."""


def _gtp_board(game: Game) -> tuple[int, float] | None:
    """A Go game's board size and komi, as GTP sets them."""
    if game.name != "go" and "go(" not in str(game.spec().get("openspiel", "")):
        return None
    params = getattr(game, "params", {}) or {}
    komi = params.get("komi") if isinstance(params, dict) else None
    if not isinstance(komi, (int, float)):
        found = str(game.spec().get("openspiel", "")).partition("komi=")[2].split(",")[0].rstrip(")")
        komi = float(found) if found.replace(".", "", 1).lstrip("-").isdigit() else 7.5
    return go_size(game), float(komi)


def _gtp_seconds(control: TimeControl) -> tuple[int, int] | None:
    """GTP's time settings for ``control`` in whole seconds (main time, byo-yomi a move), or
    ``None`` when less than a second is all it could say (the engine then plays at its level)."""
    main, each = int(control.bank or 0), int(control.move or 0)
    return (main, each) if main or each else None


def _gtp_left(clock: SeatClock) -> tuple[int, int] | None:
    """GTP's ``time_left`` for this move: the seat's bank (no stones), or its move's seconds (one)."""
    control = clock.control
    if control.bank is not None and int(control.bank):
        return int(clock.bank or 0), 0
    if control.move is not None and int(control.move):
        return int(control.move), 1
    return None

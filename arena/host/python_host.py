"""The host program that runs a Python bot module as a bot process.

``python -m arena.host.python_host [--path DIR] [--warm-up GAME_JSON] TARGET [PARAMS_JSON]`` (started
through arena/sandbox/wrapper.py) speaks the line protocol of docs/protocol.md on its stdin/stdout for
the bot module ``TARGET`` (a dotted module name or a ``.py`` path). The protocol keeps the
process's real stdout to itself: anything the bot prints, from Python or C, goes to stderr,
which the harness captures.

With ``--warm-up`` the host loads the bot and calls its module's ``warm_up(game, **params)``
(if it has one) before it reads its first request: whatever the bot builds on first use
(imports, tables, caches, the first allocation of a tree) is built then, within the bot's
startup time, not in its first timed moves. The built-in bots play a few moves against
themselves there (``bots.common.rehearse``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sys
import time
import traceback
from typing import Any

from arena.clock import Clock
from arena.core.protocol import encode, move_reply
from arena.games import SIMULTANEOUS, IllegalMoveError, View

#: a name no game has: a bot's ``GAMES`` that holds it holds every game
EVERY_GAME_PROBE = "\x00 a game of any name"


def _reply(fd: int, message: dict[str, Any] | bytes) -> None:
    """Send ``message`` (or the line of one, encoded already)."""
    referees = sys.modules.get("arena.games.referee_process")
    if referees is not None:  # a game's referee this process started: no process may outlive a reply
        referees.close_referees()
    os.write(fd, message if isinstance(message, bytes) else encode(message))


def _error(error: BaseException) -> dict[str, Any]:
    """The error reply for the bot's exception; its traceback goes to stderr, into the tail
    stored with the game."""
    kind = "resource_limit" if isinstance(error, MemoryError) else "exception"
    sys.stderr.write("".join(traceback.format_exception(error)[-12:]))
    sys.stderr.flush()
    message = str(error) or ("out of memory (the memory limit was reached)" if kind == "resource_limit" else "")
    return {"type": "error", "kind": kind, "message": f"{type(error).__name__}: {message}"}


class Host:
    """One bot module, one game at a time, kept in step with the harness's moves."""

    def __init__(self, target: str, params: dict[str, Any]) -> None:
        self.target = target
        self.params = params
        self.module: Any = None
        self.game: Any = None
        self.bot: Any = None
        self.ended: Any = None  # the last game's bot, freed when the next game starts
        self.state: Any = None
        self.seat = 0
        self.pace: float | None = None
        self.checked: set[str] = set()  # the games its module was found to play (``check_contract``)

    def new_game(self, message: dict[str, Any]) -> dict[str, Any]:
        """Make a new bot for the game the request names (its module loaded on first use); ready."""
        from arena.games import get_game_from_spec
        from arena.host.loader import check_contract, description, load_module, make_player

        self.close_bot()
        self.ended = None
        game = get_game_from_spec(message["game"])
        if self.module is None:
            self.module = load_module(self.target)
        if game.name not in self.checked:  # (once a game name: reading make_bot's signature takes some 20 µs)
            check_contract(self.module, self.target, game.name)
            self.checked.add(game.name)
        rng = random.Random(message["seed"])
        # a plain move() bot has no rng: its randomness is the random module, seeded as rng is,
        # so that it draws what a make_bot bot would, and a game plays the same again
        random.seed(message["seed"])
        self.bot = make_player(self.module, game, message["seat"], rng, self.params)
        # a game with hidden information: the host knows only what the harness tells its seat;
        # a referee's game (docs/referee.md) keeps no state here either, its rules being a process
        self.game, self.seat = game, message["seat"]
        self.state = None if game.HIDDEN or "command" in (game.source or {}) else game.initial_state()
        pace = message.get("pace")
        self.pace = float(pace) if isinstance(pace, int | float) and pace > 0 else None
        return {
            "type": "ready",
            "description": description(self.module),
            "games": list(getattr(self.module, "GAMES", []) or []),
        }

    def describe(self) -> dict[str, Any]:
        """The ``description`` reply: the bot module's docstring, games and parameters."""
        from arena.host.loader import check_contract, description, load_module

        if self.module is None:
            self.module = load_module(self.target)
        check_contract(self.module, self.target)
        params = getattr(self.module, "PARAMETERS", None)
        games = getattr(self.module, "GAMES", []) or []
        reply: dict[str, Any] = {
            "type": "description",
            "description": description(self.module),
            "games": list(games),
            "parameters": sorted(params) if isinstance(params, dict) else None,
        }
        if EVERY_GAME_PROBE in games:  # a GAMES that holds any name (bots.randombot's): it lists arena's own
            reply["every_game"] = True
        return reply

    def check(self, message: dict[str, Any]) -> dict[str, Any]:
        """The ``checked`` reply: whether the bot can be made, as every game makes it, for the
        request's game with the request's parameters (arena's pre-flight check). A module that
        cannot be loaded is an error reply, the bot's own fault; an ``ArenaError`` refusing the
        game or the parameters (``GAMES`` without the game, parameters ``make_bot`` does not
        take, a ``BotParameterError`` of ``make_bot``) is the reply's ``problem``."""
        from arena.errors import ArenaError
        from arena.games import get_game_from_spec
        from arena.host.loader import check_contract, check_parameters, load_module, make_player

        game = get_game_from_spec(message["game"])
        params = message.get("params") or {}
        if self.module is None:
            self.module = load_module(self.target)
        try:
            check_contract(self.module, self.target, game.name)
            check_parameters(self.module, self.target, params)
            bot = make_player(self.module, game, 0, random.Random(0), params)
        except ArenaError as error:
            return {"type": "checked", "problem": str(error)}
        close = getattr(bot, "close", None)
        if close is not None:
            close()
        return {"type": "checked", "problem": None}

    def warm_up(self, spec: dict[str, Any]) -> None:
        """Load the bot and call its module's ``warm_up(game, **params)``, if it has one (the
        built-in bots play a few moves against themselves), before the first request. A failure
        is only noted here: the real game will show it."""
        from arena.games import get_game_from_spec
        from arena.host.loader import load_module

        try:
            game = get_game_from_spec(spec)
            if self.module is None:
                self.module = load_module(self.target)
            hook = getattr(self.module, "warm_up", None)
            if callable(hook):
                hook(game, **self.params)
        except Exception as error:
            sys.stderr.write(f"arena host: warming up failed: {type(error).__name__}: {error}\n")

    def move(self, message: dict[str, Any], received: tuple[float, float]) -> bytes:
        """Play the moves the request brings, then ask the bot for its move under the request's
        clock: on the state, or (protocol 2, a game with hidden information or a simultaneous
        step) on a ``View`` of what its seat may know; the line of its reply."""
        game, observe = self.game, getattr(self.bot, "observe", None)
        if self.state is not None:
            for state, step in game.steps(self.state, message.get("moves", ())):
                if observe is not None and len(step) == 1:
                    observe(state, step[0])
                self.state = state
            if message.get("ply", self.state.ply) != self.state.ply:
                raise RuntimeError(f"out of step: harness at ply {message['ply']}, host at {self.state.ply}")
        kind = "cpu" if message.get("clock") == "cpu" else "wall"
        clock = Clock(
            message.get("time"), start=received[kind == "cpu"], kind=kind, bank=message.get("bank"), pace=self.pace
        )
        sequential = self.state is not None and self.state.to_move != SIMULTANEOUS
        if sequential:
            move = self.bot.move(self.state, clock)
        else:
            legal = [game.parse_move(text) for text in message.get("legal", ())]
            view = View(
                game, self.seat, message.get("view") or {}, legal, message.get("acting", ()), message["ply"], self.state
            )
            move = self.bot.move(view, clock)
        if type(move) is not int:
            raise TypeError(f"move() returned {move!r}, not a move (an int of the game's encoding)")
        text = game.format_move(move)
        if sequential:
            try:
                self.state = self.state.play(move)
            except IllegalMoveError:  # the harness ends the game: the state is not needed again
                pass
        return move_reply(text, clock.was_cut)

    def measure_pace(self, message: dict[str, Any]) -> dict[str, Any]:
        """The ``pace`` reply: the CPU seconds one step of the bot's search takes, the most of any
        of its moves in a game against itself under a cpu clock of ``limit`` seconds a move
        (``null`` if its searches do not budget by the clock). See ``arena.runners.pace``."""
        from arena.games import get_game_from_spec
        from arena.host.loader import load_module, make_player

        game = get_game_from_spec(message["game"])
        if self.module is None:
            self.module = load_module(self.target)
        players = [make_player(self.module, game, seat, random.Random(seat), self.params) for seat in (0, 1)]
        state, paces = game.initial_state(), []
        try:
            for ply in range(int(message["plies"])):
                if state.is_terminal:
                    break
                clock = Clock(float(message["limit"]), kind="cpu")
                move = players[state.to_move].move(state, clock)
                if clock.searched is not None and clock.searched[0] > 0:
                    paces.append(clock.searched[1] / clock.searched[0])
                elif ply == 0:  # its first search was not ended by the clock: it budgets otherwise
                    break
                observe = getattr(players[1 - state.to_move], "observe", None)
                if observe is not None:
                    observe(state, move)
                state = state.play(move)
        finally:
            for player in players:
                close = getattr(player, "close", None)
                if close is not None:
                    close()
        pace = max(paces) if len(paces) >= int(message["searches"]) else None
        return {"type": "pace", "pace": pace, "searches": len(paces)}

    def close_bot(self) -> None:
        """End the bot of the game, calling its ``close`` if it has one. The bot itself is
        freed when the next game starts (``new_game``): freeing a search's tables can take tens
        of milliseconds of CPU, which between games would count against the bot (a bot may
        use little CPU while it is not its turn), and at the start of a game is its startup's."""
        close = getattr(self.bot, "close", None)
        self.ended, self.bot = self.bot, None
        if close is not None:
            close()


def serve(host: Host, fd_in: int, fd_out: int) -> None:
    """Answer protocol messages from ``fd_in`` on ``fd_out`` until ``quit`` or end of input."""
    stream = os.fdopen(fd_in, "rb", buffering=1 << 16)
    for line in stream:
        received = (time.monotonic(), time.process_time())
        message = json.loads(line.decode())  # (UTF-8, as the harness writes: no guessing)
        kind = message.get("type")
        try:
            if kind == "move":
                _reply(fd_out, host.move(message, received))
            elif kind == "new_game":
                _reply(fd_out, host.new_game(message))
            elif kind == "describe":
                _reply(fd_out, host.describe())
            elif kind == "check":
                _reply(fd_out, host.check(message))
            elif kind == "pace":
                _reply(fd_out, host.measure_pace(message))
            elif kind == "game_over":
                host.close_bot()
            elif kind == "quit":
                break
        except Exception as error:  # the bot's fault: the harness forfeits it and restarts us
            _reply(fd_out, _error(error))
    host.close_bot()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m arena.host.python_host")
    parser.add_argument("--path", action="append", default=[], help="folder to import bots from")
    parser.add_argument("--warm-up", help="warm the bot up for this game (JSON: name, params) first")
    parser.add_argument("target")
    parser.add_argument("params", nargs="?", default="{}")
    return parser


#: the host's command line, read by a parser made once: the launcher imports this module before
#: it forks bots, and making a parser in a forked bot costs some 4 ms of copy-on-write faults
PARSER = _parser()


def main(argv: list[str] | None = None) -> None:
    """Run the bot named on the command line on arena's line protocol (stdin, stdout)."""
    options = PARSER.parse_args(argv)
    # Python ignores SIGXFSZ; restored, a write past the file-size limit kills the bot with it,
    # which the harness reports as a resource limit rather than an exception
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    sys.path[:0] = options.path
    protocol_out = os.dup(1)
    os.dup2(2, 1)  # prints, even from C code, go to stderr
    sys.stdout = sys.stderr
    host = Host(options.target, json.loads(options.params))
    if options.warm_up:
        host.warm_up(json.loads(options.warm_up))
    serve(host, 0, protocol_out)


if __name__ == "__main__":
    main()

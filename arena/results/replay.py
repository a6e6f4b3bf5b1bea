"""Replaying a stored game: its moves re-played through the game engine, which proves the record
legal and its result right, and shown in the terminal move by move.

A record that does not re-play (an illegal move, a move by the wrong seat, a result the moves
do not give) is reported with the ply where it goes wrong; ``arena replay`` then exits non-zero.
"""

from __future__ import annotations

import os
import select
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import select as sql_select
from sqlalchemy.orm import Session

from arena.core.records import Termination
from arena.core.text import printable
from arena.errors import ArenaError
from arena.games import Game, State, get_game_from_spec
from arena.results.lookup import find_game, pool_name, stage_name, stage_names
from arena.store.models import Entry, MoveRow, Tournament

if TYPE_CHECKING:
    from rich.console import Console


class ReplayError(ArenaError):
    """A stored game whose moves do not re-play to its stored result."""


def seat_names(game: str) -> tuple[str, ...]:
    """What the two seats are called in the game named ``game``: x and o, or black and white."""
    from arena.games import game_class

    return game_class(game).SEATS


def replay_record(
    game: Game,
    moves: Sequence[tuple[int, str]],
    *,
    status: str,
    winner: int | None,
    points: tuple[float, float] | None,
    termination: str | None,
    offender: int | None,
    plies: int | None,
) -> tuple[list[State], str | None]:
    """Re-play ``moves`` = [(seat, move text)] from the start: every state reached, and what is
    wrong with the record (``None`` when its moves, seats and result all agree with the rules)."""
    names = seat_names(game.name)
    state = game.initial_state()
    states = [state]
    for ply, (seat, text) in enumerate(moves, 1):
        if state.is_terminal:
            return states, f"ply {ply}: {text!r} is played after the game is over"
        if seat != state.to_move:
            return (
                states,
                f"ply {ply}: the record has {names[seat]} playing {text!r}, but it is {names[state.to_move]}'s turn",
            )
        try:
            state = state.play(game.parse_move(text))
        except ValueError as error:  # a move that does not parse, or an illegal one
            return states, f"ply {ply}: {error}"
        states.append(state)
    if status != "finished":
        return states, None
    if plies is not None and plies != len(moves):
        return states, f"the game says it has {plies} moves, but {len(moves)} are stored"
    kind = termination or Termination.NORMAL.value
    if kind == Termination.NORMAL.value:
        if not state.is_terminal:
            return (
                states,
                f"the record ends after ply {len(moves)}, before the game is over, yet says it ended normally",
            )
        expected = state.outcome
    else:
        if state.is_terminal:
            return states, f"the game is over at ply {len(moves)}, yet the record says it ended by {kind}"
        if offender is None:
            return states, None if kind in (
                "aborted",
                "resignation",
            ) else f"the record says {kind} but names no offender"
        if moves and offender != state.to_move:
            return states, (
                f"the record has {names[offender]} forfeiting by {kind}, but it was {names[state.to_move]}'s turn"
            )
        expected = state.forfeit_outcome(offender)
    assert expected is not None
    if winner != expected.winner:
        said = "a draw" if winner is None else f"{names[winner]} winning"
        truth = "a draw" if expected.winner is None else f"{names[expected.winner]} winning"
        return states, f"the record says {said}, but its moves give {truth}"
    want = None if expected.points is None else (float(expected.points[0]), float(expected.points[1]))
    have = None if points is None else (float(points[0]), float(points[1]))
    if want != have:
        return states, f"the record gives points {_points(have)}, but its moves give {_points(want)}"
    return states, None


def _points(points: tuple[float, ...] | None) -> str:
    return "none" if points is None else "-".join(f"{value:g}" for value in points)


def result_sentence(
    game: str,
    seats: Sequence[str],
    winner: int | None,
    termination: str | None,
    offender: int | None,
    points: tuple[float, ...] | None,
    status: str = "finished",
) -> str:
    """The result in words, e.g. ``alpha (x) wins: beta forfeits by timeout; points 86-0``."""
    if status != "finished":
        return f"not played yet ({status})"
    names = seat_names(game)
    text = "draw" if winner is None else f"{seats[winner]} ({names[winner]}) wins"
    kind = termination or "normal"
    if kind != "normal" and offender is not None:
        verb = "resigns" if kind == "resignation" else f"forfeits by {kind.replace('_', ' ')}"
        text += f": {seats[offender]} {verb}"
    elif kind != "normal":
        text += f" ({kind})"
    if points is not None:
        text += f"; points {_points(points)}"
    return text


@dataclass(slots=True)
class Replay:
    """A stored game re-played: the record, every state reached, and what is wrong if anything."""

    game_id: int
    tournament: str
    game: Game
    stage: str
    pool: str
    round: int
    seats: tuple[str, str]
    moves: list[tuple[int, str, float]]
    states: list[State]
    problem: str | None
    status: str
    winner: int | None
    points: tuple[float, float] | None
    termination: str | None
    offender: int | None
    detail: str | None

    @property
    def last_ply(self) -> int:
        """The last ply that can be shown (all of them when the record re-plays)."""
        return len(self.states) - 1

    def heading(self, ply: int) -> str:
        """What happened at ``ply``: the mover, its move and the time it took."""
        names = seat_names(self.game.name)
        if ply == 0:
            return f"start; {names[0]} ({self.seats[0]}) against {names[1]} ({self.seats[1]})"
        seat, text, wall = self.moves[ply - 1]
        return f"ply {ply}/{len(self.moves)}: {names[seat]} ({self.seats[seat]}) plays {text} in {wall:.1f} ms"

    def result(self) -> str:
        """The game's result in a sentence, with how it ended."""
        text = result_sentence(
            self.game.name, self.seats, self.winner, self.termination, self.offender, self.points, self.status
        )
        return text + (f" ({self.detail})" if self.detail else "")

    def to_dict(self) -> dict[str, Any]:
        """The replay as JSON-ready data (for scripts)."""
        return {
            "game_id": self.game_id,
            "tournament": self.tournament,
            "game": self.game.spec(),
            "seats": list(self.seats),
            "moves": [list(m) for m in self.moves],
            "status": self.status,
            "winner": self.winner,
            "points": self.points,
            "termination": self.termination,
            "offender": self.offender,
            "detail": self.detail,
            "replays": self.problem is None,
            "problem": self.problem,
        }


def load_replay(session: Session, game_id: int) -> Replay:
    """Stored game ``game_id`` re-played through its engine."""
    row = find_game(session, game_id)
    tournament = session.get(Tournament, row.tournament_id)
    assert tournament is not None
    names = stage_names(tournament)
    game = get_game_from_spec(tournament.game)
    teams = dict(session.execute(sql_select(Entry.id, Entry.team).where(Entry.tournament_id == tournament.id)).all())
    moves = [
        (seat, text, wall)
        for seat, text, wall in session.execute(
            sql_select(MoveRow.seat, MoveRow.move, MoveRow.wall_ms)
            .where(MoveRow.game_id == game_id)
            .order_by(MoveRow.ply)
        )
    ]
    points = row.points
    states, problem = replay_record(
        game,
        [(s, t) for s, t, _ in moves],
        status=row.status,
        winner=row.winner,
        points=points,
        termination=row.termination,
        offender=row.offender,
        plies=row.plies,
    )
    return Replay(
        game_id,
        tournament.name,
        game,
        stage_name(names, row.stage),
        pool_name(row.pool),
        row.round,
        (teams[row.seat0], teams[row.seat1]),
        moves,
        states,
        problem,
        row.status,
        row.winner,
        points,
        row.termination,
        row.offender,
        row.detail,
    )


# ---------------------------------------------------------------- the terminal


def frame(replay: Replay, ply: int) -> str:
    """The text shown for ``ply``: the heading, the board, and the result at the end."""
    lines = [replay.heading(ply), "", replay.states[ply].render(), ""]
    if ply == len(replay.moves) and replay.problem is None:
        lines.append(f"result: {replay.result()}")
    if replay.problem is not None and ply == replay.last_ply:
        lines.append(f"the record does not re-play: {replay.problem}")
    return printable("\n".join(lines), lines=True)  # names and the forfeit's detail come from files and bots


def print_replay(replay: Replay, write: Callable[[str], object], start: int | None, delay: float | None) -> None:
    """Print the game: the position at ``start`` alone, or every position from ``start`` (0
    when ``None``) with ``delay`` seconds between them when a delay is given."""
    if start is not None and delay is None:
        write(frame(replay, start))
        return
    for ply in range(start or 0, replay.last_ply + 1):
        if ply > (start or 0) and delay:
            time.sleep(delay)
        write(frame(replay, ply))


KEYS = {
    "\x1b[C": "next",
    "\x1bOC": "next",
    "l": "next",
    "n": "next",
    "\x1b[D": "back",
    "\x1bOD": "back",
    "h": "back",
    "p": "back",
    "\x1b[H": "first",
    "\x1bOH": "first",
    "\x1b[1~": "first",
    "g": "first",
    "\x1b[F": "last",
    "\x1bOF": "last",
    "\x1b[4~": "last",
    "G": "last",
    " ": "play",
    "q": "quit",
    "\x1b": "quit",
    "\x03": "quit",
}
HELP = "←/→ step  Home/End first/last  space play/pause  q quit"


def interactive(replay: Replay, console: Console, start: int, delay: float | None) -> None:
    """Step through the game with keys read raw from the terminal; plays it back when ``delay``."""
    import termios
    import tty

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    ply, playing, pace = start, delay is not None, delay or 0.5
    try:
        tty.setcbreak(fd)
        while True:
            console.clear()
            console.print(frame(replay, ply), highlight=False, markup=False)
            console.print(f"[dim]{HELP}{'  (playing)' if playing else ''}[/]")
            ready, _, _ = select.select([fd], [], [], pace if playing else None)
            if not ready:  # playing and no key: the next move
                ply = min(ply + 1, replay.last_ply)
                playing = ply < replay.last_ply
                continue
            action = KEYS.get(os.read(fd, 8).decode(errors="ignore"))
            if action == "quit":
                return
            if action == "play":
                playing = not playing and ply < replay.last_ply
            elif action is not None:
                playing = False
                ply = {
                    "next": min(ply + 1, replay.last_ply),
                    "back": max(ply - 1, 0),
                    "first": 0,
                    "last": replay.last_ply,
                }[action]
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)

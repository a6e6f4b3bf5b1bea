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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import select as sql_select
from sqlalchemy.orm import Session

from arena.core.gameloop import result_of
from arena.core.records import Termination
from arena.core.text import printable
from arena.errors import ArenaError
from arena.games import CHANCE, RESULTS, SIMULTANEOUS, Game, MoveSyntaxError, State, get_game_from_spec
from arena.games.base import places
from arena.results.lookup import find_game, pool_name, stage_name, stage_names
from arena.store.models import Entry, GameRow, MoveRow, Tournament, game_seats, reported_points

if TYPE_CHECKING:
    from rich.console import Console


class ReplayError(ArenaError):
    """A stored game whose moves do not re-play to its stored result."""


#: a seat's order (from 0) in words, as a place is named too; ``ordinal`` gives the rest
ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth")


def unknown_seats(count: int = 2) -> tuple[str, ...]:
    """What the ``count`` seats (at least two) of a game that cannot be loaded are called: p1,
    p2, ..."""
    return tuple(f"p{seat + 1}" for seat in range(max(count, 2)))


def joined(words: Sequence[str]) -> str:
    """``words`` in a sentence: ``a``, ``a and b``, ``a, b and c``."""
    return ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else "".join(words)


def ordinal(number: int) -> str:
    """``number`` (from 1) as an ordinal: ``first``, ``second``... ``sixth``, then ``7th``."""
    return ORDINALS[number - 1] if 1 <= number <= len(ORDINALS) else f"{number}th"


def stored_game(spec: Mapping[str, Any]) -> Game:
    """The game a stored tournament was played with, made from its spec (``tournament.game``):
    one of arena's by name, a user's from its module, checked by the hash of its code. An
    ``ArenaError`` (``GameLoadError``, ``UnknownGameError``, ``GameParameterError``) says why it
    cannot be loaded."""
    return get_game_from_spec(dict(spec))


def tournament_game(tournament: Tournament) -> tuple[Game | None, str | None]:
    """The game ``tournament`` was played with, or ``None`` and why it cannot be loaded (its
    module gone or changed): the pages that need no engine still show."""
    try:
        return stored_game(tournament.game), None
    except ArenaError as error:
        return None, f"the game of tournament {tournament.name!r} cannot be loaded: {error}"


def seat_names(game: Game | None, count: int = 2) -> tuple[str, ...]:
    """What the seats of ``game`` are called (x and o, black and white, p1, p2 and p3...); p1,
    p2... for its ``count`` seats when the game could not be loaded (``unknown_seats``)."""
    if game is None:
        return unknown_seats(count)
    return game.seat_names(game.players)


def spec_seat_names(spec: Mapping[str, Any], count: int = 2) -> tuple[tuple[str, ...], str | None]:
    """The seat names of the game of a stored spec, and why the game cannot be loaded (then
    its ``count`` seats are called p1, p2...: ``unknown_seats``)."""
    try:
        return seat_names(stored_game(spec)), None
    except ArenaError as error:
        return unknown_seats(count), str(error)


def acting_seats(state: State) -> tuple[int, ...]:
    """The seats whose moves a record holds for the step from ``state``: ``(CHANCE,)`` for a
    chance outcome, each acting seat in order at a simultaneous step, else the seat to move."""
    if state.to_move == CHANCE:
        return (CHANCE,)
    if state.to_move == SIMULTANEOUS:
        return tuple(state.actors())
    return (state.to_move,)


def seat_word(names: Sequence[str], seat: int) -> str:
    """How a record's seat is named: its seat's name, or ``chance``."""
    if seat == CHANCE:
        return "chance"
    return names[seat] if 0 <= seat < len(names) else f"seat {seat}"


def _entry_words(names: Sequence[str], seat: int, text: str) -> str:
    """An entry of a record, for a message: ``o playing '4'``, or ``a chance outcome '4'``."""
    return f"a chance outcome {text!r}" if seat == CHANCE else f"{seat_word(names, seat)} playing {text!r}"


def _turn_words(names: Sequence[str], state: State, seat: int) -> str:
    """Whose turn it is in ``state`` (``seat``'s: the one a record's entry should have had),
    for a message: ``it is x's turn``, ``the game draws a chance outcome there``."""
    if seat == CHANCE:
        return "the game draws a chance outcome there"
    if state.to_move == SIMULTANEOUS:
        acting = " and ".join(seat_word(names, other) for other in state.actors())
        return f"it is {seat_word(names, seat)}'s move of the step {acting} play at once"
    return f"it is {seat_word(names, seat)}'s turn"


@dataclass(slots=True)
class Walk:
    """A record re-played step by step: every state reached (the first before any move), the
    record's entries (``(first, end)`` indexes) of the step from each state to the next (a
    simultaneous step has one entry a seat, any other step one), and what is wrong with the
    record (``None`` when its moves, seats and result all agree with the rules)."""

    states: list[State] = field(default_factory=list)
    steps: list[tuple[int, int]] = field(default_factory=list)
    problem: str | None = None


def walk_record(
    game: Game,
    moves: Sequence[tuple[int, str]],
    *,
    status: str,
    winner: int | None,
    points: Sequence[float] | None,
    termination: str | None,
    offender: int | None,
    plies: int | None,
) -> Walk:
    """Re-play ``moves`` = [(seat, move text)] from the start through ``Game.steps`` (a chance
    outcome is an entry of seat ``CHANCE``; a simultaneous step one entry of each acting seat,
    in seat order), checking every entry's seat and the stored result."""
    names = seat_names(game)
    walk = Walk()
    done = 0  # the entries re-played
    pending: tuple[int, int] | None = None
    texts = [text for _, text in moves]
    try:
        for state, step in game.steps(game.initial_state(), texts):
            if pending is not None:
                walk.steps.append(pending)
                done = pending[1]
            walk.states.append(state)
            if not step:
                break
            if state.is_terminal:
                walk.problem = f"ply {done + 1}: {texts[done]!r} is played after the game is over"
                return walk
            entries = moves[done : done + len(step)]
            wanted = acting_seats(state)
            for ply, ((seat, text), expected) in enumerate(zip(entries, wanted), done + 1):
                if seat != expected:
                    walk.problem = (
                        f"ply {ply}: the record has {_entry_words(names, seat, text)}, but "
                        f"{_turn_words(names, state, expected)}"
                    )
                    return walk
            pending = (done, done + len(step))
    except MoveSyntaxError as error:
        walk.problem = f"ply {_unreadable(game, texts, done)}: {error}"
        return walk
    except ValueError as error:  # an illegal move (its message names its ply), a record cut in a step
        text = str(error)
        at = (pending or (done, done))[0] + 1  # the step being played
        walk.problem = text if text.startswith(("ply ", "the record ends")) else f"ply {at}: {text}"
        return walk
    except Exception as error:  # a user's game whose code fails on its own record
        at = (pending or (done, done))[0] + 1
        walk.problem = f"ply {at}: the game's code failed: {type(error).__name__}: {error}"
        return walk
    walk.problem = _check_result(
        walk.states[-1],
        len(moves),
        names,
        status=status,
        winner=winner,
        points=points,
        termination=termination,
        offender=offender,
        plies=plies,
    )
    return walk


def _unreadable(game: Game, texts: Sequence[str], start: int) -> int:
    """The ply of the first entry from ``start`` that is no move of ``game``."""
    for ply in range(start, len(texts)):
        try:
            game.parse_move(texts[ply])
        except ValueError:
            return ply + 1
    return start + 1


def _check_result(
    state: State,
    count: int,
    names: Sequence[str],
    *,
    status: str,
    winner: int | None,
    points: Sequence[float] | None,
    termination: str | None,
    offender: int | None,
    plies: int | None,
) -> str | None:
    """What is wrong with the stored result of a record of ``count`` entries that re-played to
    ``state``, or ``None``."""
    if status != "finished":
        return None
    if plies is not None and plies != count:
        return f"the game says it has {plies} moves, but {count} are stored"
    kind = termination or Termination.NORMAL.value
    if kind == Termination.NORMAL.value:
        if not state.is_terminal:
            return f"the record ends after ply {count}, before the game is over, yet says it ended normally"
        expected = state.outcome
    else:
        if state.is_terminal:
            return f"the game is over at ply {count}, yet the record says it ended by {kind}"
        if offender is None:
            return None if kind in ("aborted", "resignation") else f"the record says {kind} but names no offender"
        if count and offender not in state.actors():
            if state.to_move == CHANCE:
                return f"the record has {seat_word(names, offender)} forfeiting by {kind} at a chance outcome"
            acting = " and ".join(seat_word(names, seat) for seat in state.actors())
            return f"the record has {seat_word(names, offender)} forfeiting by {kind}, but it was {acting}'s turn"
        expected = state.forfeit_outcome(offender)
    assert expected is not None
    if winner != expected.winner:
        said = "a draw" if winner is None else f"{seat_word(names, winner)} winning"
        truth = "a draw" if expected.winner is None else f"{seat_word(names, expected.winner)} winning"
        return f"the record says {said}, but its moves give {truth}"
    _, given = result_of(expected)  # what the harness stores
    want = None if given is None else tuple(float(value) for value in given)
    have = None if points is None else tuple(float(value) for value in points)
    if want != have:
        return f"the record gives points {_points(have)}, but its moves give {_points(want)}"
    return None


def replay_record(
    game: Game,
    moves: Sequence[tuple[int, str]],
    *,
    status: str,
    winner: int | None,
    points: Sequence[float] | None,
    termination: str | None,
    offender: int | None,
    plies: int | None,
) -> tuple[list[State], str | None]:
    """Re-play ``moves`` = [(seat, move text)] from the start (``walk_record``): every state
    reached, and what is wrong with the record (``None`` when its moves, seats and result all
    agree with the rules)."""
    walk = walk_record(
        game,
        moves,
        status=status,
        winner=winner,
        points=points,
        termination=termination,
        offender=offender,
        plies=plies,
    )
    return walk.states, walk.problem


def _points(points: Sequence[float] | None) -> str:
    """Each seat's points, ``86-0``; with a negative one, ``-1, 1`` (a game's returns)."""
    if points is None:
        return "none"
    return (", " if any(value < 0 for value in points) else "-").join(f"{value:g}" for value in points)


def result_text(seats: int, winner: int | None, points: Sequence[float] | None) -> str | None:
    """A finished game's result as a table writes it: ``1-0``, ``0-1`` or ``½-½`` for two seats;
    for more, each seat's finishing place from its points (the game's returns: ``1-3-2``, equal
    points sharing a place), ``None`` without them (a game left unfinished)."""
    if seats <= 2:
        return RESULTS.get(winner)
    if points is None or len(points) != seats:
        return None
    return "-".join(str(place) for place in places(points))


def finishing_order(names: Sequence[str], seats: Sequence[str], points: Sequence[float]) -> str:
    """Who finished where, from the ``points`` of each seat (equal points share a place):
    ``c (p1) wins, b (p3) second, a (p2) third``; ``a (p1) and c (p3) share first place, b (p2)
    third``."""
    placed: dict[int, list[int]] = {}
    for seat, place in enumerate(places(points)):
        placed.setdefault(place, []).append(seat)
    parts = []
    for place, members in sorted(placed.items()):
        who = joined([f"{seats[seat]} ({seat_word(names, seat)})" for seat in members])
        if len(members) > 1:
            parts.append(f"{who} share {ordinal(place)} place")
        else:
            parts.append(f"{who} {'wins' if place == 1 else ordinal(place)}")
    return ", ".join(parts)


def result_sentence(
    names: Sequence[str],
    seats: Sequence[str],
    winner: int | None,
    termination: str | None,
    offender: int | None,
    points: Sequence[float] | None,
    status: str = "finished",
) -> str:
    """The result in words, e.g. ``alpha (x) wins: beta forfeits by timeout; points 86-0``, or,
    with more than two seats, each seat's place (``finishing_order``) and the points, e.g. ``c
    (p1) wins, b (p3) second, a (p2) third; points 10-1-4``; ``names``: what the seats are
    called (``seat_names``), ``seats``: who sat in them."""
    if status != "finished":
        return f"not played yet ({status})"
    if len(seats) > 2:
        text = "no result" if points is None or len(points) != len(seats) else finishing_order(names, seats, points)
    else:
        text = "draw" if winner is None else f"{seats[winner]} ({seat_word(names, winner)}) wins"
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
    """A stored game re-played: the record, every state reached (one a step: a simultaneous
    step's moves lead to one state), the entries of each step, and what is wrong if anything."""

    game_id: int
    tournament: str
    game: Game
    stage: str
    pool: str
    round: int
    seats: tuple[str, ...]
    moves: list[tuple[int, str, float]]
    states: list[State]
    problem: str | None
    status: str
    winner: int | None
    points: tuple[float, ...] | None
    termination: str | None
    offender: int | None
    detail: str | None
    #: the record's entries (``(first, end)`` indexes into ``moves``) of the step to each state
    steps: list[tuple[int, int]] = field(default_factory=list)

    @property
    def last_ply(self) -> int:
        """The last position that can be shown (all of them when the record re-plays): with no
        simultaneous steps, a ply."""
        return len(self.states) - 1

    @property
    def names(self) -> tuple[str, ...]:
        """What the seats are called."""
        return seat_names(self.game, len(self.seats))

    def heading(self, ply: int) -> str:
        """What happened at position ``ply``: the mover, its move and the time it took (every
        seat's of a simultaneous step; a chance outcome's alone)."""
        names = self.names
        if ply == 0:
            sat = [f"{seat_word(names, seat)} ({team})" for seat, team in enumerate(self.seats)]
            return f"start; {sat[0]} against {joined(sat[1:])}"
        first, end = self.steps[ply - 1] if ply <= len(self.steps) else (ply - 1, ply)
        total = len(self.moves)
        where = f"ply {end}/{total}" if end - first == 1 else f"plies {first + 1}-{end}/{total}"
        return f"{where}: " + ", ".join(self.entry_text(index) for index in range(first, end))

    def entry_text(self, index: int) -> str:
        """Entry ``index`` of the record in words: ``x (alpha) plays 4 in 1.5 ms``, or a chance
        outcome, ``chance: roll 3``."""
        seat, text, wall = self.moves[index]
        if seat == CHANCE:
            return f"chance: {text}"
        team = self.seats[seat] if 0 <= seat < len(self.seats) else "?"
        return f"{seat_word(self.names, seat)} ({team}) plays {text} in {wall:.1f} ms"

    def result(self) -> str:
        """The game's result in a sentence, with how it ended."""
        text = result_sentence(
            self.names, self.seats, self.winner, self.termination, self.offender, self.points, self.status
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
    try:
        game = stored_game(tournament.game)
    except ArenaError as error:
        raise ArenaError(f"game {game_id} of {tournament.name!r} cannot be replayed: {error}") from None
    teams = dict(session.execute(sql_select(Entry.id, Entry.team).where(Entry.tournament_id == tournament.id)).all())
    moves = [
        (seat, text, wall)
        for seat, text, wall in session.execute(
            sql_select(MoveRow.seat, MoveRow.move, MoveRow.wall_ms)
            .where(MoveRow.game_id == game_id)
            .order_by(MoveRow.ply)
        )
    ]
    seated = game_seats(session, GameRow.id == game_id).get(game_id, [])
    points = reported_points(seated)
    walk = walk_record(
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
        tuple(teams[seat.entry_id] for seat in seated),
        moves,
        walk.states,
        walk.problem,
        row.status,
        row.winner,
        points,
        row.termination,
        row.offender,
        row.detail,
        walk.steps,
    )


# ---------------------------------------------------------------- the terminal


def frame(replay: Replay, ply: int) -> str:
    """The text shown for ``ply``: the heading, the board, and the result at the end."""
    lines = [replay.heading(ply), "", _render(replay.states[ply]), ""]
    if ply == replay.last_ply and replay.problem is None:
        lines.append(f"result: {replay.result()}")
    if replay.problem is not None and ply == replay.last_ply:
        lines.append(f"the record does not re-play: {replay.problem}")
    return printable("\n".join(lines), lines=True)  # names and the forfeit's detail come from files and bots


def _render(state: State) -> str:
    """The position as text (``render()``; a user's game whose code fails to draw it says so)."""
    try:
        return state.render()
    except Exception as error:
        return f"(the game cannot draw this position: {type(error).__name__}: {error})"


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

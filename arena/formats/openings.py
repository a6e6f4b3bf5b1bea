"""Openings: the first moves of games, read from a file (one opening a line), each played twice
by a pair of teams with the seats swapped, as cutechess, fastchess and gogui-twogtp play them.

The n-th and (n+1)-th games of a pair of teams (n even, in schedule order) start from opening
n / 2, the next two from the next opening, and so on round the list: every pair plays the same
openings in the same order, each from both seats.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from arena.games import Game

#: the most openings a file may hold, and moves an opening
MAX_OPENINGS = 100_000
MAX_OPENING_MOVES = 1_000


class OpeningError(ValueError):
    """An openings file that cannot be read, or an opening the game does not allow."""


def parse_openings(text: str) -> list[list[str]]:
    """The openings of a file's ``text``: one a line, its moves separated by commas (or, on a
    line without a comma, by spaces); blank lines and ``#`` comments are skipped."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        moves = [move.strip() for move in line.split(",")] if "," in line else line.split()
        if any(not move for move in moves):
            raise OpeningError(f"line {number}: an empty move between commas")
        if len(moves) > MAX_OPENING_MOVES:
            raise OpeningError(f"line {number}: more than {MAX_OPENING_MOVES} moves")
        found.append(moves)
        if len(found) > MAX_OPENINGS:
            raise OpeningError(f"more than {MAX_OPENINGS} openings")
    if not found:
        raise OpeningError("no opening in it (one a line, its moves separated by spaces or commas)")
    return found


def check_openings(game: Game, openings: Sequence[Sequence[str]]) -> list[list[str]]:
    """``openings`` as ``game`` writes them, each a legal start that leaves the game to play
    and moves of the seats alone (no chance, no simultaneous step); ``OpeningError`` naming the
    first that is not."""
    checked = []
    for number, opening in enumerate(openings, 1):
        state = game.initial_state()
        written = []
        for move in opening:
            if state.is_terminal:
                raise OpeningError(f"opening {number}: the game is over before {move!r}")
            if state.to_move < 0:
                raise OpeningError(f"opening {number}: openings are of games whose seats take turns")
            try:
                played = game.parse_move(move)
                state = state.play(played)
            except ValueError as error:
                raise OpeningError(f"opening {number}: {error}") from None
            written.append(game.format_move(played))
        if state.is_terminal:
            raise OpeningError(f"opening {number} ends the game: leave the bots something to play")
        checked.append(written)
    return checked


def assign_openings(openings: Sequence[Sequence[str]], games: Iterable[tuple[int, frozenset[int]]]) -> dict[int, int]:
    """The opening (its index) of each game of ``games``, (game id, the teams of its seats), in
    schedule order: a pair's games two by two, each two from the next opening."""
    played: dict[frozenset[int], int] = {}
    chosen = {}
    for game_id, teams in games:
        ordinal = played.get(teams, 0)
        played[teams] = ordinal + 1
        chosen[game_id] = (ordinal // 2) % len(openings)
    return chosen

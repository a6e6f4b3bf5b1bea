"""Positions as feature vectors for neural networks: one documented encoding per game.

Every encoding sees the board from the side to move: a vector of 0/1 values (``uint8``), made
of named parts (``Encoding.layout``; docs/learning.md has each game's with its offsets):

- ``mine``, ``theirs``, ``empty``: one value per cell, in the order of the game's move ints
  (tic-tac-toe cell 0-8; uttt ``B * 9 + C``; xtreme ``k * 81 + row * 9 + col``; othello
  ``row * size + col``);
- ``legal``: one value per move int (othello's ends with the pass), 1 where the move is legal
  (in uttt and xtreme this is where the active small boards show);
- tic-tac-toe, uttt, xtreme: ``wins_mine``, ``wins_theirs``: one value per cell, 1 on an empty
  cell of an open (small) board where a stone of that side would complete a line;
- uttt: ``won_mine``, ``won_theirs``, ``drawn``, one value per small board; xtreme: the same
  for its 18 small boards (``k * 9 + b``), then ``bonus`` (1: the move to make is a bonus move).

``Encoding.symmetries`` maps positions, legal moves and moves through the symmetries of the
game (the board turned or mirrored), for training on more positions than were played. A model
stores its encoding's ``name`` and ``ENCODING_VERSION``; a change to any encoding raises the
version, so that a model trained on another encoding is refused instead of misread.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from arena.errors import ArenaError
from arena.games import Game, State
from arena.games.tictactoe import FULL, WINS
from arena.games.xtreme_board import BOARD_OF, CELL_OF
from arena.learning.numeric import np

#: raised whenever any encoding changes meaning
ENCODING_VERSION = 1

#: BITS9[mask]: the 9 bits of a 9-bit mask as 0/1 values, bit 0 first
BITS9 = np.array([[mask >> bit & 1 for bit in range(9)] for mask in range(512)], dtype=np.uint8)
#: COMPLETES[mask]: the cells outside the 9-bit ``mask`` that would complete a line with it
COMPLETES = np.array(
    [sum(1 << cell for cell in range(9) if not mask >> cell & 1 and WINS[mask | 1 << cell]) for mask in range(512)]
)
#: xtreme's cells come in board-major order (board ``k * 9 + b``, then cell bit); this puts
#: them in move-int order
_XTREME_ORDER = np.array([BOARD_OF[move] * 9 + CELL_OF[move] for move in range(162)])


@dataclass(frozen=True)
class Encoding:
    """How one game's positions become feature vectors (``encode``) and which of its move ints
    are legal (``legal_mask``): ``name`` (what a model records), ``moves`` (the number of move
    ints, a policy's outputs), ``layout`` (each part's name and length, in order)."""

    name: str
    moves: int
    layout: tuple[tuple[str, int], ...]
    _rows: Callable[[Sequence[State]], np.ndarray]
    game: Game

    @property
    def size(self) -> int:
        """The number of features."""
        return sum(length for _, length in self.layout)

    def offset(self, part: str) -> int:
        """Where the part called ``part`` starts in the vector."""
        start = 0
        for name, length in self.layout:
            if name == part:
                return start
            start += length
        raise KeyError(part)

    def encode(self, state: State) -> np.ndarray:
        """The features of ``state``, from the side to move."""
        row: np.ndarray = self._rows([state])[0]
        return row

    def encode_many(self, states: Sequence[State]) -> np.ndarray:
        """The features of each of ``states``, one row each (all at once: much faster than one
        by one)."""
        if not states:
            return np.zeros((0, self.size), dtype=np.uint8)
        return self._rows(states)

    def legal_mask(self, state: State) -> np.ndarray:
        """One boolean per move int: whether it is legal in ``state``."""
        mask = np.zeros(self.moves, dtype=bool)
        mask[state.legal_moves()] = True
        return mask

    @cached_property
    def symmetries(self) -> Symmetries:
        """The symmetries of the game (see ``Symmetries``)."""
        moves, boards = _symmetry_maps(self.game)
        gathers = []
        for move_map, board_map in zip(moves, boards):
            parts, start = [], 0
            for name, length in self.layout:
                if name in ("mine", "theirs", "empty", "legal", "wins_mine", "wins_theirs"):
                    image = move_map[:length]
                elif name == "bonus":
                    image = np.zeros(1, dtype=np.intp)
                else:
                    image = board_map
                # entry i of the part goes to image[i], so the image's entry j comes from the
                # entry the inverse map names
                parts.append(np.argsort(image) + start)
                start += length
            gathers.append(np.concatenate(parts))
        features = np.array(gathers)
        first = self.encode(self.game.initial_state())
        keep = [s for s in range(len(moves)) if (first[features[s]] == first).all()]
        return Symmetries(moves[keep], features[keep], np.argsort(moves[keep], axis=1))


@dataclass(frozen=True)
class Symmetries:
    """The symmetries of a game's rules that keep its starting position: the board turned or
    mirrored (and in xtreme the two big boards swapped), each mapping every game to an equally
    good game. Row ``s`` of ``moves`` maps each move int to its image; rows ``s`` of
    ``features`` and ``legal`` say where each entry of the image comes from: ``row[features[s]]``
    encodes the image of the position ``row`` encodes, ``mask[legal[s]]`` is its legal moves.
    The first row is the identity."""

    moves: np.ndarray
    features: np.ndarray
    legal: np.ndarray

    def __len__(self) -> int:
        return len(self.moves)


def _legal_rows(states: Sequence[State], moves: int) -> np.ndarray:
    """The ``legal`` plane of each state."""
    rows = np.zeros((len(states), moves), dtype=np.uint8)
    for row, state in zip(rows, states):
        row[state.legal_moves()] = 1
    return rows


def _grid_planes(mine: np.ndarray, theirs: np.ndarray, open_boards: np.ndarray) -> list[np.ndarray]:
    """The ``mine``, ``theirs``, ``empty``, ``wins_mine`` and ``wins_theirs`` planes, a row per
    position, of small boards given as 9-bit masks (positions x boards; cells board by board),
    and which boards are open."""
    empty = FULL & ~(mine | theirs)
    wins_mine = np.where(open_boards, COMPLETES[mine] & empty, 0)
    wins_theirs = np.where(open_boards, COMPLETES[theirs] & empty, 0)
    count = len(mine)
    return [BITS9[masks].reshape(count, -1) for masks in (mine, theirs, empty, wins_mine, wins_theirs)]


def _sides(states: Sequence[Any], mask: Callable[[Any, int], Any]) -> tuple[np.ndarray, np.ndarray]:
    """``mask(state, seat)`` of the side to move and of the other side, an array row per state."""
    mine = np.array([mask(state, state.to_move) for state in states])
    theirs = np.array([mask(state, 1 - state.to_move) for state in states])
    return mine, theirs


def _tictactoe_rows(states: Sequence[Any]) -> np.ndarray:
    mine, theirs = _sides(states, lambda state, seat: [state.o if seat else state.x])  # one board a position
    open_boards = np.array([[not state.is_terminal] for state in states])
    planes = _grid_planes(mine, theirs, open_boards)
    return np.concatenate(planes[:3] + [_legal_rows(states, 9)] + planes[3:], axis=1)


def _uttt_rows(states: Sequence[Any]) -> np.ndarray:
    mine, theirs = _sides(states, lambda state, seat: state.masks[seat])
    status = np.frombuffer("".join(state.small_status() for state in states).encode(), dtype=np.uint8)
    status = status.reshape(len(states), 9)
    letters = np.array([ord("x"), ord("o")])[np.array([state.to_move for state in states])][:, None]
    planes = _grid_planes(mine, theirs, status == ord("-"))
    boards = [status == letters, status == ord("x") + ord("o") - letters, status == ord("d")]
    return np.concatenate(planes[:3] + [_legal_rows(states, 81)] + planes[3:] + boards, axis=1, dtype=np.uint8)


def _xtreme_rows(states: Sequence[Any]) -> np.ndarray:
    mine, theirs = _sides(states, lambda state, seat: state.masks[seat])
    won_mine, won_theirs = (_bit_rows(column, 18) for column in _sides(states, lambda state, seat: state.won[seat]))
    closed = _bit_rows(np.array([state.closed for state in states]), 18)
    planes = [plane[:, _XTREME_ORDER] for plane in _grid_planes(mine, theirs, closed == 0)]
    bonus = np.array([[state.bonus] for state in states], dtype=np.uint8)
    boards = [won_mine, won_theirs, closed & ~(won_mine | won_theirs), bonus]
    return np.concatenate(planes[:3] + [_legal_rows(states, 162)] + planes[3:] + boards, axis=1)


def _bit_rows(values: np.ndarray, count: int) -> np.ndarray:
    """The low ``count`` bits of each of ``values`` (ints below 2**63) as 0/1 values, bit 0 first."""
    return (values.reshape(-1, 1) >> np.arange(count) & 1).astype(np.uint8)


def _bits(board: int, count: int) -> np.ndarray:
    """The low ``count`` bits of ``board`` (an int of any size) as 0/1 values, bit 0 first."""
    raw = np.frombuffer(board.to_bytes((count + 7) // 8, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little")[:count]


def _othello_rows(squares: int) -> Callable[[Sequence[State]], np.ndarray]:
    def rows(states: Sequence[Any]) -> np.ndarray:
        """The othello rows of ``states``: discs from the side to move, then the legal moves."""
        mine = np.array([_bits(state.discs(state.to_move), squares) for state in states])
        theirs = np.array([_bits(state.discs(1 - state.to_move), squares) for state in states])
        return np.concatenate([mine, theirs, 1 - (mine | theirs), _legal_rows(states, squares + 1)], axis=1)

    return rows


def _planes(cells: int, moves: int, threats: bool = True) -> tuple[tuple[str, int], ...]:
    planes = (("mine", cells), ("theirs", cells), ("empty", cells), ("legal", moves))
    return planes + ((("wins_mine", cells), ("wins_theirs", cells)) if threats else ())


class NoEncoding(ArenaError, ValueError):
    """A game the learning features have no encoding for."""


def encoding_for(game: Game) -> Encoding:
    """The encoding of ``game``'s positions (othello's depends on its board size)."""
    name = game.name
    if name == "tictactoe":
        return Encoding("tictactoe", 9, _planes(9, 9), _tictactoe_rows, game)
    if name == "uttt":
        boards = (("won_mine", 9), ("won_theirs", 9), ("drawn", 9))
        return Encoding("uttt", 81, _planes(81, 81) + boards, _uttt_rows, game)
    if name == "xtreme":
        extras = (("won_mine", 18), ("won_theirs", 18), ("drawn", 18), ("bonus", 1))
        return Encoding("xtreme", 162, _planes(162, 162) + extras, _xtreme_rows, game)
    if name == "othello":
        size = game.params["size"]
        squares = size * size
        layout = _planes(squares, squares + 1, threats=False)
        return Encoding(f"othello{size}", squares + 1, layout, _othello_rows(squares), game)
    raise NoEncoding(
        f"no encoding for game {name!r}: datasets and learning bots encode arena's four games "
        "(tictactoe, uttt, xtreme, othello) only"
    )


def dihedral(n: int) -> np.ndarray:
    """The 8 symmetries of an ``n`` x ``n`` grid (turns and mirrors), identity first: row ``s``
    maps each square ``row * n + col`` to its image."""
    row, col = np.divmod(np.arange(n * n), n)
    m = n - 1
    images = [
        (row, col),
        (col, m - row),
        (m - row, m - col),
        (m - col, row),
        (row, m - col),
        (m - row, col),
        (col, row),
        (m - col, m - row),
    ]
    return np.array([r * n + c for r, c in images])


def _symmetry_maps(game: Game) -> tuple[np.ndarray, np.ndarray]:
    """Each grid symmetry as maps of the move ints and of the small boards (empty maps where
    the game has none). A uttt or xtreme grid turned is each small board turned in place and
    the small boards turned alike; in xtreme the big boards can also trade places, since the
    correspondence rule names the same place on both."""
    three = dihedral(3)
    if game.name == "tictactoe":
        return three, np.zeros((8, 0), dtype=np.intp)
    if game.name == "uttt":
        return (three[:, :, None] * 9 + three[:, None, :]).reshape(8, 81), three
    if game.name == "xtreme":
        nine = dihedral(9)
        moves = [np.concatenate([(k ^ swap) * 81 + nine[s] for k in (0, 1)]) for swap in (0, 1) for s in range(8)]
        boards = [np.concatenate([(k ^ swap) * 9 + three[s] for k in (0, 1)]) for swap in (0, 1) for s in range(8)]
        return np.array(moves), np.array(boards)
    squares = dihedral(game.params["size"])
    passes = np.full((8, 1), squares.shape[1])
    return np.concatenate([squares, passes], axis=1), np.zeros((8, 0), dtype=np.intp)

"""Game knowledge shared by the rules, onestep, hmcts and minimax bots: each pattern written once.

Not a bot itself. Per game:

- ``move_scores(state)``: how promising each legal move looks to the player to move (move
  ordering in hmcts and minimax);
- ``evaluate(state, seat)``: how good a position is for ``seat`` (minimax's leaves);
- ``winning_moves(state)`` and ``immediate_wins(state)``: the moves that win the game at once,
  the latter also through an xtreme bonus move (onestep, rules, hmcts);
- ``position_key(state)``: a hashable identity of a position (transpositions, tree reuse);
- ``UltimateView``: a uttt/xtreme position from the mover's side, with the patterns of a move
  (``score``) and of where it sends the opponent (``send_score``, also the rule bot's).

The 3x3 patterns are the same on a tic-tac-toe board, on a small board of uttt/xtreme and on a
big board (whose cells are small boards): a line completed (a win), two in a line with the
third empty (a "two"), and a cell that stops the opponent's two (a block). In uttt and xtreme
the big-board patterns weigh ``BIG`` times the small-board ones, and winning the game (a big
line) outweighs everything. Othello's knowledge is the classic one: corners and edges
(square weights, made for each board size by ``square_weights``), mobility, and stable discs:
bots/othello_heuristics.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arena.games import State
from arena.games.tictactoe import CELLS, FULL, LINES, WINS
from arena.games.xtreme import course_points
from arena.games.xtreme_board import BOARD_OF, CELL_OF
from bots.othello_heuristics import othello_evaluate, othello_move_scores, othello_winning_moves

# --- 3x3 patterns ------------------------------------------------------------------------------

#: LINES_THROUGH[cell]: the lines (9-bit masks) through ``cell``
LINES_THROUGH = tuple(tuple(line for line in LINES if line >> cell & 1) for cell in range(9))
#: THREATS[mask]: the cells outside ``mask`` that complete a line with two cells of ``mask``
#: (AND it with the empty cells: the third cell may be taken)
THREATS = tuple(
    sum(
        1 << c
        for c in range(9)
        if not mask >> c & 1 and any(line & mask == line & ~(1 << c) for line in LINES_THROUGH[c])
    )
    for mask in range(512)
)
#: the place of each cell (or small board on a big board): centre 3, corners 2, edges 1
PLACE_WEIGHT = (2, 1, 2, 1, 3, 1, 2, 1, 2)
CENTRE = 4
CORNERS = (0, 2, 6, 8)
OPPOSITE_CORNER = {0: 8, 2: 6, 6: 2, 8: 0}

#: weights of the small-board patterns of a move (uttt, xtreme, and tic-tac-toe ordering)
SMALL_WIN, SMALL_TWO, SMALL_BLOCK = 10, 3, 2
#: big-board patterns weigh this many times the small-board ones
BIG = 10
#: a move that wins the game
GAME_WIN = 10_000
#: a move that stops the opponent winning a small board that would win it the game
GAME_BLOCK = 1_000
#: sending the opponent (the next mover) to a free move, to a small board it can win at once,
#: or to one whose win wins it the game (negative: moves to avoid)
SEND_FREE, SEND_SMALL_WIN, SEND_GAME_WIN = -4, -8, -500


def new_twos(own: int, blocked: int, cell: int) -> int:
    """How many lines through ``cell`` become two of ``own`` with the third cell free (neither
    ``own`` nor ``blocked``) when ``own`` takes ``cell``."""
    count = 0
    for line in LINES_THROUGH[cell]:
        if not line & blocked and (line & own).bit_count() == 1:
            count += 1
    return count


def _small_scores(own: int, opp: int) -> tuple[int, ...]:
    """The small-board pattern score of each empty cell for the player holding ``own``."""
    empty = FULL & ~(own | opp)
    threats = THREATS[opp] & empty
    return tuple(
        (SMALL_WIN * WINS[own | 1 << c] + SMALL_TWO * new_twos(own, opp, c) + SMALL_BLOCK * (threats >> c & 1))
        if empty >> c & 1
        else 0
        for c in range(9)
    )


def _line_value(own: int, blocked: int) -> int:
    """The lines still open to ``own`` (no ``blocked`` cell): 1 for each with one of its
    cells, 4 for each with two, 16 for a complete one."""
    value = 0
    for line in LINES:
        if not line & blocked:
            value += (0, 1, 4, 16)[(line & own).bit_count()]
    return value


def _pattern_tables() -> tuple[list[Any], list[int]]:
    """SMALL_SCORES and LINE_VALUE, indexed by ``own | other << 9`` over disjoint masks."""
    scores: list[Any] = [None] * (1 << 18)
    values = [0] * (1 << 18)
    for own in range(512):
        rest = FULL & ~own
        other = rest
        while True:  # every ``other`` inside the cells ``own`` leaves free, down to 0
            code = own | other << 9
            scores[code] = _small_scores(own, other)
            values[code] = _line_value(own, other)
            if not other:
                break
            other = (other - 1) & rest
    return scores, values


#: SMALL_SCORES[own | opp << 9][cell]: the small-board pattern score of taking ``cell``
#: LINE_VALUE[own | blocked << 9]: the open-line value of ``own`` (see ``_line_value``)
SMALL_SCORES, LINE_VALUE = _pattern_tables()


def big_win_score(own_won: int, opp_won: int, dead: int, place: int) -> int:
    """The big-board score of winning the small board at ``place`` (the caller checked it is
    not a game win): twos it makes and opponent twos it blocks, times ``BIG``."""
    blocked = opp_won | dead
    score = SMALL_TWO * new_twos(own_won, blocked, place)
    if THREATS[opp_won] >> place & 1:  # two of the opponent's boards in a line with it
        score += SMALL_BLOCK
    return BIG * score


def line_balance(own: int, opp: int, dead: int = 0) -> int:
    """Open-line value of ``own`` minus that of ``opp`` on one 3x3 board (``dead`` cells block
    both)."""
    return LINE_VALUE[own | (opp | dead) << 9] - LINE_VALUE[opp | (own | dead) << 9]


# --- tic-tac-toe -------------------------------------------------------------------------------


def tictactoe_masks(state: Any) -> tuple[int, int]:
    """(own, opponent) cell masks from the player to move's side."""
    return (state.o, state.x) if state.to_move else (state.x, state.o)


def tictactoe_move_scores(state: Any) -> dict[int, int]:
    """Pattern score of each legal move, plus its place (centre, corner, edge)."""
    own, opp = tictactoe_masks(state)
    scores = SMALL_SCORES[own | opp << 9]
    return {m: scores[m] * 4 + PLACE_WEIGHT[m] for m in state.legal_moves()}


def tictactoe_evaluate(state: Any, seat: int) -> float:
    """Open-line balance for ``seat`` (a finished game is scored by the search itself)."""
    x, o = state.x, state.o
    return line_balance(x, o) if seat == 0 else line_balance(o, x)


def tictactoe_winning_moves(state: Any) -> list[int]:
    """The cells that complete a line for the player to move."""
    if state.is_terminal:
        return []
    own, opp = tictactoe_masks(state)
    return list(CELLS[THREATS[own] & FULL & ~(own | opp)])


# --- uttt and xtreme: the views both share --------------------------------------------------------


class UltimateView:
    """A uttt or xtreme position seen by the player to move: its small boards as 9-bit masks,
    the boards won by each side and the dead (drawn) ones, per big board.

    ``own[i]``, ``opp[i]``: cell masks of small board ``i`` (uttt 0-8, xtreme 0-17);
    ``own_won[k]``, ``opp_won[k]``, ``dead[k]``: 9-bit masks of big board ``k``'s small boards.
    """

    __slots__ = ("boards", "dead", "opp", "opp_won", "own", "own_won", "seat")

    own_won: tuple[int, ...]
    opp_won: tuple[int, ...]
    dead: tuple[int, ...]

    def __init__(self, state: Any) -> None:
        seat = state.to_move
        self.seat = seat
        self.own = state.masks[seat]
        self.opp = state.masks[1 - seat]
        self.boards = len(self.own)
        won = [0, 0]
        closed = 0
        for i, (x, o) in enumerate(zip(*state.masks)):
            if WINS[x]:
                won[0] |= 1 << i
            elif WINS[o]:
                won[1] |= 1 << i
            elif x | o == FULL:
                closed |= 1 << i
        own_won, opp_won = won[seat], won[1 - seat]
        if self.boards == 9:
            self.own_won, self.opp_won, self.dead = (own_won,), (opp_won,), (closed,)
        else:
            self.own_won = (own_won & FULL, own_won >> 9)
            self.opp_won = (opp_won & FULL, opp_won >> 9)
            self.dead = (closed & FULL, closed >> 9)

    def is_open(self, board: int) -> bool:
        """Whether small board ``board`` is neither won nor full."""
        k, place = divmod(board, 9)
        return not (self.own_won[k] | self.opp_won[k] | self.dead[k]) >> place & 1

    def score(self, board: int, cell: int, bonus_follows: bool, send_to: tuple[int, ...]) -> int:
        """The heuristic score of taking ``cell`` of small board ``board``.

        ``bonus_follows``: whether the mover moves again if it wins the board (xtreme);
        ``send_to``: the small boards the cell names for the next move (the opponent's, unless
        a bonus follows).
        """
        own_b, opp_b = self.own[board], self.opp[board]
        k, place = divmod(board, 9)
        own_won, opp_won, dead = self.own_won[k], self.opp_won[k], self.dead[k]
        score = SMALL_SCORES[own_b | opp_b << 9][cell]
        wins_board = WINS[own_b | 1 << cell]
        if wins_board:
            if WINS[own_won | 1 << place]:
                return GAME_WIN
            score += big_win_score(own_won, opp_won, dead, place)
            if bonus_follows:
                return score
        elif THREATS[opp_b] >> cell & 1 and WINS[opp_won | 1 << place]:
            score += GAME_BLOCK
        return score + self.send_score(board, cell, wins_board, send_to)

    def send_score(self, board: int, cell: int, wins_board: bool, send_to: tuple[int, ...]) -> int:
        """What taking ``cell`` of ``board`` gives the next mover (assumed the opponent):
        ``SEND_FREE`` for a free move, ``SEND_SMALL_WIN`` / ``SEND_GAME_WIN`` for a small board
        it can win at once (and with it the game), else 0. The move itself may change, or
        close, the board it names."""
        free = True
        worst = 0
        for target in send_to:
            t_own, t_opp = self.own[target], self.opp[target]
            if target == board:
                t_own |= 1 << cell
                if wins_board or t_own | t_opp == FULL:
                    continue
            elif not self.is_open(target):
                continue
            free = False
            if THREATS[t_opp] & FULL & ~(t_own | t_opp):
                tk, tplace = divmod(target, 9)
                opp_big = self.opp_won[tk]
                worst = min(worst, SEND_GAME_WIN if WINS[opp_big | 1 << tplace] else SEND_SMALL_WIN)
        return SEND_FREE if free else worst

    def evaluate(self) -> int:
        """The position's value to the player to move: open lines on each big board (won
        boards as cells, ``BIG`` times) and in each open small board (weighted by its place)."""
        value = 0
        for k in range(len(self.own_won)):
            own_won, opp_won, dead = self.own_won[k], self.opp_won[k], self.dead[k]
            value += BIG * line_balance(own_won, opp_won, dead)
            closed = own_won | opp_won | dead
            for place in CELLS[FULL & ~closed]:
                board = k * 9 + place
                value += PLACE_WEIGHT[place] * line_balance(self.own[board], self.opp[board])
        return value


def ultimate_move_scores(state: Any) -> dict[int, int]:
    """Heuristic score of each legal move of a uttt or xtreme position (see ``UltimateView``)."""
    view = UltimateView(state)
    xtreme = view.boards == 18
    bonus_follows = xtreme and not state.bonus
    scores = {}
    for move in state.legal_moves():
        board, cell = split_move(state, move)
        targets = (cell, cell + 9) if xtreme else (cell,)
        scores[move] = view.score(board, cell, bonus_follows, targets)
    return scores


def split_move(state: Any, move: int) -> tuple[int, int]:
    """(small board, cell) of a uttt or xtreme move."""
    if len(state.masks[0]) == 18:
        return BOARD_OF[move], CELL_OF[move]
    return divmod(move, 9)


def ultimate_evaluate(state: Any, seat: int) -> float:
    """``UltimateView.evaluate`` from ``seat``'s side; in xtreme also the course points of the
    small boards won so far (what a draw would pay)."""
    view = UltimateView(state)
    value = view.evaluate()
    if view.seat != seat:
        value = -value
    if view.boards == 18:
        points = course_points(state)
        value += points[seat] - points[1 - seat]
    return value


def ultimate_closing_moves(state: Any) -> list[int]:
    """The legal moves that close a small board (win it or fill it): the only moves that can
    end a uttt or xtreme game."""
    seat = state.to_move
    own_masks, opp_masks = state.masks[seat], state.masks[1 - seat]
    closing = []
    for move in state.legal_moves():
        board, cell = split_move(state, move)
        own = own_masks[board] | 1 << cell
        if WINS[own] or own | opp_masks[board] == FULL:
            closing.append(move)
    return closing


def ultimate_winning_moves(state: Any) -> list[int]:
    """The moves that win the game at once (exact: each closing move is played and checked)."""
    seat = state.to_move
    wins = []
    for move in ultimate_closing_moves(state):
        outcome = state.play(move).outcome
        if outcome is not None and outcome.winner == seat:
            wins.append(move)
    return wins


# --- dispatch by game ----------------------------------------------------------------------------

MOVE_SCORES: dict[str, Callable[[Any], dict[int, int]]] = {
    "tictactoe": tictactoe_move_scores,
    "uttt": ultimate_move_scores,
    "xtreme": ultimate_move_scores,
    "othello": othello_move_scores,
}
EVALUATE: dict[str, Callable[[Any, int], float]] = {
    "tictactoe": tictactoe_evaluate,
    "uttt": ultimate_evaluate,
    "xtreme": ultimate_evaluate,
    "othello": othello_evaluate,
}
WINNING_MOVES: dict[str, Callable[[Any], list[int]]] = {
    "tictactoe": tictactoe_winning_moves,
    "uttt": ultimate_winning_moves,
    "xtreme": ultimate_winning_moves,
    "othello": othello_winning_moves,
}


def move_scores(state: State) -> dict[int, int]:
    """How promising each legal move of ``state`` looks to the player to move (higher: better)."""
    return MOVE_SCORES[state.game.name](state)


def evaluate(state: State, seat: int) -> float:
    """How good the unfinished position ``state`` is for ``seat`` (0: even; the scale is the
    game's own, well below minimax's win value)."""
    return EVALUATE[state.game.name](state, seat)


def winning_moves(state: State) -> list[int]:
    """The legal moves that win the game at once for the player to move."""
    return WINNING_MOVES[state.game.name](state)


def immediate_wins(state: State) -> list[int]:
    """The moves with which the player to move wins at once: a winning move, or (xtreme) a
    move that earns a bonus move from which a winning move exists."""
    wins = winning_moves(state)
    if state.game.name != "xtreme":
        return wins
    seat = state.to_move
    for move in ultimate_closing_moves(state):
        if move in wins:
            continue
        child = state.play(move)
        if child.to_move == seat and winning_moves(child):
            wins.append(move)
    return wins


def position_key(state: Any) -> Any:
    """A hashable value that tells positions apart: equal keys, same position (the board,
    whose turn, and what constrains the next move)."""
    name = state.game.name
    if name == "tictactoe":
        return (state.x, state.o)
    if name == "uttt":
        return (state.masks, state.forced_board, state.ply & 1)
    if name == "xtreme":
        return (
            state.masks,
            state.to_move,
            state.bonus,
            None if state.last_move is None else split_move(state, state.last_move)[1],
        )
    if name == "othello":
        return (state.black, state.white, state.to_move)
    return (type(state), state.ply, state.to_move, state.last_move, repr(state.to_dict()))

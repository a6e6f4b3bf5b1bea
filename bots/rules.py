"""Rule-based: a fixed list of rules, the first that applies picks the move (ties at random).

Tic-tac-toe, by ``variant``:

- ``centre``: win, else block the opponent's line, else the centre, else any cell;
- ``corner``: win, else block, else the corner opposite an opponent's corner, else any corner,
  else any cell;
- ``combined`` (default, never loses): win; block; fork (make two lines of two at once); stop
  the opponent's fork, by making a two that forces a reply which gives the opponent no fork,
  else by taking its fork cell; centre; opposite corner; any corner; any edge.

Ultimate and Xtreme tic-tac-toe: win the game; win a small board; block a small board the
opponent could win; then by ``variant``: ``combined`` avoids sending the opponent to a free
move or to a small board it can win at once, then prefers the better place in the small board
(centre, then corners); ``centre`` prefers the centre cell; ``corner`` a corner cell.

Parameters: ``variant`` (``combined``, ``centre`` or ``corner``).
"""

from __future__ import annotations

import random
from typing import Any

from arena.games import Game, State
from arena.games.tictactoe import CELLS, FULL, WINS
from bots.common import Param, rehearse, setup
from bots.heuristics import (
    CENTRE,
    CORNERS,
    OPPOSITE_CORNER,
    PLACE_WEIGHT,
    THREATS,
    UltimateView,
    immediate_wins,
    split_move,
    tictactoe_masks,
)

GAMES = ("tictactoe", "uttt", "xtreme")
VARIANTS = ("combined", "centre", "corner")
PARAMETERS: dict[str, Param] = {
    "variant": Param("combined", str, "which rules to follow", choices=VARIANTS),
}
EDGES = (1, 3, 5, 7)


# --- tic-tac-toe ---------------------------------------------------------------------------------


def threats(own: int, opp: int) -> int:
    """The empty cells that would complete a line of ``own``."""
    return THREATS[own] & FULL & ~(own | opp)


def fork_cells(own: int, opp: int) -> list[int]:
    """The empty cells that give ``own`` two cells to win with at once."""
    empty = FULL & ~(own | opp)
    return [c for c in CELLS[empty] if threats(own | 1 << c, opp).bit_count() >= 2]


def fork_stoppers(own: int, opp: int) -> list[int]:
    """Cells that make a two whose forced reply (the block) leaves the opponent no fork and no
    second threat: the opponent must answer there and cannot make a fork with that answer."""
    stoppers = []
    for c in CELLS[FULL & ~(own | opp)]:
        mine = own | 1 << c
        forced = threats(mine, opp)
        if forced.bit_count() != 1:
            continue  # no threat (no forcing) or a fork (found earlier)
        reply = forced.bit_length() - 1
        theirs = opp | 1 << reply
        if threats(theirs, mine).bit_count() < 2:
            stoppers.append(c)
    return stoppers


def tictactoe_rule_moves(state: Any, variant: str) -> list[int]:
    """The moves chosen by the first rule of ``variant`` that applies."""
    own, opp = tictactoe_masks(state)
    empty = FULL & ~(own | opp)
    free = CELLS[empty]
    opposite = [OPPOSITE_CORNER[c] for c in CORNERS if opp >> c & 1 and empty >> OPPOSITE_CORNER[c] & 1]
    corners = [c for c in CORNERS if empty >> c & 1]
    centre = [CENTRE] if empty >> CENTRE & 1 else []
    rules: list[Any] = [lambda: CELLS[threats(own, opp)], lambda: CELLS[threats(opp, own)]]
    if variant == "centre":
        rules += [lambda: centre]
    elif variant == "corner":
        rules += [lambda: opposite, lambda: corners]
    else:
        rules += [
            lambda: fork_cells(own, opp),
            lambda: fork_stoppers(own, opp) if fork_cells(opp, own) else [],
            lambda: fork_cells(opp, own),
            lambda: centre,
            lambda: opposite,
            lambda: corners,
            lambda: [c for c in EDGES if empty >> c & 1],
        ]
    for rule in rules:
        moves = list(rule())
        if moves:
            return moves
    return list(free)


# --- uttt and xtreme -------------------------------------------------------------------------------


def ultimate_rule_key(view: UltimateView, state: Any, move: int, variant: str) -> tuple[int, ...]:
    """How the rules rank ``move`` (higher first): wins a small board, blocks one, then the
    variant's preference."""
    board, cell = split_move(state, move)
    own_b, opp_b = view.own[board], view.opp[board]
    wins_board = WINS[own_b | 1 << cell]
    blocks = bool(THREATS[opp_b] >> cell & 1)
    if variant == "centre":
        preference: tuple[int, ...] = (cell == CENTRE,)
    elif variant == "corner":
        preference = (cell in CORNERS,)
    else:
        bonus_follows = wins_board and view.boards == 18 and not state.bonus
        targets = (cell, cell + 9) if view.boards == 18 else (cell,)
        send = 0 if bonus_follows else view.send_score(board, cell, wins_board, targets)
        preference = (send, PLACE_WEIGHT[cell])
    return (wins_board, blocks) + preference


def ultimate_rule_moves(state: Any, variant: str) -> list[int]:
    """The best moves by the rules (several when they tie)."""
    wins = immediate_wins(state)
    if wins:
        return wins
    view = UltimateView(state)
    keyed = [(ultimate_rule_key(view, state, move, variant), move) for move in state.legal_moves()]
    best = max(key for key, _ in keyed)
    return [move for key, move in keyed if key == best]


class RulesBot:
    """Follows its variant's rules; ties are broken with the bot's generator."""

    __slots__ = ("rng", "tictactoe", "variant")

    def __init__(self, game: Game, rng: random.Random, variant: str) -> None:
        self.rng = rng
        self.variant = variant
        self.tictactoe = game.name == "tictactoe"

    def move(self, state: State, clock: Any) -> int:
        """The move the rules pick."""
        if self.tictactoe:
            moves = tictactoe_rule_moves(state, self.variant)
        else:
            moves = ultimate_rule_moves(state, self.variant)
        return moves[0] if len(moves) == 1 else self.rng.choice(moves)


def make_bot(game: Game | str, seat: int, rng: random.Random, **params: Any) -> RulesBot:
    """A rule-based player; ``variant`` picks the rules (see the module docstring)."""
    game, values = setup("rules", GAMES, PARAMETERS, game, seat, rng, params)
    return RulesBot(game, rng, values["variant"])


def warm_up(game: Game, **params: Any) -> None:
    """Play a few warm-up moves, so that nothing is built lazily in the first timed move."""
    rehearse(make_bot, game, params)

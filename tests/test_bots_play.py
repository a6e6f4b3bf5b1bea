"""What each strategy does: never losing at tic-tac-toe, winning and blocking, tree reuse
through ``observe`` (xtreme bonus moves included), the learning updates, the shared parts.

The bots' fast game knowledge (bots/heuristics.py, bots/playouts.py) is checked against plain
references written here with nothing but the game protocol.
"""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from arena.clock import Clock
from arena.games import DRAW, WIN, Outcome, get_game
from arena.games.tictactoe import CELLS, LINES
from arena.games.xtreme_board import MOVE_AT
from bots import flatmc, hmcts, minimax, onestep, qlearning, rules, sarsa, uct
from bots.common import MARGIN_FLOOR, Budget, best_by, reward, same_position, stop_time
from bots.heuristics import GAME_WIN, THREATS, immediate_wins, move_scores, position_key
from bots.othello_heuristics import OTHELLO_TABLES, square_weights
from bots.playouts import othello_heavy, tictactoe_heavy, uttt_heavy, xtreme_heavy
from bots.qlearning import QNode

TICTACTOE = get_game("tictactoe")
UTTT = get_game("uttt")
XTREME = get_game("xtreme")
OTHELLO = get_game("othello")


# --- plain references -------------------------------------------------------------------------------


def reference_wins(state) -> list[int]:
    """The moves that win at once, by trying them: a winning move, or one that earns a bonus
    move (the same player to move again) from which a winning move exists."""
    seat = state.to_move
    wins = []
    for move in state.legal_moves():
        child = state.play(move)
        if child.is_terminal:
            if child.outcome.winner == seat:
                wins.append(move)
        elif child.to_move == seat and any(
            child.play(bonus).is_terminal and child.play(bonus).outcome.winner == seat for bonus in child.legal_moves()
        ):
            wins.append(move)
    return wins


def opponent_wins_at_once(child, seat) -> bool:
    """Whether, after a move of ``seat`` reached ``child``, the opponent wins at once (plain)."""
    if child.is_terminal:
        return child.outcome.winner == 1 - seat
    if child.to_move == seat:
        return all(opponent_wins_at_once(child.play(move), seat) for move in child.legal_moves())
    return bool(reference_wins(child))


def random_positions(game, seeds, every=1):
    """The unfinished positions of uniformly random games, one game per seed."""
    for seed in seeds:
        rng = random.Random(seed)
        state = game.initial_state()
        while not state.is_terminal:
            if state.ply % every == 0:
                yield state
            state = state.play(rng.choice(state.legal_moves()))


def first_position(game, seeds, condition):
    """The first position of ``random_positions`` that meets ``condition``."""
    return next(state for state in random_positions(game, seeds) if condition(state))


def results_against_every_opponent(choices, seat: int) -> Counter:
    """Winners of every tic-tac-toe game where seat ``seat`` plays any of ``choices(state)``
    and the opponent any legal move."""
    results: Counter = Counter()

    def walk(state):
        if state.is_terminal:
            results[state.outcome.winner] += 1
            return
        moves = choices(state) if state.to_move == seat else state.legal_moves()
        for move in moves:
            walk(state.play(move))

    walk(TICTACTOE.initial_state())
    return results


# --- never losing at tic-tac-toe ------------------------------------------------------------------------


@pytest.mark.parametrize("seat", [0, 1])
def test_rules_combined_never_loses_at_tictactoe_whichever_tied_move_it_picks(seat):
    results = results_against_every_opponent(lambda state: rules.tictactoe_rule_moves(state, "combined"), seat)
    assert results[1 - seat] == 0 and results[seat] > 0


@pytest.mark.parametrize("seat", [0, 1])
def test_rules_combined_bot_never_loses_at_tictactoe(seat):
    bot = rules.make_bot(TICTACTOE, seat, random.Random(seat))
    results = results_against_every_opponent(lambda state: [bot.move(state, Clock())], seat)
    assert results[1 - seat] == 0


@pytest.mark.parametrize("seat", [0, 1])
def test_minimax_at_full_depth_never_loses_at_tictactoe(seat):
    bot = minimax.make_bot(TICTACTOE, seat, random.Random(seat), depth=9)
    results = results_against_every_opponent(lambda state: [bot.move(state, Clock())], seat)
    assert results[1 - seat] == 0


@pytest.mark.parametrize("seat", [0, 1])
def test_minimax_under_a_clock_never_loses_at_tictactoe(seat):
    bot = minimax.make_bot(TICTACTOE, seat, random.Random(seat))
    results = results_against_every_opponent(lambda state: [bot.move(state, Clock(1.0))], seat)
    assert results[1 - seat] == 0


def test_minimax_breaks_ties_between_equal_moves_with_its_generator():
    # every first move of tic-tac-toe draws with best play
    first_moves = {
        minimax.make_bot(TICTACTOE, 0, random.Random(seed), depth=9).move(TICTACTOE.initial_state(), Clock())
        for seed in range(20)
    }
    assert len(first_moves) > 1


def test_minimax_under_a_clock_stops_once_tictactoe_is_searched_to_the_end():
    bot = minimax.make_bot(TICTACTOE, 0, random.Random(1))
    bot.move(TICTACTOE.initial_state(), Clock(30.0))
    assert bot.last_depth == 9


def test_rules_centre_takes_the_centre():
    bot = rules.make_bot(TICTACTOE, 1, random.Random(1), variant="centre")
    assert bot.move(TICTACTOE.replay([0]), Clock()) == 4


def test_rules_corner_answers_a_corner_with_the_opposite_corner():
    bot = rules.make_bot(TICTACTOE, 1, random.Random(1), variant="corner")
    assert bot.move(TICTACTOE.replay([2]), Clock()) == 6


@pytest.mark.parametrize("variant", rules.VARIANTS)
def test_every_rules_variant_wins_before_it_blocks(variant):
    # x holds 0 and 1, o holds 3 and 4: x to move can win at 2 or block at 5
    bot = rules.make_bot(TICTACTOE, 0, random.Random(1), variant=variant)
    assert bot.move(TICTACTOE.replay([0, 3, 1, 4]), Clock()) == 2


# --- winning and blocking --------------------------------------------------------------------------------


def test_onestep_takes_a_tictactoe_win():
    bot = onestep.make_bot(TICTACTOE, 0, random.Random(1))
    assert bot.move(TICTACTOE.replay([0, 3, 1, 4]), Clock()) == 2


def test_onestep_blocks_a_tictactoe_line():
    # x: 0 and 8, o: 4 and 2; o threatens 6 and x has no win
    bot = onestep.make_bot(TICTACTOE, 0, random.Random(1))
    assert bot.move(TICTACTOE.replay([0, 4, 8, 2]), Clock()) == 6


@pytest.mark.parametrize("game", [UTTT, XTREME], ids=["uttt", "xtreme"])
def test_onestep_wins_whenever_a_move_wins_at_once(game):
    bot = onestep.make_bot(game, 0, random.Random(1))
    checked = 0
    for state in random_positions(game, range(30)):
        wins = reference_wins(state)
        if wins:
            assert bot.move(state, Clock()) in wins
            checked += 1
    assert checked >= 30


def test_onestep_wins_through_an_xtreme_bonus_move():
    state = bonus_chain_position()
    bot = onestep.make_bot(XTREME, state.to_move, random.Random(1))
    move = bot.move(state, Clock())
    bonus = state.play(move)
    assert bonus.to_move == state.to_move and bonus.bonus
    final = bonus.play(bot.move(bonus, Clock()))
    assert final.outcome.winner == state.to_move


@pytest.mark.parametrize("game", [UTTT, XTREME], ids=["uttt", "xtreme"])
def test_onestep_never_hands_the_opponent_a_win_when_a_safe_move_exists(game):
    bot = onestep.make_bot(game, 0, random.Random(1))
    checked = 0
    for state in random_positions(game, range(12), every=3):
        if reference_wins(state):
            continue
        seat = state.to_move
        unsafe = {m for m in state.legal_moves() if opponent_wins_at_once(state.play(m), seat)}
        if unsafe and len(unsafe) < len(state.legal_moves()):
            assert bot.move(state, Clock()) not in unsafe
            checked += 1
    assert checked >= 10


def test_immediate_wins_match_the_reference_on_every_game():
    for game in (TICTACTOE, UTTT, XTREME, get_game("uttt", tiebreak="boards")):
        for state in random_positions(game, range(8)):
            assert sorted(immediate_wins(state)) == sorted(reference_wins(state))


def bonus_chain_position():
    """A position of a random xtreme game where the player to move wins only through a bonus
    move: a move wins a small board, and a bonus move then wins the game."""
    return first_position(
        XTREME,
        range(50),
        lambda s: reference_wins(s) and not any(s.play(m).is_terminal for m in reference_wins(s)),
    )


def test_uct_takes_a_tictactoe_win_rather_than_block():
    bot = uct.make_bot(TICTACTOE, 0, random.Random(1), iterations=1000)
    assert bot.move(TICTACTOE.replay([0, 3, 1, 4]), Clock()) == 2


def test_uct_values_a_bonus_move_win_as_won_for_the_player_who_moves_twice():
    state = bonus_chain_position()
    bot = uct.make_bot(XTREME, state.to_move, random.Random(1))
    root = uct.Node(state, None, 1 - state.to_move)
    for _ in range(3000):
        bot.iterate(root)
    bonus = root.child(reference_wins(state)[0])
    wins = [child for child in bonus.children if child.result is not None]
    assert bonus.mover == state.to_move == bonus.state.to_move
    assert wins and all(child.total == child.visits for child in wins)


def test_hmcts_plays_a_win_through_an_xtreme_bonus_move_at_once():
    state = bonus_chain_position()
    bot = hmcts.make_bot(XTREME, state.to_move, random.Random(1), iterations=1)
    assert bot.move(state, Clock()) in reference_wins(state)


def test_minimax_at_depth_two_finds_the_xtreme_win_through_a_bonus_move():
    state = bonus_chain_position()
    player = minimax.make_bot(XTREME, state.to_move, random.Random(1), depth=2)
    assert player.move(state, Clock()) in reference_wins(state)


def test_hmcts_expands_the_best_scored_move_first():
    state = UTTT.replay([40, 36, 4])  # o to move in the centre board; no win at once
    bot = hmcts.make_bot(UTTT, state.to_move, random.Random(1))
    root = uct.Node(state, None, 1 - state.to_move)
    bot.iterate(root)
    scores = move_scores(state)
    assert scores[root.children[0].move] == max(scores.values())


@pytest.mark.parametrize(("game", "playout"), [(UTTT, uttt_heavy), (XTREME, xtreme_heavy)], ids=["uttt", "xtreme"])
def test_heavy_playouts_always_take_a_game_winning_move(game, playout):
    checked = 0
    for state in random_positions(game, range(30)):
        if any(state.play(m).is_terminal for m in reference_wins(state)):
            outcomes = {playout(state, random.Random(seed)).winner for seed in range(10)}
            assert outcomes == {state.to_move}
            checked += 1
    assert checked >= 20


def test_flatmc_plays_the_winning_move():
    bot = flatmc.make_bot(TICTACTOE, 0, random.Random(1), playouts=500)
    assert bot.move(TICTACTOE.replay([0, 3, 1, 4]), Clock()) == 2


def test_flatmc_scores_results_with_its_points():
    # x to move at 2 wins; with a win worth less than a draw, flatmc prefers a draw line
    state = TICTACTOE.replay([0, 3, 1, 4])
    bot = flatmc.make_bot(TICTACTOE, 0, random.Random(1), playouts=500, win=-5.0, loss=-5.0, draw=1.0)
    assert bot.move(state, Clock()) != 2


# --- tree reuse and observe --------------------------------------------------------------------------------


def test_uct_keeps_the_subtree_of_the_opponents_move():
    bot = uct.make_bot(UTTT, 0, random.Random(1), iterations=400)
    state = UTTT.initial_state()
    move = bot.move(state, Clock())
    state = state.play(move)
    reply = max(bot.root.children, key=lambda child: child.visits).move
    visits = bot.root.child(reply).visits
    bot.observe(state, reply)
    state = state.play(reply)
    assert same_position(bot.root.state, state) and bot.root.visits == visits


def test_uct_keeps_its_tree_when_the_harness_rebuilds_the_state():
    bot = uct.make_bot(UTTT, 0, random.Random(1), iterations=400)
    moves = [bot.move(UTTT.initial_state(), Clock())]
    reply = max(bot.root.children, key=lambda child: child.visits).move
    rebuilt = UTTT.replay(moves)  # an equal position, another object
    bot.observe(rebuilt, reply)
    assert bot.root is not None and bot.root.move == reply


def test_uct_drops_its_tree_when_observe_shows_another_position():
    bot = uct.make_bot(UTTT, 0, random.Random(1), iterations=100)
    bot.move(UTTT.initial_state(), Clock())
    other = UTTT.replay([40, 36])
    bot.observe(other, other.legal_moves()[0])
    assert bot.root is None


def test_uct_without_reuse_keeps_no_tree():
    bot = uct.make_bot(UTTT, 0, random.Random(1), iterations=50, reuse=False)
    bot.move(UTTT.initial_state(), Clock())
    assert bot.root is None


def bonus_game(bot_module, seat: int, **params):
    """Play xtreme, the bot in ``seat`` against a random player, checking before each of the
    bot's moves that its kept tree (if any) is the current position. Returns how many of the
    bot's moves were bonus moves and how many of those started from the kept tree."""
    player = bot_module.make_bot(XTREME, seat, random.Random(3), **params)
    opponent = random.Random(4)
    state = XTREME.initial_state()
    bonus_moves = reused = 0
    while not state.is_terminal:
        if state.to_move == seat:
            if player.root is not None:
                assert same_position(player.root.state, state)
            if state.bonus:
                bonus_moves += 1
                reused += player.root is not None
            move = player.move(state, Clock())
        else:
            move = opponent.choice(state.legal_moves())
            player.observe(state, move)
        assert state.is_legal(move)
        state = state.play(move)
    return bonus_moves, reused


@pytest.mark.parametrize("bot", [uct, hmcts, qlearning, sarsa])
def test_tree_reuse_follows_xtreme_bonus_moves_of_both_players(bot):
    budget = {"episodes": 60} if bot in (qlearning, sarsa) else {"iterations": 60}
    bonus_moves, reused = bonus_game(bot, 0, **budget)
    assert bonus_moves > 0 and reused == bonus_moves


def test_uct_backs_up_each_node_from_its_movers_side_through_bonus_moves():
    state = first_position(XTREME, range(50), lambda s: s.bonus)
    bot = uct.make_bot(XTREME, state.to_move, random.Random(1))
    root = uct.Node(state, None, 1 - state.to_move)
    for _ in range(300):
        bot.iterate(root)
    same_mover_edges = 0

    def check(node, first_visit_is_its_own):
        nonlocal same_mover_edges
        for child in node.children:
            assert child.mover == node.state.to_move
            same_mover_edges += child.state.to_move == child.mover
            assert 0.0 <= child.total <= child.visits
            check(child, True)
        if node.children:  # every visit but the one that made the node went on to a child
            assert sum(child.visits for child in node.children) == node.visits - first_visit_is_its_own

    check(root, False)
    assert root.visits == 300 and same_mover_edges > 0


# --- learning updates -------------------------------------------------------------------------------------


def test_qlearning_update_moves_q_towards_the_result_by_alpha():
    bot = qlearning.make_bot(TICTACTOE, 0, random.Random(1), A=0.5, k=0.1)
    state = TICTACTOE.replay([0, 3, 1, 4])  # x to move
    node = QNode(state)
    reply = QNode(state.play(5))  # o to move
    i, j = node.moves.index(5), reply.moves.index(2)
    node.q[i] = 0.2
    bot.update([(node, i), (reply, j)], WIN[1], 0)
    assert node.q[i] == 0.2 + 0.5 * math.exp(-0.1 * 2) * (-1.0 - 0.2)
    assert reply.q[j] == 0.5 * math.exp(-0.1 * 1) * 1.0


def test_sarsa_update_backs_up_the_next_steps_value_discounted():
    bot = sarsa.make_bot(TICTACTOE, 0, random.Random(1), A=0.5, k=0.1, gamma=0.9)
    state = TICTACTOE.replay([0, 3, 1, 4])
    node = QNode(state)
    reply = QNode(state.play(5))
    i, j = node.moves.index(5), reply.moves.index(2)
    bot.update([(node, i), (reply, j)], WIN[1], 2)
    last = 0.5 * math.exp(-0.1 * 3) * (1.0 * 0.9**2)
    assert reply.q[j] == last
    assert node.q[i] == 0.5 * math.exp(-0.1 * 4) * (0.9 * -last)


def test_qlearning_learns_to_take_a_tictactoe_win():
    bot = qlearning.make_bot(TICTACTOE, 0, random.Random(1), episodes=300)
    assert bot.move(TICTACTOE.replay([0, 3, 1, 4]), Clock()) == 2


def test_sarsa_learns_to_take_a_tictactoe_win():
    bot = sarsa.make_bot(TICTACTOE, 0, random.Random(1), episodes=300)
    assert bot.move(TICTACTOE.replay([0, 3, 1, 4]), Clock()) == 2


def test_qlearning_keeps_the_subtree_of_the_position_reached():
    bot = qlearning.make_bot(UTTT, 0, random.Random(1), episodes=200)
    state = UTTT.replay([40, 36])
    move = bot.move(state, Clock())
    state = state.play(move)
    assert bot.root is not None and same_position(bot.root.state, state)
    reply = next(m for m, child in zip(bot.root.moves, bot.root.children) if child is not None)
    bot.observe(state, reply)
    assert same_position(bot.root.state, state.play(reply))


# --- the shared parts ----------------------------------------------------------------------------------------


def test_threats_are_the_cells_that_complete_a_line():
    for mask in range(512):
        expected = {
            c
            for c in range(9)
            if not mask >> c & 1
            for line in LINES
            if line >> c & 1 and (mask & line) | 1 << c == line
        }
        assert set(CELLS[THREATS[mask]]) == expected


def test_the_game_winning_move_scores_highest():
    state = first_position(UTTT, range(50), lambda s: bool(reference_wins(s)))
    scores = move_scores(state)
    assert {m for m, score in scores.items() if score == GAME_WIN} == set(reference_wins(state))


@pytest.mark.parametrize("game", [TICTACTOE, UTTT, XTREME, OTHELLO], ids=lambda g: g.name)
def test_position_keys_tell_positions_apart_like_their_full_description(game):
    seen = {}
    for state in random_positions(game, range(20)):
        description = (state.to_move, repr(state.to_dict()["legal"]), state.render())
        key = position_key(state)
        assert seen.setdefault(key, description) == description


@pytest.mark.parametrize(
    ("game", "playout", "to_move"),
    [
        (TICTACTOE, tictactoe_heavy, lambda m: m),
        (UTTT, uttt_heavy, lambda m: m),
        (get_game("uttt", tiebreak="boards"), uttt_heavy, lambda m: m),
        (XTREME, xtreme_heavy, lambda m: MOVE_AT[m // 9][m % 9]),
        (OTHELLO, othello_heavy, lambda m: m),
        (get_game("othello", size=6), othello_heavy, lambda m: m),
        (get_game("othello", size=10), othello_heavy, lambda m: m),
        (get_game("othello", opening="free", scoring="wof"), othello_heavy, lambda m: m),
    ],
    ids=["tictactoe", "uttt", "uttt-boards", "xtreme", "othello", "othello-6", "othello-10", "othello-free-wof"],
)
def test_heavy_playouts_play_by_the_rules_and_report_the_engines_outcome(game, playout, to_move):
    for n, state in enumerate(random_positions(game, range(6), every=7)):
        trace: list[int] = []
        outcome = playout(state, random.Random(n), trace)
        end = state
        for move in trace:
            end = end.play(to_move(move))
        if end.is_terminal:
            assert end.outcome == outcome
        else:  # the playout stopped at a game-winning move, which it does not trace
            assert outcome.winner == end.to_move and reference_wins(end)


def grid(text: str) -> tuple[int, ...]:
    """The numbers of a table written row by row."""
    return tuple(int(word) for word in text.split())


def test_othello_square_weights_on_8x8_are_the_classic_table():
    assert square_weights(8) == grid(
        """
         100  -20   10    5    5   10  -20  100
         -20  -50   -2   -2   -2   -2  -50  -20
          10   -2    1    1    1    1   -2   10
           5   -2    1    0    0    1   -2    5
           5   -2    1    0    0    1   -2    5
          10   -2    1    1    1    1   -2   10
         -20  -50   -2   -2   -2   -2  -50  -20
         100  -20   10    5    5   10  -20  100
        """
    )


def test_othello_square_weights_of_6x6_and_10x10_follow_the_same_places():
    assert square_weights(6) == grid(
        """
         100  -20   10   10  -20  100
         -20  -50   -2   -2  -50  -20
          10   -2    0    0   -2   10
          10   -2    0    0   -2   10
         -20  -50   -2   -2  -50  -20
         100  -20   10   10  -20  100
        """
    )
    assert square_weights(10) == grid(
        """
         100  -20   10    5    5    5    5   10  -20  100
         -20  -50   -2   -2   -2   -2   -2   -2  -50  -20
          10   -2    1    1    1    1    1    1   -2   10
           5   -2    1    1    1    1    1    1   -2    5
           5   -2    1    1    0    0    1    1   -2    5
           5   -2    1    1    0    0    1    1   -2    5
           5   -2    1    1    1    1    1    1   -2    5
          10   -2    1    1    1    1    1    1   -2   10
         -20  -50   -2   -2   -2   -2   -2   -2  -50  -20
         100  -20   10    5    5    5    5   10  -20  100
        """
    )


def test_othello_tables_know_each_corners_x_and_c_squares_and_edges():
    tables = OTHELLO_TABLES[10]
    assert tables.corners == (0, 9, 90, 99)
    assert tables.corner_of == {11: 0, 1: 0, 10: 0, 18: 9, 8: 9, 19: 9, 81: 90, 91: 90, 80: 90, 88: 99, 98: 99, 89: 99}
    assert tables.edge_runs[90] == (tuple(range(90, 100)), tuple(range(90, -1, -10)))


def test_reward_is_the_share_of_the_result():
    assert (reward(WIN[0], 0), reward(WIN[0], 1), reward(DRAW, 1)) == (1.0, 0.0, 0.5)
    assert reward(Outcome(None, (30, 20)), 0) == 0.6
    assert reward(Outcome(None, (0, 0)), 1) == 0.5


def test_a_budget_with_a_limit_allows_exactly_that_many_iterations():
    budget = Budget(Clock(None), 7, 100)
    count = 0
    while budget.more():
        count += 1
    assert count == 7 and budget.count == 7


def test_a_budget_with_a_limit_still_stops_before_the_clock_runs_out():
    clock = Clock(0.02, kind="cpu")  # CPU time: a busy machine does not move it while the test waits
    budget = Budget(clock, 10**9, 100)
    while budget.more():
        pass
    assert 0 < budget.count < 10**9
    assert clock.remaining() > 0  # stopped inside the safety margin, not past the deadline


def test_a_budget_the_clock_stops_before_its_limit_tells_the_clock_it_was_cut():
    clock = Clock(0.02, kind="cpu")
    budget = Budget(clock, 10**9, 100)
    while budget.more():
        pass
    assert clock.was_cut and clock.searched is None


def test_a_budget_that_spends_its_limit_is_not_cut():
    clock = Clock(10.0, kind="cpu")
    budget = Budget(clock, 50, 100)
    while budget.more():
        pass
    assert budget.count == 50 and not clock.was_cut


def test_a_search_timed_by_the_clock_alone_is_not_cut_but_measured():
    clock = Clock(0.02, kind="cpu")
    budget = Budget(clock, None, 100)
    while budget.more():
        pass
    assert not clock.was_cut and clock.searched is not None and clock.searched[0] == budget.count


def test_a_fixed_depth_minimax_search_the_clock_stops_is_cut():
    game = get_game("othello")
    bot = minimax.make_bot(game, 0, random.Random(1), depth=9)
    clock = Clock(0.02, kind="cpu")
    bot.move(game.initial_state(), clock)
    assert clock.was_cut and bot.last_depth < 9


def test_a_budget_without_any_limit_uses_the_fallback():
    budget = Budget(Clock(), None, 5)
    assert sum(1 for _ in iter(budget.more, False)) == 5


def test_the_stop_time_keeps_a_margin_proportional_to_the_limit_with_a_floor():
    start = 1000.0
    long, short = Clock(2.0, start=start), Clock(0.02, start=start)
    assert stop_time(long) - long.deadline == pytest.approx(-0.1, abs=1e-6)
    assert stop_time(short) - short.deadline == pytest.approx(-MARGIN_FLOOR, abs=1e-6)
    assert stop_time(Clock()) == math.inf


def test_best_by_breaks_ties_with_the_generator():
    picks = {best_by([1, 2, 3, 4], lambda x: x % 2, random.Random(seed)) for seed in range(30)}
    assert picks == {1, 3}


def test_heavy_xtreme_playouts_carry_course_points_like_the_engine():
    from arena.games import get_game
    from bots.playouts import xtreme_heavy

    rng = random.Random(3)
    outcomes = [xtreme_heavy(get_game("xtreme").initial_state(), rng) for _ in range(60)]
    wins = {o for o in outcomes if o.winner is not None}
    assert wins <= {Outcome(0, (86, 0)), Outcome(1, (0, 86))} and wins

"""The built-in bots: one strategy a module.

``BOTS`` names the bot modules (each has ``GAMES``, ``PARAMETERS`` and ``make_bot``); the other
modules are shared parts, not bots: ``common`` (parameter checking, the search budget, rewards),
``heuristics`` (game knowledge: move scores, evaluations, winning moves) and ``playouts``
(heavy playouts).

``OUTSIDE`` names the bot modules that run another project's bots (OpenSpiel's), outside
``BOTS`` as well: they need that project installed.

``LEARNED`` names the bot modules that play with a network trained on stored games, outside
``BOTS``: they need its model file (their ``model`` parameter has no default), so the contract
tests that make every bot of ``BOTS`` with its defaults cannot make them; tests/test_nnbots.py
holds theirs (docs/learning.md).
"""

#: the strategies, weakest first
STRATEGIES = ("randombot", "rules", "onestep", "flatmc", "qlearning", "sarsa", "uct", "hmcts", "minimax")
#: every bot module: the strategies, and ``unreliable`` (a strategy that now and then breaks a
#: rule on purpose, for tournaments that need faulty entries)
BOTS = STRATEGIES + ("unreliable",)
#: reference opponents nobody on this team wrote: OpenSpiel's MCTS, alpha-beta and random bots (the
#: extra ``arena[openspiel]``), for OpenSpiel's games and arena's tictactoe, uttt and othello
OUTSIDE = ("openspiel_bots",)
#: the bots that play with a trained network: a value network looking one move ahead, a policy
#: network choosing the move
LEARNED = ("nnvalue", "nnpolicy")

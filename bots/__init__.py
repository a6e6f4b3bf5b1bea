"""The built-in bots: one strategy a module.

``BOTS`` names the bot modules (each has ``GAMES``, ``PARAMETERS`` and ``make_bot``); the other
modules are shared parts, not bots: ``common`` (parameter checking, the search budget, rewards),
``heuristics`` (game knowledge: move scores, evaluations, winning moves) and ``playouts``
(heavy playouts).
"""

#: the strategies, weakest first
STRATEGIES = ("randombot", "rules", "onestep", "flatmc", "qlearning", "sarsa", "uct", "hmcts", "minimax")
#: every bot module: the strategies, and ``unreliable`` (a strategy that now and then breaks a
#: rule on purpose, for tournaments that need faulty entries)
BOTS = STRATEGIES + ("unreliable",)

"""The read side: a tournament's results as stored (``tournament_results``, ``tables``,
``final_standings``), listings, replays, and the pages of the static report and of ``arena serve``
(``pages``, ``report``, ``figures``, ``templates/``). Reads the store; never starts a bot."""

"""What crosses every wall as plain data, and the one game loop: a game to play (``job``) under a
time control (``timing``), the record it leaves (``records``), the line protocol a bot process speaks
(``protocol``), a bot as the workers start it (``botspec``), the loop that plays one game between two
players, bots or people (``gameloop``), the moves of games in progress for onlookers (``live``), and
outside text made safe (``text``). Beneath everything but the games and the statistics."""

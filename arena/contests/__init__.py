"""What creates and plays games: a tournament from its file (``config``, ``roster``, ``stages``,
``tournament``), a match of two bots (``match``), a person's game (``human_play``), the
registration of a bot (``registration``), the pre-flight check (``preflight``), ratings
(``rating``) and seasons (``season``)."""

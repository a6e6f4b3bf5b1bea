"""The ``arena`` command's groups, one Typer app each (``arena.cli`` merges them): running
tournaments (``running``), bots (``bots``), results (``results``) and a person's games
(``play``); ``common`` holds what they share."""

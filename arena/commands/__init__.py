"""The ``arena`` command's groups, one Typer app each (``arena.commands.cli`` merges them): running
tournaments (``running``), matches of two bots (``match``), bots (``bots``), results
(``results``), a person's games (``play``) and the learning bots (``learning``); ``common``
holds what they share."""

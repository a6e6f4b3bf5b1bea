"""``python -m arena``: the same as the ``arena`` command."""

from arena.commands.cli import main

main()

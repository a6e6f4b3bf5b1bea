"""The database: its tables (``models``: tournaments, entries, games, moves, bots, paces; ``seasons``),
opening it and migrating its schema (``database``). Every other wing reaches the database through
here."""

"""Errors a user can cause; the CLI prints their message and exits non-zero."""


class ArenaError(Exception):
    """A problem the user can fix: the message says what is wrong and how to fix it."""

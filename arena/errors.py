"""Errors a user can cause; the CLI prints their message and exits non-zero."""


class ArenaError(Exception):
    """A problem the user can fix: the message says what is wrong and how to fix it."""


class BotParameterError(ArenaError, ValueError):
    """A bot parameter that the bot does not have, or a value out of its range."""


class ConfigError(ArenaError):
    """A tournament file that cannot be read or does not describe a tournament."""

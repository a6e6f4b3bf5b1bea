"""The built-in bots: one strategy a module."""

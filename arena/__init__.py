"""arena: a harness for bot tournaments."""

__version__ = "0.1.0"

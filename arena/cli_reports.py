"""Commands that look at results: leaderboard, replay, report."""

from __future__ import annotations

from arena.cli import app  # noqa: F401

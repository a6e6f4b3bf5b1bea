"""Engines over standard protocols (UCI, UGI, GTP) as bots: the words arena says to them
(``protocols``), how their moves map to a game's (``notation``), and the variants file arena
ships for Fairy-Stockfish (``variants.ini``: tic-tac-toe and Connect Four). The seat that speaks
to an engine's process is ``arena.runners.engine_seat``; docs/engines.md says how to declare one."""

from __future__ import annotations

from pathlib import Path

#: arena's variants file for Fairy-Stockfish (in the package, so that a sandboxed engine may read it)
VARIANTS = Path(__file__).with_name("variants.ini")

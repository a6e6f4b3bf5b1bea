"""A UCI engine that answers go after twice its movetime: a timeout."""

import sys
import time

for line in sys.stdin:
    words = line.split() or [""]
    if words[0] == "go":
        time.sleep(2 * int(words[words.index("movetime") + 1]) / 1000)
        print("bestmove P@a1", flush=True)
    elif words[0] in ("uci", "isready"):
        print({"uci": "uciok", "isready": "readyok"}[words[0]], flush=True)

"""A UCI engine for tic-tac-toe that always drops on the centre, b2: legal once, then illegal."""

import sys

for line in sys.stdin:
    word = line.split()[0] if line.split() else ""
    reply = {"uci": "uciok", "isready": "readyok", "go": "bestmove P@b2"}.get(word)
    if reply:
        print(reply, flush=True)

"""A UCI engine that plays a1 once, then exits with status 3 when asked for its second move."""

import sys

moves = 0
for line in sys.stdin:
    words = line.split() or [""]
    if words[0] == "go":
        moves += 1
        if moves == 2:
            print("engine: giving up", file=sys.stderr, flush=True)
            sys.exit(3)
        print("info depth 1 score cp 5 nodes 9\nbestmove P@a1", flush=True)
    elif words[0] in ("uci", "isready"):
        print({"uci": "uciok", "isready": "readyok"}[words[0]], flush=True)

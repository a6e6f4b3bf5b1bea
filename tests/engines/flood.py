"""A UCI engine that answers go with an endless line: a protocol error, never a full worker."""

import sys

for line in sys.stdin:
    words = line.split() or [""]
    if words[0] == "go":
        while True:
            sys.stdout.write("info string " + "x" * 65536)
    elif words[0] in ("uci", "isready"):
        print({"uci": "uciok", "isready": "readyok"}[words[0]], flush=True)

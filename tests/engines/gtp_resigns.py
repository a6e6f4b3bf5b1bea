"""A GTP engine that resigns whenever it is asked for a move."""

import sys

for line in sys.stdin:
    words = line.split() or [""]
    if words[0] == "genmove":
        print("= resign\n", flush=True)
    elif words[0] == "quit":
        break
    else:
        print("= 2\n" if words[0] == "protocol_version" else "=\n", flush=True)

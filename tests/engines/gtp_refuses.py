"""A GTP engine that refuses every move it is told (``? illegal move``): a protocol error."""

import sys

for line in sys.stdin:
    words = line.split() or [""]
    if words[0] == "play":
        print("? illegal move\n", flush=True)
    elif words[0] == "genmove":
        print("= A1\n", flush=True)
    elif words[0] == "quit":
        break
    else:
        print("= 2\n" if words[0] == "protocol_version" else "=\n", flush=True)

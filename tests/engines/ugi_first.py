"""A UGI engine for tic-tac-toe in its own notation (cells 0-8): it plays the first empty cell,
and says what it searched."""

import sys

played: list[str] = []
for line in sys.stdin:
    words = line.split() or [""]
    if words[0] == "ugi":
        print("id name first-empty\nugiok", flush=True)
    elif words[0] == "isready":
        print("readyok", flush=True)
    elif words[0] == "position":
        played = words[words.index("moves") + 1 :] if "moves" in words else []
    elif words[0] == "go":
        move = next(str(cell) for cell in range(9) if str(cell) not in played)
        print(f"info depth 1 score cp 0 nodes {9 - len(played)}\nbestmove {move}", flush=True)
    elif words[0] == "query":
        print("response false", flush=True)
    elif words[0] == "quit":
        break

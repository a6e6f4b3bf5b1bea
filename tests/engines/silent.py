"""A UCI engine that never says uciok: it reads every command and answers none."""

import sys

for _ in sys.stdin:
    pass

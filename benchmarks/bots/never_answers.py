"""Never answers a move request: it sleeps until the harness kills it."""

import time


def move(state, clock):
    while True:
        time.sleep(60)

"""Thinks (busy, on the CPU) for 90 % of its move time, then plays a random legal move."""


class Bot:
    def __init__(self, rng):
        self.rng = rng

    def move(self, state, clock):
        while clock.remaining() > clock.limit * 0.1:
            pass
        return self.rng.choice(state.legal_moves())


def make_bot(game, seat, rng, **params):
    return Bot(rng)

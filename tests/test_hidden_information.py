"""Hidden information stays hidden: a bot process is told only its own view, whatever its kind."""

from __future__ import annotations

import json

import pytest

from arena.games.loading import load_game
from arena.runners.worker import GameWorker
from tests.fixtures.harnesskit import FIXTURES, command_bot, job, python_bot

KUHN = load_game({"module": str(FIXTURES / "hidden" / "kuhn_poker.py")}).spec()
CARDS = ("J", "Q", "K")


def played(first, second, seeds=range(1, 7)):
    """Kuhn poker games of ``first`` against ``second``, one a seed: each record with the cards
    dealt (seat 0's, seat 1's)."""
    with GameWorker(fork=False) as worker:
        for seed in seeds:
            record = worker.play(job(first, second, game=KUHN, seed=seed, game_id=seed))
            assert record.termination.value == "normal", record.detail
            deals = [m.move.removeprefix("deal ") for m in record.moves if m.seat == -1]
            assert len(deals) == 2 and all(card in CARDS for card in deals)
            yield record, deals


def strings(data) -> set[str]:
    """Every string value anywhere in ``data``."""
    if isinstance(data, str):
        return {data}
    if isinstance(data, dict):
        return set().union(*(strings(value) for value in data.values())) if data else set()
    if isinstance(data, list):
        return set().union(*(strings(value) for value in data)) if data else set()
    return set()


def test_a_command_bot_hears_its_own_card_and_never_its_opponents():
    spy = command_bot("tells_what_it_hears.py")
    for record, deals in played(spy, spy):
        for seat in (0, 1):
            heard = [json.loads(line[6:]) for line in record.stderr[seat].splitlines() if line.startswith("heard ")]
            # (the end of its last game may be heard after that game's output was taken: it is in this one's)
            ended = [message for message in heard if message["type"] == "game_over"]
            assert all("moves" not in message and len(message["returns"]) == 2 for message in ended)
            heard = heard[[message["type"] for message in heard].index("new_game") :]
            assert [message["type"] for message in heard][:2] == ["new_game", "move"]
            assert heard[0]["protocol"] == 2 and heard[0]["players"] == 2 and heard[0]["seat"] == seat
            moves = [message for message in heard if message["type"] == "move"]
            assert all("moves" not in message for message in moves)  # nobody's moves, the deals least of all
            assert all(message["view"]["card"] == deals[seat] for message in moves)
            said = set().union(*(strings(message) for message in heard))
            assert deals[1 - seat] not in said and f"deal {deals[1 - seat]}" not in said
            assert deals[seat] in said


def test_a_python_bot_is_given_a_view_of_its_own_card_and_no_state():
    spy = python_bot("tells_its_view")
    for record, deals in played(spy, spy):
        for seat in (0, 1):
            lines = [line for line in record.stderr[seat].splitlines() if line.startswith("given ")]
            assert lines, record.stderr[seat]
            for line in lines:
                assert line.startswith("given View: data={'card': '" + deals[seat] + "', 'betting': [")
                assert line.endswith("state=None")
                assert f"'{deals[1 - seat]}'" not in line


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_same_seed_deals_the_same_cards(seed):
    first = python_bot("tells_its_view")
    again = [deals for _, deals in played(first, first, [seed, seed])]
    assert again[0] == again[1]


def test_other_seeds_deal_other_cards():
    first = python_bot("tells_its_view")
    assert len({tuple(deals) for _, deals in played(first, first, range(1, 9))}) > 1

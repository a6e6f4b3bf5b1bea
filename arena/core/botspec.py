"""What it takes to start a bot: its kind, target, parameters and limits, as plain data.

What a spec means is its kind's to say (``arena.entrants.kinds``: its own command line, what it
may read); how it is started confined is the sandbox's (``arena.sandbox.confinement``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


def canonical_params(params: Mapping[str, Any]) -> str:
    """A bot's parameters as the one JSON text they are stored, compared and sent to the bot
    as: keys sorted, no spaces (``{"c":1.4,"iterations":400}``), so that two spellings of the
    same parameters are one bot version and one warm process."""
    return json.dumps(params, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class BotSpec:
    """A bot as the workers start it. Hashable, so warm processes can be kept per spec.

    ``kind`` names its kind (``arena.entrants.kinds.kind_of``): ``python`` (a module run by arena's host
    program), ``command`` (any program speaking the protocol) or ``course2019`` (a 2019 course
    bot file); ``params`` is JSON text in its canonical form
    (``canonical_params``); ``path`` the folder a Python module is imported from (its
    bundle) or a command's relative paths are resolved in; ``sandbox`` False runs it without
    namespaces, Landlock or seccomp. ``code`` is the bot's own file or package to copy into a
    bundle before it runs (the worker does, checking ``code_hash``, and sets ``path`` to it);
    ``support`` a folder of links through which another interpreter imports arena's host.
    ``pace``: the CPU seconds a step of its search takes on this machine (``arena.runners.pace``), sent
    to it with each game under a cpu clock.
    """

    name: str
    kind: str
    target: str
    params: str = "{}"
    python: str | None = None
    path: str | None = None
    memory_mb: int | None = 1024
    file_size_mb: int | None = 16
    sandbox: bool = True
    processes: int | None = None
    code: str | None = None
    code_hash: str | None = None
    support: str | None = None
    pace: float | None = None

    def __hash__(self) -> int:
        # equal specs have the same name, target and parameters: hashing those three is enough,
        # and a runner looks its warm specs up hundreds of times a game
        return hash((self.name, self.target, self.params))

    @property
    def parameters(self) -> dict[str, Any]:
        """The parameters, as data."""
        params: dict[str, Any] = json.loads(self.params)
        return params

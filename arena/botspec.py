"""What it takes to start a bot: its kind, target, parameters and limits, as plain data."""

from __future__ import annotations

import json
import os
import shlex
import sys
from dataclasses import dataclass
from typing import Any

from arena import sandbox

KINDS = ("python", "command", "course2019")


@dataclass(frozen=True, slots=True)
class BotSpec:
    """A bot as the workers start it. Hashable, so warm processes can be kept per spec.

    ``kind`` is ``python`` (a module run by arena's host program), ``command`` (any program
    speaking the protocol) or ``course2019`` (a 2019 course bot file); ``params`` is JSON text.
    """

    name: str
    kind: str
    target: str
    params: str = "{}"
    python: str | None = None
    path: str | None = None
    memory_mb: int | None = 1024
    file_size_mb: int | None = 16

    @property
    def parameters(self) -> dict[str, Any]:
        return json.loads(self.params)

    def argv(self) -> list[str]:
        """The command line that starts this bot, confined."""
        limits = sandbox.limit_arguments(self.memory_mb, self.file_size_mb)
        python = self.python or sys.executable
        if self.kind == "python":
            path = ["--path", self.path] if self.path else []
            return [python, "-m", "arena.host", *limits, *path, self.target, self.params]
        if self.kind == "course2019":
            from arena import course

            return course.host_argv(python, self, limits)
        command = shlex.split(self.target)
        if self.path and command and os.sep in command[0] and not os.path.isabs(command[0]):
            command[0] = os.path.join(self.path, command[0])
        return [sys.executable, "-m", "arena.sandbox", *limits, "--", *command]

"""A stage of a tournament file (``stages:``): its format, pools, seeding, games a pair and who
advances, validated; and how many games it plays (docs/formats.md)."""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

#: the most games a stage may plan (a round robin's are planned, and stored, when it starts)
MAX_STAGE_GAMES = 1_000_000

#: the formats a stage can have (docs/formats.md), and the setting each needs beyond the common ones
FORMATS = ("round_robin", "swiss", "knockout", "gauntlet", "adaptive")
_FORMAT_SETTING = {"swiss": "rounds", "gauntlet": "named", "adaptive": "budget"}
_SETTING_EXAMPLE = {"rounds": "rounds: 5", "named": "named: [mine]", "budget": "budget: 200"}
#: the formats that play in one pool
ONE_POOL = ("knockout", "gauntlet", "adaptive")


class StageDef(BaseModel):
    """One stage: its ``format`` (round robins by default) in pools; ``advance`` teams a pool
    go on to the next stage."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)  # as the other parts' (config.Strict)

    name: str = "round-robin"
    format: str = "round_robin"
    pools: int = Field(1, ge=1)
    seeding: Literal["random", "snake", "order"] = "random"
    games_per_pair: int = Field(2, ge=1, le=MAX_STAGE_GAMES)  # a match of two bots: a stage of one pair
    advance: int | None = Field(None, ge=1)
    rounds: int | None = Field(None, ge=1, le=1000, description="swiss: the rounds to play")
    named: list[str] | None = Field(None, min_length=1, description="gauntlet: the teams that play the field")
    budget: int | None = Field(None, ge=1, description="adaptive: the stage's games in all")
    table_rounds: int | None = Field(
        None,
        ge=1,
        le=10_000,
        description="a round robin of a game of more than two seats: rounds of tables drawn at random, not every table",
    )

    @model_validator(mode="before")
    @classmethod
    def _named_for_its_format(cls, data: Any) -> Any:
        """A stage without a name is called for its format (``swiss``, ``knockout``, ...)."""
        named = isinstance(data, dict) and "name" in data
        if isinstance(data, dict) and not named and data.get("format") in FORMATS[1:]:
            return {**data, "name": data["format"]}
        return data

    @field_validator("format")
    @classmethod
    def _known_format(cls, value: str) -> str:
        if value not in FORMATS:
            raise ValueError(f"unknown format {value!r}; the formats: {', '.join(FORMATS)}")
        return value

    @model_validator(mode="after")
    def _format_settings(self) -> StageDef:
        needed = _FORMAT_SETTING.get(self.format)
        if needed is not None and getattr(self, needed) is None:
            raise ValueError(f"format {self.format} needs {needed} (e.g. {_SETTING_EXAMPLE[needed]})")
        for format, setting in _FORMAT_SETTING.items():
            if setting != needed and getattr(self, setting) is not None:
                raise ValueError(
                    f"{setting} is a setting of format {format}; this stage's format is {self.format}, "
                    f"so remove {setting} or set format: {format}"
                )
        if self.table_rounds is not None and self.format != "round_robin":
            raise ValueError(
                f"table_rounds is a setting of a round robin of a game of more than two seats; this stage's "
                f"format is {self.format}, so remove table_rounds"
            )
        if self.format in ONE_POOL and self.pools != 1:
            raise ValueError(f"a {self.format} stage plays in one pool; remove pools: {self.pools}")
        if self.named is not None and len(set(self.named)) != len(self.named):
            raise ValueError("named lists a team twice")
        return self

    def games(self, teams: int, seats: int = 2) -> int:
        """How many games the stage plays with ``teams`` teams (a knockout: at least; its drawn
        matches add pairs of extra games), in a game of ``seats`` seats (more than two: a round
        robin of every table of that many teams of a pool, or ``table_rounds`` rounds of tables
        drawn)."""
        sizes = pool_sizes(teams, self.pools)
        if seats > 2 and self.table_rounds is not None:
            return sum(size // seats for size in sizes) * self.table_rounds * self.games_per_pair
        if seats > 2:
            return sum(math.comb(size, seats) for size in sizes) * self.games_per_pair
        if self.format == "swiss":
            return sum(size // 2 for size in sizes) * (self.rounds or 0) * self.games_per_pair
        if self.format == "knockout":
            return (teams - 1) * self.games_per_pair
        if self.format == "gauntlet":
            named = len(self.named or ())
            return (named * (named - 1) // 2 + named * (teams - named)) * self.games_per_pair
        if self.format == "adaptive":
            return max(self.budget or 0, self.round_robin_games(teams))
        return self.round_robin_games(teams)

    def round_robin_games(self, teams: int) -> int:
        """How many games a round robin of ``teams`` teams in this stage's pools plays."""
        return sum(size * (size - 1) // 2 for size in pool_sizes(teams, self.pools)) * self.games_per_pair


def pool_sizes(teams: int, pools: int) -> list[int]:
    """The sizes of ``pools`` pools dealt ``teams`` teams, the larger first."""
    size, larger = divmod(teams, pools)
    return [size + 1] * larger + [size] * (pools - larger)

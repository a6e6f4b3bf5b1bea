"""Ratings replayed over finished games in schedule order (game id order), by the tournament's
rating system: TrueSkill (the ``trueskill`` package, the default) or OpenSkill (the
``openskill`` package's Plackett-Luce model, Weng and Lin's Bayesian approximation). Both keep
a mean ``mu`` and an uncertainty ``sigma`` for each team and rank by ``mu - 3 sigma`` (OpenSkill
calls it the ordinal)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import trueskill

from arena.contests.config import RatingDef
from arena.errors import ArenaError


class RatingError(ArenaError):
    """Rating settings with which the rating system's arithmetic fails (it overflows or loses
    precision)."""


@dataclass(frozen=True, slots=True)
class RatingSystem:
    """How a rating system is named and shown: ``name`` as the tournament file writes it,
    ``title`` as people read it, ``ranks_by`` what the leaderboard sorts by, and the
    ``settings`` of ``RatingDef`` it uses."""

    name: str
    title: str
    ranks_by: str
    settings: tuple[str, ...]

    @property
    def label(self) -> str:
        """The title and what it ranks by: ``TrueSkill μ − 3σ``."""
        return f"{self.title} {self.ranks_by}"


SYSTEMS = {
    "trueskill": RatingSystem("trueskill", "TrueSkill", "μ − 3σ", ("mu", "sigma", "beta", "tau", "draw_probability")),
    "openskill": RatingSystem("openskill", "OpenSkill", "ordinal μ − 3σ", ("mu", "sigma", "beta", "tau")),
}


def system_of(rating: RatingDef) -> RatingSystem:
    """The rating system of a tournament's ``rating`` settings."""
    return SYSTEMS[rating.system]


@dataclass(slots=True)
class RatingHistory:
    """A team's rating after each of its games: (game id, mu, sigma)."""

    mu: float
    sigma: float
    after: list[tuple[int, float, float]] = field(default_factory=list)

    @property
    def conservative(self) -> float:
        """mu - 3 sigma: the rating the leaderboard sorts by (OpenSkill's ordinal)."""
        return self.mu - 3 * self.sigma


def environment(rating: RatingDef) -> trueskill.TrueSkill:
    """The TrueSkill environment of a tournament's ``rating`` settings."""
    return trueskill.TrueSkill(
        mu=rating.mu,
        sigma=rating.sigma,
        beta=rating.beta,
        tau=rating.tau,
        draw_probability=rating.draw_probability,
        backend=None,
    )


#: one game rated: (each seat's rating, each seat's place, 0 the first, equal places tied) ->
#: each seat's new rating
Rate = Callable[[list[Any], Sequence[int]], list[Any]]


def _trueskill(rating: RatingDef) -> tuple[Callable[[], Any], Rate]:
    env = environment(rating)

    def rate(current: list[Any], ranks: Sequence[int]) -> list[Any]:
        if len(current) == 2:  # (as TrueSkill's own two-player call rates it)
            a, b = current
            if ranks[0] == ranks[1]:
                return list(trueskill.rate_1vs1(a, b, drawn=True, env=env))
            if ranks[0] < ranks[1]:
                return list(trueskill.rate_1vs1(a, b, env=env))
            b, a = trueskill.rate_1vs1(b, a, env=env)
            return [a, b]
        return [group[0] for group in env.rate([(r,) for r in current], ranks=list(ranks))]

    return env.create_rating, rate


def _openskill(rating: RatingDef) -> tuple[Callable[[], Any], Rate]:
    from openskill.models import PlackettLuce

    model = PlackettLuce(mu=rating.mu, sigma=rating.sigma, beta=rating.beta, tau=rating.tau)

    def rate(current: list[Any], ranks: Sequence[int]) -> list[Any]:
        rated = model.rate([[r] for r in current], ranks=[float(rank) for rank in ranks])
        return [team[0] for team in rated]

    return model.rating, rate


def replay_ratings(
    teams: Iterable[str], games: Iterable[tuple[int, Sequence[str], Sequence[int]]], rating: RatingDef
) -> dict[str, RatingHistory]:
    """Every team's rating after ``games`` = (id, the teams in seat order, each seat's place: 0
    the first, equal places tied), taken in id order whatever order they are given in, by the
    system ``rating`` names. TrueSkill and OpenSkill rate a game of any number of seats from
    its finishing order."""
    system = system_of(rating)
    create, rate = _openskill(rating) if system.name == "openskill" else _trueskill(rating)
    current = {team: create() for team in teams}
    history = {team: RatingHistory(r.mu, r.sigma) for team, r in current.items()}
    for game_id, seated, ranks in sorted(games, key=lambda game: game[0]):
        try:
            rated = rate([current[team] for team in seated], ranks)
        except (ArithmeticError, ValueError) as error:
            settings = ", ".join(f"{name} {getattr(rating, name):g}" for name in system.settings)
            raise RatingError(
                f"{system.title} cannot rate game {game_id} with the rating settings ({settings}): "
                f"{error}; choose settings nearer the defaults (mu 25, sigma 8.333, beta 4.167, "
                "tau 0.083)"
            ) from None
        for team, r in zip(seated, rated, strict=True):
            current[team] = r
            entry = history[team]
            entry.mu, entry.sigma = r.mu, r.sigma
            entry.after.append((game_id, r.mu, r.sigma))
    return history

"""Ratings replayed over finished games in schedule order (game id order), by the tournament's
rating system: TrueSkill (the ``trueskill`` package, the default) or OpenSkill (the
``openskill`` package's Plackett-Luce model, Weng and Lin's Bayesian approximation). Both keep
a mean ``mu`` and an uncertainty ``sigma`` for each team and rank by ``mu - 3 sigma`` (OpenSkill
calls it the ordinal)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
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


#: one game rated: (first's rating, second's rating, winner seat or None) -> the two new ratings
Rate = Callable[[Any, Any, int | None], tuple[Any, Any]]


def _trueskill(rating: RatingDef) -> tuple[Callable[[], Any], Rate]:
    env = environment(rating)

    def rate(a: Any, b: Any, winner: int | None) -> tuple[Any, Any]:
        if winner is None:
            a, b = trueskill.rate_1vs1(a, b, drawn=True, env=env)
        elif winner == 0:
            a, b = trueskill.rate_1vs1(a, b, env=env)
        else:
            b, a = trueskill.rate_1vs1(b, a, env=env)
        return a, b

    return env.create_rating, rate


def _openskill(rating: RatingDef) -> tuple[Callable[[], Any], Rate]:
    from openskill.models import PlackettLuce

    model = PlackettLuce(mu=rating.mu, sigma=rating.sigma, beta=rating.beta, tau=rating.tau)

    def rate(a: Any, b: Any, winner: int | None) -> tuple[Any, Any]:
        ranks = [0.0, 0.0] if winner is None else ([0.0, 1.0] if winner == 0 else [1.0, 0.0])
        (new_a,), (new_b,) = model.rate([[a], [b]], ranks=ranks)
        return new_a, new_b

    return model.rating, rate


def replay_ratings(
    teams: Iterable[str], games: Iterable[tuple[int, str, str, int | None]], rating: RatingDef
) -> dict[str, RatingHistory]:
    """Every team's rating after ``games`` = (id, first team, second team, winner seat or None),
    taken in id order whatever order they are given in, by the system ``rating`` names."""
    system = system_of(rating)
    create, rate = _openskill(rating) if system.name == "openskill" else _trueskill(rating)
    current = {team: create() for team in teams}
    history = {team: RatingHistory(r.mu, r.sigma) for team, r in current.items()}
    for game_id, first, second, winner in sorted(games):
        try:
            a, b = rate(current[first], current[second], winner)
        except (ArithmeticError, ValueError) as error:
            settings = ", ".join(f"{name} {getattr(rating, name):g}" for name in system.settings)
            raise RatingError(
                f"{system.title} cannot rate game {game_id} with the rating settings ({settings}): "
                f"{error}; choose settings nearer the defaults (mu 25, sigma 8.333, beta 4.167, "
                "tau 0.083)"
            ) from None
        current[first], current[second] = a, b
        for team, r in ((first, a), (second, b)):
            entry = history[team]
            entry.mu, entry.sigma = r.mu, r.sigma
            entry.after.append((game_id, r.mu, r.sigma))
    return history

"""TrueSkill ratings, replayed over finished games in schedule order (game id order)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import trueskill

from arena.config import RatingDef
from arena.errors import ArenaError


class RatingError(ArenaError):
    """Rating settings with which TrueSkill's arithmetic fails (it overflows or loses precision)."""


@dataclass(slots=True)
class RatingHistory:
    """A team's rating after each of its games: (game id, mu, sigma)."""

    mu: float
    sigma: float
    after: list[tuple[int, float, float]] = field(default_factory=list)

    @property
    def conservative(self) -> float:
        """mu - 3 sigma: the rating the leaderboard sorts by."""
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


def replay_ratings(
    teams: Iterable[str], games: Iterable[tuple[int, str, str, int | None]], rating: RatingDef
) -> dict[str, RatingHistory]:
    """Every team's rating after ``games`` = (id, first team, second team, winner seat or None),
    taken in id order whatever order they are given in."""
    env = environment(rating)
    current = {team: env.create_rating() for team in teams}
    history = {team: RatingHistory(r.mu, r.sigma) for team, r in current.items()}
    for game_id, first, second, winner in sorted(games):
        a, b = current[first], current[second]
        try:
            if winner is None:
                a, b = trueskill.rate_1vs1(a, b, drawn=True, env=env)
            elif winner == 0:
                a, b = trueskill.rate_1vs1(a, b, env=env)
            else:
                b, a = trueskill.rate_1vs1(b, a, env=env)
        except ArithmeticError as error:
            settings = ", ".join(f"{name} {value:g}" for name, value in rating.model_dump().items())
            raise RatingError(
                f"TrueSkill cannot rate game {game_id} with the rating settings ({settings}): "
                f"{error}; choose settings nearer the defaults (mu 25, sigma 8.333, beta 4.167, "
                "tau 0.083)"
            ) from None
        current[first], current[second] = a, b
        for team, r in ((first, a), (second, b)):
            entry = history[team]
            entry.mu, entry.sigma = r.mu, r.sigma
            entry.after.append((game_id, r.mu, r.sigma))
    return history

"""Ratings replayed over finished games in schedule order (game id order), by the tournament's
rating system: TrueSkill (the ``trueskill`` package, the default) or OpenSkill (the
``openskill`` package's Plackett-Luce model, Weng and Lin's Bayesian approximation). Both keep
a mean ``mu`` and an uncertainty ``sigma`` for each team and rank by ``mu - 3 sigma`` (OpenSkill
calls it the ordinal)."""

from __future__ import annotations

import bisect
import json
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import trueskill
from sqlalchemy import BigInteger, bindparam, cast, func, select, update
from sqlalchemy.orm import Session

from arena.contests.config import RatingDef
from arena.errors import ArenaError
from arena.store.models import GameRow, GameSeat, KeptRatings, not_aborted


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
    """A team's rating after each of its games of ids after ``since``: (game id, mu, sigma)
    (``since`` 0: every game; else the games before are those of the ratings kept, whose
    seats hold the team's rating after each: ``GameSeat.mu``, ``sigma``)."""

    mu: float
    sigma: float
    after: list[tuple[int, float, float]] = field(default_factory=list)
    since: int = 0

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
#: a game as ratings take it: (id, the teams in seat order, each seat's place: 0 the first,
#: equal places tied)
Rated = tuple[int, Sequence[str], Sequence[int]]


@dataclass(frozen=True, slots=True)
class Engine:
    """A rating system at work: a new team's rating, a game rated, and a rating as numbers kept
    in the database and back, exactly (TrueSkill's precision and precision-adjusted mean;
    OpenSkill's mu and sigma)."""

    create: Callable[[], Any]
    rate: Rate
    dump: Callable[[Any], list[float]]
    load: Callable[[list[float]], Any]


def _trueskill(rating: RatingDef) -> Engine:
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

    def load(numbers: list[float]) -> Any:
        kept = env.create_rating()
        kept.pi, kept.tau = numbers
        return kept

    return Engine(env.create_rating, rate, lambda r: [r.pi, r.tau], load)


def _openskill(rating: RatingDef) -> Engine:
    from openskill.models import PlackettLuce

    model = PlackettLuce(mu=rating.mu, sigma=rating.sigma, beta=rating.beta, tau=rating.tau)

    def rate(current: list[Any], ranks: Sequence[int]) -> list[Any]:
        rated = model.rate([[r] for r in current], ranks=[float(rank) for rank in ranks])
        return [team[0] for team in rated]

    return Engine(model.rating, rate, lambda r: [r.mu, r.sigma], lambda kept: model.rating(mu=kept[0], sigma=kept[1]))


def engine(rating: RatingDef) -> Engine:
    """The rating system ``rating`` names, at work."""
    return _openskill(rating) if rating.system == "openskill" else _trueskill(rating)


def replay_ratings(teams: Iterable[str], games: Iterable[Rated], rating: RatingDef) -> dict[str, RatingHistory]:
    """Every team's rating after ``games`` = (id, the teams in seat order, each seat's place: 0
    the first, equal places tied), taken in id order whatever order they are given in, by the
    system ``rating`` names, with its history game by game. TrueSkill and OpenSkill rate a game
    of any number of seats from its finishing order."""
    rater = engine(rating)
    current = {team: rater.create() for team in teams}
    return _replay(current, sorted(games, key=lambda game: game[0]), rating, rater)


def _replay(
    current: dict[str, Any], games: Iterable[Rated], rating: RatingDef, rater: Engine
) -> dict[str, RatingHistory]:
    """Rate ``games``, in the order given, from the ratings ``current`` (which it updates):
    each team's rating after them, with their history."""
    history = {team: RatingHistory(r.mu, r.sigma) for team, r in current.items()}
    for game_id, seated, ranks in games:
        try:
            rated = rater.rate([current[team] for team in seated], ranks)
        except (ArithmeticError, ValueError) as error:
            system = system_of(rating)
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


# ---------------------------------------------------------------- kept as games are stored


def kept_ratings(
    session: Session,
    tournament_id: int,
    teams: Iterable[str],
    rating: RatingDef,
    games: Callable[[int], Sequence[Rated]],
    keep_through: int | None = None,
) -> dict[str, RatingHistory]:
    """What ``replay_ratings`` gives for the finished games of tournament ``tournament_id``,
    gone on from the ratings kept with it (``KeptRatings``) when the games they rated are its
    games still (``fingerprint``): their history holds only the games after them. ``games(after)``:
    the finished games of ids after ``after`` (0: every one), as rated. ``keep_through``: keep the
    ratings after the games of ids up to it (in the caller's transaction), every game up to it
    being finished or left unfinished."""
    rater, settings = engine(rating), _settings(rating)
    row = session.scalars(
        select(KeptRatings).where(KeptRatings.tournament_id == tournament_id, KeptRatings.settings == settings)
    ).one_or_none()
    current = {team: rater.create() for team in teams}
    after = 0
    if (
        row is not None
        and set(row.teams) <= set(current)
        and (keep_through is None or row.through <= keep_through)
        and fingerprint(session, tournament_id, row.through) == (row.rated, row.check)
    ):
        current |= {team: rater.load(numbers) for team, numbers in row.teams.items()}
        after = row.through
    # (otherwise games were removed or changed since: every game is rated again)
    ordered = sorted(games(after), key=lambda game: game[0])
    if keep_through is None:
        return _since(_replay(current, ordered, rating, rater), after)
    upto = bisect.bisect_right(ordered, keep_through, key=lambda game: game[0])
    history = _since(_replay(current, ordered[:upto], rating, rater), after)
    _keep_seats(session, ordered[:upto], history)
    rated, check = fingerprint(session, tournament_id, keep_through)
    if row is None:
        row = KeptRatings(tournament_id=tournament_id, settings=settings)
        session.add(row)
    row.through, row.rated, row.check = keep_through, rated, check
    row.teams = {team: rater.dump(r) for team, r in current.items()}
    if upto < len(ordered):
        later = _replay(current, ordered[upto:], rating, rater)
        for team, entry in later.items():
            history[team].mu, history[team].sigma = entry.mu, entry.sigma
            history[team].after += entry.after
    return history


def _since(history: dict[str, RatingHistory], after: int) -> dict[str, RatingHistory]:
    for entry in history.values():
        entry.since = after
    return history


def _keep_seats(session: Session, games: Sequence[Rated], history: dict[str, RatingHistory]) -> None:
    """Write each seat of ``games`` its team's rating after the game (from ``history``)."""
    after = {(game_id, team): (mu, sigma) for team, entry in history.items() for game_id, mu, sigma in entry.after}
    rows = [
        {"game": game_id, "at": seat, "mu": after[game_id, team][0], "sigma": after[game_id, team][1]}
        for game_id, seated, _ in games
        for seat, team in enumerate(seated)
    ]
    if rows:
        session.connection().execute(_SEAT_RATING, rows)


#: a seat's rating after its game
_SEAT_RATING = (
    update(GameSeat)
    .where(GameSeat.game_id == bindparam("game"), GameSeat.seat == bindparam("at"))
    .values(mu=bindparam("mu"), sigma=bindparam("sigma"))
)


def fingerprint(session: Session, tournament_id: int, through: int) -> tuple[int, int]:
    """How many games of tournament ``tournament_id`` of ids up to ``through`` are rated (finished,
    none left unfinished), and a CRC-32 of sums over them that change when one of them is removed
    or added, and when its result, teams, seats or points change (each weighted twice, by its id
    and by a scrambled square of it, so that two changes cancel out only if made to): worked out
    by the database, so that a read checks its kept ratings without reading the games."""
    rated = (GameRow.tournament_id == tournament_id, GameRow.id <= through, GameRow.status == "finished", not_aborted())
    result = func.coalesce(GameRow.winner, -1) + 2
    game_id = cast(GameRow.id, BigInteger)
    scrambled = (game_id * game_id) % SCRAMBLE
    games = select(func.count(), func.sum(game_id), func.sum(game_id * result), func.sum(scrambled * result))
    seat_id = cast(GameSeat.game_id, BigInteger) * (GameSeat.seat + 1)
    seats = select(
        func.sum(seat_id * GameSeat.entry_id),
        func.sum((seat_id * seat_id) % SCRAMBLE * GameSeat.entry_id),
        func.sum(GameSeat.points * (GameSeat.seat + 1)),
    )
    count, *game_sums = session.execute(games.where(*rated)).one()
    *seat_sums, points = session.execute(seats.join(GameRow, GameRow.id == GameSeat.game_id).where(*rated)).one()
    sums = [None if value is None else int(value) for value in (*game_sums, *seat_sums)]
    shown = f"{count} {sums} {'-' if points is None else format(float(points), '.9g')}"
    return int(count), zlib.crc32(shown.encode())


#: a prime the fingerprint's second weights are taken modulo (they stay small: no sum overflows)
SCRAMBLE = 1_000_003


def _settings(rating: RatingDef) -> str:
    """The rating settings as kept ratings are keyed: their JSON."""
    return json.dumps(rating.model_dump(mode="json"), sort_keys=True)

"""How the report writes figures (numbers, times, durations, colours, Elo) and the geometry of
its charts: hand-written SVG whose coordinates are computed here and drawn by the macros in
``templates/charts.html``."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

from arena.contests.rating import RatingHistory
from arena.results.tables import EloLine


def number(value: float | None, digits: int = 2) -> str:
    """A number as people read it: ``86``, ``1.5``, ``25.31``; empty for ``None``."""
    if value is None:
        return ""
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.{digits}f}".rstrip("0").rstrip(".") if digits else f"{value:.0f}"


def milliseconds(value: float | None) -> str:
    """A time in ms with sensible precision (``0.04 ms``, ``12.3 ms``, ``1.25 s``)."""
    if value is None:
        return ""
    if value >= 1000:
        return f"{value / 1000:.2f} s"
    return f"{value:.2f} ms" if value < 1 else f"{value:.1f} ms"


def round_time(ms: float) -> str:
    """A round time for an axis: ``0.1 ms``, ``10 ms``, ``1 s``, ``200 ms``."""
    if ms >= 1000:
        return f"{number(ms / 1000, 3)} s"
    return f"{number(ms, 3)} ms"


def duration(seconds: float | None) -> str:
    """``2 h 05 min``, ``3 min 12 s``, ``42.0 s``."""
    if seconds is None:
        return ""
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    return f"{minutes // 60} h {minutes % 60:02d} min"


def when(stamp: float | None) -> str:
    """A time stamp as a date and time to the minute, local time (``2026-11-23 20:06``)."""
    return "" if stamp is None else time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))


def share_colour(share: float) -> str:
    """The background of a crosstable cell: red for none of the points, a neutral paper tone for
    half, green for all of them."""
    loss, even, win = (226, 110, 96), (243, 241, 236), (84, 168, 118)
    far, t = (loss, 1 - 2 * share) if share < 0.5 else (win, 2 * share - 1)
    return "#" + "".join(f"{round(e + (f - e) * t):02x}" for e, f in zip(even, far))


def signed_elo(value: float | None) -> str:
    """An Elo with its sign, to the point: ``+35``, ``-120``, ``0``; empty for ``None``."""
    if value is None:
        return ""
    shown = f"{value:+.0f}"
    return "0" if shown in ("+0", "-0") else shown


def percent(share: float | None) -> str:
    """A probability as a whole percentage, ``<1`` and ``>99`` at the ends (never a certain
    ``0`` or ``100`` that rounding made); empty for ``None``."""
    if share is None:
        return ""
    if share < 0.005:
        return "<1"
    if share > 0.995:
        return ">99"
    return f"{100 * share:.0f}"


@dataclass(frozen=True, slots=True)
class Frame:
    """A chart's SVG canvas, ``width`` by ``height``, and the margins around its plot area."""

    width: int
    height: int
    left: int = 46
    right: int = 14
    top: int = 14
    bottom: int = 34

    def x(self, share: float) -> float:
        """The x of ``share`` of the way across the plot area (0: its left edge)."""
        return round(self.left + (self.width - self.left - self.right) * share, 1)

    def y(self, share: float) -> float:
        """The y of ``share`` of the way down the plot area (0: its top edge)."""
        return round(self.top + (self.height - self.top - self.bottom) * share, 1)

    def box(self) -> dict[str, float]:
        """The canvas and the plot area's edges, as the chart macros take them."""
        return {
            "width": self.width,
            "height": self.height,
            "left": self.left,
            "right": self.width - self.right,
            "top": self.top,
            "bottom": self.height - self.bottom,
        }


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering ``low``-``high``, about ``count`` of them (steps of 1, 2 or 5
    times a power of ten)."""
    if high <= low:
        high = low + 1
    power = 10 ** math.floor(math.log10((high - low) / count))
    step = min((m * power for m in (1, 2, 5, 10)), key=lambda s: abs((high - low) / s - count))
    first = math.ceil(low / step) * step
    return [round(first + i * step, 10) for i in range(int((high - first) / step + 1e-9) + 1)]


def rating_chart(
    history: RatingHistory,
    start: tuple[float, float],
    labels: dict[int, str],
    stages: dict[int, str],
    span: tuple[float, float],
) -> dict[str, Any]:
    """The geometry of a team's rating after each of its games: μ as a line over a ±σ band.
    ``labels``: game id -> tooltip; ``stages``: game id -> stage name (a mark where one starts);
    ``span``: the y range (shared by every team, so charts compare)."""
    frame = Frame(720, 260)
    points = [(0, start[0], start[1], "start")] + [
        (i, mu, sigma, labels.get(game_id, "")) for i, (game_id, mu, sigma) in enumerate(history.after, 1)
    ]
    n = max(len(points) - 1, 1)
    low, high = span

    def x(i: float) -> float:
        return frame.x(i / n)

    def y(v: float) -> float:
        return frame.y((high - v) / (high - low))

    upper = [f"{x(i)},{y(mu + s)}" for i, mu, s, _ in points]
    lower = [f"{x(i)},{y(mu - s)}" for i, mu, s, _ in reversed(points)]
    step = max(1, n // 10)
    marks = []
    for i, (game_id, _, _) in enumerate(history.after, 1):
        if game_id in stages:
            marks.append({"x": x(i - 0.5), "label": stages[game_id]})
    return {
        **frame.box(),
        "band": " ".join(upper + lower),
        "line": " ".join(f"{x(i)},{y(mu)}" for i, mu, _, _ in points),
        "dots": [{"x": x(i), "y": y(mu), "title": f"{label}: μ {mu:.2f}, σ {s:.2f}"} for i, mu, s, label in points[1:]],
        "yticks": [{"y": y(v), "label": number(v, 1)} for v in nice_ticks(low, high) if low <= v <= high],
        "xticks": [{"x": x(i), "label": str(i)} for i in range(0, n + 1, step)],
        "stages": marks,
        "empty": not history.after,
    }


def rating_span(
    ratings: dict[str, RatingHistory], start: tuple[float, float], known: tuple[float, float] | None = None
) -> tuple[float, float]:
    """The μ ± σ range every team's chart shares (``known``: the lowest μ − σ and highest μ + σ
    of the games not in ``ratings``' histories)."""
    values = [start[0] - start[1], start[0] + start[1], *(known or ())]
    for history in ratings.values():
        for _, mu, sigma in history.after:
            values += [mu - sigma, mu + sigma]
    low, high = min(values), max(values)
    pad = (high - low) * 0.04 or 1
    return (low - pad, high + pad)


def think_histogram(times_ms: list[float], limit_ms: float | None) -> dict[str, Any]:
    """The geometry of a histogram of move times on a log scale (quarter-decade bins), with
    the move time limit marked."""
    frame = Frame(720, 220)
    if not times_ms:
        return {"empty": True, "width": frame.width, "height": frame.height}
    floor = 0.01  # ms: faster moves share the first bin
    logs = [math.log10(max(t, floor)) * 4 for t in times_ms]
    first = math.floor(min(logs))
    last = max(math.floor(max(logs)) + 1, first + 4)
    if limit_ms:
        last = max(last, math.ceil(math.log10(limit_ms) * 4) + 1)
    counts = [0] * (last - first)
    for value in logs:
        counts[min(math.floor(value) - first, len(counts) - 1)] += 1
    top_count = max(counts)

    def x(quarter: float) -> float:
        return frame.x((quarter - first) / (last - first))

    def y(count: float) -> float:
        return frame.y(1 - count / top_count)

    bars = []
    for i, count in enumerate(counts):
        if count:
            lo, hi = 10 ** ((first + i) / 4), 10 ** ((first + i + 1) / 4)
            bars.append(
                {
                    "x": x(first + i) + 0.5,
                    "y": y(count),
                    "w": max(x(first + i + 1) - x(first + i) - 1, 1),
                    "h": round(y(0) - y(count), 1),
                    "count": count,
                    "title": f"{count} moves of {milliseconds(lo)} to {milliseconds(hi)}",
                }
            )
    xticks = [
        {"x": x(d * 4), "label": round_time(10.0**d)} for d in range(math.ceil(first / 4), math.floor(last / 4) + 1)
    ]
    yticks = [{"y": y(v), "label": number(v)} for v in nice_ticks(0, top_count, 4) if v == int(v)]
    limit = None
    if limit_ms:
        limit = {"x": x(math.log10(limit_ms) * 4), "label": f"limit {round_time(limit_ms)}"}
    return {
        "empty": False,
        **frame.box(),
        "bars": bars,
        "xticks": xticks,
        "yticks": yticks,
        "limit": limit,
    }


#: the height of one team's row in the Elo chart, and the most characters of its name shown
ELO_ROW = 18
ELO_LABEL = 22


def elo_chart(lines: list[EloLine]) -> dict[str, Any]:
    """The geometry of the Elo leaderboard as a bar a team, best at the top: the bar from 0 to
    its Elo, an error bar over its interval, its name on the left (cut to ``ELO_LABEL``
    characters; whole in the tooltip)."""
    frame = Frame(720, 14 + ELO_ROW * max(len(lines), 1) + 34, left=160, top=14)
    if not lines:
        return {"empty": True, **frame.box()}
    low = min(0.0, *(line.lower for line in lines))
    high = max(0.0, *(line.upper for line in lines))
    pad = (high - low) * 0.04 or 10.0
    low, high = low - pad, high + pad

    def x(value: float) -> float:
        return frame.x((value - low) / (high - low))

    rows = []
    for i, line in enumerate(lines):
        middle = round(frame.top + ELO_ROW * (i + 0.5), 1)
        name = line.team if len(line.team) <= ELO_LABEL else line.team[: ELO_LABEL - 1] + "…"
        rows.append(
            {
                "y": middle,
                "label": name,
                "bar_x": x(min(0.0, line.elo)),
                "bar_y": round(middle - ELO_ROW * 0.3, 1),
                "bar_w": round(abs(x(line.elo) - x(0.0)), 1),
                "bar_h": round(ELO_ROW * 0.6, 1),
                "negative": line.elo < 0,
                "low": x(line.lower),
                "high": x(line.upper),
                "title": f"{line.team}: Elo {signed_elo(line.elo)} ± {line.error:.0f} (95 %: "
                f"{signed_elo(line.lower)} to {signed_elo(line.upper)}), {line.games} games",
            }
        )
    return {
        "empty": False,
        **frame.box(),
        "rows": rows,
        "zero": x(0.0),
        "xticks": [{"x": x(v), "label": signed_elo(v)} for v in nice_ticks(low, high, 6) if low <= v <= high],
    }

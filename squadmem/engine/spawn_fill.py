"""The order ``context --task`` fills a spawn in (pure: no git, no files).

Recent work continues: what a team wrote last is often what the next spawn needs, whatever its
task says. So the task's matches come first (every one, or the best :data:`MATCHES`): BM25 on the task
(recall's ranking, :func:`squadmem.engine.ranking.bm25`), each score raised for a section whose first
line states a recent date (``score × (1 + WEIGHT / (1 + age / HALF_DAYS))``, the age in days
before the newest date any candidate states, so no clock is read); then
every other section newest first (:func:`squadmem.engine.ranking.newest`'s order: the date its first
line states, the undated after, the nearer tier and the later place first). The constants were
chosen on the study's train teams (``bench/fill_tuning.py``; docs/squad.md).

:func:`fill` takes items whole, in an order, while they fit: what the spawn holds.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterable, Sequence

from squadmem.engine import catalog, ranking

MATCHES: int | None = None  # how many of the task's best matches go before the newest (None: all)
WEIGHT = 0.5  # how much a recent date raises a match's score
HALF_DAYS = 1.0  # the age (days) at which that raise is halved


@dataclasses.dataclass(frozen=True)
class Candidate:
    """What the order reads of a section."""

    score: float  # BM25 on the task; 0 when it holds no word of it
    stated: str | None  # the YYYY-MM-DD its first line states
    depth: int  # its tier's, ranking.DEPTH (hot 0 ... archive 3)
    position: int  # its place in its file


def _age(stated: str | None, today: dt.date | None) -> float | None:
    day = _date(stated)
    return None if day is None or today is None else max(0, (today - day).days)


def _today(candidates: Sequence[Candidate]) -> dt.date | None:
    dates = [d for d in (_date(c.stated) for c in candidates) if d is not None]
    return max(dates, default=None)


def _date(stated: str | None) -> dt.date | None:
    try:
        return dt.date.fromisoformat(stated) if stated else None
    except ValueError:
        return None


def newest(candidates: Sequence[Candidate], among: Iterable[int] | None = None) -> list[int]:
    """Indexes of ``candidates`` (or of ``among`` them) newest first, as :func:`ranking.newest`."""
    chosen = range(len(candidates)) if among is None else among
    return sorted(
        chosen,
        key=lambda n: (
            candidates[n].stated is not None,
            candidates[n].stated or "",
            -candidates[n].depth,
            candidates[n].position,
        ),
        reverse=True,
    )


def matches(
    candidates: Sequence[Candidate],
    *,
    limit: int | None = MATCHES,
    weight: float = WEIGHT,
    half_days: float = HALF_DAYS,
) -> list[int]:
    """Indexes of the task's matches (at most ``limit``; None: all), best first (ties: the given order)."""
    today = _today(candidates)
    scored = []
    for n, c in enumerate(candidates):
        if c.score > 0:
            age = _age(c.stated, today)
            raise_ = 0.0 if age is None else weight / (1 + age / half_days)
            scored.append((-c.score * (1 + raise_), n))
    best = [n for _, n in sorted(scored)]
    return best if limit is None else best[: max(0, limit)]


def order(
    candidates: Sequence[Candidate],
    *,
    limit: int | None = MATCHES,
    weight: float = WEIGHT,
    half_days: float = HALF_DAYS,
) -> tuple[list[int], list[int]]:
    """(the task's best matches, every other candidate newest first): together a permutation of the
    candidates' indexes."""
    first = matches(candidates, limit=limit, weight=weight, half_days=half_days)
    taken = set(first)
    return first, newest(candidates, (n for n in range(len(candidates)) if n not in taken))


def candidates_of(entries: Sequence[catalog.Entry], terms: Sequence[str]) -> list[Candidate]:
    """The candidates of ``entries`` for a task's ``terms`` (BM25 as recall ranks)."""
    scores = {id(e): s for e, s in ranking.bm25(entries, terms)}
    return [
        Candidate(
            scores.get(id(e), 0.0), ranking.stated_date(e.text), ranking.DEPTH.get(e.tier, 4), e.position
        )
        for e in entries
    ]


def fill(sizes: Sequence[int], order_: Iterable[int], room: int) -> list[int]:
    """The items taken whole, in ``order_``, each while it fits in ``room`` bytes (each once)."""
    taken: list[int] = []
    seen: set[int] = set()
    used = 0
    for n in order_:
        if n not in seen and used + sizes[n] <= room:
            taken.append(n)
            used += sizes[n]
        seen.add(n)
    return taken

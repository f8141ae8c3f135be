"""The ``--task`` fill order: a permutation of the candidates, best first by their score on the task
and how recently the team wrote them, the rest newest first; and a fill that keeps to its room."""

from __future__ import annotations

import itertools
import math

from hypothesis import given
from hypothesis import strategies as st

from squadmem.engine.search import spawn_fill

DATES = st.one_of(st.none(), st.dates().map(lambda d: d.isoformat()), st.just("2026-13-40"))
CANDIDATES = st.lists(
    st.builds(
        spawn_fill.Candidate,
        st.one_of(st.just(0.0), st.floats(0.01, 50)),
        DATES,
        st.integers(0, 3),
        st.integers(0, 40),
        st.one_of(st.none(), st.integers(1_600_000_000, 1_800_000_000).map(float)),
        st.integers(0, 900),
    ),
    max_size=30,
)


def _newest_key(c: spawn_fill.Candidate, dated: bool) -> tuple[object, ...]:
    stated = spawn_fill._date(c.stated) is not None
    return (dated and c.seen is None, c.seen or 0.0, stated, c.stated or "", -c.depth, c.position)


HOUR = 3600.0


def _value(candidates: list[spawn_fill.Candidate], n: int, weight: float, hours: float) -> float:
    """The order's value from its definition: score over the best, plus weight × e^(−age/hours)."""
    dated = any(c.seen is not None for c in candidates)
    moments = [
        c.seen if dated else spawn_fill._moment(c) for c in candidates
    ]  # history's time when it holds any
    latest = max((m for m in moments if m is not None), default=None)
    when = moments[n] if not dated or moments[n] is not None else latest
    best = max((c.score for c in candidates), default=0.0) or 1.0
    age = math.inf if when is None or latest is None else (latest - when) / HOUR / hours
    return candidates[n].score / best + (weight * math.exp(-age) if age <= spawn_fill.FADED else 0.0)


@given(CANDIDATES, st.floats(0, 4), st.floats(0.1, 100))
def test_order_is_a_permutation_best_value_first_the_rest_newest(
    candidates: list[spawn_fill.Candidate], weight: float, hours: float
) -> None:
    first, rest = spawn_fill.order(candidates, weight=weight, hours=hours)
    assert sorted(first + rest) == list(range(len(candidates)))
    values = [_value(candidates, n, weight, hours) for n in first]
    assert all(v > 0 for v in values)
    assert all(a >= b - 1e-9 for a, b in itertools.pairwise(values))  # best first
    assert all(_value(candidates, n, weight, hours) <= 1e-12 for n in rest)  # nothing recommends them
    dated = any(c.seen is not None for c in candidates)
    keys = [_newest_key(candidates[n], dated) for n in rest]
    assert keys == sorted(keys, reverse=True)


@given(CANDIDATES)
def test_without_a_weight_the_best_matches_come_first_and_only_they(
    candidates: list[spawn_fill.Candidate],
) -> None:
    first, _ = spawn_fill.order(candidates, weight=0.0)
    assert [candidates[n].score for n in first] == sorted(
        (c.score for c in candidates if c.score > 0), reverse=True
    )


def test_what_the_team_wrote_last_comes_before_a_passing_match() -> None:
    hour = 3600.0
    best = spawn_fill.Candidate(4.0, None, 2, 0, seen=1_700_000_000.0)  # the task's match, a week old
    passing = spawn_fill.Candidate(0.4, None, 2, 1, seen=1_700_000_000.0)  # holds one word, 0.1 of the best
    fresh = spawn_fill.Candidate(0.0, None, 0, 0, seen=1_700_000_000.0 + 7 * 24 * hour)  # written last
    older = spawn_fill.Candidate(0.0, None, 0, 1, seen=1_700_000_000.0 + 7 * 24 * hour - 12 * hour)
    stale = spawn_fill.Candidate(0.0, None, 0, 2, seen=1_700_000_000.0 + 5 * 24 * hour)
    first, rest = spawn_fill.order([best, passing, fresh, older, stale])
    # the best match (1.0) first; then the newest section (0.25 x 1); the passing match (0.1) next;
    # the section written 12 hours before the newest adds 0.25 x e^-4, not nothing: last of the first;
    # one two days older than the newest, matching nothing, is recommended by nothing
    assert (first, rest) == ([0, 2, 1, 3], [4])
    # with history's time, the older-looking one that reached history last is the newer
    later = spawn_fill.Candidate(1.5, "2025-01-01", 0, 1, seen=1_780_000_000.0)
    earlier = spawn_fill.Candidate(1.6, "2026-06-01", 0, 0, seen=1_700_000_000.0)
    assert spawn_fill.order([earlier, later])[0] == [1, 0]
    assert spawn_fill.order([earlier, later], weight=0.0)[0] == [0, 1]
    # a section history does not hold yet was written since: as new as the newest, and ahead of it
    newest = spawn_fill.Candidate(0.0, None, 0, 0, seen=1_780_000_000.0)
    unsaved = spawn_fill.Candidate(0.0, None, 2, 5, seen=None)
    assert spawn_fill.order([earlier, newest, unsaved])[0] == [0, 2, 1]


def test_newest_is_by_history_then_the_stated_date() -> None:
    a = spawn_fill.Candidate(0.0, "2026-03-01", 0, 0, seen=1_700_000_000.0, size=100)
    b = spawn_fill.Candidate(0.0, "2026-01-01", 3, 0, seen=1_700_100_000.0, size=100)
    unsaved = spawn_fill.Candidate(0.0, None, 2, 5, seen=None, size=100)
    assert spawn_fill.newest([a, b, unsaved]) == [2, 1, 0]  # not in history yet: written since
    # no history at all: the stated date, undated last
    plain = [spawn_fill.Candidate(0.0, d, 0, n) for n, d in enumerate(["2026-03-01", None, "2026-04-01"])]
    assert spawn_fill.newest(plain) == [2, 0, 1]


@given(st.lists(st.integers(0, 500), max_size=30), st.integers(0, 3000), st.randoms(use_true_random=False))
def test_fill_keeps_to_its_room_in_order(sizes: list[int], room: int, rnd: object) -> None:
    order = list(range(len(sizes)))
    rnd.shuffle(order)  # type: ignore[attr-defined]
    taken = spawn_fill.fill(sizes, order + order, room)
    assert sum(sizes[n] for n in taken) <= room
    assert len(set(taken)) == len(taken)
    assert taken == [n for n in order if n in set(taken)]
    used = 0
    for n in order:  # each one left out did not fit when its turn came
        if n in taken:
            used += sizes[n]
        else:
            assert used + sizes[n] > room

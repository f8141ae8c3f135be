"""The ``--task`` fill order: a permutation of the candidates, matches first, the rest newest first,
and a fill that keeps to its room."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from squadmem.engine import spawn_fill

DATES = st.one_of(st.none(), st.dates().map(lambda d: d.isoformat()), st.just("2026-13-40"))
CANDIDATES = st.lists(
    st.builds(
        spawn_fill.Candidate,
        st.one_of(st.just(0.0), st.floats(0.01, 50)),
        DATES,
        st.integers(0, 3),
        st.integers(0, 40),
    ),
    max_size=30,
)


@given(CANDIDATES, st.integers(0, 40), st.floats(0, 8), st.floats(0.5, 60))
def test_order_is_a_permutation_matches_first(
    candidates: list[spawn_fill.Candidate], limit: int, weight: float, half: float
) -> None:
    first, rest = spawn_fill.order(candidates, limit=limit, weight=weight, half_days=half)
    assert sorted(first + rest) == list(range(len(candidates)))
    assert len(first) <= limit
    assert all(candidates[n].score > 0 for n in first)
    assert len(first) == min(limit, sum(c.score > 0 for c in candidates))
    keys = [
        (c.stated is not None, c.stated or "", -c.depth, c.position) for c in (candidates[n] for n in rest)
    ]
    assert keys == sorted(keys, reverse=True)


@given(CANDIDATES)
def test_without_a_raise_the_best_scores_come_first(candidates: list[spawn_fill.Candidate]) -> None:
    first = spawn_fill.matches(candidates, limit=len(candidates), weight=0.0)
    assert [candidates[n].score for n in first] == sorted(
        (c.score for c in candidates if c.score > 0), reverse=True
    )


def test_a_recent_date_lifts_a_match() -> None:
    old = spawn_fill.Candidate(2.0, "2026-01-01", 0, 0)
    new = spawn_fill.Candidate(1.5, "2026-03-01", 0, 1)
    assert spawn_fill.matches([old, new], limit=2, weight=0.0) == [0, 1]
    assert spawn_fill.matches([old, new], limit=2, weight=1.0, half_days=7) == [1, 0]


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

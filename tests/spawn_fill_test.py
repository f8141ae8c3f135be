"""The ``--task`` fill order: a permutation of the candidates, the newest in a share of the room, then
the task's matches, the rest newest first; and a fill that keeps to its room."""

from __future__ import annotations

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


@given(CANDIDATES, st.integers(0, 6000), st.floats(0, 1), st.floats(0, 8))
def test_order_is_a_permutation_newest_share_then_matches(
    candidates: list[spawn_fill.Candidate], room: int, share: float, weight: float
) -> None:
    first, rest = spawn_fill.order(candidates, room, share=share, weight=weight)
    assert sorted(first + rest) == list(range(len(candidates)))
    newest = spawn_fill.newest(candidates)
    cap = int(share * room)
    reserved = spawn_fill.fill([c.size for c in candidates], newest, cap) if cap > 0 else []
    assert first[: len(reserved)] == reserved
    assert sum(candidates[n].size for n in reserved) <= share * room
    # after the newest: every match, and only matches
    assert sorted(first[len(reserved) :]) == sorted(
        n for n, c in enumerate(candidates) if c.score > 0 and n not in reserved
    )
    dated = any(c.seen is not None for c in candidates)
    keys = [_newest_key(candidates[n], dated) for n in rest]
    assert keys == sorted(keys, reverse=True)


@given(CANDIDATES, st.integers(0, 6000))
def test_without_a_share_or_a_raise_the_best_matches_come_first(
    candidates: list[spawn_fill.Candidate], room: int
) -> None:
    first, _ = spawn_fill.order(candidates, room, share=0.0, weight=0.0)
    assert [candidates[n].score for n in first] == sorted(
        (c.score for c in candidates if c.score > 0), reverse=True
    )


def test_a_recent_section_lifts_a_match() -> None:
    old = spawn_fill.Candidate(2.0, "2026-01-01", 0, 0)
    new = spawn_fill.Candidate(1.5, "2026-03-01", 0, 1)
    assert spawn_fill.matches([old, new], weight=0.0) == [0, 1]
    assert spawn_fill.matches([old, new], weight=1.0, half_days=7) == [1, 0]
    # history's time outweighs the stated date: the older-looking one reached history last
    later = spawn_fill.Candidate(1.5, "2025-01-01", 0, 1, seen=1_780_000_000.0)
    earlier = spawn_fill.Candidate(2.0, "2026-06-01", 0, 0, seen=1_700_000_000.0)
    assert spawn_fill.matches([earlier, later], weight=1.0, half_days=7) == [1, 0]


def test_newest_is_by_history_then_the_stated_date() -> None:
    a = spawn_fill.Candidate(0.0, "2026-03-01", 0, 0, seen=1_700_000_000.0, size=100)
    b = spawn_fill.Candidate(0.0, "2026-01-01", 3, 0, seen=1_700_100_000.0, size=100)
    unsaved = spawn_fill.Candidate(0.0, None, 2, 5, seen=None, size=100)
    assert spawn_fill.newest([a, b, unsaved]) == [2, 1, 0]  # not in history yet: written since
    # no history at all: the stated date, undated last
    plain = [spawn_fill.Candidate(0.0, d, 0, n) for n, d in enumerate(["2026-03-01", None, "2026-04-01"])]
    assert spawn_fill.newest(plain) == [2, 0, 1]


def test_the_newest_take_their_share_then_the_matches() -> None:
    old_match = spawn_fill.Candidate(5.0, None, 2, 0, seen=1_700_000_000.0, size=300)
    new_other = spawn_fill.Candidate(0.0, None, 0, 0, seen=1_700_900_000.0, size=300)
    big_new = spawn_fill.Candidate(0.0, None, 0, 1, seen=1_701_000_000.0, size=900)
    pool = [old_match, new_other, big_new]
    assert spawn_fill.order(pool, 1000, share=0.5) == ([1, 0], [2])  # the 900 B one does not fit in 500
    assert spawn_fill.order(pool, 1000, share=0.0) == ([0], [2, 1])


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

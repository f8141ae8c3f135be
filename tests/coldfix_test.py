"""The advice for a cold file over its budget, worked out from the sections' last uses, against the
plan ``maintain`` makes with the TTL it names."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

from hypothesis import given, settings
from hypothesis import strategies as st

from squadmem.engine import catalog
from squadmem.engine.planning import coldfix, policy
from squadmem.model import budget
from squadmem.model.places import SQUAD_PLACES
from squadmem.model.settings import Settings

NOW = dt.datetime(2026, 3, 1, 12, tzinfo=dt.UTC)
HOT = ".squad/memory/hot/picard.md"
COLD = ".squad/memory/cold/picard.md"


class Age:
    def __init__(self, days: float | None, kind: str = "content") -> None:
        self.when = None if days is None else NOW - dt.timedelta(days=days)
        self.kind = kind


def _fix(
    files: dict[str, str], ages: Mapping[str, float | None], conf: Settings
) -> tuple[catalog.Memory, dict[str, Age], coldfix.ColdFix | None]:
    memory = catalog.from_texts(files, SQUAD_PLACES)
    uses = {e.id: Age(ages.get(e.id, 1.0)) for e in memory.entries}
    return memory, uses, coldfix.cold_fix(memory, uses, conf, NOW, COLD, policy.plan)


def test_the_least_recently_used_leave_first_under_the_largest_ttl() -> None:
    cold = "".join(f"## Note {n}\n" + "c" * 3000 + "\n" for n in range(6))
    ages = {f"picard/note-{n}": 40.5 - n * 3 for n in range(6)}  # 40.5, 37.5, 34.5 ... days
    *_, fix = _fix({COLD: cold}, ages, Settings().replace(cold={"ttl_days": 60}))
    assert fix is not None
    assert fix.ids == ("picard/note-0", "picard/note-1")  # 4 x 3,011 B stay: 12,044 B <= 12,288 B
    assert fix.ttl_days == 37 and fix.command == "squadmem maintain --agent picard --cold-ttl-days 37"
    assert fix.size == 4 * len("## Note 0\n" + "c" * 3000 + "\n")


def test_hot_sections_the_stale_rule_sends_to_cold_count() -> None:
    """Under the TTL it names, a stale hot section younger than the TTL lands in cold: counted."""
    cold = "".join(f"## Note {n}\n" + "c" * 3000 + "\n" for n in range(5))
    hot = "# Hot\n\n## Stale\n" + "s" * 2000 + "\n"
    ages = {f"picard/note-{n}": 40.0 - n * 3 for n in range(5)} | {"picard/stale": 20.0}
    conf = Settings().replace(cold={"ttl_days": 60})
    memory, uses, fix = _fix({COLD: cold, HOT: hot}, ages, conf)
    assert fix is not None and fix.ids == ("picard/note-0", "picard/note-1")  # not just one: Stale comes in
    made = policy.plan(memory, uses, conf.replace(cold={"ttl_days": fix.ttl_days}), NOW, advise=False)
    assert len(made.files[COLD].encode()) == fix.size


def test_none_when_what_may_move_is_not_enough() -> None:
    cold = "## Pinned\n<!-- squadmem: pin -->\n" + "p" * 13000 + "\n## Old\nold\n"
    _, _, fix = _fix({COLD: cold}, {"picard/old": 50.0}, Settings())
    assert fix is None


_sizes = st.lists(
    st.tuples(st.integers(100, 4000), st.floats(0.5, 80), st.booleans()), min_size=1, max_size=12
)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(cold=_sizes, hot=_sizes, stale=st.sampled_from([3, 7, 20]), ttl=st.sampled_from([10, 30, 90]))
def test_the_fix_is_what_the_plan_with_its_ttl_does(
    cold: list[tuple[int, float, bool]], hot: list[tuple[int, float, bool]], stale: int, ttl: int
) -> None:
    """Titles unique, nothing used recently, hot within its budget: the plan ``maintain`` makes with
    the TTL the fix names moves exactly the sections it names out of the file, to the size it says,
    and with a TTL one step larger the file would stay over."""
    files = {
        COLD: "".join(
            f"## Cold {n}\n{'<!-- squadmem: kind=decision -->' if d else ''}\n{'c' * size}\n"
            for n, (size, _, d) in enumerate(cold)
        ),
        HOT: "# Hot\n" + "".join(f"## Hot {n}\n{'h' * size}\n" for n, (size, _, _) in enumerate(hot)),
    }
    ages = {f"picard/cold-{n}": age for n, (_, age, _) in enumerate(cold)}
    ages |= {f"picard/hot-{n}": age for n, (_, age, _) in enumerate(hot)}
    conf = Settings().replace(
        hot={"stale_days": stale, "max_bytes": 10**6, "max_lines": 10**5},
        cold={"ttl_days": ttl, "max_bytes": 6000},
    )
    memory, uses, fix = _fix(files, ages, conf)
    if fix is None:
        return
    made = policy.plan(memory, uses, conf.replace(cold={"ttl_days": fix.ttl_days}), NOW, advise=False)
    assert tuple(m.id for m in made.moves if m.source == COLD) == fix.ids
    assert len(made.files[COLD].encode()) == fix.size
    assert budget.over(fix.size, 0, budget.limits("cold", conf)) is None

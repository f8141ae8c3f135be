"""``hot.evict``: the order in which the budget pass sends out a hot file's sections.

``"least-recent"`` (the default) sends out the least recently used first;
``"age-bytes"`` the largest (days unused + 1) x bytes first. Either way a
plan conserves every section and a second run plans nothing. Also the
nightly bench's own arithmetic: hot moves are counted apart from expiries,
and a sketched rule sees the budget less an Index.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench import nightly, replay, workload, yardsticks
from squadmem.engine import catalog
from squadmem.engine.planning import policy, rules
from squadmem.model import sections
from squadmem.model import settings as tiers
from squadmem.model.errors import SquadmemError
from squadmem.model.places import SQUAD_PLACES
from squadmem.model.settings import Settings

NOW = dt.datetime(2026, 3, 1, 12, tzinfo=dt.UTC)
HOT = ".squad/memory/hot/picard.md"
COLD = ".squad/memory/cold/picard.md"
AGE_BYTES = Settings().replace(hot={"evict": "age-bytes"})


@dataclasses.dataclass(frozen=True)
class Age:
    when: dt.datetime | None
    kind: str = "content"


def days_ago(days: float, kind: str = "content") -> Age:
    return Age(NOW - dt.timedelta(days=days), kind)


def budget_moves(files: dict[str, str], ages: dict[str, Age], conf: Settings) -> list[str]:
    plan = policy.plan(catalog.from_texts(files, SQUAD_PLACES), ages, conf, NOW)
    assert {m.rule for m in plan.moves} <= {"budget"}
    return [m.id for m in plan.moves]


# Over a 1,000 B budget: an old small section, a large one a day younger, a small fresh one.
FILES = {HOT: "# Hot\n## Old\n" + "o" * 100 + "\n## Large\n" + "l" * 700 + "\n## Fresh\n" + "f" * 300 + "\n"}
AGES = {"picard/old": days_ago(4), "picard/large": days_ago(3), "picard/fresh": days_ago(1)}
SMALL = Settings().replace(hot={"max_bytes": 1000, "index_max_entries": 0})


def test_the_default_sends_out_the_least_recently_used_first() -> None:
    assert Settings().hot.evict == "least-recent"
    assert budget_moves(FILES, AGES, SMALL) == ["picard/old", "picard/large"]


def test_age_bytes_sends_out_a_large_section_before_an_older_small_one() -> None:
    conf = SMALL.replace(hot={"evict": "age-bytes"})
    assert budget_moves(FILES, AGES, conf) == ["picard/large"]  # 4 x 700 B > 5 x 100 B: one move fits


def test_evict_key_orders_by_days_plus_one_times_bytes_then_as_the_default() -> None:
    memory = catalog.from_texts(FILES, SQUAD_PLACES)
    facts = rules.Facts(AGES, AGE_BYTES, NOW)
    order = sorted(memory.entries, key=lambda e: rules.evict_key(e, facts))
    assert [e.id for e in order] == ["picard/large", "picard/fresh", "picard/old"]
    default = rules.Facts(AGES, Settings(), NOW)
    assert sorted(memory.entries, key=lambda e: rules.evict_key(e, default)) == sorted(
        memory.entries, key=default.tie_key
    )


def test_recently_used_sections_still_go_last_under_age_bytes() -> None:
    files = {HOT: "# Hot\n## Big\n" + "b" * 900 + "\n## Small\n" + "s" * 200 + "\n"}
    ages = {"picard/big": Age(NOW - dt.timedelta(hours=2), "trailer"), "picard/small": days_ago(2)}
    conf = SMALL.replace(hot={"evict": "age-bytes"})
    assert budget_moves(files, ages, conf) == ["picard/small"]


def test_tiers_toml_takes_evict_and_refuses_another_word() -> None:
    assert tiers.parse('[hot]\nevict = "age-bytes"\n', Path("t")).hot.evict == "age-bytes"
    with pytest.raises(SquadmemError) as info:
        tiers.parse('[hot]\nevict = "lfu"\n', Path("t"))
    assert "hot.evict" in info.value.message and "'age-bytes'" in info.value.message


_sections = st.lists(
    st.tuples(st.sampled_from("ABCDEFGH"), st.integers(1, 400)).map(lambda t: f"## {t[0]}\n{'x' * t[1]}\n"),
    max_size=8,
)
_ages = st.one_of(
    st.floats(0, 60).map(days_ago),
    st.floats(0, 2).map(lambda d: days_ago(d, "trailer")),
)


@settings(max_examples=60, deadline=None)
@given(
    hot=_sections,
    cold=_sections,
    ages=st.lists(_ages, min_size=16, max_size=16),
    size=st.integers(300, 3000),
)
def test_age_bytes_conserves_sections_and_settles(
    hot: list[str], cold: list[str], ages: list[Age], size: int
) -> None:
    files = {HOT: "# Hot\n" + "".join(hot), COLD: "".join(cold)}
    memory = catalog.from_texts(files, SQUAD_PLACES)
    by_text: dict[str, Age] = {}
    for entry, age in zip(memory.entries, ages, strict=False):
        by_text.setdefault(sections.trimmed(entry.text), age)
    uses = {e.id: by_text.get(sections.trimmed(e.text), days_ago(1)) for e in memory.entries}
    conf = AGE_BYTES.replace(hot={"max_bytes": size}, promote={"rule": "second-use"})
    first = policy.plan(memory, uses, conf, NOW)
    after = catalog.from_texts(first.files, SQUAD_PLACES)
    kept = sorted(sections.trimmed(e.text) for e in after.entries if not e.is_index)
    assert kept == sorted(sections.trimmed(e.text) for e in memory.entries)
    ages_after = {e.id: by_text.get(sections.trimmed(e.text), days_ago(1)) for e in after.entries}
    assert policy.plan(after, ages_after, conf, NOW).moves == ()


# -- the nightly bench ---------------------------------------------------------------------------


def test_hot_moves_are_counted_apart_from_expiries() -> None:
    work = workload.build(workload.Params(agents=2, days=20, seed=4))
    quick = Settings().replace(hot={"max_bytes": 1900}, cold={"ttl_days": 3})
    runner = nightly.Counted(work, quick)
    rows = list(runner.run())
    assert 0 < runner.hot_moves < sum(r.moves for r in rows)  # the TTL fired, and it is not a hot move
    assert rows == replay.model(work, quick)[0]


def test_a_sketch_holds_the_budget_less_the_index() -> None:
    work = workload.build(workload.Params(agents=1, days=30, seed=4))
    agent = work.agents[0]
    cap_bytes, cap_lines = yardsticks.caps(work, agent, Settings())
    kind = nightly.SKETCHES[0]
    stick = kind(work, agent, cap_bytes, cap_lines)
    assert stick.cap_bytes == cap_bytes - nightly.INDEX_BYTES
    lru = nightly.score(list(yardsticks.run(yardsticks.Lru, work, Settings())), work.days)
    less = nightly.score(list(yardsticks.run(kind, work, Settings())), work.days)
    assert less.rate <= lru.rate


@pytest.mark.slow
def test_replay_model_agrees_with_the_real_tool_under_age_bytes(tmp_path: Path) -> None:
    """``hot.evict = "age-bytes"`` read from tiers.toml by the real tool does what the model does,
    agent-day by agent-day and tier file by tier file, and it changes what the budget pass sends out."""
    quick = Settings().replace(
        hot={"stale_days": 2, "max_bytes": 1900, "index_max_entries": 6, "evict": "age-bytes"},
        cold={"ttl_days": 3},
        promote={"rule": "second-use", "repeat_days": 2},
    )
    work = workload.build(workload.Params(agents=2, days=8, seed=4))
    modelled, model_texts = replay.model(work, quick)
    real_rows, real_texts = replay.real(work, quick, tmp_path / "repo")
    assert real_rows == modelled
    assert real_texts == model_texts
    assert modelled != replay.model(work, quick.replace(hot={"evict": "least-recent"}))[0]

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from squadmem.engine import catalog, index
from squadmem.engine.catalog import INDEX_TITLE
from squadmem.engine.planning import policy
from squadmem.model import sections
from squadmem.model.errors import SquadmemError
from squadmem.model.places import SQUAD_PLACES
from squadmem.model.settings import Settings

NOW = dt.datetime(2026, 3, 1, 12, tzinfo=dt.UTC)
HOT = ".squad/memory/hot/picard.md"
COLD = ".squad/memory/cold/picard.md"
ARCHIVE = ".squad/memory/archive/picard.md"


@dataclasses.dataclass(frozen=True)
class Age:
    """A last use, as squadmem.engine.history.lastuse.LastUse gives it (the policy's Use protocol)."""

    when: dt.datetime | None
    kind: str = "content"


def days_ago(days: float, kind: str = "content") -> Age:
    return Age(NOW - dt.timedelta(days=days), kind)


def make(files: dict[str, str], ages: dict[str, Age]) -> tuple[catalog.Memory, dict[str, Age]]:
    memory = catalog.from_texts(files, SQUAD_PLACES)
    missing = {e.id for e in memory.entries} - set(ages)
    return memory, {**{i: days_ago(1) for i in missing}, **ages}


def plan_of(
    files: dict[str, str], ages: dict[str, Age], conf: Settings | None = None, **kw: object
) -> policy.Plan:
    memory, uses = make(files, ages)
    return policy.plan(memory, uses, conf or Settings(), NOW, **kw)  # type: ignore[arg-type]


def moves(plan: policy.Plan) -> list[tuple[str, str, str, str]]:
    return [(m.id, m.source_label, m.target_label, m.reason) for m in plan.moves]


def replan(plan: policy.Plan, before: catalog.Memory, uses: dict[str, Age], conf: Settings) -> policy.Plan:
    """Plan again on the files the plan leaves; ages follow content (as history gives them)."""
    by_text = {sections.trimmed(e.text): uses[e.id] for e in before.entries}
    after = catalog.from_texts(plan.files, SQUAD_PLACES)
    ages = {e.id: by_text.get(sections.trimmed(e.text), Age(None)) for e in after.entries}
    return policy.plan(after, ages, conf, NOW)


# -- the four rules ------------------------------------------------------------------------------


def test_plan_demotes_a_stale_hot_section_to_cold() -> None:
    plan = plan_of(
        {HOT: "# Hot\n## Old\nx\n## New\ny\n"}, {"picard/old": days_ago(9), "picard/new": days_ago(2)}
    )
    assert moves(plan) == [("picard/old", "hot", "cold", "stale 9d > 7d")]
    (move,) = plan.moves
    assert move.subject == 'memory(picard): demote "Old" hot → cold'
    assert move.why == "unused 9 d > 7 d (hot.stale_days)"
    assert move.trailers() == [
        ("Squad-Memory-Move", "picard/old hot -> cold"),
        ("Squad-Memory-Reason", "stale 9d > 7d"),
    ]
    assert plan.files[COLD] == "## Old\nx\n"  # no header function given: a new file starts empty


def test_plan_shows_a_decimal_when_whole_days_would_tie_the_limit() -> None:
    plan = plan_of({HOT: "## Old\nx\n"}, {"picard/old": days_ago(7.5)})
    assert moves(plan) == [("picard/old", "hot", "cold", "stale 7.5d > 7d")]


@pytest.mark.parametrize(
    ("heading", "flags", "target", "reason"),
    [
        ("Plain", "", "archive", "ttl 31d > 30d"),
        ("Chose X", "<!-- squadmem: kind=decision -->\n", "wiki:decisions", "ttl 31d > 30d"),
        ("Port", "<!-- squadmem: kind=fact topic=infra -->\n", "wiki:infra", "ttl 31d > 30d"),
    ],
)
def test_plan_expires_a_cold_section_to_the_wiki_or_the_archive(
    heading: str, flags: str, target: str, reason: str
) -> None:
    plan = plan_of(
        {COLD: f"## {heading}\n{flags}body\n"}, {f"picard/{heading.lower().replace(' ', '-')}": days_ago(31)}
    )
    assert [(m.target_label, m.reason) for m in plan.moves] == [(target, reason)]
    assert plan.moves[0].verb == ("archive" if target == "archive" else "promote")


def test_plan_promotes_a_cold_section_used_recently() -> None:
    plan = plan_of(
        {COLD: "## Auth\nx\n", HOT: "## Now\ny\n"},
        {"picard/auth": Age(NOW - dt.timedelta(hours=3), "trailer")},
    )
    assert moves(plan) == [("picard/auth", "cold", "hot", "used 3h ago")]
    assert plan.moves[0].verb == "promote"


@pytest.mark.parametrize("kind", ["content", "edit", "unknown"])
def test_plan_does_not_promote_a_section_only_written_recently(kind: str) -> None:
    plan = plan_of({COLD: "## Fresh\nx\n"}, {"picard/fresh": Age(NOW - dt.timedelta(hours=1), kind)})
    assert plan.moves == ()


def test_plan_promotes_from_the_archive_too() -> None:
    plan = plan_of({ARCHIVE: "## Deep\nx\n"}, {"picard/deep": Age(NOW - dt.timedelta(minutes=5), "pending")})
    assert moves(plan) == [("picard/deep", "archive", "hot", "used 5min ago")]


def test_plan_never_moves_pinned_session_index_wiki_or_unknown_ages() -> None:
    files = {
        HOT: f"## Session\ns\n## Pinned\n<!-- squadmem: pin -->\np\n## Lost\nl\n## {INDEX_TITLE}\n- x\n",
        COLD: "## Pinned cold\n<!-- squadmem: pin -->\nq\n",
        ".squad/memory/wiki/security.md": "## Rule\nr\n",
    }
    ages = {
        "picard/session": days_ago(90),
        "picard/pinned": days_ago(90),
        "picard/lost": Age(None, "unknown"),
        "picard/index-deeper-tiers": days_ago(90),
        "picard/pinned-cold": days_ago(90),
        "wiki:security/rule": days_ago(900),
    }
    plan = plan_of(files, ages)
    assert plan.moves == ()
    assert any("unknown age" in w and "picard/lost" in w for w in plan.warnings)


def test_plan_orders_demotions_expiries_promotions_and_breaks_ties_by_age_then_file_order() -> None:
    files = {
        HOT: "## H1\na\n## H2\nb\n## H3\nc\n",
        COLD: "## C1\nd\n## C2\ne\n",
        ".squad/memory/cold/worf.md": "## W1\nf\n",
    }
    ages = {
        "picard/h1": days_ago(10),
        "picard/h2": days_ago(20),
        "picard/h3": days_ago(10),
        "picard/c1": days_ago(40),
        "picard/c2": Age(NOW - dt.timedelta(hours=1), "trailer"),
        "worf/w1": days_ago(50),
    }
    plan = plan_of(files, ages)
    assert [m.id for m in plan.moves] == [
        "picard/h2",
        "picard/h1",
        "picard/h3",
        "worf/w1",
        "picard/c1",
        "picard/c2",
    ]


def test_plan_moves_a_section_at_most_once_straight_to_where_it_ends_up() -> None:
    # 40 days unused in hot: past the cold TTL too, so one move to the archive, not two.
    plan = plan_of({HOT: "## Ancient\nx\n"}, {"picard/ancient": days_ago(40)})
    assert moves(plan) == [("picard/ancient", "hot", "archive", "ttl 40d > 30d")]


def test_plan_filters_by_agent() -> None:
    files = {HOT: "## A\nx\n", ".squad/memory/hot/worf.md": "## B\ny\n"}
    plan = plan_of(files, {"picard/a": days_ago(9), "worf/b": days_ago(9)}, agent="worf")
    assert [m.id for m in plan.moves] == ["worf/b"]


def test_plan_is_deterministic() -> None:
    files = {HOT: "".join(f"## S{n}\n{'x' * 300}\n" for n in range(20)), COLD: "## C\nc\n"}
    ages = {f"picard/s{n}": days_ago(n % 5) for n in range(20)}
    first, second = plan_of(files, ages), plan_of(dict(reversed(files.items())), ages)
    assert first.as_dict() == second.as_dict()
    assert first.files == second.files


def test_a_bad_topic_never_reaches_the_plan() -> None:
    """The scanner refuses ``topic=../etc``, so no plan can move a section out of the tiers."""
    with pytest.raises(SquadmemError, match=r"cold/picard.md: topic='\.\./etc': names are letters"):
        plan_of(
            {COLD: "## D\n<!-- squadmem: kind=decision topic=../etc -->\nx\n"}, {"picard/d": days_ago(40)}
        )


def test_plan_keeps_ids_stable_or_leaves_the_section() -> None:
    # hot "Notes" is picard/notes, cold "Notes" picard/notes-2: moving hot's to the end of cold
    # would swap their ids, so it stays, with a warning.
    plan = plan_of({HOT: "## Notes\nnew\n", COLD: "## Notes\nold\n"}, {"picard/notes": days_ago(9)})
    assert plan.moves == ()
    assert any("give one an id= flag" in w for w in plan.warnings)


def test_plan_warns_when_cold_is_over_its_budget() -> None:
    plan = plan_of({COLD: "## Big\n" + "x" * 13000 + "\n"}, {})
    assert any("over cold.max_bytes" in w for w in plan.warnings)


# -- the budget pass and the Index ---------------------------------------------------------------


def _hot(n: int, size: int = 400) -> str:
    return "# Hot\n" + "".join(f"## S{k}\n{'x' * size}\n\n" for k in range(n))


def test_plan_budget_pass_demotes_least_recently_used_until_the_file_fits_with_its_index() -> None:
    files = {HOT: _hot(12)}  # about 4.9 KB
    ages = {f"picard/s{k}": days_ago(6 - k * 0.25) for k in range(12)}  # s0 least recently used
    plan = plan_of(files, ages)
    demoted = [m.id for m in plan.moves]
    assert demoted == [f"picard/s{k}" for k in range(len(demoted))]
    assert all(m.rule == "budget" and m.reason.startswith("over budget ") for m in plan.moves)
    final = plan.files[HOT]
    assert len(final.encode()) <= 4096
    assert index.current(final) is not None
    assert [r.file for r in plan.indexes] == [HOT]
    # one line fewer would have fitted without the Index: it is counted.
    without_index = final.replace(index.current(final) or "", "")
    assert len(without_index.encode()) < len(final.encode())


def test_plan_budget_pass_counts_lines_too() -> None:
    files = {HOT: "".join(f"## S{k}\n" + "l\n" * 20 for k in range(6))}
    ages = {f"picard/s{k}": days_ago(1 + k * 0.1) for k in range(6)}
    plan = plan_of(files, ages)
    assert plan.moves and plan.moves[0].reason.endswith("lines > 100 lines")
    assert plan.moves[0].id == "picard/s5"  # the least recently used one


def test_plan_budget_pass_sends_out_recently_used_sections_last_and_they_stay_out() -> None:
    """Regression: a hot file over budget with only recently used sections stayed over it (a state
    verify and the pre-push hook refuse); they now go, least recently used first, and the promotion
    rule does not bring them straight back (a promotion must fit)."""
    files = {HOT: _hot(12)}
    ages = {f"picard/s{k}": Age(NOW - dt.timedelta(hours=k + 1), "trailer") for k in range(12)}
    plan = plan_of(files, ages)
    assert plan.moves and plan.moves[0].id == "picard/s11"
    assert {m.rule for m in plan.moves} == {"budget"}
    assert len(plan.files[HOT].encode()) <= 4096
    again = plan_of(dict(plan.files), ages)
    assert again.moves == () and again.indexes == ()
    assert any("stays in cold: promoting it" in w for w in again.warnings)


def _pinned_core(size: int) -> str:
    return "# Hot\n## Core Context\n<!-- squadmem: pin -->\n" + "c" * size + "\n"


def _deeper(n: int) -> str:
    return "".join(f"## Learning {k}\n{'l' * 80}\n" for k in range(n))


def test_plan_index_shrinks_rather_than_put_a_pinned_core_context_over_budget() -> None:
    """Regression (a real Squad team: a 3.9 KB Core Context taken in pinned, then maintain's Index
    pushed hot to 4,617 B, a state verify refused): the Index shows fewer lines instead."""
    files = {HOT: _pinned_core(3700), COLD: _deeper(30)}
    ages = {f"picard/learning-{k}": days_ago(3 + k * 0.1) for k in range(30)}
    plan = plan_of(files, ages)
    assert plan.moves == ()
    (refresh,) = plan.indexes
    final = plan.files[HOT]
    assert len(final.encode()) <= 4096
    shown = index.listed_places(refresh.text)
    assert 0 < len(shown) < 10  # hot.index_max_entries: 10
    assert refresh.text.rstrip().endswith(f"- and {30 - len(shown)} more: squadmem list --agent picard")
    assert not any("stays over budget" in w for w in plan.warnings)
    assert plan_of(dict(plan.files), ages).indexes == ()  # settled


def test_plan_index_is_taken_out_when_not_even_its_last_line_fits() -> None:
    files = {HOT: _pinned_core(4000) + f"## {INDEX_TITLE}\n- x\n", COLD: _deeper(3)}
    plan = plan_of(files, {})
    (refresh,) = plan.indexes
    assert refresh.text == ""
    assert plan.files[HOT] == _pinned_core(4000)
    assert not any("stays over budget" in w for w in plan.warnings)
    assert plan_of(dict(plan.files), {}).indexes == ()


def test_plan_keeps_the_whole_index_when_hot_is_over_budget_without_it() -> None:
    files = {HOT: _pinned_core(4200), COLD: _deeper(3)}
    plan = plan_of(files, {})
    (refresh,) = plan.indexes
    assert index.listed(refresh.text) == 3
    assert any("stays over budget" in w for w in plan.warnings)


def test_plan_budget_pass_respects_hot_max_lines_override() -> None:
    conf = Settings().replace(hot={"max_lines": 10})
    plan = plan_of({HOT: "## A\n1\n2\n3\n## B\n1\n2\n3\n## C\n1\n2\n"}, {"picard/a": days_ago(2)}, conf)
    assert [m.id for m in plan.moves][:1] == ["picard/a"]


def test_plan_index_lists_deeper_tiers_and_wiki_topics_newest_first() -> None:
    files = {
        HOT: "# Hot\n## Now\nx\n",
        COLD: "## Old thing\no\n",
        ARCHIVE: "## Older thing\no\n",
        ".squad/memory/wiki/security.md": "## Rule\nr\n## Rule 2\nr\n",
    }
    ages = {
        "picard/old-thing": days_ago(3),
        "picard/older-thing": days_ago(20),
        "wiki:security/rule": days_ago(10),
        "wiki:security/rule-2": days_ago(5),
    }
    plan = plan_of(files, ages)
    (refresh,) = plan.indexes
    assert refresh.subject == "memory(picard): refresh index"
    assert refresh.trailers() == [("Squad-Memory-Index", "picard")]
    assert refresh.text.splitlines()[3:] == [
        f"- Old thing — {COLD} (cold, 2026-02-26)",
        "- security — .squad/memory/wiki/security.md (wiki, 2 sections, 2026-02-24)",
        f"- Older thing — {ARCHIVE} (archive, 2026-02-09)",
    ]
    assert refresh.reads == (COLD, ARCHIVE)


def test_plan_index_is_not_created_when_there_is_nothing_deeper() -> None:
    plan = plan_of({HOT: "## Now\nx\n"}, {})
    assert plan.indexes == ()


def test_plan_index_cap_zero_means_no_index() -> None:
    conf = Settings().replace(hot={"index_max_entries": 0})
    plan = plan_of({HOT: "## Now\nx\n", COLD: "## C\nc\n"}, {}, conf)
    assert plan.indexes == ()


def test_plan_second_run_plans_nothing() -> None:
    """A moved section keeps its age (from content), so it does not bounce back."""
    files = {
        HOT: _hot(12) + "## Stale\ns\n",
        COLD: "## Used\nu\n## Expired\n<!-- squadmem: kind=fact -->\ne\n## Kept\nk\n",
    }
    ages = {f"picard/s{k}": days_ago(6 - k * 0.3) for k in range(12)}
    ages |= {
        "picard/stale": days_ago(8),
        "picard/used": Age(NOW - dt.timedelta(hours=2), "trailer"),
        "picard/expired": days_ago(45),
        "picard/kept": days_ago(10),
    }
    memory, uses = make(files, ages)
    first = policy.plan(memory, uses, Settings(), NOW)
    assert {m.rule for m in first.moves} == {"stale", "ttl", "used", "budget"}
    again = replan(first, memory, uses, Settings())
    assert again.moves == () and again.indexes == ()


# -- manual moves and restores -------------------------------------------------------------------


def test_manual_move_into_hot_counts_as_a_use() -> None:
    memory, uses = make({COLD: "## C\nc\n", HOT: "## H\nh\n"}, {})
    plan = policy.manual(memory, uses, Settings(), NOW, memory.find("picard/c"), "hot", "picard")
    (move,) = plan.moves
    assert (move.reason, move.used, move.verb) == ("manual", ("picard/c",), "promote")


def test_manual_move_that_cannot_keep_its_id_is_refused() -> None:
    memory, uses = make({HOT: "## Notes\nn\n", COLD: "## Notes\nold\n"}, {})
    with pytest.raises(SquadmemError, match="id= flag"):
        policy.manual(memory, uses, Settings(), NOW, memory.find("picard/notes"), "cold", "picard")


def test_restore_plans_a_move_from_history_with_its_revision() -> None:
    memory, uses = make({HOT: "## H\nh\n"}, {})
    plan = policy.restore(
        memory,
        uses,
        Settings(),
        NOW,
        title="Gone",
        text="## Gone\ng\n",
        target_tier="cold",
        target_name="picard",
        rev="a" * 40,
    )
    (move,) = plan.moves
    assert move.trailers() == [
        ("Squad-Memory-Move", "picard/gone history -> cold"),
        ("Squad-Memory-Reason", "manual"),
        ("Squad-Memory-Restore", "a" * 40),
    ]
    assert move.subject == 'memory(picard): restore "Gone" history → cold'
    assert move.used == ("picard/gone",)


# -- properties ----------------------------------------------------------------------------------

_names = st.sampled_from(["Alpha", "Beta", "Gamma", "Delta", "Eps", "Zeta", "Eta"])
_flags = st.sampled_from(["", "", "<!-- squadmem: pin -->\n", "<!-- squadmem: kind=decision -->\n"])
_sections = st.lists(
    st.tuples(_names, _flags, st.integers(0, 600)).map(lambda t: f"## {t[0]}\n{t[1]}{'w' * t[2]}\n"),
    max_size=8,
).map(lambda found: [f"{text}#{n}\n" for n, text in enumerate(found)])  # titles repeat, contents do not
_ages = st.one_of(
    st.none(),
    st.floats(min_value=0, max_value=60).map(lambda d: days_ago(d)),
    st.floats(min_value=0, max_value=2).map(lambda d: days_ago(d, "trailer")),
)


# Derandomized so CI runs the same examples every time; random runs of 20,000 examples found the
# cases below (each now an example), and none since.
@settings(max_examples=150, deadline=None, derandomize=True)
@example(  # a promotion refused because the Index line it frees was looked up by today's id
    hot=[f"## Alpha\n\n#{n}\n" for n in range(8)],
    cold=["## Alpha\n<!-- squadmem: kind=decision -->\n\n#0\n"],
    archive=["## Alpha\n\n#0\n"],
    age_list=[None] * 8 + [days_ago(31.0), days_ago(0.0, "trailer")] + [None] * 20,
    max_bytes=294,
)
@example(  # a promotion refused, then the budget pass made the room it needed
    hot=[f"## Alpha\n\n#{n}\n" for n in range(5)]
    + ["## Alpha\nwwwwwwwwwwwwwwwwwwwwwwwwwwwww\n#5\n", "## Beta\n\n#6\n", "## Alpha\n\n#7\n"],
    cold=["## Alpha\n<!-- squadmem: kind=decision -->\n\n#0\n", "## Beta\n\n#1\n"],
    archive=[],
    age_list=[None] * 5
    + [days_ago(0.0), None, days_ago(31.0), days_ago(31.0), days_ago(0.0, "trailer")]
    + [None] * 20,
    max_bytes=351,
)
@example(  # a recently used section that cannot leave (ids would swap) was counted as room
    hot=["## Alpha\n\n#0\n", "## Alpha\n<!-- squadmem: pin -->\n\n#1\n"]
    + ["## Alpha\n<!-- squadmem: kind=decision -->\n\n#2\n"]
    + [f"## Alpha\n<!-- squadmem: kind=decision -->\n{'w' * n}\n#{k}\n" for k, n in ((3, 546), (4, 560))]
    + [
        "## Beta\n" + "w" * 32 + "\n#5\n",
        "## Gamma\n<!-- squadmem: kind=decision -->\n" + "w" * 50 + "\n#6\n",
    ]
    + ["## Alpha\n" + "w" * 54 + "\n#7\n"],
    cold=[],
    archive=["## Alpha\n\n#0\n"],
    age_list=[None] * 4 + [days_ago(0.0, "trailer")] * 2 + [None, days_ago(0.0, "trailer")] + [None] * 22,
    max_bytes=1668,
)
@example(  # two recently used sections, only the larger had to leave
    hot=["## Alpha\n\n#0\n", "## Beta\n" + "w" * 170 + "\n#1\n"],
    cold=[],
    archive=[],
    age_list=[days_ago(0.0, "trailer")] * 2 + [None] * 28,
    max_bytes=200,
)
@given(
    hot=_sections,
    cold=_sections,
    archive=_sections,
    age_list=st.lists(_ages, min_size=30, max_size=30),
    max_bytes=st.integers(200, 5000),
)
def test_plan_conserves_sections_and_settles(
    hot: list[str], cold: list[str], archive: list[str], age_list: list[Age | None], max_bytes: int
) -> None:
    files = {
        HOT: "# Hot\n" + "".join(f"{t}h\n" for t in hot),
        COLD: "".join(f"{t}c\n" for t in cold),
        ARCHIVE: "".join(f"{t}a\n" for t in archive),
    }
    memory = catalog.from_texts(files, SQUAD_PLACES)
    by_text: dict[str, Age] = {}  # history dates content: the same text has the same age
    for entry, age in zip(memory.entries, age_list, strict=False):
        by_text.setdefault(sections.trimmed(entry.text), age if age is not None else Age(None))
    uses = {e.id: by_text[sections.trimmed(e.text)] for e in memory.entries}
    conf = Settings().replace(hot={"max_bytes": max_bytes})
    first = policy.plan(memory, uses, conf, NOW)
    before = sorted(sections.trimmed(e.text) for e in memory.entries)
    after_memory = catalog.from_texts(first.files, SQUAD_PLACES)
    after = sorted(sections.trimmed(e.text) for e in after_memory.entries if not e.is_index)
    assert after == before
    again = replan(first, memory, uses, conf)
    assert again.moves == ()


def test_a_promotion_that_creates_the_index_settles() -> None:
    """A newcomer whose room was a same-titled hot section: once it is in, that section cannot leave
    (their ids would swap), so the room is not counted and the promotion waits with a warning."""
    test_plan_conserves_sections_and_settles.hypothesis.inner_test(  # type: ignore[attr-defined]
        hot=["## Beta\n\n#0\n"]
        + [f"## Alpha\n\n#{n}\n" for n in range(1, 5)]
        + ["## Alpha\n" + "w" * 68 + "\n#5\n"],
        cold=[],
        archive=[f"## Alpha\n\n#{n}\n" for n in range(6)] + ["## Beta\n\n#6\n"],
        age_list=[days_ago(0.0)] + [None] * 11 + [days_ago(0.0, "trailer")] + [None] * 17,
        max_bytes=507,
    )

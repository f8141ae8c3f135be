"""Which sections a change removes (the deletion trailer's ids), by the rule verify applies."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from squadmem.engine import catalog, titles
from squadmem.engine.verify import conservation
from squadmem.model import removals
from squadmem.model.places import SQUAD_PLACES, WORKSPACE, Places
from squadmem.model.sections import slugify

FILES = {
    "hot": ".squad/memory/hot/a.md",
    "cold": ".squad/memory/cold/a.md",
    "archive": ".squad/memory/archive/a.md",
}
TITLES = ["Notes", "Ferry", "Auth *tokens*", "Use `git`", "Session", "Plan", "Notes 2"]

sections_st = st.lists(
    st.tuples(st.sampled_from(TITLES), st.sampled_from(list(FILES)), st.booleans()),
    min_size=1,
    max_size=8,
)


def build(items: list[tuple[str, str, int]]) -> dict[str, str]:
    """Tier files from (title, tier, number) items; each body is unique (its number)."""
    texts = {rel: "# header\n" for rel in FILES.values()}
    for title, tier, number in items:
        texts[FILES[tier]] += f"\n## {title}\nbody {number}\n"
    return texts


def ids(texts: dict[str, str]) -> list[str]:
    memory = catalog.from_texts(texts, SQUAD_PLACES)
    return [e.id for e in memory.entries if not e.is_index and not e.is_session]


@settings(max_examples=60, deadline=None)
@given(sections_st, st.data())
def test_removed_names_exactly_the_sections_taken_out(
    found: list[tuple[str, str, bool]], data: st.DataObject
) -> None:
    """Nothing lost unnamed, nothing named that is still there: the ids are the catalog's."""
    items = [(title, tier, n) for n, (title, tier, _) in enumerate(found)]
    before = build(items)
    gone = data.draw(st.sets(st.sampled_from(range(len(items)))))
    after = build([item for n, item in enumerate(items) if n not in gone])
    named = removals.removed(before, after, SQUAD_PLACES, titles.plain)
    old, new = (conservation.snapshot(catalog.from_texts(t, SQUAD_PLACES)) for t in (before, after))
    unnamed = {sid for *_, sid, _ in conservation.lost(new, [old], None, set())}
    in_archive = {e.id for e in catalog.from_texts(before, SQUAD_PLACES).entries if e.tier == "archive"}
    assert len(named) == len(set(named))
    assert set(named) - in_archive == unnamed  # exactly what verify would call lost
    assert conservation.lost(new, [old], None, set(named)) == []  # verify accepts them named
    if not gone:
        assert named == []


@settings(max_examples=60, deadline=None)
@given(sections_st, st.data())
def test_moves_between_tiers_and_edits_remove_nothing(
    found: list[tuple[str, str, bool]], data: st.DataObject
) -> None:
    """(A "Session" section stays where it is: in hot it is the session block, which no rule counts.)"""
    items = [(title, tier, n) for n, (title, tier, _) in enumerate(found)]
    before = build(items)
    moved = [
        (title, data.draw(st.sampled_from(list(FILES))) if flip and title != "Session" else tier, n)
        for (title, tier, n), (_, _, flip) in zip(items, found, strict=True)
    ]
    after = build(moved)
    assert removals.removed(before, after, SQUAD_PLACES, titles.plain) == []
    edited = {rel: text.replace("body ", "the body ") for rel, text in before.items()}
    assert removals.removed(before, edited, SQUAD_PLACES, titles.plain) == []


@settings(max_examples=60, deadline=None)
@given(sections_st)
def test_ids_are_the_catalogs(found: list[tuple[str, str, bool]]) -> None:
    items = [(title, tier, n) for n, (title, tier, _) in enumerate(found)]
    before = build(items)
    assert removals.removed(before, {}, SQUAD_PLACES, titles.plain) == ids(before)


@pytest.mark.parametrize(
    "heading",
    [
        "Ferry timetable",
        "Fix *auth* tokens",
        "Use `git log` first",
        "See [the docs](https://example.com/x) now",
        "Tom &amp; Jerry",
        "<b>Bold</b> move",
        "a*b*c",
        "snake_case names",
        "**Strong** start",
        "~~old~~ new",
        "1. First",
        "Auth \\*x",
        "<https://example.com>",
        "![logo](a.png) pic",
        "C++ & C#",
        "2026-11-02 retro",
    ],
)
def test_rough_title_slugs_as_the_exact_title_does(heading: str) -> None:
    """The hooks name a section by the id verify gives it (no Markdown parser on a commit)."""
    assert slugify(removals.rough_title(heading)) == slugify(titles.plain(heading))


def test_workspace_removal_names_the_workspace_agent() -> None:
    places = Places(WORKSPACE, "main")
    before = {"MEMORY.md": "# M\n\n## Card\nx\n\n## Index → Deeper Tiers\n- none\n"}
    after = {"MEMORY.md": "# M\n\n## Index → Deeper Tiers\n- none\n"}
    assert removals.removed(before, after, places) == ["main/card"]
    assert removals.removed(before, {"MEMORY.md": "# M\n"}, places) == ["main/card"]  # not the Index

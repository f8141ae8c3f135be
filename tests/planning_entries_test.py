"""New entries planned in the planning's projection: the fit's sizes, the room made, nothing lost."""

from __future__ import annotations

import collections
import datetime as dt
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from squadmem.engine import catalog, index
from squadmem.engine.planning import entries, fit
from squadmem.engine.planning.projection import Projection
from squadmem.model import budget, sections, squad
from squadmem.model.errors import SquadmemError
from squadmem.model.places import SQUAD_PLACES
from squadmem.model.sections import trimmed
from squadmem.model.settings import HotSettings, Settings

NOW = dt.datetime(2026, 3, 1, 9, tzinfo=dt.UTC)
HISTORY = ".squad/agents/picard/history.md"
INDEX = f"## {catalog.INDEX_TITLE}\n\n- nothing in cold, archive or the wiki yet\n"

# pieces of a tier file, some of which leave a block open or drop the last line ending
PIECES = st.sampled_from(
    [
        "## A\n",
        "## B\r\n",
        "text\n",
        "```\n",
        INDEX,
        "- item\n",
        "\n",
        "<!-- squadmem: pin -->\n",
        "T\n---\n",
        "x",
    ]
)
TEXTS = st.lists(PIECES, max_size=12).map("".join)
NEW = st.lists(PIECES, max_size=5).map(lambda pieces: "## New\n" + "".join(pieces))


@given(TEXTS, NEW)
def test_grown_is_the_size_an_insert_leaves(text: str, new: str) -> None:
    doc = index.Doc(text)
    try:
        expected = budget.measure(index.insert(text, new))
    except index.SpliceError:
        with pytest.raises(index.SpliceError):
            fit.grown(doc, new)
        return
    assert fit.grown(doc, new) == expected
    assert doc.text() == text


@given(TEXTS, NEW, st.integers(0, 120), st.randoms(use_true_random=False))
def test_room_is_the_first_sections_that_make_it_fit(
    text: str, new: str, max_bytes: int, rnd: random.Random
) -> None:
    doc = index.Doc(text)
    leaving = [s.text for s in index.split(text).sections]
    rnd.shuffle(leaving)
    hot = HotSettings(max_bytes=max_bytes)

    def fits_without(count: int) -> bool:
        trial = index.Doc(text)
        for each in leaving[:count]:
            trial.remove(each)
        return fit.over_with(trial, new, hot) is None

    try:
        out = fit.room(doc, new, leaving, hot)
        enough = [n for n in range(1, len(leaving) + 1) if fits_without(n)]
    except index.SpliceError:
        return
    assert doc.text() == text
    assert out == (leaving[: enough[0]] if enough else [])


def history(count: int) -> str:
    learnings = "".join(f"### Topic {n}\nfact {n} " + "word " * (n % 7) + "\n\n" for n in range(count))
    return "# Project Context\n\n## Core Context\n\nPicard leads.\n\n## Learnings\n\n" + learnings


@st.composite
def tiers(draw: st.DrawFn) -> dict[str, str]:
    """Picard's hot, cold and archive files (hot with its Index or not), and one decisions page."""
    texts = {}
    for tier in ("hot", "cold", "archive", "wiki"):
        count = draw(st.integers(0, 4))
        body = "".join(f"## {tier} {n}\n" + "line\n" * draw(st.integers(1, 8)) for n in range(count))
        if tier == "hot" and draw(st.booleans()):
            body += "## Core Context\n<!-- squadmem: pin -->\nolder core\n"
        if tier == "hot" and draw(st.booleans()):
            body += INDEX
        if body:
            name = "decisions" if tier == "wiki" else "picard"
            texts[SQUAD_PLACES.tier_rel(tier, name)] = f"# {tier}\n\n" + body
    return texts


@given(
    tiers(),
    st.integers(0, 12),
    st.lists(st.integers(0, 60), min_size=12, max_size=12),
    st.integers(0, 600),
    st.booleans(),
)
def test_entries_planned_lose_nothing_and_repeat_nothing(
    texts: dict[str, str], count: int, ages: list[int], max_bytes: int, retire: bool
) -> None:
    """Every section of the tier files and every new entry ends in exactly one file, byte for byte."""
    new = [e for e in squad.entries(HISTORY, history(count)) if not e.left_open]
    first_seen = {e.key: NOW - dt.timedelta(days=ages[n % len(ages)]) for n, e in enumerate(new)}
    settings = Settings(hot=HotSettings(max_bytes=max_bytes))
    projection = Projection(catalog.from_texts(texts, SQUAD_PLACES), lambda tier, name: f"# {name}\n\n")
    old = (
        {sections.content_key("## Core Context\n<!-- squadmem: pin -->\nolder core\n").hex()}
        if retire
        else set()
    )
    placed = entries.place(new, first_seen, settings, NOW, SQUAD_PLACES)
    try:
        placed, relocated, _ = entries.fit_hot(projection, placed, old, settings, lambda text: len(text))
        placed = entries.paged(placed, projection)
        entries.put(projection, placed)
    except SquadmemError:
        return
    before = collections.Counter(trimmed(s.text) for t in texts.values() for s in sections.split(t).sections)
    before.update(trimmed(e.text) for e in new)
    after_texts = {rel: projection.text(rel) for rel in projection.rels()}
    after = collections.Counter(
        trimmed(s.text) for t in after_texts.values() for s in sections.split(t).sections
    )
    assert after == before
    for p in placed:
        assert p.entry.text in after_texts[p.target]
    for r in relocated:
        target = SQUAD_PLACES.tier_rel(r.tier, "picard")
        assert r.text in after_texts[target] and (r.text not in after_texts.get(r.source, ""))

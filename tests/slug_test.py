"""Repeated titles numbered one at a time (``-2``, ``-3``) as a whole owner's numbering would."""

from __future__ import annotations

from hypothesis import event, given, settings
from hypothesis import strategies as st

from squadmem.engine import catalog, index
from squadmem.engine.planning.projection import Projection, no_header
from squadmem.model import sections, slug
from squadmem.model.places import SQUAD_PLACES


def taken_numbers(base: str, slugs: list[str]) -> list[int]:
    """The numbers ``n`` (sorted) for which ``<base>-n`` is among ``slugs``: the repeats of ``base``
    skip them."""
    return sorted({found[1] for s in slugs if (found := slug.repeat_of(s)) is not None and found[0] == base})


BASES = st.sampled_from(["a", "a-2", "a-3", "a-02", "a-2-2", "a-1", "b", "b-10"])


@given(st.lists(BASES, min_size=1, max_size=20))
def test_numbered_matches_assign_slugs(bases: list[str]) -> None:
    ranks: dict[str, int] = {}
    expected = sections.assign_slugs(bases)
    for base, want in zip(bases, expected, strict=True):
        rank = ranks.get(base, 0)
        ranks[base] = rank + 1
        assert slug.numbered(base, rank, taken_numbers(base, bases)) == want


def test_repeat_of_reads_only_what_numbering_writes() -> None:
    assert slug.repeat_of("auth-2") == ("auth", 2)
    assert slug.repeat_of("auth-12") == ("auth", 12)
    assert [slug.repeat_of(s) for s in ("auth", "auth-1", "auth-02", "auth-0", "auth-٣", "-")] == [None] * 6


TITLES = st.sampled_from(["Same", "Same 2", "Other", "Same 3"])
TIERS = st.sampled_from(["hot", "cold", "archive"])


def _file(titles: list[str], tag: str) -> str:
    return "# t\n\n" + "".join(f"## {title}\n\n{tag} {n}\n\n" for n, title in enumerate(titles))


@given(
    st.fixed_dictionaries({tier: st.lists(TITLES, max_size=6) for tier in ("hot", "cold", "archive")}),
    st.lists(st.tuples(TIERS, st.integers(0, 20), TIERS), max_size=12),
    st.sampled_from(["none", "last", "first"]),
)
@settings(max_examples=300)
def test_projection_ids_match_a_whole_renumbering(
    files: dict[str, list[str]], moves: list[tuple[str, int, str]], index_at: str
) -> None:
    """Ids followed move by move (with ranks, not a renumbering of the owner per move: that was
    quadratic, 16 s for 2,500 sections sharing a title) are the ids the files get when read again."""
    texts = {f".squad/memory/{tier}/picard.md": _file(titles, tier) for tier, titles in files.items()}
    hot, listing = ".squad/memory/hot/picard.md", f"## {catalog.INDEX_TITLE}\n- none\n\n"
    if index_at == "last":
        texts[hot] += listing
    elif index_at == "first":  # an Index edited by hand into the middle: sections follow it
        texts[hot] = "# t\n\n" + listing + texts[hot].removeprefix("# t\n\n")
    projection = Projection(catalog.from_texts(texts, SQUAD_PLACES), no_header)
    for source_tier, pick, target_tier in moves:
        source = f".squad/memory/{source_tier}/picard.md"
        now = catalog.from_texts(projection.texts(), SQUAD_PLACES)
        held = [e for e in now.entries if e.file == source and e.title != catalog.INDEX_TITLE]
        if not held or source_tier == target_tier:
            continue
        entry = held[pick % len(held)]
        try:
            ident, _ = projection.move(source, target_tier, "picard", entry.text)
        except index.SpliceError:
            continue
        assert ident == entry.id
        event("moved")
        after = {
            e.id for e in catalog.from_texts(projection.texts(), SQUAD_PLACES).entries if e.text == entry.text
        }
        assert ident in after
        got = [ident for _, _, ident in projection.ids("picard")]
        assert got == [e.id for e in catalog.from_texts(projection.texts(), SQUAD_PLACES).entries]


def test_doc_finds_identical_sections_in_file_order() -> None:
    """Of sections with one text, ``find`` gives the first in the file without walking it (walking
    the file per move made 16,000 identical hot sections take minutes)."""
    section = "## a\n"
    doc = index.Doc("# h\n" + section * 3 + f"## {catalog.INDEX_TITLE}\n- x\n")
    first = doc.find(section)
    assert first is not None and first is doc.head
    doc.cut(first)
    assert doc.find(section) is doc.head
    added = doc.insert(section)  # just before the Index: after the two left
    assert doc.nodes().index(added) == 2
    while (node := doc.find(section)) is not None:
        assert node is doc.head
        doc.cut(node)
    assert doc.text() == f"# h\n## {catalog.INDEX_TITLE}\n- x\n"

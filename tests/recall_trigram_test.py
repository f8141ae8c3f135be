"""Words inside longer ones: the trigram table finds exactly what a scan of every section finds."""

from __future__ import annotations

import json
import re

import pytest
from conftest import GitRepo, squadmem
from hypothesis import given, settings
from hypothesis import strategies as st

from squadmem.engine.search import index as search_index
from squadmem.engine.search import ranking

DAY = "2026-03-01T12:00:00+00:00"
ALPHABET = "abcxyzABC0129_.-#/"  # letters, digits and the characters that join a name's parts
_TOKEN = re.compile(r"[^\W_]+")


def holds_whole(word: str, text: str) -> bool:
    """The index's whole-word rule, written out: the word's parts as consecutive tokens of the text,
    the last as a prefix unless it is a number."""
    parts = ranking.tokens(word)
    tokens = [t.casefold() for t in _TOKEN.findall(text)]
    if not parts:
        return False
    for start in range(len(tokens) - len(parts) + 1):
        window = tokens[start : start + len(parts)]
        last = parts[-1]
        if window[:-1] == parts[:-1] and (
            window[-1] == last or (not last.isdigit() and window[-1].startswith(last))
        ):
            return True
    return False


def holds_inside(word: str, text: str) -> bool:
    """A word of at least three characters that is not a number, inside the text, case folded."""
    parts = ranking.tokens(word)
    if (parts and parts[-1].isdigit()) or len(word.casefold()) < search_index.MIN_INSIDE:
        return False
    return word.casefold() in text.casefold()


def brute_force(word: str, texts: list[str]) -> set[str]:
    return {f"e{n}" for n, text in enumerate(texts) if holds_whole(word, text) or holds_inside(word, text)}


def scanned(word: str, texts: list[str]) -> set[str]:
    """What a scan finds; when it finds nothing, the sections holding a part of a joined word whole
    (``0_0``: ``0``; the stop words left out)."""
    direct = brute_force(word, texts)
    if direct:
        return direct
    parts = (
        [p for p in ranking.tokens(word) if p not in search_index.STOP_WORDS]
        if len(ranking.tokens(word)) > 1
        else []
    )
    return {f"e{n}" for n, text in enumerate(texts) if any(holds_whole(p, text) for p in parts)}


def index_of(texts: list[str], trigram: bool) -> search_index.SearchIndex:
    index = search_index.SearchIndex(None, trigram=trigram)
    index._replace(
        [], [("", text, f"e{n}", "archive", "f", "a", "a", "0") for n, text in enumerate(texts)], OWNER
    )
    return index


def found(index: search_index.SearchIndex, word: str) -> set[str]:
    hits, total = index.search([word], limit=10**6)
    ids = [h.id for h in hits]
    assert len(ids) == len(set(ids)) and total == len(ids)
    return set(ids)


OWNER = [("a", "", None, None)]
texts = st.lists(st.text(ALPHABET + "   \n", max_size=60), min_size=1, max_size=12)


@settings(max_examples=150, deadline=None)
@given(texts, st.data(), st.booleans())
def test_an_identifier_finds_what_a_scan_finds(corpus: list[str], data: st.DataObject, trigram: bool) -> None:
    """Found: the sections naming the word whole (its parts in order, the last as a prefix) or holding
    it inside a longer word; with the trigram table and, where SQLite has none, by the scan; when
    none does, those holding one of its parts whole."""
    source = data.draw(st.sampled_from(corpus))
    pieces = source.split() or ["abc"]
    piece = data.draw(st.sampled_from(pieces))
    start = data.draw(st.integers(0, max(0, len(piece) - 1)))
    word = data.draw(st.one_of(st.just(piece[start:] or piece), st.text(ALPHABET, min_size=1, max_size=6)))
    index = index_of(corpus, trigram)
    try:
        assert found(index, word.casefold()) == scanned(word, corpus)
    finally:
        index.close()


@settings(max_examples=60, deadline=None)
@given(texts, texts, st.text("abcxyz0129", min_size=3, max_size=5))
def test_an_owner_indexed_again_leaves_no_trigram_behind(old: list[str], new: list[str], word: str) -> None:
    """An owner's rows replaced (its file changed): its old text is found no more, its new text is."""
    index = search_index.SearchIndex(None)
    rows = [("", t, f"e{n}", "archive", "f", "a", "a", "0") for n, t in enumerate(old)]
    index._replace([], rows, OWNER)
    assert found(index, word) == brute_force(word, old)  # the trigrams of the old rows made
    index._replace(["a"], [("", t, f"e{n}", "archive", "f", "a", "a", "0") for n, t in enumerate(new)], OWNER)
    try:
        assert found(index, word) == brute_force(word, new)
    finally:
        index.close()


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("cache", {"e0", "e1"}),  # inside accessTokenCache, and whole
        ("ref0x100", {"e2", "e3"}),  # an identifier, and inside a longer one
        ("0x10", {"e2", "e3"}),  # inside only
        ("straße", {"e4"}),  # folded as Python folds: STRASSE
        ("#12", set()),  # a number: whole only
        ("ok", set()),  # too short to look for inside (accessTokenCache)
        ("ca", {"e1"}),  # yet a prefix: cache
    ],
)
def test_words_inside_longer_ones(word: str, expected: set[str]) -> None:
    corpus = ["see accessTokenCache", "the cache", "ref0x100 here", "xref0x1000 there", "STRASSE", "#123"]
    index = index_of(corpus, trigram=True)
    try:
        assert index.grams and found(index, word) == expected
    finally:
        index.close()


def test_an_edited_file_is_looked_inside_as_it_is_now(repo: GitRepo) -> None:
    """The trigrams of an owner whose file changed are made again: the old text is found no more."""
    path = ".squad/memory/archive/worf.md"
    repo.commit("m", {path: "# Archive\n\n## Cache\nThe accessTokenCache is warm.\n"}, date=DAY)
    assert recalled(repo, "okenca") == ["worf/cache"]
    repo.write(path, "# Archive\n\n## Cache\nThe sessionStore is warm.\n")
    assert recalled(repo, "okenca") == [] and recalled(repo, "ionsto") == ["worf/cache"]


def recalled(repo: GitRepo, query: str) -> list[str]:
    code, out, err = squadmem(repo, "recall", query, "--json", "--no-record", "--no-logs")
    assert code == 0, err
    return [s["id"] for s in json.loads(out)["sections"]]

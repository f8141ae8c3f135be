"""A query of more than one word is ranked by Okapi BM25 on its tokens, a token counting the longer
words it begins (as SQLite's prefix query matches them), the names among the words first."""

from __future__ import annotations

import collections
import math
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from squadmem.engine.search import index as search_index
from squadmem.engine.search import ranking

VOCABULARY = [
    *("token", "tokens", "cache", "retry", "login", "vault", "keys", "deploy", "deploys", "deployed"),
    *("release", "crash", "the", "12", "123"),
]


def reference(entries: list[tuple[str, str]], terms: list[str]) -> dict[str, float]:
    """Okapi BM25 (k1 1.2, b 0.75) written out here: a term counts each token it begins, a number
    itself only; a section is its whole text."""
    docs = {i: re.findall(r"[a-z0-9]+", text.lower()) for i, text in entries}

    def held(term: str, token: str) -> bool:
        return token == term or (not term.isdigit() and token.startswith(term))

    average = sum(len(d) for d in docs.values()) / len(docs)
    scores = {}
    for entry_id, doc in docs.items():
        value = 0.0
        for term in terms:
            holding = sum(1 for d in docs.values() if any(held(term, t) for t in d))
            weight = math.log((len(docs) - holding + 0.5) / (holding + 0.5) + 1.0)
            tf = sum(1 for t in doc if held(term, t))
            value += weight * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len(doc) / average)) if tf else 0.0
        if value > 0:
            scores[entry_id] = value
    return scores


body = st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=20).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(body, min_size=1, max_size=25),
    st.lists(st.sampled_from([w for w in VOCABULARY if w != "the"]), min_size=2, max_size=6, unique=True),
    st.integers(min_value=1, max_value=8),
)
def test_recall_lists_the_best_bm25_scores_best_first(
    sections: list[str], words: list[str], limit: int
) -> None:
    entries = [(f"e{n}", f"## Entry {n}\n{text}\n") for n, text in enumerate(sections)]
    query = " ".join(words)
    found = search_index.rank(query, entries, limit)
    terms = list(dict.fromkeys(t for w in search_index.content_words(words) for t in ranking.tokens(w)))
    expected = reference(entries, terms)
    numbers = [w for w in words if w.isdigit()]  # a number is a name: the sections naming it first
    if not numbers:
        listed = [round(expected.get(entry_id, 0.0), 9) for entry_id in found]
        best = sorted((round(v, 9) for v in expected.values()), reverse=True)[:limit]
        assert listed[: len(best)] == best  # the best scores, best first (ties in any order)
    assert len(found) >= min(limit, len(expected))  # every section holding a word, up to the limit


def test_a_longer_form_counts_and_a_number_is_itself() -> None:
    entries = [
        ("a", "## One\nwe deployed and deploys were fine, release 123\n"),
        ("b", "## Two\nthe vault keys and the cache\n"),
        ("c", "## Three\nthe release of 12\n"),
    ]
    assert search_index.rank("deploy vault", entries)[0] == "a"  # deployed, deploys: two of deploy
    assert search_index.rank("release 12", entries)[0] == "c"  # 123 is not 12


def test_a_name_in_the_words_comes_first() -> None:
    entries = [
        ("a", "## Release notes\nthe release notes list the release; write the notes\n"),
        ("b", "## Crash\nthe dashboard crashed; fixed in #123\n"),
    ]
    assert search_index.rank("release notes for #123", entries) == ["b", "a"]
    assert search_index.rank("release notes for the fix", entries)[0] == "a"


def test_a_word_with_diacritics_weighs_as_the_sections_holding_it() -> None:
    """SQLite stores ``décision`` as ``decision``; its count is SQLite's, so a word every section
    holds weighs as little as any such word."""
    entries = [
        ("a", "## Una\ndécision décision décision décision\n"),
        ("b", "## Dos\nla décision y el despliegue\n"),
        ("c", "## Tres\nla décision sobre claves\n"),
    ]
    assert search_index.rank("décision despliegue", entries)[0] == "b"  # the rare word decides
    assert search_index.rank("décision claves", entries)[0] == "c"


def test_forms_counts_what_a_term_begins() -> None:
    count = collections.Counter(["deploy", "deploys", "deployed", "12", "123", "key"])
    assert ranking.forms(count, ["deploy", "12", "keys"]) == {"deploy": 3, "12": 1}


def test_how_many_hold_a_word_is_counted_past_what_is_looked_at() -> None:
    """The count of sections holding a word is every one of them, whether fewer or more came back
    than the search looks at (a name: the best hundred; words: the best fifty)."""
    rows = [(f"Entry {n}", f"## Entry {n}\nthe vault{' keys' if n < 3 else ''}\n") for n in range(130)]
    index = search_index.SearchIndex(None)
    entries = [(t, x, f"e{n}", "archive", "", "", "", "0") for n, (t, x) in enumerate(rows)]
    index._replace([], entries, [("", "", None, None)])
    assert index.search(["vault"], limit=5)[1] == 130  # past the hundred a name looks at
    assert index.search(["vault", "keys"], limit=5)[1] == 130  # past the fifty words look at
    found, total = index.search(["keys", "lock"], limit=5)
    assert total == 3 and [f.id for f in found] == ["e0", "e1", "e2"]  # fewer than asked for

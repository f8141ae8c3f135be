"""A query of more than one word is ranked by Okapi BM25 on its tokens, as ``context --task`` ranks."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from squadmem.engine.search import index as search_index
from squadmem.engine.search import ranking

VOCABULARY = [
    *("token", "cache", "retry", "login", "vault", "keys", "deploy", "notes", "release", "crash", "the")
]


class Section:
    def __init__(self, text: str) -> None:
        self.text = text
        self.title = text.split("\n", 1)[0].lstrip("# ")


def scores(entries: list[tuple[str, str]], query: str) -> dict[str, float]:
    """Each section's BM25 score as ``context --task`` gives it, for the query's words but stop words."""
    asked = search_index.content_words(ranking.words(query))
    terms = ranking.query_tokens(" ".join(asked))
    sections = [Section(text) for _, text in entries]
    by_text = {id(s): entry_id for s, (entry_id, _) in zip(sections, entries, strict=True)}
    return {by_text[id(s)]: value for s, value in ranking.bm25(sections, terms)}


body = st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=20).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(body, min_size=1, max_size=25),
    st.lists(st.sampled_from(VOCABULARY[:-1]), min_size=2, max_size=6, unique=True),
    st.integers(min_value=1, max_value=8),
)
def test_recall_lists_the_best_bm25_scores_best_first(
    sections: list[str], words: list[str], limit: int
) -> None:
    entries = [(f"e{n}", f"## Entry {n}\n{text}\n") for n, text in enumerate(sections)]
    query = " ".join(words)
    found = search_index.rank(query, entries, limit)
    expected = scores(entries, query)
    listed = [round(expected.get(entry_id, 0.0), 9) for entry_id in found]
    best = sorted((round(v, 9) for v in expected.values()), reverse=True)[:limit]
    assert listed[: len(best)] == best  # the best scores, best first (ties in any order)
    assert len(found) >= min(limit, len(expected))  # every section holding a word, up to the limit


def test_an_example_by_hand() -> None:
    entries = [
        ("a", "## Deploy\ndeploy the keys, then deploy again\n"),
        ("b", "## Vault\nthe vault keys\n"),
        ("c", "## Crash\nlogin crash on retry\n"),
    ]
    assert search_index.rank("vault keys", entries) == ["b", "a"]  # vault: only b holds it
    assert search_index.rank("deploy keys", entries) == ["a", "b"]


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

"""recall ranks by any of the query's words: a task sentence is a query, names still come first."""

from __future__ import annotations

import json

from conftest import GitRepo, squadmem
from hypothesis import given, settings
from hypothesis import strategies as st

from squadmem.engine.search import index as search_index
from squadmem.engine.search import ranking

DAY = "2026-03-01T12:00:00+00:00"
ENTRIES = {
    "auth-retry": "## Login retry\nThe login form retries a failed token refresh; see auth_client.py.\n",
    "release": "## Release notes\nThe release notes list every fix; write the notes before the release.\n",
    "flaky": "## Flaky tests\nThe test suite is flaky on CI when the network is slow.\n",
    "billing": "## Billing worker\nThe billing worker sends invoices every night.\n",
    "issue": "## Dashboard crash\nThe dashboard crashed on empty data; fixed in #123.\n",
    "deploy": "## Deploy steps\nDeploy with the staging keys first, then production.\n",
    "docs": "## Docs style\nThe docs use short sentences and one idea a paragraph.\n",
    "vault": "## Vault layout\nSecrets live in the vault under the team's path.\n",
}
TASK = "Fix the flaky login retry after the token refresh change"


def ids(repo: GitRepo, query: str, *args: str) -> list[str]:
    code, out, err = squadmem(repo, "recall", query, "--json", "--no-record", "--no-logs", *args)
    assert code == 0, err
    return [s["id"] for s in json.loads(out)["sections"]]


def memory(repo: GitRepo) -> GitRepo:
    text = "# Archive\n\n" + "".join(ENTRIES.values())
    repo.commit("memory", {".squad/memory/archive/worf.md": text}, date=DAY)
    return repo


def test_a_task_sentence_finds_its_entry_in_the_top_5(repo: GitRepo) -> None:
    """Every word was required: a sentence found nothing."""
    found = ids(memory(repo), TASK)
    assert found[:2] == ["worf/login-retry", "worf/flaky-tests"]
    assert "worf/billing-worker" not in found  # holds none of the sentence's words but stop words


def test_the_engine_ranks_as_recall_does(repo: GitRepo) -> None:
    entries = [
        (f"worf/{text.split(chr(10))[0][3:].lower().replace(' ', '-')}", text) for text in ENTRIES.values()
    ]
    for query in (TASK, "release", "#123 dashboard", "the"):
        assert search_index.rank(query, entries) == ids(memory(repo), query)


def test_a_name_in_a_sentence_comes_first(repo: GitRepo) -> None:
    """The section naming #123 comes first though others hold more of the sentence's words."""
    found = ids(memory(repo), "Write the release notes for the fix of #123 before the release")
    assert found[0] == "worf/dashboard-crash" and found[1] == "worf/release-notes"


def test_a_one_word_name_comes_first(repo: GitRepo) -> None:
    """A query of one word is a thing's name: the section naming it as a file comes first."""
    found = ids(memory(repo), "auth_client.py")
    assert found[0] == "worf/login-retry"


def test_stop_words_are_left_out_unless_there_is_nothing_else(repo: GitRepo) -> None:
    memory(repo)
    assert ids(repo, "the vault") == ids(repo, "vault") == ["worf/vault-layout"]
    assert len(ids(repo, "the", "--limit", "20")) == 8  # a query of stop words only still finds them


def test_more_of_the_words_rank_first(repo: GitRepo) -> None:
    found = ids(memory(repo), "staging production vault")
    assert found == ["worf/deploy-steps", "worf/vault-layout"]


WORDS = ["token", "tokens", "cache", "auth_client.py", "#12", "#123", "FR-022", "the", "a", "retry", "xyz"]
text = st.lists(st.sampled_from([*WORDS, "and", "of", "TokenCache", "FR", "022"]), max_size=12).map(" ".join)


def holds(word: str, section: str) -> bool:
    """Holds the word: each of its parts (a prefix, a whole word or inside a longer one), case folded."""
    folded = section.casefold()
    return word.casefold() in folded or all(part in folded for part in ranking.tokens(word) or [word])


@settings(max_examples=120, deadline=None)
@given(st.lists(text, min_size=1, max_size=10), st.lists(st.sampled_from(WORDS), min_size=1, max_size=5))
def test_every_hit_holds_a_word_none_twice_and_the_order_is_stable(
    sections: list[str], query: list[str]
) -> None:
    entries = [(f"e{n}", f"## Entry {n}\n{body}\n") for n, body in enumerate(sections)]
    asked = search_index.content_words([w.casefold() for w in query])
    rank = search_index.ranker(entries)
    found = rank(" ".join(query), 100)
    assert len(found) == len(set(found))
    parts = search_index.joined_parts(asked)  # asked for when nothing holds a word
    for entry_id in found:
        body = entries[int(entry_id[1:])][1]
        assert any(holds(word, body) for word in asked) or any(part in body.casefold() for part in parts)
    assert rank(" ".join(query), 100) == found  # asked again: the same order
    assert rank(" ".join(query), 3) == found[:3]  # a smaller limit: the first of the same order
    assert search_index.rank(" ".join(query), entries, 100) == found  # indexed again: the same

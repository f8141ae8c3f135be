"""bench/recall_rerank.py: orders of a recall's best hundred scored offline, as the study counts them."""

from __future__ import annotations

import json
from pathlib import Path

from bench import recall_rerank


def test_an_order_resorts_the_real_one_and_counts_relevant_entries_in_the_first_n(tmp_path: Path) -> None:
    candidates = [
        ["a", "k1", "## A\nthe response was slow"],
        ["b", "k2", "## B\nfixed response.ts"],
        ["x/c", "k3", "## C\nresponse times, response"],
    ]
    dump = tmp_path / "recalls.jsonl"
    rows = [{"query": "response", "agent": "x", "wanted": ["k2", "k3"], "candidates": candidates}]
    dump.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    read = list(recall_rerank.read(dump))
    assert recall_rerank.score(read, recall_rerank.KEYS["today (recall's own order)"], 1) == (0, 2)
    assert recall_rerank.score(read, recall_rerank.KEYS["names it first"], 1) == (1, 2)
    assert recall_rerank.score(read, recall_rerank.KEYS["names it first"], 3) == (2, 2)
    assert recall_rerank.score(read, recall_rerank.KEYS["the agent's own first"], 1) == (1, 2)  # x/c
    assert recall_rerank.score(read, recall_rerank.KEYS["most mentions first"], 1) == (1, 2)


def test_less_length_normalization_puts_the_longer_section_that_says_it_more_first() -> None:
    short = ("a", "k1", "## A\nresponse\n")
    long = ("b", "k2", "## B\n" + "response " * 3 + "word " * 600 + "\n")
    rows = [{"query": "response", "agent": "x", "wanted": ["k2"], "candidates": [short, long]}]
    assert recall_rerank.score(rows, recall_rerank.bm25_order(0.75), 1) == (0, 1)
    assert recall_rerank.score(rows, recall_rerank.bm25_order(0.0), 1) == (1, 1)


def test_of_sections_naming_the_word_alike_the_task_order_puts_the_one_sharing_the_task_first() -> None:
    a = ("a", "k1", "## A\nthe `login.py` retry\n")
    b = ("b", "k2", "## B\n`login.py` keeps the session cookie\n")
    passing = ("c", "k3", "## C\nlogin screens in passing\n")
    rows = [
        {"query": "login", "task": "Fix the session cookie", "wanted": ["k2"], "candidates": [passing, a, b]}
    ]
    keyer = recall_rerank.TASK_KEYS["names it, then the task's words"]
    assert recall_rerank.score(rows, recall_rerank.KEYS["names it first"], 1) == (0, 1)
    assert recall_rerank.score_rows(rows, keyer, 1) == (1, 1)
    ordered = sorted(
        recall_rerank._candidates(rows[0]), key=keyer(rows[0], recall_rerank._candidates(rows[0]))
    )
    assert [c[0] for c in ordered] == ["b", "a", "c"]  # the passing mention stays last


def test_misses_are_told_apart_by_why_they_missed() -> None:
    named = [(f"n{i}", f"n{i}", f"## N{i}\nedited `auth.py`\n") for i in range(3)]
    passing = ("p", "p", "## P\nauth in passing\n")
    rows = [
        {"query": "auth", "wanted": ["n2"], "candidates": named},  # tied with n0 and n1
        {"query": "auth", "wanted": ["p"], "candidates": [*named, passing]},  # outranked
        {"query": "auth", "wanted": ["gone"], "candidates": named},  # absent
        {"query": "auth", "wanted": ["n0"], "candidates": named},  # found
    ]
    kinds, ties = recall_rerank.misses(rows, 2)
    assert kinds == {"outranked": 1, "tied": 1, "absent": 1}
    assert ties == [3]

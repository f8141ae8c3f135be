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

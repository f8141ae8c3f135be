"""How well a section matches words: the one ranking ``recall`` and ``context --task`` share.

A section's score is how often the words occur in it, case folded, its
title's occurrences counting again (titles count double). ``recall`` is given
a query and wants every word: a section missing one scores 0.

``context --task`` is given a sentence a coordinator wrote ("Fix the
document-indexer logging (Issue #302)"), which no section holds whole. Its
words are those of three characters or more (punctuation around them
dropped), each with its parts when it joins several (``document-indexer``
also gives ``document`` and ``indexer``; ``#302`` stays whole), not one of a
few English function words ("the", "and", "with", ...), and that at most half
of the sections it ranks hold (a word most sections hold says nothing about
which one the task needs). A section ranks by the words it holds, each
weighing more the fewer sections hold it (``log((n + 1) / (1 + holders))``:
an issue number outweighs "fix"), then by its score per character: a task
fills a payload of fixed bytes, so of two sections that match alike the
denser one comes first.

Measured (``bench/squad_ceiling.py`` on the generator's team, with entries
of real sizes; ``bench/squad_replay.py`` on the spawns real teams' logs
record): the density order took the generator's task-focused uses from 40%
to 43% at a focus of 0.5; the words' parts and weights took the real spawns'
relevant entries held in 4 KB from 12% to 15% (see docs/performance.md).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from typing import Protocol, TypeVar

MIN_TASK_WORD = 3  # shorter words of a task ("on", "a", "to") are left out
_JOINS = re.compile(r"[^\w#]+")  # what joins the parts of a word (document-indexer, src/auth.py)
COMMON_SHARE = 0.5  # a task word more than this share of the ranked sections hold is left out
FUNCTION_WORDS = frozenset(
    {
        "the",
        "and",
        "for",
        "with",
        "from",
        "into",
        "onto",
        "this",
        "that",
        "these",
        "those",
        "then",
        "than",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "how",
        "are",
        "was",
        "were",
        "been",
        "being",
        "have",
        "has",
        "had",
        "not",
        "but",
        "all",
        "any",
        "can",
        "its",
        "our",
        "your",
        "their",
        "them",
        "out",
        "off",
        "over",
        "under",
        "about",
        "after",
        "before",
        "again",
        "also",
        "just",
        "only",
        "some",
        "such",
        "very",
        "will",
        "would",
    }
)


class Titled(Protocol):
    @property
    def text(self) -> str: ...

    @property
    def title(self) -> str: ...


T = TypeVar("T", bound=Titled)


def words(text: str) -> list[str]:
    """A query's words: case folded, split on white space."""
    return text.casefold().split()


def counts(entry: Titled, terms: Sequence[str]) -> list[int]:
    """How often each term occurs in the section, its title's occurrences counting again."""
    body, title = entry.text.casefold(), entry.title.casefold()
    return [body.count(t) + title.count(t) for t in terms]


def score(entry: Titled, terms: Sequence[str]) -> int:
    """How often the terms occur (title occurrences count double); 0 unless every term occurs."""
    found = counts(entry, terms)
    return sum(found) if all(found) else 0


def match(entry: Titled, terms: Sequence[str]) -> tuple[int, int]:
    """(how many of the terms the section holds, how often they occur)."""
    found = counts(entry, terms)
    return sum(1 for n in found if n), sum(found)


def task_terms(task: str, entries: Sequence[Titled]) -> list[str]:
    """The words of a task that tell sections apart (see the module's docstring), in the task's order."""
    candidates = []
    for word in words(task):
        word = word.strip("\"'`.,;:!?()[]{}<>")
        for part in (word, *(p for p in _JOINS.split(word) if p != word)):
            if len(part) >= MIN_TASK_WORD and part not in FUNCTION_WORDS and part not in candidates:
                candidates.append(part)
    if not entries:
        return candidates
    folded = [(e.text.casefold(), e.title.casefold()) for e in entries]
    limit = COMMON_SHARE * len(entries)
    return [w for w in candidates if sum(1 for body, title in folded if w in body or w in title) <= limit]


def rank(entries: Iterable[T], terms: Sequence[str], *, every: bool = True) -> list[tuple[T, int]]:
    """The sections that match, each with its score, best first; ties keep the given order.

    ``every``: a section must hold every term, and a higher score comes first (a query); else any
    (a task's words): the sections holding the rarer of them first (:func:`weights`), then the
    denser (score per character).
    """
    entries = list(entries)
    weight = weights(entries, terms) if not every else {}
    found = []
    for entry in entries:
        found_counts = counts(entry, terms)
        points = sum(found_counts)
        held = [t for t, n in zip(terms, found_counts, strict=True) if n]
        if points and (len(held) == len(terms) or not every):
            first = sum(weight[t] for t in held) if not every else 0.0
            order = points if every else points / max(1, len(entry.text))
            found.append((entry, first, order, points))
    found.sort(key=lambda item: (-item[1], -item[2]))
    return [(entry, points) for entry, _, _, points in found]


def weights(entries: Sequence[Titled], terms: Sequence[str]) -> dict[str, float]:
    """Each term's weight among ``entries``: ``log((n + 1) / (1 + holders))``, the fewer sections hold
    it the more (an inverse document frequency, smoothed so a term no section holds stays finite)."""
    folded = [e.text.casefold() + "\n" + e.title.casefold() for e in entries]
    return {t: math.log((len(entries) + 1) / (1 + sum(1 for f in folded if t in f))) for t in terms}

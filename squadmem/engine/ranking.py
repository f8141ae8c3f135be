"""How well a section matches words: the one ranking ``recall`` and ``context --task`` share.

A section's score is how often the words occur in it, case folded, its
title's occurrences counting again (titles count double). ``recall`` is given
a query and wants every word: a section missing one scores 0. ``context
--task`` is given a sentence a coordinator wrote ("Work on the auth tokens
issue reported today"), which no section holds whole: its words are those of
three characters or more (punctuation around them dropped), not one of a few
English function words ("the", "and", "with", ...), that at most half of the
sections it ranks hold (a word most sections hold says nothing about which
one the task needs), and a section ranks by how many of those words it holds,
then by its score over them per character of the section: a task fills a
payload of fixed bytes, so of two sections that match alike the denser one
comes first (``bench/squad_ceiling.py``: 40% → 43% of a Squad team's uses
with entries of real sizes and half the uses on the task, 50% → 55% with
three quarters; unchanged at 61% with the generator's small entries).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, TypeVar

MIN_TASK_WORD = 3  # shorter words of a task ("on", "a", "to") are left out
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
    """(how many of the terms the section holds, how often they occur): the order of a task's matches."""
    found = counts(entry, terms)
    return sum(1 for n in found if n), sum(found)


def task_terms(task: str, entries: Sequence[Titled]) -> list[str]:
    """The words of a task that tell sections apart (see the module's docstring), in the task's order."""
    candidates = []
    for word in words(task):
        word = word.strip("\"'`.,;:!?()[]{}<>")
        if len(word) >= MIN_TASK_WORD and word not in FUNCTION_WORDS and word not in candidates:
            candidates.append(word)
    if not entries:
        return candidates
    folded = [(e.text.casefold(), e.title.casefold()) for e in entries]
    limit = COMMON_SHARE * len(entries)
    return [w for w in candidates if sum(1 for body, title in folded if w in body or w in title) <= limit]


def rank(entries: Iterable[T], terms: Sequence[str], *, every: bool = True) -> list[tuple[T, int]]:
    """The sections that match, each with its score, best first; ties keep the given order.

    ``every``: a section must hold every term, and a higher score comes first (a query); else any
    (a task's words): the sections holding more of them first, then the denser (score per character).
    """
    found = []
    for entry in entries:
        held, points = match(entry, terms)
        if points and (held == len(terms) or not every):
            order = points if every else points / max(1, len(entry.text))
            found.append((entry, held, order, points))
    found.sort(key=lambda item: (-item[1], -item[2]))
    return [(entry, points) for entry, _, _, points in found]

"""How well a section matches words: ``recall``'s counts and ``context --task``'s BM25.

``recall`` ranks in SQLite FTS5 (:mod:`squadmem.engine.search.index`, BM25),
a query of several words scored again here (:func:`okapi` over
:func:`forms`: a word counting the longer words it begins, as the match
does); :func:`counts` gives the score it shows: how often the query's words
occur in a section, its title's occurrences counting again.

``context --task`` is given a sentence a coordinator wrote ("Fix the
document-indexer logging (Issue #302)"), which no section holds whole. Its
words (:func:`query_tokens`) are cut as FTS5's ``unicode61`` tokenizer cuts
them (runs of letters and digits, case folded), each once; sections rank by
BM25 (:func:`bm25`, k1 = 1.2, b = 0.75) over their whole text. On the train
split of the real-team study (``bench/squad_study.py``) it held more of the
entries the work named than the earlier order (the rarer words first, then
the denser), which :func:`rank`, :func:`task_terms` and :func:`weights`
still give the benchmarks that compare the two.
"""

from __future__ import annotations

import collections
import math
import re
from collections.abc import Callable, Iterable, Sequence

TYPE_CHECKING = False  # typing is not imported at run time: `context` imports this module at every spawn
if TYPE_CHECKING:
    from typing import Protocol, TypeVar

MIN_TASK_WORD = 3  # shorter words of a task ("on", "a", "to") are left out
K1, B = 1.2, 0.75  # BM25's usual constants (SQLite FTS5's too)
_TOKEN = re.compile(r"[^\W_]+")  # letters and digits: the words SQLite's unicode61 tokenizer keeps
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


if TYPE_CHECKING:

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


# -- BM25: how ``context --task`` ranks (and how ``recall``'s index ranks, in SQLite) -----------


def tokens(text: str) -> list[str]:
    """Words as SQLite FTS5's ``unicode61`` tokenizer cuts them: runs of letters and digits, case
    folded; everything else separates (``src/auth.py`` -> ``src``, ``auth``, ``py``)."""
    return _TOKEN.findall(text.casefold())


def token_count(text: str) -> int:
    """How many :func:`tokens` ``text`` has."""
    return len(_TOKEN.findall(text.casefold()))


def query_tokens(task: str) -> list[str]:
    """A task's words for BM25: its tokens, each once (BM25's weights make common words count for
    little; leaving out function words and short words held fewer of real spawns' entries in the
    spawn study, docs/squad.md)."""
    return list(dict.fromkeys(tokens(task)))


def bm25(entries: Sequence[T], terms: Sequence[str]) -> list[tuple[T, float]]:
    """The entries holding any of ``terms``, each with its BM25 score, best first; of equal scores
    the shorter first, then the given order. An entry's text is its whole section, heading line
    included (counting the title twice held fewer of real spawns' entries in the spawn study)."""
    docs = [tokens(e.text) for e in entries]
    if not docs or not terms:
        return []
    average = sum(len(d) for d in docs) / len(docs) or 1.0
    counts = [collections.Counter(d) for d in docs]
    weights = {t: idf(len(docs), sum(1 for c in counts if t in c)) for t in terms}
    scored = []
    for position, (entry, doc, count) in enumerate(zip(entries, docs, counts, strict=True)):
        value = okapi(count, len(doc), average, weights)
        if value > 0:
            scored.append((-value, len(doc), position, entry, value))
    scored.sort(key=lambda item: item[:3])
    return [(entry, value) for *_, entry, value in scored]


def forms(count: collections.Counter[str], terms: Sequence[str]) -> collections.Counter[str]:
    """How often each of ``terms`` occurs in a document whose tokens ``count`` counts, a term
    counting every token it begins (``deploy``: ``deploys``, ``deployed``), as SQLite's prefix query
    matches; a number only itself (``12`` is not ``123``)."""
    found: collections.Counter[str] = collections.Counter()
    starts = tuple(terms)
    for token, n in count.items():
        if token.startswith(starts):
            for term in terms:
                if token == term or (token.startswith(term) and not term.isdigit()):
                    found[term] += n
    return found


def counter(terms: Sequence[str]) -> Callable[[str], collections.Counter[str]]:
    """:func:`forms` of a text's tokens for ``terms``, read from the text in one pass of a pattern
    that finds the tokens a term begins (the others are not cut out)."""
    if not terms:
        return lambda text: collections.Counter()
    begun = "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True))
    pattern = re.compile(rf"(?<![^\W_])(?:{begun})[^\W_]*")
    return lambda text: forms(collections.Counter(pattern.findall(text.casefold())), terms)


def idf(documents: int, holding: int) -> float:
    """A term's weight when ``holding`` of ``documents`` hold it: the fewer, the more (never below 0)."""
    return math.log((documents - holding + 0.5) / (holding + 0.5) + 1.0)


def okapi(count: collections.Counter[str], length: int, average: float, weights: dict[str, float]) -> float:
    """One document's BM25 score: ``count`` its terms' occurrences, ``length`` its tokens,
    ``average`` the documents' mean length, ``weights`` each query term's :func:`idf`."""
    norm = K1 * (1 - B + B * length / (average or 1.0))
    return sum(w * count[t] * (K1 + 1) / (count[t] + norm) for t, w in weights.items() if t in count)


_STATED = re.compile(r"(?<!\d)(?:19|20)\d\d-[01]\d-[0-3]\d(?!\d)")
DEPTH = {"hot": 0, "cold": 1, "wiki": 2, "archive": 3}  # the nearer tier is the more recent


if TYPE_CHECKING:

    class Placed(Protocol):
        tier: str
        position: int

        @property
        def text(self) -> str: ...

    P = TypeVar("P", bound=Placed)


def stated_date(text: str) -> str | None:
    """The first ``YYYY-MM-DD`` the section's first line states (``### 2026-06-08: ...``,
    ``- **2026-06-07:** ...``), as written; None when it states none."""
    first = text.lstrip("\r\n").split("\n", 1)[0]
    found = _STATED.search(first)
    return found.group(0) if found else None


def newest(entries: Iterable[P]) -> list[P]:
    """The entries newest first without reading history: by the date each one's first line
    states (teams date their entries), latest first; the undated after them, the nearer tier
    first and each file's last section first (squadmem appends what arrives in a tier)."""
    listed = list(entries)
    dated = [(stated_date(e.text), n) for n, e in enumerate(listed)]
    order = sorted(
        range(len(listed)),
        key=lambda n: (
            dated[n][0] is not None,
            dated[n][0] or "",
            -DEPTH.get(listed[n].tier, len(DEPTH)),
            listed[n].position,
        ),
        reverse=True,
    )
    return [listed[n] for n in order]

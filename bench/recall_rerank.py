"""How `recall` orders its best hundred, looked at offline on the real-team study's recalls.

``python -m bench.squad_study ... --dump-recalls FILE`` writes, for every recall the study runs (the
one an agent types when its work touches a thing: a file stem, ``#123``, a name), the real
command's best 100 sections in its order, with their texts, and the relevant entries that recall
should find. This reads such a file and scores orders of those same candidates: the share of
(recall, relevant entry) pairs whose entry is in the first 5, as the study counts "one recall
away". Each order re-sorts the real order stably by a key, so "today" is exactly what `recall`
listed and every other row is what `recall` would list with that key in front of its own.

Choose an order on the train split's file only; the held-out split is measured by the study itself,
with the real command, after the choice is in the code.

The last rows use the spawn's task (dumps written since the study records it): among sections
naming the words alike, those sharing more of the task's words first; an agent's ``recall`` does not
know its task, so these rows measure what telling it would gain. Then the pairs left out of the first
5 by today's order, by why: five sections named the thing more plainly; sections naming it exactly
as plainly filled the first 5 (a tie no word of the query can break); or the entry was not among the
best 100.

    python -m bench.recall_rerank FILE [--top 5]
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from bench.harness import options, table
from squadmem.engine.search import ranking
from squadmem.engine.search.index import literal_key, names

Candidate = tuple[str, str, str]  # id, content key (hex), text
Key = Callable[[str, str, Candidate], Any]  # query, agent, candidate
RowKey = Callable[[dict[str, Any], Sequence[Candidate]], Callable[[Candidate], Any]]  # per recall


def read(path: Path) -> Iterable[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)


def in_title(query: str, text: str) -> bool:
    first = text.lstrip().split("\n", 1)[0].casefold()
    return all(w in first for w in ranking.tokens(query))


KEYS: dict[str, Key] = {
    "today (recall's own order)": lambda q, a, c: 0,
    "names it first": lambda q, a, c: not names(q, c[2]),
    "in its title first": lambda q, a, c: not in_title(q, c[2]),
    "newest first (stated date)": lambda q, a, c: _newest_key(c[2]),
    "shortest first": lambda q, a, c: len(c[2]),
    "the agent's own first": lambda q, a, c: not c[0].startswith(f"{a}/"),
    "most mentions first": lambda q, a, c: -mentions(q, c[2]),
    "names it, then newest": lambda q, a, c: (not names(q, c[2]), _newest_key(c[2])),
    "names it, then title": lambda q, a, c: (not names(q, c[2]), not in_title(q, c[2])),
    "names it, then the agent's own": lambda q, a, c: (not names(q, c[2]), not c[0].startswith(f"{a}/")),
    "names it, then most mentions": lambda q, a, c: (not names(q, c[2]), -mentions(q, c[2])),
}


AVGDL, TITLE_AVGDL = 247.0, 5.9  # words in a section and in its title, on average, in the train dump


def _saturated(tf: int, length: int, b: float, average: float) -> float:
    """BM25's weight for ``tf`` occurrences in a text of ``length`` words (:data:`ranking.K1`)."""
    return 0.0 if tf == 0 else tf * (ranking.K1 + 1) / (tf + ranking.K1 * (1 - b + b * length / average))


def _phrase_count(words: Sequence[str], parts: Sequence[str]) -> int:
    """How often ``parts`` stand in ``words`` in order, the last as a prefix (as FTS5 matches them)."""
    n = len(parts)
    return sum(
        words[i : i + n - 1] == list(parts[:-1]) and words[i + n - 1].startswith(parts[-1])
        for i in range(len(words) - n + 1)
    )


def bm25_order(b: float) -> Key:
    """Naming first, as ``recall`` (``search_index.literal_first``), then BM25 for the one phrase a
    recall's word makes, over the title (weighing twice) and the text, the text's length normalized by
    ``b`` (SQLite's ``bm25()``: 0.75, which gives recall's own order back)."""

    def key(query: str, agent: str, c: Candidate) -> tuple[int, int, int, float]:
        parts = ranking.tokens(query)
        text = c[2]
        title = ranking.tokens(text.lstrip().split("\n", 1)[0].lstrip("#"))
        body = ranking.tokens(text)
        weight = 2 * _saturated(_phrase_count(title, parts), len(title), 0.75, TITLE_AVGDL)
        weight += _saturated(_phrase_count(body, parts), len(body), b, AVGDL)
        return (*literal_key([query])(text), -weight)

    return key


KEYS.update({f"names it, then BM25 with b = {b}": bm25_order(b) for b in (0.75, 0.5, 0.2)})


class _Text:
    """A candidate as ``ranking.bm25`` reads it."""

    __slots__ = ("text", "title")

    def __init__(self, text: str) -> None:
        self.text = text
        self.title = text.lstrip().split("\n", 1)[0]


def task_words_order(plain: bool) -> RowKey:
    """Naming first, as ``recall``; then, of sections naming the words alike (``plain``: alike in the
    first part of the key only, named as things), the ones the spawn's task ranks higher by
    ``ranking.bm25`` over these candidates (``context --task``'s ranking); then recall's order."""

    def keyer(row: dict[str, Any], candidates: Sequence[Candidate]) -> Callable[[Candidate], Any]:
        texts = [_Text(c[2]) for c in candidates]
        scored = dict(ranking.bm25(texts, ranking.query_tokens(str(row.get("task", "")))))
        by_key = {c: -scored.get(t, 0.0) for c, t in zip(candidates, texts, strict=True)}
        literal = literal_key([str(row["query"])])

        def key(c: Candidate) -> Any:
            named = literal(c[2])
            return (named[0] if plain else named, by_key[c])

        return key

    return keyer


TASK_KEYS: dict[str, RowKey] = {
    "names it, then the task's words": task_words_order(plain=False),
    "names it as a thing, then the task's words": task_words_order(plain=True),
}


def mentions(query: str, text: str) -> int:
    """How often the query, case folded, stands in the text."""
    return text.casefold().count(query.casefold())


def _newest_key(text: str) -> str:
    date = ranking.stated_date(text) or "0000-00-00"
    return "".join(chr(0x7F - ord(ch)) for ch in date)  # later dates sort first


def _candidates(row: dict[str, Any]) -> list[Candidate]:
    return [(str(i), str(k), str(t)) for i, k, t in row["candidates"]]


def per_recall(key: Key) -> RowKey:
    """``key``, the same for every candidate of a recall."""

    def keyer(row: dict[str, Any], candidates: Sequence[Candidate]) -> Callable[[Candidate], Any]:
        query, agent = str(row["query"]), str(row.get("agent", ""))
        return lambda c: key(query, agent, c)

    return keyer


def score(rows: Sequence[dict[str, Any]], key: Key, top: int) -> tuple[int, int]:
    """(relevant entries in the first ``top``, relevant entries asked for) over every recall."""
    return score_rows(rows, per_recall(key), top)


def score_rows(rows: Sequence[dict[str, Any]], keyer: RowKey, top: int) -> tuple[int, int]:
    """:func:`score` for an order that looks at each recall as a whole (:data:`RowKey`)."""
    hits = asked = 0
    for row in rows:
        candidates = _candidates(row)
        ordered = sorted(candidates, key=keyer(row, candidates))
        first = {c[1] for c in ordered[:top]}
        wanted = set(row["wanted"])
        hits += len(wanted & first)
        asked += len(wanted)
    return hits, asked


def misses(rows: Sequence[dict[str, Any]], top: int) -> tuple[dict[str, int], list[int]]:
    """The (recall, relevant entry) pairs today's order leaves out of the first ``top``, by why:
    ``outranked`` (the first ``top`` all name the words more plainly: :func:`literal_key`), ``tied``
    (sections naming them exactly as plainly take its place), ``absent`` (not in the best 100); and,
    for the tied, how many sections of the recall name the words as plainly as the entry does."""
    kinds = dict.fromkeys(("outranked", "tied", "absent"), 0)
    ties: list[int] = []
    for row in rows:
        candidates = _candidates(row)
        keys = [c[1] for c in candidates]
        literal = literal_key([str(row["query"])])
        plainness = [literal(c[2]) for c in candidates]
        for wanted in row["wanted"]:
            if wanted in keys[:top]:
                continue
            if wanted not in keys:
                kinds["absent"] += 1
                continue
            mine = plainness[keys.index(wanted)]
            if all(p < mine for p in plainness[:top]):
                kinds["outranked"] += 1
            else:
                kinds["tied"] += 1
                ties.append(sum(p == mine for p in plainness))
    return kinds, ties


def _print_misses(rows: Sequence[dict[str, Any]], top: int) -> None:
    kinds, ties = misses(rows, top)
    total = sum(kinds.values())
    why = {
        "outranked": f"the first {top} name the words more plainly",
        "tied": f"sections naming them exactly as plainly fill the first {top}",
        "absent": "not in the best 100",
    }
    print()
    table(
        (f"why a relevant entry is not in today's first {top}", "pairs", "share of the misses"),
        [(text, kinds[kind], f"{100 * kinds[kind] / max(1, total):.0f}%") for kind, text in why.items()],
        right=2,
    )
    if ties:
        low, mid, high = statistics.quantiles(ties, n=4) if len(ties) > 1 else (ties[0],) * 3
        spread = f"median {mid:g}, quartiles {low:g} and {high:g}"
        print(f"\ntied: the sections naming the words as plainly, per recall: {spread}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = options(__doc__)
    parser.add_argument("dump", type=Path, help="the file squad_study.py --dump-recalls wrote")
    parser.add_argument("--top", type=int, default=5)
    args = parser.parse_args(argv)
    rows = list(read(args.dump))
    print(f"{len(rows)} recalls from {args.dump.name}\n")
    scored = [(name, *score(rows, key, args.top)) for name, key in KEYS.items()]
    if all("task" in row for row in rows):
        scored += [(name, *score_rows(rows, row_key, args.top)) for name, row_key in TASK_KEYS.items()]
    scored.append(
        ("(the bound: anywhere in the best 100)", *score(rows, KEYS["today (recall's own order)"], 100))
    )
    cells = [
        (name, f"{hits} of {asked}", f"{100 * hits / max(1, asked):.1f}%") for name, hits, asked in scored
    ]
    table(("order", f"relevant in the first {args.top}", "share"), cells, right=2)
    _print_misses(rows, args.top)


if __name__ == "__main__":
    main()

"""``recall``'s top 5 for a task sentence, against plain BM25 over the same entries and query.

A generated memory of ``--entries`` sections (seeded): each belongs to one of
``--topics`` topics and is written from that topic's words (so sections of a
topic share most of their words), a few words of its own, the words every
team writes (``fix``, ``update``, ``test``) and function words; some name a
file (``token_cache.py``), an issue (``#123``) or an ID (``FR-022``); a
word comes in the forms a team writes it (``deploy``, ``deploys``,
``deployed``; ``--one-form``: one form only). For ``--queries`` of the sections, a task sentence a
coordinator could write about it: a verb, two to four of the section's own
or topic words (in another form a third of the time), its file, issue or ID
half the time it has one, a few words of other topics and the common words.
The relevant section is the one the task was written from.

Each query is ranked two ways over the same entries: by ``recall``
(``squadmem.engine.search.index.rank``: the index, BM25 in SQLite, stop
words, naming first, words inside longer ones) and by plain BM25 (Okapi,
k1 = 1.2, b = 0.75, the whole text tokenized as SQLite's ``unicode61`` does,
every query token once, written out below so it shares nothing with recall).
The table gives the share of queries whose section is first, and in the
first five; by kind of task (naming a file, an issue or an ID; not).

    python -m bench.recall_rank_bench [--entries 2000] [--topics 120] [--queries 400] [--seed 3] [--one-form]
"""

from __future__ import annotations

import collections
import math
import random
import re
from collections.abc import Callable, Sequence

from bench.harness import options, table
from bench.recall_scale_bench import vocabulary
from squadmem.engine.search import index as search_index

FUNCTION = [
    "the",
    "a",
    "to",
    "of",
    "in",
    "for",
    "and",
    "with",
    "on",
    "is",
    "it",
    "that",
    "this",
    "be",
    "as",
    "at",
    "by",
    "from",
]
COMMON = [
    "fix",
    "update",
    "add",
    "remove",
    "issue",
    "bug",
    "test",
    "code",
    "change",
    "support",
    "handle",
    "check",
    "review",
    "work",
    "team",
    "new",
]
VERBS = ("Fix", "Update", "Investigate", "Refactor", "Add tests for", "Document", "Review")
SUFFIXES = ("", "", "", "s", "ed", "ing", "er")
_TOKEN = re.compile(r"[^\W_]+")
K1, B = 1.2, 0.75


def form(rng: random.Random, stem: str, suffixes: Sequence[str]) -> str:
    """A word as a team writes it: the stem, or one of its forms."""
    return stem + rng.choice(suffixes)


class Corpus:
    """The generated sections, each with its topic's and its own words, and what it names."""

    def __init__(self, entries: int, topics: int, seed: int, suffixes: Sequence[str] = SUFFIXES) -> None:
        rng = random.Random(seed)
        self.suffixes = suffixes
        stems = vocabulary(rng, 6000)
        per_topic = 25
        self.topics = [stems[t * per_topic : (t + 1) * per_topic] for t in range(topics)]
        own = stems[topics * per_topic :]
        self.texts: list[tuple[str, str]] = []
        self.words: list[list[str]] = []  # each section's topic and own stems
        self.names: list[str | None] = []
        self.topic_of: list[int] = []
        for n in range(entries):
            topic = rng.randrange(topics)
            pool = self.topics[topic]
            mine = [rng.choice(own) for _ in range(3)]
            stems_used = [rng.choice(pool) for _ in range(rng.randint(8, 30))] + mine
            name = self._name(rng, pool, n)
            title = " ".join(form(rng, s, self.suffixes) for s in rng.sample(stems_used, 3)).capitalize()
            body = [form(rng, s, self.suffixes) for s in stems_used]
            body += [rng.choice(COMMON) for _ in range(len(body) // 3)]
            body += [rng.choice(FUNCTION) for _ in range(len(body) // 2)]
            rng.shuffle(body)
            if name is not None:
                body.insert(rng.randrange(len(body) + 1), name)
            day = f"2026-{1 + n % 12:02d}-{1 + n % 28:02d}"
            self.texts.append((f"e{n}", f"### {day}: {title}\n\n{' '.join(body)}.\n"))
            self.words.append(stems_used)
            self.names.append(name)
            self.topic_of.append(topic)

    @staticmethod
    def _name(rng: random.Random, pool: Sequence[str], n: int) -> str | None:
        kind = rng.random()
        if kind < 0.2:
            return f"{rng.choice(pool)}_{rng.choice(pool)}.py"
        if kind < 0.3:
            return f"#{100 + n}"
        if kind < 0.4:
            return f"FR-{n % 997:03d}"
        return None

    def task(self, rng: random.Random, n: int) -> tuple[str, bool]:
        """A task sentence about section ``n``, and whether it names the section's file, issue or ID."""
        own = rng.sample(self.words[n], min(len(self.words[n]), rng.randint(2, 4)))
        words = [form(rng, w, self.suffixes) if rng.random() < 1 / 3 else w for w in own]
        others = rng.choice(self.topics)
        words += [form(rng, rng.choice(others), self.suffixes) for _ in range(rng.randint(1, 3))]
        words += [rng.choice(COMMON) for _ in range(rng.randint(1, 3))]
        rng.shuffle(words)
        name = self.names[n]
        named = f" in {name}" if name is not None and rng.random() < 0.5 else ""
        sentence = f"{rng.choice(VERBS)} the {' '.join(words[:3])}{named} so that {' '.join(words[3:])} works"
        return sentence, bool(named)


def okapi(entries: Sequence[tuple[str, str]]) -> Callable[[str, int], list[str]]:
    """Plain BM25 over ``entries``: a function of a query to the ids, best first."""
    docs = [collections.Counter(t.casefold() for t in _TOKEN.findall(text)) for _, text in entries]
    lengths = [sum(d.values()) for d in docs]
    average = sum(lengths) / len(lengths)
    holders: collections.Counter[str] = collections.Counter()
    for doc in docs:
        holders.update(doc.keys())
    total = len(docs)

    def ranked(query: str, limit: int = 5) -> list[str]:
        terms = list(dict.fromkeys(t.casefold() for t in _TOKEN.findall(query)))
        idf = {t: math.log((total - holders[t] + 0.5) / (holders[t] + 0.5) + 1.0) for t in terms}
        scores = []
        for (entry_id, _), doc, length in zip(entries, docs, lengths, strict=True):
            norm = K1 * (1 - B + B * length / average)
            value = sum(idf[t] * doc[t] * (K1 + 1) / (doc[t] + norm) for t in terms if t in doc)
            if value > 0:
                scores.append((-value, entry_id))
        scores.sort()
        return [entry_id for _, entry_id in scores[:limit]]

    return ranked


def main(argv: Sequence[str] | None = None) -> None:
    parser = options(__doc__, seed=3)
    parser.add_argument("--entries", type=int, default=2000)
    parser.add_argument("--topics", type=int, default=120)
    parser.add_argument("--queries", type=int, default=400)
    parser.add_argument("--one-form", action="store_true", help="every word in one form only (no deploys)")
    args = parser.parse_args(argv)
    corpus = Corpus(args.entries, args.topics, args.seed, ("",) if args.one_form else SUFFIXES)
    rng = random.Random(args.seed + 1)
    asked = rng.sample(range(args.entries), args.queries)
    tasks = [(n, *corpus.task(rng, n)) for n in asked]
    rankers = {
        "squadmem recall": search_index.ranker(corpus.texts),
        "plain BM25 (Okapi)": okapi(corpus.texts),
    }
    kinds = {"every task": (True, False), "naming a file, issue or ID": (True,), "naming none": (False,)}
    print(
        f"{args.entries:,} sections in {args.topics} topics, {args.queries} task sentences (seed {args.seed})"
    )
    print(f"e.g. {tasks[0][1]!r} -> e{tasks[0][0]}\n")
    rows = []
    for kind, keep in kinds.items():
        chosen = [(n, task) for n, task, named in tasks if named in keep]
        for name, ranked in rankers.items():
            lists = [ranked(task, 5) for _, task in chosen]
            first = sum(1 for (n, _), top in zip(chosen, lists, strict=True) if top[:1] == [f"e{n}"])
            five = sum(1 for (n, _), top in zip(chosen, lists, strict=True) if f"e{n}" in top)
            rows.append(
                (name, f"{kind} ({len(chosen)})", f"{first / len(chosen):.1%}", f"{five / len(chosen):.1%}")
            )
    table(("ranking", "tasks", "first", "in the first 5"), rows, right=2)


if __name__ == "__main__":
    main()

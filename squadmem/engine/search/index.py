"""The search index: every section of the work tree's tiers in SQLite FTS5, ranked by BM25.

Kept in ``<git dir>/squadmem/search.sqlite`` (per work tree: it indexes the
files checked out there). Nothing in it is authoritative: it is rebuilt when
its format or the section scanner changes, and an owner's rows (an agent's
hot, cold and archive files, or one wiki topic: ids are assigned per owner)
are rebuilt when any of its files' size, modification time or inode changed.
So a warm ``recall`` stats the tier files, reads nothing else from them and
asks SQLite; only the owners whose files changed are parsed again.

The words a query gives are matched as SQLite's ``unicode61`` tokenizer cuts
text (letters and digits, case folded; every other character separates): an
agent types ``src/auth/token.py``, ``#123``, ``FR-022`` or ``FooBar`` and each
becomes a phrase of its parts that a section must hold in that order; the
last part of a phrase also matches as a prefix (``token`` finds ``tokens``)
unless it is a number (``#12`` does not find ``#123``). A section holding any
of the words is found, so a sentence is a query. Stop words (``the``, ``to``,
``of``: :data:`STOP_WORDS`) are left out of a query that has other words. A
query of one word, a name an agent looks up, is ranked by BM25 (SQLite's:
k1 = 1.2, b = 0.75) over two columns, the title (weighing twice) and the
whole section, heading included; of the best hundred, the sections that name
the word as a thing come first (a file ``token.py`` for ``token``, a path
part, inside a code span), then those that quote it exactly as typed, then
with case folded (``find_visible()`` finds the sections that name the
function before those about finding what is visible). A query of more words
(a task's sentence, a few words): SQLite's best fifty are scored by Okapi
BM25 on the query's tokens over the whole section
(:func:`squadmem.engine.search.ranking.okapi`), a token counting the longer
words it begins as the match does (``deploy``: ``deployed``;
:func:`~squadmem.engine.search.ranking.forms`), with the whole index's
counts (how many sections hold each, asked of SQLite; their mean length,
kept per owner); of those, the sections naming or quoting the words that
look like names (``#302``, ``token.py``, ``document-indexer``) come first.
On the real-team study's train teams, with each spawn's task as the query,
this held more of the entries the work named than SQLite's order with the
title weighing twice (``bench/leak_free_study.py``), and on generated
sections whose words come in several forms it finds the section a task was
written from more often (``bench/recall_rank_bench.py``).

When fewer sections than asked hold the words whole, those holding a word
inside a longer one follow (``token`` in ``accessTokenCache``): a second FTS5
table indexes every section's case-folded text with SQLite's ``trigram``
tokenizer, so such a word is looked up, not scanned for (a word of at least
three characters that is not a number). When nothing holds the words, not
even inside longer ones, the parts of the joined words are asked for (a task
named ``tank-signalr-doorscan`` finds the sections about SignalR).
An index SQLite cannot open or write (a read-only git dir, another process
creating it at the same moment) is replaced, for that run, by one in memory.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from pathlib import Path

from squadmem.engine.search import ranking
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import Layout, TierFile
from squadmem.model.values import Value

FILE = "search.sqlite"
FORMAT = 5
TITLE_WEIGHT = 2.0
RERANK = 100  # the best whole-word matches of a name looked at again for the name as typed
WORDS_POOL = 50  # the best whole-word matches of words scored again by BM25 in Python
INSIDE_SCAN = 500  # sections holding the words inside longer ones, looked at when whole words are few
NAME_QUERY = 1  # a query of this many words (stop words aside) is a name: the sections naming it first
MIN_INSIDE = 3  # the shortest word looked for inside longer ones (a trigram)
_SELECT = "SELECT id, tier, file, name, title, body, length FROM sections"
_WRAPPING = "\"'`.,;:!?()[]{}<>"  # what a sentence puts around a word
_NAME_LIKE = re.compile(r"[^\W_]+(?:(?:[^\w\s']|_)+[^\W_]+)+|.*\d")  # parts joined (a path, FR-022), a digit
# Words that say nothing of what a section is about; a query of these only still finds them.
STOP_WORDS = ranking.FUNCTION_WORDS | frozenset(
    {"a", "an", "as", "at", "be", "by", "do", "if", "in", "is", "it", "of", "on", "or", "so", "to", "up"}
    | {"we", "i", "me", "my", "no", "us"}
)


class Found(Value):
    """One section the index found."""

    __slots__ = ("file", "id", "length", "name", "text", "tier", "title")

    def __init__(
        self, id: str, tier: str, file: str, name: str, title: str, text: str, length: int = 0
    ) -> None:
        self.id, self.tier, self.file, self.name, self.title, self.text = id, tier, file, name, title, text
        self.length = length  # its tokens (:func:`ranking.token_count`)


def content_words(words: Sequence[str]) -> list[str]:
    """``words`` each once, without the stop words (a word all of whose parts are stop words) and
    the words with no letter or digit; all of them, each once, when no other word is left."""
    unique = list(dict.fromkeys(words))
    kept = [w for w in unique if ranking.tokens(w) and not all(t in STOP_WORDS for t in ranking.tokens(w))]
    return kept or unique


def name_words(words: Sequence[str]) -> list[str]:
    """The words of a query of several that look like names (parts joined by other characters:
    ``token.py``, ``document-indexer``; or a digit: ``#302``, ``FR-022``), bare of the punctuation a
    sentence wraps words in: what :func:`literal_first` puts first by."""
    bare = (w.strip(_WRAPPING) for w in words)
    return [w for w in dict.fromkeys(bare) if _NAME_LIKE.fullmatch(w)]


def match_expression(words: Sequence[str]) -> str | None:
    """The FTS5 query for ``words``: each a phrase of its tokens, any of them; None if none has one."""
    phrases = []
    for word in words:
        parts = ranking.tokens(word)
        if not parts:
            continue
        prefix = "" if parts[-1].isdigit() else " *"
        phrases.append('"' + " ".join(parts) + '"' + prefix)
    return " OR ".join(dict.fromkeys(phrases)) if phrases else None


def joined_parts(words: Sequence[str]) -> list[str]:
    """The parts of the words joined by other characters (``tank-signalr-doorscan``,
    ``src/auth.py``), each once, but the stop words and the parts the query gives as words of
    their own: what is looked for when no section holds the words."""
    alone = {w.casefold() for w in words if len(ranking.tokens(w)) == 1}
    parts = (t for w in words if len(ranking.tokens(w)) > 1 for t in ranking.tokens(w))
    return [t for t in dict.fromkeys(parts) if t not in STOP_WORDS and t not in alone]


def inside_words(words: Sequence[str]) -> list[str]:
    """The words looked for inside longer ones, case folded: at least :data:`MIN_INSIDE` characters,
    and not a number (``#12`` is not found in ``#123``)."""
    found = []
    for word in words:
        parts = ranking.tokens(word)
        if not (parts and parts[-1].isdigit()) and len(word.casefold()) >= MIN_INSIDE:
            found.append(word.casefold())
    return list(dict.fromkeys(found))


def _substring_expression(terms: Sequence[str]) -> str:
    """The trigram table's query: any of ``terms`` as a substring."""
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)


def names(word: str, text: str) -> bool:
    """Whether ``text`` names ``word`` as a thing: a file of that name (``token.py`` for ``token``), a
    part of a path (``auth/``, ``/auth``), or inside a code span (`` `TokenCache.get` ``); case
    folded."""
    return _namer(word)(text)


_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def _namer(word: str) -> Callable[[str], bool]:
    """:func:`names` for one word, its pattern compiled once."""
    q = re.escape(word)
    as_path = re.compile(rf"(?<![\w.-]){q}\.[A-Za-z]\w{{0,9}}\b|(?<![\w-])/{q}\b|\b{q}/", re.IGNORECASE)
    folded = word.casefold()

    def named(text: str) -> bool:
        if as_path.search(text):
            return True
        return any(folded in span.casefold() for span in _CODE_SPAN.findall(text))

    return named


def literal_first(found: Sequence[Found], words: Sequence[str]) -> list[Found]:
    """``found`` with the sections that name more of the words as things first (:func:`names`: a file,
    a path, a code span), then those that quote more of them as typed: exactly (``find_visible()``,
    ``<Compile>``, ``FooBar``), then with case folded; otherwise in their given (BM25) order. An agent
    that types a file's stem or a name means the sections that name that thing, not the ones that
    use the word in passing (chosen on the real-team study's train teams: ``bench/recall_rerank.py``)."""
    key = literal_key(words)
    return sorted(found, key=lambda hit: key(hit.text))


def literal_key(words: Sequence[str]) -> Callable[[str], tuple[int, int, int]]:
    """:func:`literal_first`'s sort key for a section's text: fewer of ``words`` named as things, then
    quoted as typed, then case folded, sorts later."""
    typed = [w for w in words if w.strip()]
    folded = [w.casefold() for w in typed]
    namers = [_namer(w) for w in typed]

    def key(text: str) -> tuple[int, int, int]:
        lower = text.casefold()
        return (
            -sum(named(text) for named in namers),
            -sum(w in text for w in typed),
            -sum(w in lower for w in folded),
        )

    return key


# The modules that cut sections and give titles and ids: an index made by others is made again. Their
# size and time are enough (a stat each, no import: a warm recall reads no tier file, and imports no
# section scanner).
_CUTTERS = (
    "model/sections.py",
    "model/scanner.py",
    "model/slug.py",
    "engine/titles.py",
    "engine/catalog.py",
)


def _key() -> str:
    marks = [str(FORMAT)]
    top = Path(__file__).resolve().parent.parent.parent
    for rel in _CUTTERS:
        try:
            st = os.stat(top / rel)
            marks.append(f"{rel}:{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            marks.append(rel)
    return ";".join(marks)


def _signature(layout: Layout, files: Sequence[TierFile]) -> str:
    marks: list[list[str | int]] = []
    root = os.fspath(layout.root)
    for tf in files:
        try:
            st = os.stat(os.path.join(root, tf.rel))
        except OSError:
            marks.append([tf.rel])
            continue
        marks.append([tf.rel, st.st_size, st.st_mtime_ns, st.st_ino])
    return json.dumps(marks)


class SearchIndex:
    """One work tree's index; :meth:`refresh` before :meth:`search`.

    ``trigram``: whether to keep the table of trigrams (where SQLite has the tokenizer: 3.34 and
    later); without it, words inside longer ones are scanned for."""

    def __init__(self, state_dir: Path | None, *, trigram: bool = True) -> None:
        self.path = None if state_dir is None else state_dir / FILE
        self.trigram = trigram
        try:
            if state_dir is None:
                raise sqlite3.OperationalError("in memory")
            state_dir.mkdir(parents=True, exist_ok=True)
            self.db = self._open()
        except (OSError, sqlite3.Error):
            self.path = None
            self.db = self._create()
        self.grams = self._has_grams()
        if not self.grams:  # words inside longer ones are scanned for, folded as the trigrams are
            self.db.create_function("casefold", 1, str.casefold, deterministic=True)

    def _open(self) -> sqlite3.Connection:
        assert self.path is not None
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            key = db.execute("PRAGMA user_version").fetchone()[0]
            found = db.execute("SELECT value FROM meta WHERE name = 'key'").fetchone() if key else None
        except sqlite3.DatabaseError:  # not a database, or not ours: made again
            found = None
        if found is not None and found[0] == self._key():
            return db
        db.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        return self._create()

    def _key(self) -> str:
        return _key() + ("" if self.trigram else ";no trigrams")

    def _create(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path or ":memory:", timeout=30, isolation_level=None)
        db.executescript(
            """
            BEGIN;
            CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT);
            CREATE TABLE owners (
                owner TEXT PRIMARY KEY, signature TEXT, problem TEXT, hint TEXT,
                sections INTEGER NOT NULL DEFAULT 0, tokens INTEGER NOT NULL DEFAULT 0
            );
            CREATE VIRTUAL TABLE sections USING fts5(
                title, body, id UNINDEXED, tier UNINDEXED, file UNINDEXED, name UNINDEXED,
                owner UNINDEXED, is_index UNINDEXED, length UNINDEXED, tokenize = 'unicode61'
            );
            PRAGMA user_version = 5;
            COMMIT;
            """
        )
        if self.trigram:
            # Each section's case-folded text, as trigrams only (no copy of the text: ``content=''``),
            # under the section's rowid; SQLite before 3.34 has no trigram tokenizer.
            # Made for an owner when a search first looks inside words (the first costs about seven
            # times the words' index): ``gram_owners`` names the owners whose rows are in.
            with contextlib.suppress(sqlite3.OperationalError):
                db.execute(
                    "CREATE VIRTUAL TABLE grams USING fts5("
                    "folded, content = '', tokenize = 'trigram case_sensitive 1')"
                )
                db.execute("CREATE TABLE gram_owners (owner TEXT PRIMARY KEY)")
        db.execute("INSERT INTO meta VALUES ('key', ?)", (self._key(),))
        return db

    def _has_grams(self) -> bool:
        found = self.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'grams'").fetchone()
        return found is not None

    def close(self) -> None:
        self.db.close()

    # -- keeping it current ------------------------------------------------------------------------
    def refresh(self, layout: Layout) -> dict[str, SquadmemError]:
        """Re-index the owners whose files changed; return each owner left out, with its problem."""
        by_owner: dict[str, list[TierFile]] = {}
        for tf in layout.tier_files():
            by_owner.setdefault(tf.owner, []).append(tf)
        signatures = {owner: _signature(layout, files) for owner, files in by_owner.items()}
        stored = {
            row[0]: row[1:] for row in self.db.execute("SELECT owner, signature, problem, hint FROM owners")
        }
        stale = [o for o, sig in signatures.items() if o not in stored or stored[o][0] != sig]
        gone = [o for o in stored if o not in signatures]
        if stale or gone:
            self._rebuild(layout, {o: by_owner[o] for o in stale}, signatures, gone)
            stored = {
                row[0]: row[1:]
                for row in self.db.execute("SELECT owner, signature, problem, hint FROM owners")
            }
        return {o: SquadmemError(p, hint=h) for o, (_, p, h) in stored.items() if p is not None}

    def _rebuild(
        self,
        layout: Layout,
        stale: dict[str, list[TierFile]],
        signatures: dict[str, str],
        gone: Sequence[str],
    ) -> None:
        from squadmem.engine import catalog  # titles and ids: only when an owner changed

        rows: list[tuple[str, ...]] = []
        owners: list[tuple[str, str, str | None, str | None]] = []
        for owner, files in stale.items():
            try:
                docs = [catalog.parse_file(tf, layout.read_tier(tf)) for tf in files]
                memory = catalog.build(docs, layout.places)
            except SquadmemError as exc:
                owners.append((owner, signatures[owner], exc.message, exc.hint))
                continue
            owners.append((owner, signatures[owner], None, None))
            rows += [
                (e.title, e.text, e.id, e.tier, e.file, e.name, owner, "1" if e.is_index else "0")
                for e in memory.entries
            ]
        self._replace([*stale, *gone], rows, owners)

    def _replace(
        self,
        dropped: Sequence[str],
        rows: Sequence[tuple[str, ...]],
        owners: Sequence[tuple[str, str, str | None, str | None]],
    ) -> None:
        """In one transaction: the rows of the ``dropped`` owners out, ``rows`` and ``owners`` in."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            held: list[tuple[int, str, str]] = []
            if dropped:
                marks = ", ".join("?" for _ in dropped)
                query = f"SELECT rowid, body, owner FROM sections WHERE owner IN ({marks})"
                held = self.db.execute(query, list(dropped)).fetchall()
            if self.grams:
                self._forget_grams(dropped, held)
            self.db.executemany("DELETE FROM sections WHERE rowid = ?", [(row[0],) for row in held])
            self.db.executemany("DELETE FROM owners WHERE owner = ?", [(owner,) for owner in dropped])
            top = self.db.execute("SELECT rowid FROM sections ORDER BY rowid DESC LIMIT 1").fetchone()
            last = top[0] if top else 0
            lengths = [ranking.token_count(row[1]) for row in rows]  # BM25's lengths, and their mean
            numbered = [(last + n, *row, lengths[n - 1]) for n, row in enumerate(rows, start=1)]
            self.db.executemany(
                "INSERT INTO sections (rowid, title, body, id, tier, file, name, owner, is_index, length)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                numbered,
            )
            held_by: dict[str, list[int]] = {}
            for row, size in zip(rows, lengths, strict=True):
                held_by.setdefault(row[6], []).append(size)
            self.db.executemany(
                "INSERT INTO owners VALUES (?, ?, ?, ?, ?, ?)",
                [(*o, len(held_by.get(o[0], ())), sum(held_by.get(o[0], ()))) for o in owners],
            )
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def _forget_grams(self, dropped: Sequence[str], held: Sequence[tuple[int, str, str]]) -> None:
        """The trigrams of the ``dropped`` owners' rows (``held``: rowid, text, owner) out, where they
        are in (a contentless table forgets a row given the text it was given)."""
        marks = ", ".join("?" for _ in dropped)
        query = f"SELECT owner FROM gram_owners WHERE owner IN ({marks})"
        done = {row[0] for row in self.db.execute(query, list(dropped))} if dropped else set()
        self.db.executemany(
            "INSERT INTO grams (grams, rowid, folded) VALUES ('delete', ?, ?)",
            [(rowid, body.casefold()) for rowid, body, owner in held if owner in done],
        )
        self.db.executemany("DELETE FROM gram_owners WHERE owner = ?", [(o,) for o in done])

    def _catch_up_grams(self) -> None:
        """The trigrams of every owner's rows in, for the owners whose rows are not in yet."""
        missing = "SELECT owner FROM owners WHERE owner NOT IN (SELECT owner FROM gram_owners)"
        owners = [row[0] for row in self.db.execute(missing)]
        if not owners:
            return
        marks = ", ".join("?" for _ in owners)
        self.db.execute("BEGIN IMMEDIATE")
        try:
            rows = self.db.execute(f"SELECT rowid, body FROM sections WHERE owner IN ({marks})", owners)
            self.db.executemany(
                "INSERT INTO grams (rowid, folded) VALUES (?, ?)", [(r, body.casefold()) for r, body in rows]
            )
            self.db.executemany("INSERT INTO gram_owners VALUES (?)", [(o,) for o in owners])
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    # -- asking it ---------------------------------------------------------------------------------
    def agents(self) -> list[str]:
        """Agents with readable tier files here (wiki topics are not agents)."""
        rows = self.db.execute("SELECT owner FROM owners WHERE problem IS NULL AND owner NOT LIKE 'wiki:%'")
        return sorted(row[0] for row in rows)

    def search(
        self,
        words: Sequence[str],
        agent: str | None = None,
        tier: str | None = None,
        limit: int = 5,
        skip: Collection[str] = (),
    ) -> tuple[list[Found], int]:
        """The first ``limit`` sections holding any of the words, best first, and how many hold one.

        Whole words first (the words but the stop words, :func:`content_words`): of a one-word query
        (:data:`NAME_QUERY`), SQLite's BM25 with the best :data:`RERANK` naming or quoting the word
        first (:func:`literal_first`); of more words, Okapi BM25 on their tokens with the names
        among them first (:meth:`_words`); when they are fewer than ``limit``,
        sections holding a word inside a longer one follow (``token`` in ``accessTokenCache``;
        case folded; :func:`inside_words`), those holding more of the words, then more often, first.
        When neither finds a section, those holding a part of a joined word (``tank-signalr-doorscan``:
        ``tank``, ``signalr``, ``doorscan``; :func:`joined_parts`), by BM25.
        Hot's Index is never found; with ``agent``, only its own sections and the wiki's; the ids in
        ``skip`` never (nor counted), the words' counts for BM25 still the whole index's."""
        filters, args = self._filters(agent, tier, skip)
        asked = content_words(words)
        if len(asked) > NAME_QUERY:
            found, total = self._words(asked, filters, args, limit)
        else:
            found, total = self._whole(match_expression(asked), filters, args, limit, asked)
        inner = inside_words(asked)
        if len(found) < limit and inner:
            more, count = self._inside(inner, filters, args, {f.id for f in found})
            found += more[: limit - len(found)]
            total = max(total, count, len(found))
        parts = joined_parts(asked)
        if not found and parts:
            found, total = self._whole(match_expression(parts), filters, args, limit, [])
        return found, total

    def _words(
        self, words: Sequence[str], filters: str, args: list[str | int], limit: int
    ) -> tuple[list[Found], int]:
        """The first ``limit`` sections holding whole ``words``: of SQLite's best :data:`WORDS_POOL`,
        those naming or quoting the words that look like names first (:func:`literal_first` by
        :func:`name_words`), then by Okapi BM25 on the words' tokens, a token counting the longer
        words it begins as SQLite matches it (:func:`ranking.forms`; the whole index's counts and
        mean length; a section's text heading included), SQLite's order for ties; and how many
        hold one."""
        found, total = self._whole(match_expression(words), filters, args, WORDS_POOL, None)
        terms = ranking.query_tokens(" ".join(words))
        documents, length = self.db.execute("SELECT sum(sections), sum(tokens) FROM owners").fetchone()
        if not found or not documents:
            return found[:limit], total
        weights = {t: ranking.idf(documents, n) for t, n in self._holding(terms).items()}
        average = length / documents
        count = ranking.counter(terms)
        scored = []
        for place, hit in enumerate(found):
            scored.append((-ranking.okapi(count(hit.text), hit.length, average, weights), place))
        scored.sort()
        return literal_first([found[place] for _, place in scored], name_words(words))[:limit], total

    def _holding(self, terms: Sequence[str]) -> dict[str, int]:
        """How many sections hold each term, or a longer word it begins (a number: itself only),
        as SQLite matches it (its tokenizer folds case and diacritics)."""
        query = "SELECT count(*) FROM sections WHERE sections MATCH ?"
        held = {}
        for term in terms:
            phrase = '"' + term.replace('"', '""') + '"' + ("" if term.isdigit() else " *")
            held[term] = self.db.execute(query, [phrase]).fetchone()[0]
        return held

    def _whole(
        self,
        expression: str | None,
        filters: str,
        args: list[str | int],
        limit: int,
        literal: Sequence[str] | None,
    ) -> tuple[list[Found], int]:
        """The first ``limit`` sections holding whole words of ``expression``, by SQLite's BM25, those
        naming or quoting ``literal`` first among the best :data:`RERANK` (None: SQLite's order
        only); and how many hold one."""
        if expression is None:
            return [], 0
        clause = " WHERE sections MATCH ? AND " + filters
        order = f" ORDER BY bm25(sections, {TITLE_WEIGHT}, 1.0), rowid LIMIT ?"
        wanted = limit if literal is None else max(limit, RERANK)
        given = [expression, *args]
        fresh = [Found(*row) for row in self.db.execute(_SELECT + clause + order, [*given, wanted])]
        total = len(fresh)  # all of them, unless as many as asked for came back
        if total == wanted:
            total = self.db.execute("SELECT count(*) FROM sections" + clause, given).fetchone()[0]
        return (fresh if literal is None else literal_first(fresh, literal))[:limit], total

    @staticmethod
    def _filters(
        agent: str | None, tier: str | None, skip: Collection[str] = ()
    ) -> tuple[str, list[str | int]]:
        where, args = ["is_index = '0'"], []
        if agent is not None:
            where.append("(name = ? OR tier = 'wiki')")
            args.append(agent)
        if tier is not None:
            where.append("tier = ?")
            args.append(tier)
        if skip:  # one JSON list, however many: no limit on SQLite's variables to meet
            where.append("id NOT IN (SELECT value FROM json_each(?))")
            args.append(json.dumps(sorted(skip)))
        return " AND ".join(where), list(args)

    def _inside(
        self, terms: Sequence[str], filters: str, args: list[str | int], seen: set[str]
    ) -> tuple[list[Found], int]:
        """Sections holding any of ``terms`` as a substring, case folded, and not found already (at
        most :data:`INSIDE_SCAN` looked at, ranked by how many of the terms they hold, then how
        often), and how many there are."""
        if self.grams:
            self._catch_up_grams()
            clause = " WHERE rowid IN (SELECT rowid FROM grams WHERE grams MATCH ?) AND " + filters
            given: list[str | int] = [_substring_expression(terms), *args]
        else:
            held = " OR ".join("instr(casefold(body), ?) > 0" for _ in terms)
            clause = f" WHERE ({held}) AND " + filters
            given = [*terms, *args]
        rows = self.db.execute(_SELECT + clause + f" LIMIT {INSIDE_SCAN}", given)
        fresh = [f for f in (Found(*row) for row in rows) if f.id not in seen]
        fresh.sort(key=lambda f: _inside_order(f, terms))
        count = self.db.execute("SELECT count(*) FROM sections" + clause, given).fetchone()[0]
        return fresh, count


def _inside_order(found: Found, terms: Sequence[str]) -> tuple[int, int]:
    held = [found.text.casefold().count(t) for t in terms]
    return -sum(1 for n in held if n), -sum(held)


@contextlib.contextmanager
def opened(state_dir: Path) -> Iterator[SearchIndex]:
    index = SearchIndex(state_dir)
    try:
        yield index
    finally:
        index.close()


_ATX = re.compile(r" {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*\r?$")


def rank(query: str, entries: Iterable[tuple[str, str]], limit: int = 5) -> list[str]:
    """The ids of the first ``limit`` of ``entries`` that ``recall QUERY`` ranks first, best first.

    ``entries`` are (id, Markdown text) pairs, ids unique, each text a section with its heading
    line first (its title: the heading's plain text; none when the first line is no ATX heading).
    They are put in an index in memory and asked as ``recall`` asks its own (the same words, stop
    words, BM25, naming first and words inside longer ones), nothing read or written elsewhere: a
    study ranks by it what an agent's ``recall`` would show, without a repository."""
    return ranker(entries)(query, limit)


def ranker(entries: Iterable[tuple[str, str]]) -> Callable[[str, int], list[str]]:
    """:func:`rank` for many queries over the same ``entries``: indexed once, asked each time."""
    from squadmem.engine import titles  # a heading's plain text, as the catalog gives it

    rows = []
    for entry_id, text in entries:
        heading = _ATX.match(text.lstrip("\r\n").split("\n", 1)[0])
        title = titles.plain(heading.group(1) or "") if heading else ""
        rows.append((title, text, entry_id, "archive", "", "", "", "0"))
    index = SearchIndex(None)
    index._replace([], rows, [("", "", None, None)])

    def ask(query: str, limit: int = 5) -> list[str]:
        found, _ = index.search(ranking.words(query), limit=limit)
        return [f.id for f in found]

    return ask

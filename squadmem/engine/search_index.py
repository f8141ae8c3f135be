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
unless it is a number (``#12`` does not find ``#123``). Every word of the query
must match. Sections rank by BM25 (SQLite's: k1 = 1.2, b = 0.75) over two
columns, the title (weighing twice) and the whole section, heading included;
of the best hundred, the sections that name the words as things come first
(a file ``token.py`` for ``token``, a path part, inside a code span), then
those that quote the words exactly as typed, then with case folded (``find_visible()`` finds
the sections that name the function before those about finding what is
visible).
An index SQLite cannot open or write (a read-only git dir, another process
creating it at the same moment) is replaced, for that run, by one in memory.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from squadmem.engine import ranking
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import Layout, TierFile
from squadmem.model.values import Value

FILE = "search.sqlite"
FORMAT = 1
TITLE_WEIGHT = 2.0
RERANK = 100  # the best whole-word matches looked at for the words as typed
INSIDE_SCAN = 500  # sections holding the words inside longer ones, looked at when whole words are few
_SELECT = "SELECT id, tier, file, name, title, body FROM sections"


class Found(Value):
    """One section the index found."""

    __slots__ = ("file", "id", "name", "text", "tier", "title")

    def __init__(self, id: str, tier: str, file: str, name: str, title: str, text: str) -> None:
        self.id, self.tier, self.file, self.name, self.title, self.text = id, tier, file, name, title, text


def match_expression(words: Sequence[str]) -> str | None:
    """The FTS5 query for ``words``: each a phrase of its tokens, all required; None if none has one."""
    phrases = []
    for word in words:
        parts = ranking.tokens(word)
        if not parts:
            continue
        prefix = "" if parts[-1].isdigit() else " *"
        phrases.append('"' + " ".join(parts) + '"' + prefix)
    return " AND ".join(phrases) if phrases else None


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
    top = Path(__file__).resolve().parent.parent
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
    """One work tree's index; :meth:`refresh` before :meth:`search`."""

    def __init__(self, state_dir: Path | None) -> None:
        self.path = None if state_dir is None else state_dir / FILE
        try:
            if state_dir is None:
                raise sqlite3.OperationalError("in memory")
            state_dir.mkdir(parents=True, exist_ok=True)
            self.db = self._open()
        except (OSError, sqlite3.Error):
            self.path = None
            self.db = self._create()

    def _open(self) -> sqlite3.Connection:
        assert self.path is not None
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            key = db.execute("PRAGMA user_version").fetchone()[0]
            found = db.execute("SELECT value FROM meta WHERE name = 'key'").fetchone() if key else None
        except sqlite3.DatabaseError:  # not a database, or not ours: made again
            found = None
        if found is not None and found[0] == _key():
            return db
        db.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        return self._create()

    def _create(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path or ":memory:", timeout=30, isolation_level=None)
        db.executescript(
            """
            BEGIN;
            CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT);
            CREATE TABLE owners (owner TEXT PRIMARY KEY, signature TEXT, problem TEXT, hint TEXT);
            CREATE VIRTUAL TABLE sections USING fts5(
                title, body, id UNINDEXED, tier UNINDEXED, file UNINDEXED, name UNINDEXED,
                owner UNINDEXED, is_index UNINDEXED, tokenize = 'unicode61'
            );
            PRAGMA user_version = 1;
            COMMIT;
            """
        )
        db.execute("INSERT INTO meta VALUES ('key', ?)", (_key(),))
        return db

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
        self.db.execute("BEGIN IMMEDIATE")
        try:
            for owner in [*stale, *gone]:
                self.db.execute("DELETE FROM sections WHERE owner = ?", (owner,))
                self.db.execute("DELETE FROM owners WHERE owner = ?", (owner,))
            self.db.executemany("INSERT INTO sections VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
            self.db.executemany("INSERT INTO owners VALUES (?, ?, ?, ?)", owners)
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
        self, words: Sequence[str], agent: str | None = None, tier: str | None = None, limit: int = 5
    ) -> tuple[list[Found], int]:
        """The first ``limit`` sections holding every word, best first, and how many hold them.

        Whole words first (BM25; of the best :data:`RERANK`, those quoting the words as typed
        before the others: :func:`literal_first`); when they are fewer than ``limit``, sections
        holding every word inside a longer one follow (``token`` in ``accessTokenCache``; ASCII case
        folded), those holding them most often first. Hot's Index is never found; with ``agent``, only its own
        sections and the wiki's."""
        filters, args = self._filters(agent, tier)
        expression = match_expression(words)
        found: list[Found] = []
        total = 0
        if expression is not None:
            clause = " WHERE sections MATCH ? AND " + filters
            total = self.db.execute("SELECT count(*) FROM sections" + clause, [expression, *args]).fetchone()[
                0
            ]
            order = f" ORDER BY bm25(sections, {TITLE_WEIGHT}, 1.0), rowid LIMIT ?"
            rows = self.db.execute(_SELECT + clause + order, [expression, *args, max(limit, RERANK)])
            found = literal_first([Found(*row) for row in rows], words)[:limit]
        exact = any(parts and parts[-1].isdigit() for parts in map(ranking.tokens, words))
        if len(found) < limit and words and not exact:  # a number is found whole (#12 is not #123)
            inner, more = self._inside_words(words, filters, args, {f.id for f in found})
            found += inner[: limit - len(found)]
            total = max(total, more, len(found))
        return found, total

    @staticmethod
    def _filters(agent: str | None, tier: str | None) -> tuple[str, list[str | int]]:
        where, args = ["is_index = '0'"], []
        if agent is not None:
            where.append("(name = ? OR tier = 'wiki')")
            args.append(agent)
        if tier is not None:
            where.append("tier = ?")
            args.append(tier)
        return " AND ".join(where), list(args)

    def _inside_words(
        self, words: Sequence[str], filters: str, args: list[str | int], seen: set[str]
    ) -> tuple[list[Found], int]:
        """Sections holding every word as a substring and not found already (at most
        :data:`INSIDE_SCAN` looked at, ranked by how often the words occur), and how many there are."""
        terms = [w.casefold() for w in words]
        clause = " WHERE " + filters + "".join(" AND instr(lower(body), ?) > 0" for _ in terms)
        rows = [
            Found(*row)
            for row in self.db.execute(_SELECT + clause + f" LIMIT {INSIDE_SCAN}", [*args, *terms])
        ]
        fresh = [f for f in rows if f.id not in seen]
        fresh.sort(key=lambda f: -sum(ranking.counts(f, terms)))
        count = self.db.execute("SELECT count(*) FROM sections" + clause, [*args, *terms]).fetchone()[0]
        return fresh, count


@contextlib.contextmanager
def opened(state_dir: Path) -> Iterator[SearchIndex]:
    index = SearchIndex(state_dir)
    try:
        yield index
    finally:
        index.close()

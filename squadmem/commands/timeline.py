"""``squadmem history ID``: a section's timeline from commits: created, edited, moved, used.

One ``git log`` pass over the commits that touch ``.squad/memory/`` (with
every commit's parents, author and message) rebuilds which tier blob each
commit holds at each path. The walk then goes back from HEAD: while the
file holding the section does not change, nothing happened to it; where it
changes, the parent either holds the same content elsewhere (a move: from
that file), or a section with the same id (an edit, perhaps moved too), or
neither (created there). At a merge the walk follows the parent that holds
the section, so an edit made on a branch is dated by the branch's commit.
Uses are the commits whose ``Squad-Memory-Used`` trailer names any id the
section had.

A walk is kept too (``.git/squadmem/timeline-walks``, the last
:data:`WALKS_KEPT` sections walked): what happened before a commit, to a
section with a given file, content and id there, never changes, so a later
walk that reaches that commit in that state takes the rest from the record
instead of walking on. Asked again with no new commit, ``history`` walks no
commit at all; after new ones, only those.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from squadmem.engine import catalog, cutter, history_cache
from squadmem.engine.catalog import Entry
from squadmem.gitio import commits
from squadmem.gitio.repo import Repo
from squadmem.model import render, sections, uses, writes
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import MAX_FILE_BYTES, classify

Tree = dict[str, str]  # tier file path -> blob


@dataclasses.dataclass(frozen=True)
class Event:
    event: str  # created, edited, moved, used, uncommitted, boundary
    commit: str | None
    when: dt.datetime | None
    author: str | None
    subject: str | None
    file: str | None = None  # where the section is after the event
    source: str | None = None  # moved: where it came from
    id: str | None = None  # its id at that commit

    def as_dict(self) -> dict[str, Any]:
        return {
            "event": self.event,
            "commit": self.commit,
            "date": render.timestamp(self.when),
            "author": self.author,
            "subject": self.subject,
            "file": self.file,
            "from": self.source,
            "to": self.file if self.event == "moved" else None,
            "id": self.id,
        }


class _History:
    """Trees of the memory commits, and blobs cut and named on demand."""

    def __init__(self, repo: Repo) -> None:
        self.repo = repo
        self.commits: dict[str, commits.Commit] = {}
        self.trees: dict[str, Tree] = {}
        self.order: list[str] = []
        self._memory: dict[tuple[str, ...], catalog.Memory] = {}
        self._keys: dict[str, frozenset[bytes]] = {}
        self._cuts: dict[str, cutter.Cut] = {}
        self.bodies: dict[bytes, str] = {}
        self._versions: dict[str, dict[str, None]] = {}
        self._stretch: dict[str, int] = {}
        self._last: dict[str, cutter.Cut] = {}
        self._texts: dict[str, str] = {}
        self.boundary = repo.shallow_boundary()

    def read(self, head: str) -> str:
        """Read the memory commits up to ``head``; return the one whose memory ``head`` has ("": none)."""
        found = graph(self.repo, head)
        listed = found.commits  # topological: children first
        self.order = [c.sha for c in listed]
        for commit in listed:
            self.commits[commit.sha] = commit
        for commit in reversed(listed):  # parents first: git log lists children before parents
            parent = self.trees.get(commit.parents[0], {}) if commit.parents else {}
            if not commit.changes:
                self.trees[commit.sha] = parent
                continue
            tree = dict(parent)
            for _, new, path in commit.changes:
                if new == commits.NULL_SHA:
                    tree.pop(path, None)
                else:
                    tree[path] = new
            self.trees[commit.sha] = tree
        return found.resolve(head)

    def text(self, blob: str) -> str:
        if blob not in self._texts:
            raw = self.repo.blob(blob)
            self._texts[blob] = "" if len(raw) > MAX_FILE_BYTES else raw.decode("utf-8", "replace")
        return self._texts[blob]

    def prefetch(self, path: str, blob: str) -> None:
        """``blob`` and the versions of ``path`` before it, through one ``cat-file --batch``.

        The walk reads a file's versions newest first, one by one: each miss
        fetches the next stretch, twice as long as the last, in one process.
        """
        if blob in self._texts:
            return
        if not self._versions:
            for sha in self.order:  # children first: newest first
                for _, new, changed in self.commits[sha].changes:
                    if new != commits.NULL_SHA:
                        self._versions.setdefault(changed, {}).setdefault(new, None)
        versions = list(self._versions.get(path, {}))
        size = self._stretch.get(path, 16)
        self._stretch[path] = size * 2
        start = versions.index(blob) if blob in versions else len(versions)
        wanted = [blob, *(v for v in versions[start + 1 : start + size] if v not in self._texts)]
        for sha, raw in commits.blobs(self.repo, list(dict.fromkeys(wanted))):
            self._texts[sha] = "" if len(raw) > MAX_FILE_BYTES else raw.decode("utf-8", "replace")

    def cut(self, blob: str, path: str) -> cutter.Cut:
        """The blob cut into sections, relative to the last version of ``path`` cut (the walk's neighbour)."""
        if blob not in self._cuts:
            self.prefetch(path, blob)
            self._cuts[blob] = cutter.cut(self.text(blob), self._last.get(path))
        self._last[path] = self._cuts[blob]
        return self._cuts[blob]

    def keys(self, blob: str, path: str) -> frozenset[bytes]:
        if blob not in self._keys:
            self._keys[blob] = frozenset(self.cut(blob, path).keys)
        return self._keys[blob]

    def holder(
        self, tree: Tree, key: bytes, prefer: str | None, among: Iterable[str], child: Tree | None = None
    ) -> str | None:
        """A file of ``tree`` (``prefer`` first, then ``among``) holding content ``key``.

        A file whose text does not hold the section's (normalized) text at all
        cannot hold it as a section: such a file is not cut.
        """
        body = self.bodies.get(key)
        if prefer and child is not None and self.kept_in_front(child, tree, prefer, key):
            return prefer
        for path in [p for p in (prefer,) if p] + [p for p in among if p != prefer]:
            blob = tree.get(path)
            if blob is None or (
                body is not None and blob not in self._cuts and body not in self.plain(blob, path)
            ):
                continue
            if key in self.keys(blob, path):
                return path
        return None

    def kept_in_front(self, child: Tree, parent: Tree, path: str, key: bytes) -> bool:
        """Does ``path`` in ``parent`` start with the same bytes as in ``child`` through the section
        ``key`` and the next section's heading? Then it holds the section, found without cutting it:
        from the top, both texts scan alike as far as they are alike."""
        new, old = child.get(path), parent.get(path)
        if new is None or old is None or new not in self._cuts:
            return False
        done = self._cuts[new]
        at = [i for i, k in enumerate(done.keys) if k == key]
        if len(at) != 1 or at[0] + 1 >= len(done.starts):
            return False
        self.prefetch(path, old)
        ahead = done.heads[at[0] + 1]
        return self.text(old)[:ahead] == done.text[:ahead]

    def plain(self, blob: str, path: str) -> str:
        """A blob's text with line endings normalized, as section texts are compared."""
        self.prefetch(path, blob)
        text = self.text(blob)
        return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text

    def learn(self, key: bytes, text: str) -> bytes:
        """Remember a section's text by its key (``holder`` looks for it before cutting); return the key."""
        self.bodies[key] = sections.normalize(text)
        return key

    def same_heading(self, tree: Tree, path: str, heading: str) -> tuple[bytes, str] | None:
        """The one section of ``path`` in ``tree`` whose heading is ``heading``: (key, heading)."""
        blob = tree.get(path)
        if blob is None or not heading:
            return None
        done = self.cut(blob, path)
        found = [i for i in range(len(done.keys)) if done.text[done.starts[i] : done.heads[i]] == heading]
        if len(found) != 1:
            return None
        at = found[0]
        end = done.starts[at + 1] if at + 1 < len(done.starts) else len(done.text)
        return self.learn(done.keys[at], done.text[done.starts[at] : end]), heading

    def heading_of(self, tree: Tree, path: str, key: bytes) -> str:
        blob = tree.get(path)
        if blob is None:
            return ""
        done = self.cut(blob, path)
        at = [i for i, k in enumerate(done.keys) if k == key]
        return done.text[done.starts[at[0]] : done.heads[at[0]]] if len(at) == 1 else ""

    def memory(self, tree: Tree, owner: str) -> catalog.Memory:
        """The ids of ``owner``'s sections in a tree: only its own files decide them."""
        paths = tuple(sorted(p for p in tree if _owner(p) == owner))
        signature = tuple(tree[p] for p in paths)
        if signature not in self._memory:
            try:
                self._memory[signature] = catalog.from_blobs({p: self.text(tree[p]).encode() for p in paths})
            except SquadmemError:
                self._memory[signature] = catalog.build([])
        return self._memory[signature]


# -- the commits, cached beside the history cache -------------------------------------------------
CACHE_FILE = "timeline-cache"
CACHE_FORMAT = 2


@dataclasses.dataclass
class Graph:
    """The commits that changed or used memory, children first, and where every other commit leads.

    A commit that neither changes a tier file nor carries a trailer holds its
    first parent's memory, and a walk back through it follows its first
    parent, so it is left out: ``alias`` maps it to its nearest first-parent
    ancestor that is kept (``""``: none), and the kept commits' parents are
    rewritten the same way.
    """

    tip: str
    commits: list[commits.Commit]
    alias: dict[str, str]

    def resolve(self, sha: str) -> str:
        return self.alias.get(sha, sha)


def graph(repo: Repo, head: str) -> Graph:
    """The memory commits reachable from ``head``, from ``.git/squadmem/timeline-cache`` plus those since.

    The cache is kept under the history cache's key with the HEAD it was
    read for; a HEAD that no longer descends from it is read again in full.
    """
    path = repo.state_dir / CACHE_FILE
    key = history_cache.cache_key(repo)
    cached = _load(path, key)
    if cached is not None and cached.tip == head:
        return cached
    found: Graph | None = None
    if cached is not None:
        with contextlib.suppress(SquadmemError):
            new = list(commits.memory_log(repo, [head, f"^{cached.tip}"], detail=True))
            if any(cached.tip in c.parents for c in new):
                found = _compress(new, cached)
    if found is None:
        found = _compress(list(commits.memory_log(repo, [head], detail=True)), Graph("", [], {}))
    found.tip = head
    with contextlib.suppress(OSError):
        _save(path, key, found)
    return found


def _compress(listed: Sequence[commits.Commit], base: Graph) -> Graph:
    """``listed`` (children first) added in front of ``base``, commits where nothing happened left out."""
    kept = {c.sha for c in base.commits}
    alias = dict(base.alias)
    front: list[commits.Commit] = []
    for commit in reversed(listed):  # parents first
        parents = [p if p in kept else alias.get(p, "") for p in commit.parents]
        message = commit.message or ""
        named = uses.parse_used(message) if uses.TRAILER.lower() in message.lower() else []
        if not commit.changes and not named:
            alias[commit.sha] = parents[0] if parents else ""
            continue
        subject = message.split("\n", 1)[0] + ("\n\n" + uses.trailer_line(named) if named else "")
        changes = [("", new, p) for _, new, p in commit.changes]
        rewritten = tuple(dict.fromkeys(p for p in parents if p))
        front.append(dataclasses.replace(commit, message=subject, changes=changes, parents=rewritten))
        kept.add(commit.sha)
    front.reverse()
    return Graph(base.tip, front + base.commits, alias)


def _load(path: Path, key: str) -> Graph | None:
    try:
        data = json.loads(writes.read_state(path))
        if data["format"] != CACHE_FORMAT or data["key"] != key:
            return None
        paths, authors = data["paths"], data["authors"]
        listed = [
            commits.Commit(
                sha,
                int(time),
                message,
                [("", new or commits.NULL_SHA, paths[p]) for new, p in changes],
                tuple(parents.split()),
                authors[author],
            )
            for sha, parents, time, author, message, changes in data["commits"]
        ]
        return Graph(str(data["tip"]), listed, {str(k): str(v) for k, v in data["alias"].items()})
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None


def _save(path: Path, key: str, found: Graph) -> None:
    paths: dict[str, int] = {}
    authors: dict[str, int] = {}
    rows = [
        [
            c.sha,
            " ".join(c.parents),
            c.time,
            authors.setdefault(c.author, len(authors)),
            c.message or "",
            [
                ["" if new == commits.NULL_SHA else new, paths.setdefault(p, len(paths))]
                for _, new, p in c.changes
            ],
        ]
        for c in found.commits
    ]
    body = {
        "format": CACHE_FORMAT,
        "key": key,
        "tip": found.tip,
        "paths": list(paths),
        "authors": list(authors),
    }
    body.update(commits=rows, alias=found.alias)
    writes.atomic_text(path, json.dumps(body, separators=(",", ":")))


# -- the walks, cached beside them ---------------------------------------------------------------
WALKS_FILE = "timeline-walks"
WALKS_FORMAT = 1
WALKS_KEPT = 32  # sections whose last walk is kept, the most recently walked first
State = tuple[str, str, str, str]  # a walk's place: commit, file, content key (hex), id
Walk = tuple[list[Event], set[str]]


def walks_key(repo: Repo) -> str:
    """The history cache's key and this walk's own code: a record made by other code is not used."""
    digest = hashlib.blake2b(history_cache.cache_key(repo).encode(), digest_size=12)
    with contextlib.suppress(OSError):
        digest.update(Path(__file__).read_bytes() + Path(cutter.__file__).read_bytes())
    return digest.hexdigest()


def load_walks(path: Path, key: str) -> dict[State, Walk]:
    """The kept walks by the state each began in, most recent first; none when unreadable or stale."""
    try:
        data = json.loads(writes.read_state(path))
        if data["format"] != WALKS_FORMAT or data["key"] != key:
            return {}
        found: dict[State, Walk] = {}
        for state, rows, ids in data["walks"]:
            events = [
                Event(kind, commit, dt.datetime.fromisoformat(when) if when else None, *rest)
                for kind, commit, when, *rest in rows
            ]
            found[(str(state[0]), str(state[1]), str(state[2]), str(state[3]))] = (events, set(ids))
        return found
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return {}


def save_walks(path: Path, key: str, walks: dict[State, Walk]) -> None:
    """``walks`` (most recent first), one per section id, the first :data:`WALKS_KEPT` of them."""
    kept: dict[str, list[Any]] = {}
    for state, (events, ids) in walks.items():
        if state[3] not in kept and len(kept) < WALKS_KEPT:
            rows = [_row(e) for e in events]
            kept[state[3]] = [list(state), rows, sorted(ids)]
    body = {"format": WALKS_FORMAT, "key": key, "walks": list(kept.values())}
    with contextlib.suppress(OSError):
        writes.atomic_text(path, json.dumps(body, separators=(",", ":")))


def _row(e: Event) -> tuple[str | None, ...]:
    """An event as the record keeps it: its fields in order, the date as ISO text ("" for none)."""
    when = e.when.isoformat() if e.when else ""
    return (e.event, e.commit, when, e.author, e.subject, e.file, e.source, e.id)


def _owner(path: str) -> str | None:
    tf = classify(path)
    return None if tf is None else tf.owner


def _find_by_id(past: _History, tree: Tree, ident: str) -> Entry | None:
    return past.memory(tree, ident.rsplit("/", 1)[0]).by_id().get(ident)


def _event(kind: str, commit: commits.Commit, **more: Any) -> Event:
    return Event(
        kind,
        commit.sha,
        dt.datetime.fromtimestamp(commit.time, dt.UTC),
        commit.author,
        _subject(commit),
        **more,
    )


def _subject(commit: commits.Commit) -> str:
    return (commit.message or "").split("\n", 1)[0]


def timeline(repo: Repo, ref: str) -> dict[str, Any]:
    """The section ``ref`` (id or exact heading) in the work tree, and its events, oldest first."""
    memory = catalog.load(repo.layout)
    entry = memory.find(ref)
    events: list[Event] = []
    ids = {entry.id}
    head = repo.head()
    committed: frozenset[bytes] = frozenset()
    past = _History(repo)
    head = past.read(head) if head is not None else None
    if head:
        path, key = repo.state_dir / WALKS_FILE, walks_key(repo)
        known = load_walks(path, key)
        events, ids, began = _walk(past, head, entry, known)
        if began is not None and began not in known:
            with contextlib.suppress(OSError):  # a record, disposable: not kept this time
                save_walks(path, key, {began: (list(events), set(ids)), **known})
        start = min((e.when for e in events if e.when is not None and e.event == "created"), default=None)
        events += [e for e in _uses(past, ids) if start is None or (e.when is not None and e.when >= start)]
        tree = past.trees[head]
        own = [entry.file] if entry.file in tree else []
        if not any(sections.content_key(entry.text) in past.keys(tree[p], p) for p in own):
            committed = frozenset().union(*(past.keys(b, p) for p, b in tree.items()))
        else:
            committed = frozenset([sections.content_key(entry.text)])
    for ident, when in uses.pending(repo.state_dir).items():
        if ident in ids:
            events.append(
                Event(
                    "pending",
                    None,
                    when,
                    None,
                    "squadmem touch: not committed yet",
                    id=ident,
                )
            )
    if sections.content_key(entry.text) not in committed:
        events.append(
            Event(
                "uncommitted",
                None,
                None,
                None,
                "edited in the work tree, not committed",
                entry.file,
                id=entry.id,
            )
        )
    events.sort(key=lambda e: (e.when is None, e.when or dt.datetime.min.replace(tzinfo=dt.UTC)))
    return {
        "id": entry.id,
        "title": entry.title,
        "tier": entry.tier,
        "file": entry.file,
        "ids": sorted(ids),
        "events": [e.as_dict() for e in events],
    }


def _walk(
    past: _History, head: str, entry: Entry, known: Mapping[State, Walk] | None = None
) -> tuple[list[Event], set[str], State | None]:
    """Back from HEAD along the commits that hold the section; its created/edited/moved events, its
    ids, and the state the walk began in (None: no commit holds it). A state ``known`` holds ends the
    walk: the rest of its events are the record's."""
    known = known or {}
    events: list[Event] = []
    ids = {entry.id}
    start: State | None = None
    sha = head
    key = past.learn(sections.content_key(entry.text), entry.text)
    tree = past.trees[sha]
    where = past.holder(tree, key, entry.file, tree)
    ident = entry.id
    if where is None:  # the committed version differs from the work tree: start from the id
        found = _find_by_id(past, tree, ident)
        if found is None:
            return events, ids, None
        where, key = found.file, past.learn(sections.content_key(found.text), found.text)
    while True:
        state = (sha, where, key.hex(), ident)
        start = start or state
        record = known.get(state)
        if record is not None:
            return events + record[0], ids | record[1], start
        commit = past.commits[sha]
        tree = past.trees[sha]
        if not commit.parents:
            kind = "boundary" if sha in past.boundary else "created"
            events.append(_event(kind, commit, file=where, id=ident))
            return events, ids, start
        step = _step(past, commit, tree, key, where, ident)
        if step is None:
            events.append(_event("created", commit, file=where, id=ident))
            return events, ids, start
        parent, parent_where, parent_key, parent_ident, happened = step
        for kind, source in happened:
            events.append(_event(kind, commit, file=where, source=source, id=ident))
        sha, where, key, ident = parent, parent_where, parent_key, parent_ident
        ids.add(ident)


def _step(
    past: _History, commit: commits.Commit, tree: Tree, key: bytes, where: str, ident: str
) -> tuple[str, str, bytes, str, list[tuple[str, str | None]]] | None:
    """The parent to follow and what happened to the section in ``commit``, or None if it began here."""
    parents = [p for p in commit.parents if p in past.trees]
    if not parents:
        return None
    for parent in parents:  # unchanged on a parent: nothing happened here (for merges, follow that side)
        ptree = past.trees[parent]
        if ptree.get(where) == tree.get(where):
            return parent, where, key, ident, []
    for parent in parents:  # the same content elsewhere, or among other changes of its file
        ptree = past.trees[parent]
        changed = [p for p in set(ptree) | set(tree) if ptree.get(p) != tree.get(p)]
        holder = past.holder(ptree, key, where, changed, tree)
        if holder is not None:
            if holder == where:
                return parent, where, key, ident, []
            return parent, holder, key, _id_at(past, ptree, holder, key) or ident, [("moved", holder)]
    first = parents[0]
    ptree = past.trees[first]
    same = past.same_heading(ptree, where, past.heading_of(tree, where, key))
    if same is not None and past.same_heading(tree, where, same[1]) is not None:
        return first, where, same[0], ident, [("edited", None)]  # edited in place, heading kept
    found = _find_by_id(past, ptree, ident)
    if found is None:
        return None
    happened: list[tuple[str, str | None]] = [("edited", None)]
    if found.file != where:
        happened.append(("moved", found.file))
    return first, found.file, past.learn(sections.content_key(found.text), found.text), found.id, happened


def _id_at(past: _History, tree: Tree, path: str, key: bytes) -> str | None:
    """The id, in ``tree``, of the section of ``path`` whose content is ``key``."""
    owner = _owner(path)
    if owner is None:
        return None
    for entry in past.memory(tree, owner).in_file(path):
        if sections.content_key(entry.text) == key:
            return entry.id
    return None


def _uses(past: _History, ids: set[str]) -> list[Event]:
    found = []
    for commit in past.commits.values():
        if commit.message and uses.TRAILER.lower() in commit.message.lower():
            named = set(uses.parse_used(commit.message)) & ids
            if named:
                found.append(_event("used", commit, id=sorted(named)[0]))
    return found


# -- rendering -------------------------------------------------------------------------------------
def text(data: Mapping[str, Any]) -> str:
    head = f"{data['id']}: {data['title']} ({data['tier']}, {data['file']})"
    if not data["events"]:
        return head + "\nno commit holds it yet"
    rows = []
    for e in data["events"]:
        what = e["event"]
        if what == "moved":
            what = f"moved {_short(e['from'])} → {_short(e['to'])}"
        elif what == "boundary":
            what = "(shallow clone: earlier history missing)"
        rows.append(
            (
                (e["date"] or "now")[:16].replace("T", " "),
                (e["commit"] or "")[:10],
                e["author"] or "",
                what,
                e["subject"] or "",
            )
        )
    return head + "\n" + render.table(("date (UTC)", "commit", "author", "event", "subject"), rows)


def _short(path: str | None) -> str:
    tf = classify(path or "")
    return f"{tf.tier}/{tf.name}" if tf else (path or "?")

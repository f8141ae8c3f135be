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
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any

from squadmem import catalog, history, render, uses
from squadmem.catalog import Entry
from squadmem.errors import SquadmemError
from squadmem.layout import MAX_FILE_BYTES, classify
from squadmem.repo import Repo

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
        self.commits: dict[str, history.Commit] = {}
        self.trees: dict[str, Tree] = {}
        self.order: list[str] = []
        self._memory: dict[tuple[str, ...], catalog.Memory] = {}
        self._keys: dict[str, frozenset[bytes]] = {}
        self._texts: dict[str, str] = {}
        self.boundary = history.shallow_boundary(repo)

    def read(self, head: str) -> None:
        listed = list(history.log(self.repo, [head], detail=True))  # topological: children first
        for commit in listed:
            self.commits[commit.sha] = commit
        for commit in reversed(listed):  # parents first: git log lists children before parents
            parent = self.trees.get(commit.parents[0], {}) if commit.parents else {}
            if not commit.changes:
                self.trees[commit.sha] = parent
                continue
            tree = dict(parent)
            for _, new, path in commit.changes:
                if new == history.NULL_SHA:
                    tree.pop(path, None)
                else:
                    tree[path] = new
            self.trees[commit.sha] = tree

    def text(self, blob: str) -> str:
        if blob not in self._texts:
            raw = self.repo.blob(blob)
            self._texts[blob] = "" if len(raw) > MAX_FILE_BYTES else raw.decode("utf-8", "replace")
        return self._texts[blob]

    def keys(self, blob: str) -> frozenset[bytes]:
        if blob not in self._keys:
            self._keys[blob] = frozenset(history.cut(self.text(blob)).keys)
        return self._keys[blob]

    def holder(self, tree: Tree, key: bytes, prefer: str | None, among: Iterable[str]) -> str | None:
        """A file of ``tree`` (``prefer`` first, then ``among``) holding content ``key``."""
        for path in [p for p in (prefer,) if p] + [p for p in among if p != prefer]:
            blob = tree.get(path)
            if blob is not None and key in self.keys(blob):
                return path
        return None

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


def _owner(path: str) -> str | None:
    tf = classify(path)
    return None if tf is None else tf.owner


def _find_by_id(past: _History, tree: Tree, ident: str) -> Entry | None:
    return past.memory(tree, ident.rsplit("/", 1)[0]).by_id().get(ident)


def _event(kind: str, commit: history.Commit, **more: Any) -> Event:
    return Event(
        kind,
        commit.sha,
        dt.datetime.fromtimestamp(commit.time, dt.UTC),
        commit.author,
        _subject(commit),
        **more,
    )


def _subject(commit: history.Commit) -> str:
    return (commit.message or "").split("\n", 1)[0]


def timeline(repo: Repo, ref: str) -> dict[str, Any]:
    """The section ``ref`` (id or exact heading) in the work tree, and its events, oldest first."""
    memory = catalog.load(repo.layout)
    entry = memory.find(ref)
    events: list[Event] = []
    ids = {entry.id}
    head = repo.head()
    committed: frozenset[bytes] = frozenset()
    if head is not None:
        past = _History(repo)
        past.read(head)
        events, ids = _walk(past, head, entry)
        start = min((e.when for e in events if e.when is not None and e.event == "created"), default=None)
        events += [e for e in _uses(past, ids) if start is None or (e.when is not None and e.when >= start)]
        committed = frozenset().union(*(past.keys(b) for b in past.trees[head].values()))
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
    if history.content_key(entry.text) not in committed:
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


def _walk(past: _History, head: str, entry: Entry) -> tuple[list[Event], set[str]]:
    """Back from HEAD along the commits that hold the section; its created/edited/moved events."""
    events: list[Event] = []
    ids = {entry.id}
    sha = head
    key = history.content_key(entry.text)
    tree = past.trees[sha]
    where = past.holder(tree, key, entry.file, tree)
    ident = entry.id
    if where is None:  # the committed version differs from the work tree: start from the id
        found = _find_by_id(past, tree, ident)
        if found is None:
            return events, ids
        where, key = found.file, history.content_key(found.text)
    while True:
        commit = past.commits[sha]
        tree = past.trees[sha]
        if not commit.parents:
            kind = "boundary" if sha in past.boundary else "created"
            events.append(_event(kind, commit, file=where, id=ident))
            return events, ids
        step = _step(past, commit, tree, key, where, ident)
        if step is None:
            events.append(_event("created", commit, file=where, id=ident))
            return events, ids
        parent, parent_where, parent_key, parent_ident, happened = step
        for kind, source in happened:
            events.append(_event(kind, commit, file=where, source=source, id=ident))
        sha, where, key, ident = parent, parent_where, parent_key, parent_ident
        ids.add(ident)


def _step(
    past: _History, commit: history.Commit, tree: Tree, key: bytes, where: str, ident: str
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
        holder = past.holder(ptree, key, where, changed)
        if holder is not None:
            if holder == where:
                return parent, where, key, ident, []
            return parent, holder, key, _id_at(past, ptree, holder, key) or ident, [("moved", holder)]
    first = parents[0]
    ptree = past.trees[first]
    found = _find_by_id(past, ptree, ident)
    if found is None:
        return None
    happened: list[tuple[str, str | None]] = [("edited", None)]
    if found.file != where:
        happened.append(("moved", found.file))
    return first, found.file, history.content_key(found.text), found.id, happened


def _id_at(past: _History, tree: Tree, path: str, key: bytes) -> str | None:
    """The id, in ``tree``, of the section of ``path`` whose content is ``key``."""
    owner = _owner(path)
    if owner is None:
        return None
    for entry in past.memory(tree, owner).in_file(path):
        if history.content_key(entry.text) == key:
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

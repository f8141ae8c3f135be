"""A section's timeline from commits: created, edited, moved, used (``squadmem history ID``).

The memory commit graph (:mod:`squadmem.engine.history.graph`) gives which
tier blob each commit holds at each path. The walk goes back from HEAD: while
the file holding the section does not change, nothing happened to it; where
it changes, the parent either holds the same content elsewhere (a move: from
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
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from squadmem.engine import catalog
from squadmem.engine.catalog import Entry
from squadmem.engine.history import cutter
from squadmem.engine.history import graph as history_graph
from squadmem.engine.history import past as history_past
from squadmem.engine.history.cache import Cache
from squadmem.engine.history.graph import Tree
from squadmem.engine.history.past import Past, owner
from squadmem.gitio import commits, questions
from squadmem.gitio.repo import Repo
from squadmem.model import render, sections, uses

WALKS = Cache("timeline-walks", 1)


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


WALKS_KEPT = 32  # sections whose last walk is kept, the most recently walked first
State = tuple[str, str, str, str]  # a walk's place: commit, file, content key (hex), id
Walk = tuple[list[Event], set[str]]


def walks_key(repo: Repo) -> str:
    """The history caches' key and the walk's own code: a record made by other code is not used."""
    code = b""
    with contextlib.suppress(OSError):
        code = b"".join(
            Path(m).read_bytes()
            for m in (__file__, history_past.__file__, history_graph.__file__, cutter.__file__)
        )
    return WALKS.key(repo, code)


def load_walks(path: Path, key: str) -> dict[State, Walk]:
    """The kept walks by the state each began in, most recent first; none when unreadable or stale."""
    data, _, _ = WALKS.read(path, key)
    if data is None:
        return {}
    try:
        found: dict[State, Walk] = {}
        for state, rows, ids in data["walks"]:
            events = [
                Event(kind, commit, dt.datetime.fromisoformat(when) if when else None, *rest)
                for kind, commit, when, *rest in rows
            ]
            found[(str(state[0]), str(state[1]), str(state[2]), str(state[3]))] = (events, set(ids))
        return found
    except (ValueError, KeyError, TypeError, IndexError):
        return {}


def save_walks(path: Path, key: str, walks: dict[State, Walk], most: int = WALKS_KEPT) -> None:
    """``walks`` (most recent first), one per section id, the first ``most`` of them."""
    kept: dict[str, list[Any]] = {}
    for state, (events, ids) in walks.items():
        if state[3] not in kept and len(kept) < most:
            rows = [_row(e) for e in events]
            kept[state[3]] = [list(state), rows, sorted(ids)]
    with contextlib.suppress(OSError):
        WALKS.write(path, key, {"walks": list(kept.values())})


def _row(e: Event) -> tuple[str | None, ...]:
    """An event as the record keeps it: its fields in order, the date as ISO text ("" for none)."""
    when = e.when.isoformat() if e.when else ""
    return (e.event, e.commit, when, e.author, e.subject, e.file, e.source, e.id)


def _find_by_id(past: Past, tree: Tree, ident: str) -> Entry | None:
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


Back = tuple[str, str, bytes, str, list[tuple[str, str | None]]]  # parent, file, key, id, what happened
Step = Callable[[Past, commits.Commit, Tree, bytes, str, str], "Back | None"]


def timeline(repo: Repo, ref: str, *, step: Step | None = None, most: int = WALKS_KEPT) -> dict[str, Any]:
    """The section ``ref`` (id or exact heading) in the work tree, and its events, oldest first.

    ``step``: how the walk goes back through one commit (:func:`step_back`);
    ``most``: how many sections' walks are kept."""
    entry = catalog.load(repo.layout).find(ref)
    events: list[Event] = []
    ids = {entry.id}
    committed: frozenset[bytes] = frozenset()
    past = Past(repo)
    head = questions.head(repo.git)
    head = past.read(head) if head is not None else None
    if head:
        events, ids = _walked(repo, past, head, entry, step or step_back, most)
        committed = _committed(past, past.trees[head], entry)
    events += [
        Event("pending", None, when, None, "squadmem touch: not committed yet", id=ident)
        for ident, when in uses.pending(repo.state_dir).items()
        if ident in ids
    ]
    if sections.content_key(entry.text) not in committed:
        why = "edited in the work tree, not committed"
        events.append(Event("uncommitted", None, None, None, why, entry.file, id=entry.id))
    events.sort(key=lambda e: (e.when is None, e.when or dt.datetime.min.replace(tzinfo=dt.UTC)))
    return {
        "id": entry.id,
        "title": entry.title,
        "tier": entry.tier,
        "file": entry.file,
        "ids": sorted(ids),
        "events": [e.as_dict() for e in events],
    }


def _walked(
    repo: Repo, past: Past, head: str, entry: Entry, step: Step, most: int
) -> tuple[list[Event], set[str]]:
    """The section's events and ids from the walk (the kept record taken where it applies, this
    walk kept), and its uses since it was created."""
    path, key = WALKS.path(repo), walks_key(repo)
    known = load_walks(path, key)
    events, ids, began = _walk(past, head, entry, known, step)
    if began is not None and began not in known:
        with contextlib.suppress(OSError):  # a record, disposable: not kept this time
            save_walks(path, key, {began: (list(events), set(ids)), **known}, most)
    start = min((e.when for e in events if e.when is not None and e.event == "created"), default=None)
    events += [e for e in _uses(past, ids) if start is None or (e.when is not None and e.when >= start)]
    return events, ids


def _committed(past: Past, tree: Tree, entry: Entry) -> frozenset[bytes]:
    """The content keys HEAD holds that matter for ``entry``: its own when its file holds it, else all."""
    own = [entry.file] if entry.file in tree else []
    if not any(sections.content_key(entry.text) in past.keys(tree[p], p) for p in own):
        return frozenset().union(*(past.keys(b, p) for p, b in tree.items()))
    return frozenset([sections.content_key(entry.text)])


def _walk(
    past: Past, head: str, entry: Entry, known: Mapping[State, Walk], step: Step
) -> tuple[list[Event], set[str], State | None]:
    """Back from HEAD along the commits that hold the section; its created/edited/moved events, its
    ids, and the state the walk began in (None: no commit holds it). A state ``known`` holds ends the
    walk: the rest of its events are the record's."""
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
        back = step(past, commit, tree, key, where, ident)
        if back is None:
            events.append(_event("created", commit, file=where, id=ident))
            return events, ids, start
        parent, parent_where, parent_key, parent_ident, happened = back
        for kind, source in happened:
            events.append(_event(kind, commit, file=where, source=source, id=ident))
        sha, where, key, ident = parent, parent_where, parent_key, parent_ident
        ids.add(ident)


def step_back(
    past: Past, commit: commits.Commit, tree: Tree, key: bytes, where: str, ident: str
) -> Back | None:
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


def _id_at(past: Past, tree: Tree, path: str, key: bytes) -> str | None:
    """The id, in ``tree``, of the section of ``path`` whose content is ``key``."""
    whose = owner(path, past.places)
    if whose is None:
        return None
    for entry in past.memory(tree, whose).in_file(path):
        if sections.content_key(entry.text) == key:
            return entry.id
    return None


def _uses(past: Past, ids: set[str]) -> list[Event]:
    found = []
    for commit in past.commits.values():
        if commit.message and uses.TRAILER.lower() in commit.message.lower():
            named = set(uses.parse_used(commit.message)) & ids
            if named:
                found.append(_event("used", commit, id=sorted(named)[0]))
    return found

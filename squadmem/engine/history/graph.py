"""The memory commit graph: the commits that changed or used memory, and the tier blobs each holds.

One ``git log`` pass over the commits that touch the tier files (with every
commit's parents, author and message, :func:`squadmem.gitio.commits.memory_log`)
gives which tier blob each commit introduces at each path; a commit where
nothing happened to memory (no tier file changed, no trailer) is left out and
aliased to its nearest first-parent ancestor that is kept. The graph is
cached in ``.git/squadmem/timeline-cache`` (:class:`~squadmem.engine.history.cache.Cache`)
with the HEAD it was read for; the next read takes only the commits since,
and a HEAD that no longer descends from the cached one is read again in full.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Sequence
from pathlib import Path

from squadmem.engine.history.cache import Cache
from squadmem.gitio import commits
from squadmem.gitio.repo import Repo
from squadmem.model import uses
from squadmem.model.errors import SquadmemError

Tree = dict[str, str]  # tier file path -> blob
GRAPH = Cache("timeline-cache", 2)


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

    def trees(self) -> dict[str, Tree]:
        """Each kept commit's tier files (path -> blob), from its first parent's and its changes."""
        trees: dict[str, Tree] = {}
        for commit in reversed(self.commits):  # parents first: git log lists children before parents
            parent = trees.get(commit.parents[0], {}) if commit.parents else {}
            if not commit.changes:
                trees[commit.sha] = parent
                continue
            tree = dict(parent)
            for _, new, path in commit.changes:
                if new == commits.NULL_SHA:
                    tree.pop(path, None)
                else:
                    tree[path] = new
            trees[commit.sha] = tree
        return trees


def graph(repo: Repo, head: str) -> Graph:
    """The memory commits reachable from ``head``, from the cache plus those since."""
    path = GRAPH.path(repo)
    key = GRAPH.key(repo)
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
    data, _, _ = GRAPH.read(path, key)
    if data is None:
        return None
    try:
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
    except (ValueError, KeyError, TypeError, IndexError, AttributeError):
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
    fields = {"tip": found.tip, "paths": list(paths), "authors": list(authors)}
    GRAPH.write(path, key, {**fields, "commits": rows, "alias": found.alias})

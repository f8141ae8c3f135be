"""The past a section's timeline is walked through: the memory commits' trees, and their blobs
read, cut into sections and named on demand (:mod:`squadmem.engine.history.walk` walks them)."""

from __future__ import annotations

from collections.abc import Iterable

from squadmem.engine import catalog
from squadmem.engine.history import cutter
from squadmem.engine.history.graph import Tree, graph
from squadmem.gitio import commits
from squadmem.gitio.repo import Repo
from squadmem.model import sections
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import MAX_FILE_BYTES, classify
from squadmem.model.places import Places


class Past:
    """Trees of the memory commits, and blobs cut and named on demand."""

    def __init__(self, repo: Repo) -> None:
        self.repo = repo
        self.places = repo.layout.places  # the work tree's layout: which paths are tier files
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
        self.trees = found.trees()
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

    def memory(self, tree: Tree, whose: str) -> catalog.Memory:
        """The ids of ``whose`` sections in a tree: only its own files decide them."""
        paths = tuple(sorted(p for p in tree if owner(p, self.places) == whose))
        signature = tuple(tree[p] for p in paths)
        if signature not in self._memory:
            try:
                blobs = {p: self.text(tree[p]).encode() for p in paths}
                self._memory[signature] = catalog.from_blobs(blobs, self.places)
            except SquadmemError:
                self._memory[signature] = catalog.build([], self.places)
        return self._memory[signature]


def owner(path: str, places: Places) -> str | None:
    tf = classify(path, places)
    return None if tf is None else tf.owner

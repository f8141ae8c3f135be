"""``verify``'s conservation check over a range (the rule itself: :mod:`squadmem.engine.verify.conservation`).

Every commit that changes tier files, and every merge, is judged against its
parents' readable states (an unreadable parent: its nearest readable
first-parent ancestor, the deletions by trailer on the way counted); a
merge's duplicate only when a tip of the range still holds it, since
``doctor --fix`` settles it in a commit after the merge.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from squadmem.engine.verify import conservation
from squadmem.engine.verify.range import Commit, Store
from squadmem.engine.verify.result import Result, Violation
from squadmem.gitio import commits as log
from squadmem.gitio.repo import Repo
from squadmem.model import constants
from squadmem.model.errors import SquadmemError

READABLE_WALK = 256  # how far back verify looks for a readable state across unreadable tier files
LINE_MERGE_HINT = (
    "; a merge that lost it merged tier files line by line, without squadmem's merge driver (as in a"
    " clone where it was not set up): bring it back with squadmem restore {id} --at {at}, and run"
    " squadmem init in the clone that merged"
)
SETTLE_HINT = "a merge left it in two places and nothing settled it since (run: squadmem doctor --fix)"
_DELETE_LINE = re.compile(
    rb"^" + re.escape(constants.DELETE_TRAILER.encode()) + rb":[ \t]*(.*)$", re.IGNORECASE | re.MULTILINE
)


class Unreadable(Exception):
    """No readable state to judge a commit's conservation from."""

    def __init__(self, file: str, why: str) -> None:
        super().__init__(why)
        self.file = file
        self.why = why


def _delete_values(raw: bytes) -> list[str]:
    """The Squad-Memory-Delete values of a raw commit object's message."""
    message = raw.split(b"\n\n", 1)[1] if b"\n\n" in raw else b""
    return [m.decode("utf-8", "replace").strip() for m in _DELETE_LINE.findall(message)]


class ConservationCheck:
    """No section lost or duplicated by any commit of the range that is not a move or an index."""

    def __init__(self, repo: Repo, store: Store) -> None:
        self.repo = repo
        self.store = store
        self.snapshots = conservation.Snapshots(store.tier_files, store.read, store.places_of)
        self.merged_twice: list[tuple[str, conservation.Duplicate]] = []

    def conserve(self, commit: Commit, result: Result) -> None:
        if not commit.parents:
            return
        if len(commit.parents) == 1 and not self.touches_memory(commit):
            return
        deleted = conservation.deleted_ids(commit.trailers)
        try:
            after = self.snapshots.of(commit.tree)
            if after is None:
                return  # judged by the next readable commit, from the last readable state (or at the tip)
            parents = [self.readable(p, deleted) for p in commit.parents]
            base = self.merge_base(commit.parents) if len(commit.parents) > 1 else None
        except SquadmemError:
            return  # a parent outside a shallow clone: nothing to compare with
        except Unreadable as exc:
            result.violations.append(Violation(commit.short, exc.file, exc.why))
            return
        for file, why, sid, parent in conservation.lost(after, parents, base, deleted):
            if len(parents) > 1:
                why += LINE_MERGE_HINT.format(id=sid, at=f"{commit.short}^{parent}")
            result.violations.append(Violation(commit.short, file, why))
        for found in conservation.duplicated(after, parents):
            if len(parents) > 1:
                self.merged_twice.append((commit.short, found))  # judged at the tip: settled since?
            else:
                result.violations.append(Violation(commit.short, found.file, found.why))

    def touches_memory(self, commit: Commit) -> bool:
        """Whether a commit changes a tier file of its parent's layout or its own, or the layout."""
        try:
            trees = (self.store.tree_of(commit.parents[0]), commit.tree)
        except SquadmemError:
            return False  # a parent outside a shallow clone: nothing to compare with
        if self.store.places_of(trees[0]) != self.store.places_of(trees[1]):
            return True  # a change of layout: what the parent's tier files held must still be there
        paths = [p for c in commit.changes for p in (c.path, c.source) if p]
        return any(self.store.tier_file(commit.tree, p) is not None for p in paths)

    def unsettled(self, tips: Sequence[str], result: Result) -> None:
        """A merge's duplicates that a tip of the range still holds (nothing settled them since)."""
        held = [s for s in (self.snapshots.of(self.store.tree_of(t)) for t in tips) if s is not None]
        for short, found in self.merged_twice:
            if any(found.holds(snapshot) for snapshot in held):
                why = f"{found.why}: {SETTLE_HINT}"
                result.violations.append(Violation(short, found.file, why))

    def readable(self, sha: str, deleted: set[str]) -> conservation.Snapshot:
        """The snapshot of ``sha``, or, when one of its tier files cannot be read, of its nearest
        first-parent ancestor that can (a loss is never let through by an unreadable commit between);
        the ids deleted by trailer on the way are added to ``deleted``."""
        tree = self.store.tree_of(sha)
        found = self.snapshots.of(tree)
        if found is not None:
            return found
        chain = log.first_parents(self.repo, sha, READABLE_WALK)
        for ancestor in chain:
            found = self.snapshots.of(self.store.tree_of(ancestor))
            if found is not None:
                return found
            values = _delete_values(self.store.read(ancestor))
            deleted |= conservation.deleted_ids({conservation.DELETE: values})
        file = self.snapshots.unreadable.get(tree, "-")
        raise Unreadable(
            file,
            f"cannot be read in {sha[:7]} nor in the {len(chain) - 1} commits before it, so what this "
            "commit lost cannot be told: make the file readable again (UTF-8, no NUL byte) and commit",
        )

    def merge_base(self, parents: Sequence[str]) -> conservation.Snapshot | None:
        try:
            base = log.octopus_base(self.repo, parents)
        except SquadmemError:
            return None  # unrelated histories: every side's sections are expected
        return self.snapshots.of(self.store.tree_of(base)) if base else None

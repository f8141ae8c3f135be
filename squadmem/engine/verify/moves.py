"""``verify``'s exact checks of squadmem's own commits: a pure move (or a restore) and an index refresh.

A commit carrying ``Squad-Memory-Move`` is a pure move: the named section left
its source tier file and arrived, with the same content, in its destination
(in a hot file just before its Index section, else at the end), every other
section and both headers unchanged, no other file changed; a restore
(``history -> <tier>`` with ``Squad-Memory-Restore: <rev>``) added exactly the
section's text at ``<rev>``. A commit carrying ``Squad-Memory-Index`` changes
only the ``Index → Deeper Tiers`` section of ``hot/<agent>.md``.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence

from squadmem.engine import catalog, index
from squadmem.engine.verify.range import REASON, RESTORE, Commit, Store
from squadmem.engine.verify.result import Move, Result, Violation
from squadmem.engine.writing import rebased
from squadmem.gitio import commits as log
from squadmem.model import constants, sections, templates
from squadmem.model.errors import SquadmemError, SquadmemWarning
from squadmem.model.layout import AGENT_TIERS, check_name, decode_tier
from squadmem.model.places import Places
from squadmem.model.sections import trimmed

_FULL_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_MOVE_VALUE = re.compile(r"(\S+)\s+(\S+)\s+->\s+(\S+)")


def same_sections(a: Sequence[catalog.Entry], b: Sequence[catalog.Entry]) -> bool:
    return [trimmed(e.text) for e in a] == [trimmed(e.text) for e in b]


def template_header(tier: str, name: str, places: Places) -> str:
    """The header a new tier file starts with in ``places``' layout (a move may create its target)."""
    return templates.headers(places)(tier, name)


def check_move(store: Store, commit: Commit, value: str, result: Result) -> Move:
    """The move a ``Squad-Memory-Move`` value names, checked; its problems added to ``result``."""
    restore = next(iter(commit.trailers.get(RESTORE, [])), None)
    reason = next(iter(commit.trailers.get(REASON, [])), "")
    match = _MOVE_VALUE.fullmatch(value.strip())
    if not match:
        problems = [("-", f"{constants.MOVE_TRAILER} {value!r}: not '<id> <from> -> <to>'")]
        record = Move(commit.short, value, "", "?", "?", reason, False, restore)
    else:
        sid, source, destination = match.groups()
        title, problems = MoveCheck(store, commit, sid, source, destination, restore).run()
        if problems:
            problems = rebased_problem(store, commit, (sid, source, destination), problems)
        record = Move(commit.short, sid, title, source, destination, reason, not problems, restore)
    for file, why in problems:
        result.violations.append(Violation(commit.short, file, why))
    return record


def rebased_problem(
    store: Store, commit: Commit, move: tuple[str, str, str], problems: list[tuple[str, str]]
) -> list[tuple[str, str]]:
    """A failed move's ``problems`` in one line, with the command that mends them, where the move
    was rebased onto an edit of its section (:func:`rebased.edited_under`): still a violation."""
    sid = move[0]
    where = rebased.paths(*move, store.places_of(commit.tree))
    if where is None or len(commit.parents) != 1 or any(c.path not in where for c in commit.changes):
        return problems
    try:
        before, after = (
            _texts(store, tree, where) for tree in (store.tree_of(commit.parents[0]), commit.tree)
        )
    except SquadmemError:
        return problems
    if rebased.edited_under(before, after, *where) is None:
        return problems
    fix = (
        f"published: run git rebase -i {commit.short}^, drop the move, move the section again"
        " and push with --force-with-lease"
        if rebased.published(store.repo, commit.sha)
        else "run: squadmem settle, which makes the move again with the edit"
    )
    why = (
        f"{sid} arrived with its text from before an edit still in {where[0]} (a move rebased onto"
        f" that edit): not a pure move ({fix})"
    )
    return [(where[1], why)]


def _texts(store: Store, tree: str, rels: Sequence[str]) -> dict[str, str | None]:
    blobs = store.tier_files(tree)
    return {rel: decode_tier(store.read(blobs[rel]), rel) if rel in blobs else None for rel in rels}


def check_index(store: Store, commit: Commit, agent: str) -> list[tuple[str, str]]:
    """An index commit's problems: it may change only the Index section of the agent's hot file."""
    try:
        rel = store.places_of(commit.tree).tier_rel("hot", check_name(agent))
    except SquadmemError as exc:
        return [("-", f"{constants.INDEX_TRAILER} {agent}: {exc.message}")]
    problems = [
        (c.path, "changed by an index commit, which may change only " + rel)
        for c in commit.changes
        if c.path != rel
    ]
    if not commit.parents:
        return [*problems, (rel, "an index commit needs a parent")]
    before = hot_entries(store, store.tree_of(commit.parents[0]), rel)
    after = hot_entries(store, commit.tree, rel)
    if before is None or after is None:
        return [*problems, (rel, "not a readable hot file before and after the index commit")]
    (head_a, entries_a), (head_b, entries_b) = before, after
    kept_a = [e for e in entries_a if not e.is_index]
    kept_b = [e for e in entries_b if not e.is_index]
    headers_alike = trimmed(index.unstamped(head_a)) == trimmed(index.unstamped(head_b))
    if not headers_alike or not same_sections(kept_a, kept_b):
        problems.append((rel, "an index commit changed more than the Index → Deeper Tiers section"))
    if any(e.is_index for e in entries_b[:-1]):
        problems.append((rel, "the Index → Deeper Tiers section must be the file's last section"))
    return problems


def hot_entries(store: Store, tree: str, rel: str) -> tuple[str, list[catalog.Entry]] | None:
    sha = store.tier_files(tree).get(rel)
    if sha is None:
        return "", []
    try:
        memory = catalog.from_blobs({rel: store.read(sha)}, store.places_of(tree))
    except SquadmemError:
        return None
    return memory.files[rel].document.header, memory.in_file(rel)


class MoveCheck:
    """One move commit against the contract."""

    def __init__(
        self, store: Store, commit: Commit, sid: str, source: str, destination: str, restore: str | None
    ) -> None:
        self.store = store
        self.commit = commit
        self.sid = sid
        self.owner, _, _ = sid.rpartition("/")
        self.source = source
        self.destination = destination
        self.restore = restore
        self.problems: list[tuple[str, str]] = []

    def fail(self, file: str, why: str) -> None:
        self.problems.append((file, why))

    def tier_path(self, spec: str) -> str | None:
        tier, _, topic = spec.partition(":")
        if tier in AGENT_TIERS and not topic and not self.owner.startswith("wiki:"):
            name = self.owner
        elif tier == "wiki":
            name = topic or (self.owner.removeprefix("wiki:") if self.owner.startswith("wiki:") else "")
        else:
            return None
        try:
            return self.store.places_of(self.commit.tree).tier_rel(tier, check_name(name))
        except SquadmemError:
            return None

    def run(self) -> tuple[str, list[tuple[str, str]]]:
        if not self.commit.parents:
            return "", [("-", "a move commit needs a parent")]
        dst = self.tier_path(self.destination)
        src = None if self.source == "history" else self.tier_path(self.source)
        if dst is None or (src is None and self.source != "history"):
            return "", [
                (
                    "-",
                    f"{constants.MOVE_TRAILER} {self.sid} {self.source} -> {self.destination}:"
                    " unknown tier or id",
                )
            ]
        if src == dst:
            return "", [(dst, "moves a section to its own tier")]
        allowed = " and ".join(p for p in (src, dst) if p)
        for change in self.commit.changes:
            if change.path not in (src, dst):
                self.fail(change.path, f"changed by a move commit, which may change only {allowed}")
        try:
            title = self.check_files(src, dst)
        except SquadmemError as exc:
            return "", [*self.problems, ("-", exc.message)]
        return title, self.problems

    def memory(self, tree: str, rel: str) -> catalog.Memory:
        tf = self.store.tier_file(self.commit.tree, rel)
        assert tf is not None
        return catalog.from_texts(self.store.texts(tree, tf.owner), self.store.places_of(tree))

    def check_files(self, src: str | None, dst: str) -> str:
        parent_tree = self.store.tree_of(self.commit.parents[0])
        before, after = self.memory(parent_tree, dst), self.memory(self.commit.tree, dst)
        arrived = self.arrival(dst, before, after)
        if src is None:
            if arrived is not None:
                self.check_restored(arrived)
            return arrived.title if arrived else ""
        moved = self.departure(parent_tree, src)
        if moved is not None and arrived is not None and trimmed(arrived.text) != trimmed(moved.text):
            self.fail(dst, f"{self.sid} arrived with content different from what left {src}")
        return moved.title if moved else ""

    def departure(self, parent_tree: str, src: str) -> catalog.Entry | None:
        """The section that left ``src``, after checking nothing else there changed."""
        before, after = self.memory(parent_tree, src), self.memory(self.commit.tree, src)
        found = [e for e in before.in_file(src) if e.id == self.sid]
        if not found:
            self.fail(src, f"names {self.sid}, which this file does not hold before the move")
            return None
        rest = [e for e in before.in_file(src) if e.id != self.sid]
        head_a = before.files[src].document.header
        head_b = after.files[src].document.header if src in after.files else ""
        if not same_sections(rest, after.in_file(src)) or trimmed(head_a) != trimmed(head_b):
            self.fail(src, f"changed more than the removal of {self.sid}")
        return found[0]

    def arrival(self, dst: str, before: catalog.Memory, after: catalog.Memory) -> catalog.Entry | None:
        """The one section that arrived in ``dst`` where the contract puts it; everything else unchanged."""
        tf = self.store.tier_file(self.commit.tree, dst)
        assert tf is not None
        old, new = before.in_file(dst), after.in_file(dst)
        at = next((n for n, e in enumerate(old) if e.is_index), len(old))
        if dst not in after.files or len(new) != len(old) + 1:
            self.fail(dst, f"does not receive exactly one section ({self.sid})")
            return None
        if not same_sections(old, new[:at] + new[at + 1 :]):
            self.fail(dst, f"changed more than the arrival of {self.sid}")
        head_b = after.files[dst].document.header
        head_a = (
            before.files[dst].document.header
            if dst in before.files
            else template_header(tf.tier, tf.name, after.places)
        )
        if trimmed(head_a) != trimmed(head_b):
            self.fail(dst, "its header changed in a move commit")
        arrived = new[at]
        if tf.tier != "wiki" and arrived.id != self.sid:
            self.fail(dst, f"the section that arrived has the id {arrived.id}, not {self.sid}")
        return arrived

    def check_restored(self, arrived: catalog.Entry) -> None:
        if not self.restore:
            self.fail(arrived.file, f"a move from history needs a {constants.RESTORE_TRAILER}: <rev> trailer")
            return
        try:
            texts = self.store.texts(self.store.tree_of(self.restore_sha())).values()
        except SquadmemError:
            if self.store.repo.is_shallow():  # beyond the boundary: not provable here, not disproved either
                warnings.warn(
                    SquadmemWarning(
                        f"{arrived.file}: the restore of {self.sid} was not checked: {self.restore[:12]}"
                        " is beyond this shallow clone's boundary",
                        hint="git fetch --unshallow, then verify again, proves it",
                    ),
                    stacklevel=2,
                )
                return
            lacks = f"{constants.RESTORE_TRAILER} names {self.restore}, which this repository lacks"
            self.fail(arrived.file, lacks)
            return
        wanted = trimmed(arrived.text)
        if not any(trimmed(s.text) == wanted for text in texts for s in sections.split(text).sections):
            self.fail(arrived.file, f"the restored section is not a section's text at {self.restore[:12]}")

    def restore_sha(self) -> str:
        """The restore's commit: a full sha is read as it is; anything else costs one rev-parse."""
        assert self.restore is not None
        if _FULL_SHA.fullmatch(self.restore):
            return self.restore
        return log.commit_of(self.store.repo, self.restore)

"""Carrying out a plan: one commit per move, serialized, crash-safe, safe beside the user's git.

A move commit is built beside the user's work, never through it: the blobs,
trees and the commit object are written straight into the object store (loose
objects, in-process). Then, holding git's own ``index.lock`` (taken as git
takes it, so no ``git commit``, ``commit -a``, ``add`` or checkout can run in
between; one that holds it is waited for, ``SQUADMEM_LOCK_TIMEOUT`` seconds),
HEAD advances by compare-and-swap (``git update-ref HEAD <new> <old>``), the
tier files are replaced atomically (temporary file + ``os.replace``), the file
a section arrives in before the file it leaves, and the index with only those
entries refreshed is put in place as git commits its own lock. The user's
other staged and unstaged changes are never read or written. A tier file the
plan writes that has uncommitted changes makes the whole run refuse before
anything is written. A commit the user made meanwhile that left the tier files
alone is built upon; one that changed them makes the run stop, nothing written.

Writers serialize on ``<git dir>/squadmem/lock`` (``flock``; a second writer
waits ``SQUADMEM_LOCK_TIMEOUT`` seconds, default 5, then gives up with
exit 2); the git dir is the work tree's own (``git rev-parse --git-dir``), so
linked worktrees each have their own lock and journal. Each commit is
journaled in ``<git dir>/squadmem/journal.json``: intent (old HEAD, new
commit, paths) before HEAD moves, cleared when the work tree and index match
the new HEAD. The pre-commit hook refuses commits while it exists. A process
killed at any point leaves either the old HEAD (the journal is dropped:
nothing else was written) or the new one (the next writer, or ``squadmem
doctor --fix``, writes the files and index entries from it); an
``index.lock`` it leaves is recognised as its own and removed. Every section
is present exactly once, byte-identical in HEAD and the work tree.

Work-tree conversion is git's: with ``core.autocrlf`` or ``text``/``eol``/
``filter`` attributes, texts are read and written as checked out and their
blobs made by git's clean filter. A tier file outside a sparse checkout, or a
merge, rebase, cherry-pick or revert under way, makes writers refuse.

Testing aid: ``SQUADMEM_FAULT=<step>`` (or ``<step>@<n>`` for the n-th time
that step is reached) makes the process exit at once with status 99 at that
step; :data:`STEPS` lists them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from squadmem.engine import index, titles
from squadmem.engine.planning import policy
from squadmem.gitio import questions
from squadmem.gitio.config import Config
from squadmem.gitio.conversion import Conversion
from squadmem.gitio.indexlock import IndexLock, index_locked, next_index, updated_by_git
from squadmem.gitio.objects import Objects
from squadmem.gitio.repo import Repo
from squadmem.model import gitstate, jsontext, logs, removals, sections, uses, writes
from squadmem.model.constants import DELETE_TRAILER
from squadmem.model.errors import Exit, SquadmemError
from squadmem.model.layout import AGENT_TIERS, MAX_FILE_BYTES, TIERS, classify, decode_tier, encode_tier

DIRTY_HINT = (
    "commit or stash them first, or add --commit-edits to maintain, promote or demote: squadmem then"
    " commits them as they are first (a hot file over budget, which git commit refuses); squadmem"
    " changed nothing"
)

STEPS = (
    "index-locked",  # git's index.lock is squadmem's; nothing else written
    "objects-written",  # blobs, trees and the commit object are in the object store
    "journal-written",  # the intent is on disk; HEAD has not moved
    "head-moved",  # HEAD is the new commit; work tree and index are not updated
    "worktree-partial",  # the first of two tier files (the one a section arrives in) is written
    "worktree-written",  # every tier file is written; the index is not updated
    "index-staged",  # the new index is in index.lock, not yet in place
    "index-updated",  # the index matches; pending uses are not consumed
    "uses-consumed",  # pending uses are consumed; the journal is still there
    "journal-cleared",  # the commit is complete
)
FAULT_ENV = "SQUADMEM_FAULT"
FAULT_STATUS = 99
LOCK_TIMEOUT_ENV = writes.LOCK_TIMEOUT_ENV
JOURNAL = gitstate.JOURNAL
LOCK = "lock"
_BUSY = "another squadmem command (pid {pid}) is writing to this repository; gave up after waiting {waited} s"
_reached: dict[str, int] = {}


def fault(step: str) -> None:
    """Exit the process at once (status 99) if ``SQUADMEM_FAULT`` names this step."""
    spec = os.environ.get(FAULT_ENV)
    if not spec:
        return
    name, _, nth = spec.partition("@")
    if name != step:
        return
    _reached[step] = _reached.get(step, 0) + 1
    if _reached[step] == int(nth or 1):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(FAULT_STATUS)


# -- the lock ------------------------------------------------------------------------------------


class Lock(writes.FileLock):
    """``.git/squadmem/lock``: one squadmem writer at a time (released by the OS if the process dies)."""

    def __init__(self, state_dir: Path, timeout: float | None = None) -> None:
        super().__init__(state_dir / LOCK, timeout, busy=_BUSY)


__all__ = ["IndexLock", "Lock", "Made", "Writer", "message", "recover", "session"]


# -- the journal ---------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Journal:
    """One commit in flight: enough to finish it or to forget it."""

    old: str
    new: str
    paths: tuple[str, ...]
    consume: tuple[str, ...]
    subject: str

    @staticmethod
    def path(repo: Repo) -> Path:
        return gitstate.journal_path(repo.work_git_dir)

    def write(self, repo: Repo) -> None:
        data = json.dumps(dataclasses.asdict(self), ensure_ascii=False).encode("utf-8")
        _replace(self.path(repo), data)

    @classmethod
    def read(cls, repo: Repo) -> Journal | None:
        data = gitstate.journal_bytes(repo.work_git_dir)
        if data is None:
            return None
        try:
            raw = jsontext.loads(data)
            return cls(raw["old"], raw["new"], tuple(raw["paths"]), tuple(raw["consume"]), raw["subject"])
        except (ValueError, KeyError, TypeError):
            return cls("", "", (), (), "(unreadable journal)")

    @classmethod
    def clear(cls, repo: Repo) -> None:
        """Remove the journal; a folder found at its path is moved aside (squadmem never made it)."""
        writes.discard(cls.path(repo))


def _replace(path: Path, data: bytes, like: Path | None = None) -> None:
    """Write ``path`` whole or not at all (the lock is held), with ``like``'s mode when it exists."""
    mode = like.stat().st_mode & 0o7777 if like is not None and like.exists() else None
    writes.atomic(path, data, mode=mode, locked=True)


def pending(repo: Repo) -> Journal | None:
    """The journal of a commit that did not finish, if there is one."""
    return Journal.read(repo)


def recover(repo: Repo) -> str | None:
    """Finish or forget an interrupted commit; a sentence saying which, or None. Hold the lock."""
    lock = IndexLock(repo, timeout=0)
    stale_lock = lock.ours()
    lock.release()
    journal = Journal.read(repo)
    writes.temp_of(Journal.path(repo)).unlink(missing_ok=True)
    if journal is None:
        return "git's index.lock left by an interrupted squadmem command was removed" if stale_lock else None
    for rel in journal.paths:
        with contextlib.suppress(FileNotFoundError, NotADirectoryError):
            writes.temp_of(repo.root / rel).unlink()
    head = questions.head(repo.git)
    if not journal.new or head == journal.old or head is None:
        Journal.clear(repo)
        return f"an interrupted move was rolled back (HEAD had not moved): {journal.subject}"
    objects = Objects(repo)
    if head == journal.new:
        blocked = _unwritable(repo, journal.paths)
        if blocked is not None:
            return _roll_back(repo, objects, journal, blocked)
        _sync(repo, objects, journal, journal.paths)
        Journal.clear(repo)
        return f"an interrupted move was completed: {journal.subject}"
    synced = _sync_if_untouched(repo, objects, journal, head)
    Journal.clear(repo)
    return (
        f"an interrupted move was found after HEAD had moved on; {synced} tier file(s) brought up to date: "
        f"{journal.subject}"
    )


def _unwritable(repo: Repo, paths: Sequence[str]) -> SquadmemError | None:
    """Why the work tree cannot hold one of ``paths`` (a file where its folder goes), if it cannot."""
    for rel in paths:
        try:
            repo.layout.writable(repo.root / rel)
        except SquadmemError as exc:
            return exc
    return None


def _roll_back(repo: Repo, objects: Objects, journal: Journal, problem: SquadmemError) -> str:
    """HEAD moved, but the work tree cannot take the commit (a file where its folder goes):
    HEAD goes back to where it was (compare-and-swap) and the files to what it holds."""
    shown = problem.message
    questions.update_ref(repo.git, "HEAD", journal.old, journal.new, f"squadmem: roll back {journal.subject}")
    old_tree = objects.tree_of(journal.old)
    kept = [rel for rel in journal.paths if objects.entry(old_tree, rel) is not None]
    _sync(repo, objects, dataclasses.replace(journal, new=journal.old, consume=()), kept)
    Journal.clear(repo)
    return (
        f"an interrupted move was rolled back (the work tree could not take it: {shown}): {journal.subject}"
    )


def _sync(repo: Repo, objects: Objects, journal: Journal, paths: Sequence[str]) -> None:
    tree = objects.tree_of(journal.new)
    if paths:
        config = repo.git_config()
        conversion = Conversion(repo, config)
        with index_locked(repo) as lock:
            _check_out(repo, objects, conversion, config, tree, paths, lock)
    if journal.consume:
        uses.consume(repo.state_dir, journal.consume)


def _check_out(
    repo: Repo,
    objects: Objects,
    conversion: Conversion,
    config: Config,
    tree: str,
    paths: Sequence[str],
    lock: IndexLock,
) -> None:
    """``paths`` written as ``tree`` has them (as git checks them out) and their index entries
    refreshed, under the index lock the caller holds."""
    blobs = {}
    for rel in paths:
        found = objects.entry(tree, rel)
        if found is None or found.is_tree:
            continue
        data = conversion.to_worktree(rel, found.sha, objects.read(found.sha))
        target = repo.root / rel
        if repo.layout.read_file(repo.layout.writable(target)) != data:
            _replace(target, data, like=target)
        blobs[rel] = found.sha
    lock.write(refreshed_index(repo, conversion, config, blobs, paths))
    lock.commit()


def _sync_if_untouched(repo: Repo, objects: Objects, journal: Journal, head: str) -> int:
    """HEAD moved past the journal: bring up to date the files nobody has touched since."""
    old_tree, new_tree, head_tree = (objects.tree_of(c) for c in (journal.old, journal.new, head))
    conversion = Conversion(repo, repo.git_config())
    paths = []
    for rel in journal.paths:
        current = repo.layout.read_file(repo.root / rel)
        old = objects.entry(old_tree, rel)
        as_old = None if old is None else conversion.to_worktree(rel, old.sha, objects.read(old.sha))
        if current == as_old and objects.content(head_tree, rel) == objects.content(new_tree, rel):
            paths.append(rel)
    head_journal = dataclasses.replace(journal, new=head)
    _sync(repo, objects, head_journal, paths)
    return len(paths)


def refreshed_index(
    repo: Repo, conversion: Conversion, config: Config, blobs: Mapping[str, str], paths: Sequence[str]
) -> bytes:
    """The next index, ``paths`` refreshed from the work tree (``blobs``: the blob each now holds).

    Built in-process where each file is its blob byte for byte; git's ``update-index`` where
    git converts a file (its clean filter is the judge), or a path's blob is not known."""
    if set(paths) <= set(blobs) and not any(conversion.applies(rel) for rel in paths):
        filemode = config.get("core.filemode") is None or config.flag("core.filemode")
        return next_index(repo, {rel: blobs[rel] for rel in paths}, filemode)
    return updated_by_git(repo, paths)


def merge_committed(repo: Repo) -> bool:
    """Whether the merge ``MERGE_HEAD`` names is committed already: git's post-merge hook runs
    before git removes ``MERGE_HEAD``, and the merge's commit then has it as a parent."""
    try:
        merged = (repo.work_git_dir / "MERGE_HEAD").read_text("ascii").split()
        parents = questions.parents(repo.git, "HEAD")
    except (OSError, UnicodeDecodeError, SquadmemError):
        return False
    return bool(merged) and len(parents) > 1 and set(merged) <= set(parents[1:])


def operation_under_way(repo: Repo) -> gitstate.Operation | None:
    """A merge, rebase, cherry-pick or revert under way in this work tree (a committed merge is done)."""
    operation = gitstate.in_progress(repo.work_git_dir)
    if operation is not None and operation.name == "a merge" and merge_committed(repo):
        return None
    return operation


def refuse_mid_operation(repo: Repo) -> None:
    """Refuse (exit 2) while a merge, rebase, cherry-pick or revert is under way in this work tree."""
    operation = operation_under_way(repo)
    if operation is not None:
        raise SquadmemError(
            f"{operation.name} is under way in this work tree: squadmem writes nothing until it is done",
            hint=operation.hint("run the command again"),
        )


@contextlib.contextmanager
def session(repo: Repo, timeout: float | None = None) -> Iterator[Writer]:
    """Hold the lock, finish any interrupted commit, and give a :class:`Writer`.

    Every squadmem command that writes tier files or commits goes through here.
    """
    with Lock(repo.work_state_dir, timeout):
        refuse_mid_operation(repo)
        note = recover(repo)
        yield Writer(repo, note)


# -- writing commits -----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Made:
    sha: str
    subject: str

    def as_dict(self) -> dict[str, Any]:
        return {"commit": self.sha, "subject": self.subject}


def refuse_sparse(repo: Repo, config: Config, paths: Sequence[str]) -> None:
    """Refuse (exit 2) to write a file a sparse checkout leaves out of this work tree."""
    if not config.flag("core.sparsecheckout"):
        return
    folders = sorted({rel.rpartition("/")[0] + "/" for rel in paths})
    excluded, tracked = questions.sparse_excluded(repo.git, [*paths, *folders])
    for rel in paths:
        folder = rel.rpartition("/")[0]
        siblings_out = any(e.rpartition("/")[0] == folder for e in excluded)
        if rel in excluded or (rel not in tracked and siblings_out):
            raise SquadmemError(
                f"{rel}: outside this sparse checkout; squadmem writes nowhere git leaves files out",
                hint=f"include it first: git sparse-checkout add {folder}",
            )


def _write_worktree(repo: Repo, files: Mapping[str, str]) -> None:
    """The new texts, the files that grow first: a section is on disk twice for a moment, never zero."""

    def growth(item: tuple[str, str]) -> int:
        path = repo.root / item[0]
        return len(item[1].encode("utf-8")) - (path.stat().st_size if path.exists() else 0)

    ordered = sorted(files.items(), key=growth, reverse=True)
    for number, (rel, content) in enumerate(ordered):
        path = repo.root / rel
        _replace(path, content.encode("utf-8"), like=path)
        if number == 0 and len(ordered) > 1:
            fault("worktree-partial")
    fault("worktree-written")


def message(subject: str, body: str, trailers: Sequence[tuple[str, str]]) -> str:
    lines = [subject, "", body, ""] if body else [subject, ""]
    lines += [f"{key}: {value}" for key, value in trailers]
    return "\n".join(lines) + "\n"


class Writer:
    """Makes squadmem's commits, one at a time, under the lock."""

    def __init__(self, repo: Repo, recovered: str | None = None) -> None:
        self.repo = repo
        self.recovered = recovered
        self.objects = Objects(repo)
        head = questions.head(repo.git)
        if head is None:
            raise SquadmemError(
                "this repository has no commit yet",
                hint="commit the tier files first (git add .squad && git commit)",
            )
        self.head = head
        self.tree = self.objects.tree_of(head)
        self._config: Config | None = None
        self._conversion: Conversion | None = None

    # -- facts, read once per run -----------------------------------------------------------------
    def config(self) -> Config:
        """git's configuration and identity, read once per run."""
        if self._config is None:
            self._config = self.repo.git_config()
        return self._config

    def conversion(self) -> Conversion:
        if self._conversion is None:
            self._conversion = Conversion(self.repo, self.config())
        return self._conversion

    def checked_out(self, rel: str) -> bytes | None:
        """A file's bytes as checking out HEAD writes them (None if HEAD has no such file); the
        work tree's own bytes where git takes them for HEAD's blob (:meth:`Conversion.same_as_blob`)."""
        found = self.objects.entry(self.tree, rel)
        if found is None or found.is_tree:
            return None
        conversion = self.conversion()
        data = conversion.to_worktree(rel, found.sha, self.objects.read(found.sha))
        if conversion.applies(rel):
            on_disk = self.repo.layout.read_file(self.repo.root / rel)
            if on_disk is not None and on_disk != data and conversion.same_as_blob(rel, on_disk, found.sha):
                return on_disk
        return data

    def text(self, rel: str) -> str | None:
        """A tier file as HEAD has it, as checked out (None if HEAD has no such file)."""
        data = self.checked_out(rel)
        return None if data is None else decode_tier(data, rel)

    def refuse_file_in_the_way(self, rel: str) -> None:
        """Refuse (exit 2) a path HEAD cannot hold: a file of HEAD's where one of its folders goes."""
        folder = rel.rpartition("/")[0]
        while folder:
            found = self.objects.entry(self.tree, folder)
            if found is not None and not found.is_tree:
                raise SquadmemError(
                    f"{folder}: a file in HEAD where a folder belongs; squadmem changed nothing",
                    hint=f"commit it out of the way first: git mv {folder} {folder}.old"
                    f" (or, if it is gone from the work tree, git rm --cached {folder}), then git commit",
                )
            folder = folder.rpartition("/")[0]

    def grown_text(self, rel: str) -> str | None:
        """A file's work-tree text if it only grew at its end since HEAD (an append-only log).

        None when neither HEAD nor the work tree has it; refuses any other uncommitted change.
        """
        committed = self.text(rel)
        raw = self.repo.layout.read_file(self.repo.root / rel)
        if raw is None:
            if committed is not None:
                raise SquadmemError(f"{rel}: deleted but not committed", hint="restore it with git checkout")
            return None
        current = decode_tier(raw, rel)
        if committed is not None and not current.startswith(committed):
            raise SquadmemError(
                f"{rel}: has uncommitted changes that are not an append",
                hint="commit or undo them first; squadmem changed nothing",
            )
        return current

    def refuse_dirty(self, paths: Sequence[str]) -> None:
        """Refuse (exit 2, nothing written) if a tier file differs from HEAD in the index or work tree."""
        refuse_sparse(self.repo, self.config(), paths)
        dirty = questions.dirty(self.repo.git, paths)
        for rel in paths:
            if rel in dirty:
                continue
            on_disk = self.repo.layout.read_file(self.repo.root / rel)
            if on_disk != self.checked_out(rel):
                dirty.append(rel)
        if dirty:
            raise SquadmemError(
                f"{sorted(dirty)[0]}: has uncommitted changes"
                + (f" (and {len(dirty) - 1} more)" if len(dirty) > 1 else ""),
                hint=DIRTY_HINT,
            )

    def commit_edits(self, command: str) -> Made | None:
        """Commit the tier files' uncommitted changes as the work tree has them, in one commit made
        beside the user's index (other staged files stay staged); None when there are none.

        Refuses (exit 2, nothing written) a tier file deleted but not committed, or with staged and
        unstaged changes both (which of the two to commit is the user's call).
        """
        files: dict[str, str] = {}
        on_disk: dict[str, bytes | None] = {}
        # every memory path, not only the memory folder: a workspace's hot file is MEMORY.md beside it
        for code, rel in questions.status(self.repo.git, list(self.repo.layout.places.pathspecs)):
            tier = classify(rel, self.repo.layout.places)
            if tier is None or tier.tier not in TIERS:
                continue
            if "D" in code or "R" in code:
                raise SquadmemError(
                    f"{rel}: deleted or renamed but not committed", hint=f"commit it first: git commit {rel}"
                )
            if code[0] not in " ?" and code[1] != " ":
                raise SquadmemError(
                    f"{rel}: has staged and unstaged changes; squadmem changed nothing",
                    hint=f"stage the whole file (git add {rel}) or undo the unstaged part, then run it again",
                )
            raw = (self.repo.root / rel).read_bytes()
            files[rel], on_disk[rel] = decode_tier(raw, rel), raw
        if not files:
            return None
        names = ", ".join(sorted(files))
        subject = f"memory: commit uncommitted edits to {len(files)} tier file(s)"
        body = f"{names}: committed as the work tree had them by squadmem {command} --commit-edits."
        gone = self.removed_by(files)
        trailers = [(DELETE_TRAILER, ", ".join(gone))] if gone else []
        return Made(self.commit(files, message(subject, body, trailers), (), on_disk), subject)

    def removed_by(self, files: Mapping[str, str]) -> list[str]:
        """The ids of the sections HEAD holds that ``files`` (path -> new text) remove: the edits'
        ``Squad-Memory-Delete`` trailer, by the rule ``verify`` and the message hooks share."""
        places = self.repo.layout.places
        rels = set(files)
        for owner in {removals.owner_of(places, rel) for rel in files}:
            if owner and not owner.startswith("wiki:"):
                rels.update(places.tier_rel(tier, owner) for tier in AGENT_TIERS)
        before = {rel: text for rel in rels if (text := self.text(rel)) is not None}
        after = {**before, **files}
        try:
            return removals.removed(before, after, places, titles.plain)
        except sections.FlagError:
            return []  # the catalog refuses the file later, saying why

    # -- one commit ------------------------------------------------------------------------------
    def commit(
        self,
        files: Mapping[str, str],
        text: str,
        consume: Sequence[str] = (),
        on_disk_now: Mapping[str, bytes | None] | None = None,
    ) -> str:
        """Commit ``files`` (repository path -> new text) on HEAD, then update the work tree and index.

        Each file must be on disk as HEAD has it, or as ``on_disk_now`` says (a grown log).
        Everything from HEAD's move to the index update happens under git's index.lock.
        """
        encoded = {rel: encode_tier(content, rel) for rel, content in files.items()}
        paths = list(files)
        for rel in paths:
            self.repo.layout.writable(self.repo.root / rel)
            self.refuse_file_in_the_way(rel)
        refuse_sparse(self.repo, self.config(), paths)
        with index_locked(self.repo) as lock:
            fault("index-locked")
            self._catch_up(paths)
            self._check_on_disk(paths, on_disk_now or {})
            blobs = {rel: self.conversion().to_blob(self.objects, rel, data) for rel, data in encoded.items()}
            tree = self.objects.with_blobs(self.tree, blobs)
            new = self.objects.commit(tree, self.head, text, self.config())
            fault("objects-written")
            subject = text.split("\n", 1)[0]
            Journal(self.head, new, tuple(files), tuple(consume), subject).write(self.repo)
            fault("journal-written")
            self._advance(new, subject)
            fault("head-moved")
            try:
                _write_worktree(self.repo, files)
                lock.write(refreshed_index(self.repo, self.conversion(), self.config(), blobs, paths))
                fault("index-staged")
                lock.commit()
            except (OSError, SquadmemError) as exc:
                shown = exc.message if isinstance(exc, SquadmemError) else str(exc)
                raise SquadmemError(
                    f"committed {new[:12]}, but the work tree or index could not be updated: {shown}",
                    hint="run: squadmem doctor --fix",
                    code=Exit.INTERNAL,
                ) from None
            fault("index-updated")
        if consume:
            uses.consume(self.repo.state_dir, consume)
        fault("uses-consumed")
        Journal.clear(self.repo)
        fault("journal-cleared")
        self.head, self.tree = new, tree
        return new

    def replace_head(self, new: str, paths: Sequence[str], subject: str) -> None:
        """HEAD from the old commit to ``new``, a rewrite of commits not yet published whose trees
        differ from the old ones only in ``paths``; those files and their index entries follow.
        Journaled and made under git's index.lock like any commit; refuses uncommitted changes."""
        self.refuse_dirty(paths)
        with index_locked(self.repo) as lock:
            self._check_on_disk(paths, {})
            Journal(self.head, new, tuple(paths), (), subject).write(self.repo)
            self._advance(new, subject)
            tree = self.objects.tree_of(new)
            _check_out(self.repo, self.objects, self.conversion(), self.config(), tree, paths, lock)
        Journal.clear(self.repo)
        self.head, self.tree = new, tree

    def _catch_up(self, paths: Sequence[str]) -> None:
        """Build on a commit made meanwhile if it left these files alone; else stop, nothing written."""
        now = self.repo.head_from_files()
        if now is None or now == self.head:
            return
        tree = self.objects.tree_of(now)
        changed = [
            rel for rel in paths if self.objects.entry(tree, rel) != self.objects.entry(self.tree, rel)
        ]
        if changed:
            raise SquadmemError(
                f"{changed[0]}: changed by a commit made while squadmem was running; this move was not made",
                hint="run the command again",
            )
        self.head, self.tree = now, tree

    def _check_on_disk(self, paths: Sequence[str], expected: Mapping[str, bytes | None]) -> None:
        for rel in paths:
            on_disk = self.repo.layout.read_file(self.repo.root / rel)
            wanted = expected[rel] if rel in expected else self.checked_out(rel)
            if on_disk != wanted:
                raise SquadmemError(
                    f"{rel}: changed while squadmem was running", hint="run the command again"
                )

    def commit_files(
        self,
        files: Mapping[str, str],
        subject: str,
        body: str = "",
        grown: Sequence[str] = (),
        trailers: Sequence[tuple[str, str]] = (),
    ) -> Made:
        """One commit of these files' new texts that is not a move (no Squad-Memory-Move trailer).

        Refuses (exit 2, nothing written) if one of them has uncommitted changes, except that a
        path in ``grown`` may have grown in the work tree (see :meth:`grown_text`): its new text
        must then start with the work tree's, so nothing written there is lost.
        Pending uses ride on it as a Squad-Memory-Used trailer, consumed once it is made.
        """
        self.refuse_dirty([rel for rel in files if rel not in grown])
        on_disk: dict[str, bytes | None] = {}
        for rel in grown:
            current = self.grown_text(rel)
            if not files[rel].startswith(current or ""):
                raise SquadmemError(
                    f"{rel}: the new text would drop uncommitted lines", hint="commit them first"
                )
            on_disk[rel] = None if current is None else self.repo.layout.read_file(self.repo.root / rel)
        pending = uses.pending(self.repo.state_dir)
        pending_ids = tuple(sorted(pending))
        tokens = uses.carried(pending, pending_ids, logs.commit_now(self.repo.commit_dates()))
        every = [*trailers, *([(uses.TRAILER, uses.join(tokens))] if tokens else [])]
        return Made(self.commit(files, message(subject, body, every), pending_ids, on_disk), subject)

    def _advance(self, new: str, subject: str) -> None:
        """HEAD from the old commit to ``new``, only if it is still the old one."""
        try:
            questions.update_ref(self.repo.git, "HEAD", new, self.head, f"commit (squadmem): {subject}")
        except SquadmemError:
            Journal.clear(self.repo)
            raise SquadmemError(
                "HEAD moved while squadmem was committing (a git commit at the same time?); "
                "this move was not made",
                hint="run the command again",
            ) from None

    # -- plans -----------------------------------------------------------------------------------
    def execute(self, plan: policy.Plan, header: policy.Header) -> list[Made]:
        """Make the plan's commits: each move, then each Index refresh. Pending uses go on the first.

        The plan is played against HEAD twice: once to the end, before anything is written,
        to prove it ends where the plan said; then again, one commit at a time. Only the
        files of the commit in hand are ever held whole, so memory does not grow with the
        number of moves.
        """
        if plan.empty:
            return []
        self.refuse_dirty(plan.read())
        self.rehearse(plan, header)
        pending = uses.pending(self.repo.state_dir)
        pending_ids = tuple(sorted(pending))
        made = []
        for number, (files, subject, body, trailers, used) in enumerate(self.steps(plan, header)):
            carried = tuple(dict.fromkeys([*(pending_ids if number == 0 else ()), *used]))
            if carried:
                tokens = uses.carried(
                    pending if number == 0 else {}, carried, logs.commit_now(self.repo.commit_dates())
                )
                trailers = [*trailers, (uses.TRAILER, uses.join(tokens))]
            sha = self.commit(files, message(subject, body, trailers), pending_ids if number == 0 else ())
            made.append(Made(sha, subject))
        return made

    def rehearse(self, plan: policy.Plan, header: policy.Header) -> None:
        """Play the plan against HEAD to its end without writing: it must end where the plan said."""
        replay = _Replay(self, header)
        for rels, *_ in replay.play(plan):
            for rel in rels:  # nothing is committed if any step would write a file squadmem refuses to read
                if replay.docs[rel].bytes > MAX_FILE_BYTES:
                    encode_tier(replay.docs[rel].text(), rel)
        for rel, doc in replay.docs.items():
            text = doc.text()
            if plan.files.get(rel, text) != text:
                raise SquadmemError(
                    f"{rel}: HEAD differs from the work tree the plan was made from",
                    hint="commit or stash your changes to tier files, then run again",
                )

    def steps(
        self, plan: policy.Plan, header: policy.Header
    ) -> Iterator[tuple[dict[str, str], str, str, list[tuple[str, str]], tuple[str, ...]]]:
        """Each commit's files (the whole new texts of the files it changes), message parts and uses."""
        replay = _Replay(self, header)
        for rels, subject, body, trailers, used in replay.play(plan):
            yield {rel: replay.docs[rel].text() for rel in rels}, subject, body, trailers, used


class _Replay:
    """A plan played against HEAD's tier files, section by section (:class:`index.Doc`)."""

    def __init__(self, writer: Writer, header: policy.Header) -> None:
        self.writer = writer
        self.header = header
        self.docs: dict[str, index.Doc] = {}

    def doc(self, rel: str, tier: str, name: str) -> index.Doc:
        if rel not in self.docs:
            found = self.writer.text(rel)
            self.docs[rel] = index.Doc(self.header(tier, name) if found is None else found)
        return self.docs[rel]

    def play(
        self, plan: policy.Plan
    ) -> Iterator[tuple[list[str], str, str, list[tuple[str, str]], tuple[str, ...]]]:
        """Per commit: the files it changes (as ``self.docs`` now has them), subject, body, trailers, uses."""
        try:
            for move in plan.moves:
                rels = []
                cut = move.text
                if move.source is not None:
                    cut = self.doc(move.source, move.source_tier, move.source_name).remove(move.text)
                    rels.append(move.source)
                self.doc(move.target, move.target_tier, move.target_name).insert(cut)
                rels.append(move.target)
                yield rels, move.subject, move.why, move.trailers(), move.used
            for refresh in plan.indexes:
                hot = self.doc(refresh.file, "hot", refresh.agent)
                hot.replace_index(refresh.text)
                if refresh.stamp is not None:
                    hot.stamp(refresh.stamp)
                lines = index.listed(refresh.text)
                body = (
                    f"{lines} line(s) pointing into cold, archive and the wiki"
                    if refresh.text
                    else "taken out: even its last line would put the file over its budget"
                )
                yield [refresh.file], refresh.subject, body, refresh.trailers(), ()
        except index.SpliceError as exc:
            raise SquadmemError(
                f"the plan no longer applies to HEAD: {exc}", hint="run the command again"
            ) from None

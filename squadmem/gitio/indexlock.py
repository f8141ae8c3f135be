"""git's ``index.lock``, taken as git takes it, and the index put in place as git commits its lock.

While squadmem holds it no git command can stage, commit or check out in
this work tree, so none can interleave with a commit squadmem makes; ``git
status`` only skips its optional index refresh. It is taken by hard-linking
a placeholder in squadmem's state folder (``index.lock.hold``), so an
``index.lock`` a killed squadmem left is known as its own (the same file)
and recovery removes it; anyone else's is waited for
(``SQUADMEM_LOCK_TIMEOUT`` seconds), then reported.

The next index, with only the paths a commit wrote refreshed, is built
in-process (:mod:`squadmem.gitio.indexfile`); where that module leaves the
work to git, ``git update-index --add`` refreshes a scratch copy. Standard
library only.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from squadmem.gitio import indexfile, questions
from squadmem.model import writes
from squadmem.model.errors import SquadmemError

if TYPE_CHECKING:
    from squadmem.gitio.repo import Repo

HOLD = "index.lock.hold"  # squadmem's hard link to the index.lock it holds


class IndexLock:
    """git's own ``index.lock`` for this work tree, taken as git takes it (created only if absent)."""

    def __init__(self, repo: Repo, timeout: float | None = None) -> None:
        self.index = repo.work_git_dir / "index"
        self.path = repo.work_git_dir / "index.lock"
        self.hold = repo.work_state_dir / HOLD
        self.root = repo.root
        self.timeout = writes.lock_timeout() if timeout is None else timeout

    def shown(self) -> str:
        try:
            return self.path.relative_to(self.root).as_posix()
        except ValueError:
            return str(self.path)

    def ours(self) -> bool:
        """Whether the ``index.lock`` there now is the one squadmem took."""
        try:
            return os.path.samefile(self.hold, self.path)
        except OSError:
            return False

    def acquire(self) -> None:
        self.hold.parent.mkdir(parents=True, exist_ok=True)
        self.hold.unlink(missing_ok=True)
        os.close(os.open(self.hold, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644))
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                os.link(self.hold, self.path)
                return
            except FileExistsError:
                if time.monotonic() >= deadline:
                    self.hold.unlink(missing_ok=True)
                    raise SquadmemError(
                        f"git's index is locked ({self.shown()}): another git command is running "
                        f"in this work tree; gave up after waiting {self.timeout:g} s, nothing written",
                        hint="run it again when that command is done "
                        f"(if none is running, delete {self.shown()}); "
                        f"or wait longer: {writes.LOCK_TIMEOUT_ENV}=SECONDS",
                    ) from None
                time.sleep(0.01)

    def write(self, data: bytes) -> None:
        """The new index, into the lock file (the placeholder is the same file)."""
        with open(self.hold, "r+b") as handle:
            handle.write(data)
            handle.truncate()

    def commit(self) -> None:
        """Put the new index in place, as git commits its lock."""
        os.replace(self.path, self.index)
        self.hold.unlink(missing_ok=True)

    def release(self) -> None:
        """Drop the lock if it is still squadmem's (the index stays as it was)."""
        if self.ours():
            self.path.unlink(missing_ok=True)
        self.hold.unlink(missing_ok=True)


@contextlib.contextmanager
def index_locked(repo: Repo) -> Iterator[IndexLock]:
    lock = IndexLock(repo)
    lock.acquire()
    try:
        yield lock
    finally:
        lock.release()


def next_index(repo: Repo, blobs: Mapping[str, str], filemode: bool = True) -> bytes:
    """The index with only ``blobs``' paths (repository path -> the blob of the file just written)
    refreshed from the work tree, as ``git update-index --add`` would make it."""
    real = repo.work_git_dir / "index"
    try:
        data = real.read_bytes()
        files = {rel: (sha, os.lstat(repo.root / rel)) for rel, sha in blobs.items()}
    except OSError:
        return updated_by_git(repo, list(blobs))
    made = indexfile.refresh(data, files, repo.object_format, filemode)
    return updated_by_git(repo, list(blobs)) if made is None else made


def updated_by_git(repo: Repo, paths: Sequence[str]) -> bytes:
    """The index with only ``paths`` refreshed by ``git update-index --add`` in a scratch copy."""
    real = repo.work_git_dir / "index"
    scratch = repo.work_git_dir / f"index{writes.TMP_SUFFIX}"
    if real.exists():
        shutil.copyfile(real, scratch)
    else:
        scratch.unlink(missing_ok=True)
    try:
        questions.update_index(repo.git, scratch, paths)
        return scratch.read_bytes()
    finally:
        scratch.unlink(missing_ok=True)

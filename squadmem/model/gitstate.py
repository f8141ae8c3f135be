"""What state a work tree's git is in: an operation under way, an unfinished squadmem move.

Standard library only: the hooks use it. Everything here is read from the work
tree's own git dir (``git rev-parse --git-dir``): in a linked worktree that is
``.git/worktrees/<name>/``, which holds its HEAD, its index, a merge or rebase
under way, and squadmem's journal for that work tree.
"""

from __future__ import annotations

import os
import stat

from squadmem.model import constants
from squadmem.model.values import Value

TYPE_CHECKING = False  # the hooks import this module: neither typing nor pathlib at run time
if TYPE_CHECKING:
    from pathlib import Path

STATE_DIR = constants.STATE_DIR
JOURNAL = constants.JOURNAL


class Operation(Value):
    """A git operation under way: what it is and the commands that end it."""

    __slots__ = ("abort", "finish", "name")

    def __init__(self, name: str, finish: str, abort: str) -> None:
        self.name = name  # "a merge"
        self.finish = finish  # "git merge --continue"
        self.abort = abort  # "git merge --abort"

    def hint(self, then: str) -> str:
        return f"finish it first ({self.finish}, or {self.abort}), then {then}"


_MARKERS = (
    ("rebase-merge", Operation("a rebase", "git rebase --continue", "git rebase --abort")),
    ("rebase-apply", Operation("a rebase or am", "git rebase --continue", "git rebase --abort")),
    ("MERGE_HEAD", Operation("a merge", "git commit", "git merge --abort")),
    ("CHERRY_PICK_HEAD", Operation("a cherry-pick", "git cherry-pick --continue", "git cherry-pick --abort")),
    ("REVERT_HEAD", Operation("a revert", "git revert --continue", "git revert --abort")),
)


def in_progress(git_dir: str | os.PathLike[str]) -> Operation | None:
    """The operation under way in the work tree whose git dir this is, if any."""
    for marker, operation in _MARKERS:
        if os.path.exists(os.path.join(git_dir, marker)):
            return operation
    return None


def journal_path(git_dir: Path) -> Path:
    return git_dir / STATE_DIR / JOURNAL


def journal_bytes(git_dir: str | os.PathLike[str]) -> bytes | None:
    """The journal's bytes, None when there is none; b"" when something else is at its path (a
    folder, a FIFO, a symlink loop): that is never opened for reading, so nothing hangs."""
    try:
        fd = os.open(os.path.join(git_dir, STATE_DIR, JOURNAL), os.O_RDONLY | os.O_NONBLOCK)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError:
        return b""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read()
    finally:
        os.close(fd)


def unfinished_move(git_dir: str | os.PathLike[str]) -> str | None:
    """The subject of a squadmem move this work tree's journal says is unfinished, if any."""
    raw = journal_bytes(git_dir)
    if raw is None:
        return None
    from squadmem.model import jsontext  # only when there is a journal: the hooks pay for it then alone

    try:
        subject = jsontext.loads(raw).get("subject")
    except (ValueError, AttributeError):
        subject = None
    return subject if isinstance(subject, str) and subject else "(unreadable journal)"

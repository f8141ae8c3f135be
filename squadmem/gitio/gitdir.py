"""Where a work tree's git directory is, and what it says, read without starting git.

Standard library only.
"""

from __future__ import annotations

from pathlib import Path


def git_dir(start: Path | None = None) -> Path | None:
    """The git directory of the work tree a hook runs at the top of (``.git``, or where a ``.git``
    file points, as in a linked worktree), found without starting git; None if there is none."""
    dot = (start or Path.cwd()) / ".git"
    if dot.is_dir():
        return dot
    try:
        first = dot.read_text("utf-8").split("\n", 1)[0]
    except (OSError, UnicodeDecodeError):
        return None
    if not first.startswith("gitdir: "):
        return None
    found = Path(first[len("gitdir: ") :].strip())
    return found if found.is_absolute() else dot.parent / found


def merge_head_file(start: Path | None = None) -> str | None:
    """The first commit in ``MERGE_HEAD`` while a merge is being concluded, else None."""
    where = git_dir(start)
    try:
        text = (where / "MERGE_HEAD").read_text("ascii") if where else ""
    except (OSError, UnicodeDecodeError):
        return None
    first = text.split("\n", 1)[0].strip()
    return first if len(first) in (40, 64) else None

"""Where a work tree's git directory is, and what it says, read without starting git.

Standard library only, and no ``pathlib``: the hooks call this on every
commit, and a commit that stages no memory file should pay for little more
than Python's start. Paths are strings (``os.path``).
"""

from __future__ import annotations

import os


def git_dir(start: str | None = None) -> str | None:
    """The git directory of the work tree a hook runs at the top of (``.git``, or where a ``.git``
    file points, as in a linked worktree), found without starting git; None if there is none."""
    dot = os.path.join(start or os.getcwd(), ".git")
    if os.path.isdir(dot):
        return dot
    try:
        with open(dot, encoding="utf-8") as handle:
            first = handle.readline().rstrip("\n")
    except (OSError, UnicodeDecodeError):
        return None
    if not first.startswith("gitdir: "):
        return None
    found = first[len("gitdir: ") :].strip()
    return found if os.path.isabs(found) else os.path.join(os.path.dirname(dot), found)


def common_dir(start: str | None = None) -> str | None:
    """The common git directory of that work tree, absolute and real as ``git rev-parse
    --path-format=absolute --git-common-dir`` says it (a linked worktree's ``commondir`` names it),
    found without starting git; None if there is no git directory."""
    where = git_dir(start)
    if where is None:
        return None
    try:
        with open(os.path.join(where, "commondir"), encoding="utf-8") as handle:
            common = handle.read().strip()
    except (OSError, UnicodeDecodeError):
        common = ""
    return os.path.realpath(os.path.join(where, common) if common else where)


def merge_head_file(start: str | None = None) -> str | None:
    """The first commit in ``MERGE_HEAD`` while a merge is being concluded, else None."""
    where = git_dir(start)
    try:
        with open(os.path.join(where, "MERGE_HEAD") if where else os.devnull, encoding="ascii") as handle:
            first = handle.readline().strip()
    except (OSError, UnicodeDecodeError):
        return None
    return first if len(first) in (40, 64) else None

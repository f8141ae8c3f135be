"""pre-commit hook: no commit while a squadmem move is unfinished in this work tree.

A move interrupted (a kill, a crash) between moving HEAD and updating the work
tree and index leaves its journal in ``<git dir>/squadmem/journal.json``;
a commit made then could carry a stale index or a half-written work tree.
Prints ``squadmem: a move is unfinished (...); run: squadmem doctor --fix``
and exits 1. The git dir is the work tree's own (``.git``, or where a ``.git``
file points; ``git rev-parse --git-dir`` below the top), so a linked worktree is
judged by its own journal. File names are accepted and ignored: the check is
about the work tree, not a file. Standard library only.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from squadmem.hooks import staged
from squadmem.model import constants

FIX = "run: squadmem doctor --fix"
JOURNAL = (constants.STATE_DIR, constants.JOURNAL)
PROG = "squadmem-journal-check"
ABOUT = "Refuse a commit while a squadmem move is unfinished in this work tree."


def check(env: Mapping[str, str], names: Sequence[str] = ()) -> list[str]:
    where = staged.git_dir(env)
    if not os.path.exists(os.path.join(where, *JOURNAL)):
        return []
    from squadmem.model import gitstate

    subject = gitstate.unfinished_move(where)
    if subject is None:
        return []
    return [f"squadmem: a move is unfinished ({subject}); commit after it is finished: {FIX}"]


def main(argv: Sequence[str] | None = None) -> int:
    return staged.run_check(check, argv, PROG, ABOUT, files="ignored: the check is about the work tree")


if __name__ == "__main__":
    raise SystemExit(main())

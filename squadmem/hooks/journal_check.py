"""pre-commit hook: no commit while a squadmem move is unfinished in this work tree.

A move interrupted (a kill, a crash) between moving HEAD and updating the work
tree and index leaves its journal in ``<git dir>/squadmem/journal.json``;
a commit made then could carry a stale index or a half-written work tree.
Prints ``squadmem: a move is unfinished (...); run: squadmem doctor --fix``
and exits 1. The git dir is the work tree's own (``git rev-parse --git-dir``),
so a linked worktree is judged by its own journal. Standard library only.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from squadmem.gitio import runner
from squadmem.hooks import staged
from squadmem.model import gitstate

FIX = "run: squadmem doctor --fix"


def git_dir(env: dict[str, str]) -> Path:
    return Path(runner.git(["rev-parse", "--absolute-git-dir"], env).decode("utf-8").strip())


def check(env: dict[str, str]) -> list[str]:
    subject = gitstate.unfinished_move(git_dir(env))
    if subject is None:
        return []
    return [f"squadmem: a move is unfinished ({subject}); commit after it is finished: {FIX}"]


def main(argv: Sequence[str] | None = None) -> int:
    return staged.run_check(check)


if __name__ == "__main__":
    raise SystemExit(main())

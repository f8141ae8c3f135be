"""post-merge hook: settle what the merge left, so the merged history passes ``verify`` and pre-push.

When the merge driver kept an edit at a moved section's old place (git took
the section's new file whole), it noted it in ``.git/squadmem/merge-settle.json``.
With that note there, this runs ``squadmem settle`` (one commit puts the edit
at the new place); without it, nothing starts but this module. A merge that
stops on a conflict runs no post-merge hook: ``maintain`` and ``doctor --fix``
settle first, and pre-push names the fix. Standard library only: ``squadmem
settle`` runs in a Python of its own, started with ``site`` so the CLI's
packages are found, squadmem's own folder on its path.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from squadmem.hooks import staged
from squadmem.model import constants

SETTLE = (constants.STATE_DIR, constants.SETTLE)  # under the common git dir
PROG = "squadmem-settle-merge"


def common_dir(where: str) -> str:
    """The common git directory of a work tree's git directory (a linked worktree names it)."""
    try:
        with open(os.path.join(where, "commondir"), encoding="utf-8") as handle:
            common = handle.readline().rstrip("\n")
    except (OSError, UnicodeDecodeError):
        return where
    return common if os.path.isabs(common) else os.path.join(where, common)


def noted(env: dict[str, str]) -> bool:
    """Whether the merge driver left a note to settle."""
    return os.path.exists(os.path.join(common_dir(staged.git_dir(env)), *SETTLE))


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("-h", "--help"):
        print(f"usage: {PROG} [SQUASH]\n\nRun squadmem settle after a merge that left an edit to settle.")
        return 0
    env = dict(os.environ)
    try:
        if not noted(env):
            return 0
    except Exception:  # not in a work tree: nothing to settle here
        return 0
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join([*paths, package_root])
    sys.stdout.flush()
    os.execve(sys.executable, [sys.executable, "-m", "squadmem", "settle"], env)
    return 0  # not reached


if __name__ == "__main__":
    raise SystemExit(main())

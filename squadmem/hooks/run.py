"""The dispatcher the git hook shims call: ``python -m squadmem.hooks.run EVENT ARGS...``.

Each git hook event runs the squadmem checks registered for it, in order,
and stops at the first that refuses. ``pre-commit`` first looks (one ``git
diff``) whether the commit stages any memory file or one of Squad's spawn
files (:mod:`squadmem.hooks.spawn_check`), or concludes a merge: when it does
none of these, only the journal check runs and nothing else is imported;
when it does, the object reader (``git cat-file --batch``) started with that
``git diff`` opens the repository while the checks are imported.
Standard library only.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

# event -> modules whose main(argv) runs for it; each is importable on its own
# by the pre-commit framework too (see .pre-commit-hooks.yaml).
EVENTS: dict[str, tuple[str, ...]] = {
    "pre-commit": (
        "squadmem.hooks.journal_check",
        "squadmem.hooks.file_check",
        "squadmem.hooks.log_check",
        "squadmem.hooks.budget_check",
        "squadmem.hooks.spawn_check",
    ),
    "pre-merge-commit": ("squadmem.hooks.log_check",),  # a merge git commits itself runs no pre-commit
    "prepare-commit-msg": ("squadmem.hooks.use_trailers",),
    "commit-msg": ("squadmem.hooks.use_trailers",),  # after the editor: the message is written then
    "pre-push": ("squadmem.hooks.verify_push",),
    "post-merge": ("squadmem.hooks.post_merge",),  # settles what the merge left (squadmem settle)
}
PROG = "squadmem pre-commit hook"


def pre_commit() -> int:
    """The pre-commit checks, each only when the commit gives it something to judge."""
    from squadmem.hooks import journal_check, staged

    status = staged.run(journal_check.check, (), PROG)
    if status:
        return status
    try:
        return _memory_checks()
    finally:
        staged.close()


def _memory_checks() -> int:
    """The checks of the memory files, after one look (``git diff``, started with the object reader
    before the checks are imported) at whether the commit stages any or concludes a merge; then,
    when it stages one of Squad's spawn files, the spawn block check."""
    from squadmem.gitio import gitdir, runner
    from squadmem.hooks import staged

    try:
        handed = staged.handed_diff()  # the shim's own git diff: taken out of the environment first
        env = runner.git_env()
        staged.start(env, handed)
        touched = bool(staged.memory_changes(env)) or gitdir.merge_head_file() is not None
        spawned = bool(staged.spawn_changes(env))
    except Exception:  # the checks below report it
        touched = spawned = True
    if touched:
        from squadmem.hooks import budget_check, file_check, log_check

        for check in (file_check.check, log_check.check, budget_check.lines):
            status = staged.run(check, (), PROG)
            if status:
                return status
        from squadmem.hooks import deletions

        deletions.note_staged(env)  # for the message shims: a removal to name starts their Python
    if spawned:
        from squadmem.hooks import spawn_check

        return staged.run(spawn_check.check, (), PROG)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in EVENTS:
        print(f"usage: python -m squadmem.hooks.run {{{'|'.join(EVENTS)}}} [ARGS...]", file=sys.stderr)
        return 2
    event, rest = args[0], args[1:]
    if event == "pre-commit" and not rest:
        return pre_commit()
    if event in ("prepare-commit-msg", "commit-msg") and rest:
        from squadmem.hooks import use_trailers

        status = use_trailers.quick(rest[0])  # nothing pending: no git, no argparse
        if status is not None:
            return status
    import importlib

    for name in EVENTS[event]:
        module = importlib.import_module(name)
        status = int(module.main(rest))
        if status != 0:
            return status
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""pre-commit hook: staged hot files stay within ``hot.max_bytes`` and ``hot.max_lines``.

Prints ``path: 4300 bytes > 4096 (hot.max_bytes); run: squadmem maintain`` per
offence on stderr and exits 1; with ``budget.mode = "warn"`` in ``tiers.toml``
it prints the same and exits 0. Only hot files the commit adds or changes are
checked, against the staged ``tiers.toml``, by the one budget rule
(:mod:`squadmem.model.budget`). While a merge, rebase, cherry-pick
or revert is under way (squadmem maintain refuses to write then) the hook only
reports, with the hint ``once a merge is finished, run: squadmem maintain``.
Standard library only.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from squadmem.gitio import formats, runner
from squadmem.hooks import staged
from squadmem.model import gitstate
from squadmem.model.budget import FIX, hot_blob_over
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import MEMORY_DIR, classify


def check(env: dict[str, str]) -> tuple[list[str], bool]:
    """The offences among staged hot files, and whether they only warn."""
    entries = [
        e
        for e in staged.staged(f"{MEMORY_DIR}/hot/", env)
        if e.new_sha and (tf := classify(e.path)) is not None and tf.tier == "hot"
    ]
    if not entries:
        return [], False
    blobs = formats.cat_files([f":{staged.SETTINGS_PATH}", *(e.new_sha or "" for e in entries)], env)
    conf = staged.read_settings(blobs)
    found = [
        f"{e.path}: {why}"
        for e in entries
        for why in hot_blob_over(blobs.get(e.new_sha or "") or b"", conf.hot)
    ]
    return found, conf.budget.mode == "warn"


def mid_operation(offences: list[str], env: dict[str, str]) -> list[str] | None:
    """The offences reworded for a merge/rebase under way (when maintain cannot run), else None."""
    git_dir = Path(runner.git(["rev-parse", "--absolute-git-dir"], env).decode("utf-8").strip())
    operation = gitstate.in_progress(git_dir)
    if operation is None:
        return None
    later = f"once {operation.name} is finished, run: squadmem maintain"
    return [o.replace(FIX, later) for o in offences] + [
        f"{operation.name} is under way: reported, not refused"
    ]


def main(argv: Sequence[str] | None = None) -> int:
    try:
        env = runner.git_env()
        offences, warn_only = check(env)
        reworded = mid_operation(offences, env) if offences and not warn_only else None
    except SquadmemError as exc:
        staged.report([], exc)
        return int(exc.code)
    if reworded is not None:
        staged.report(reworded)
        return 0
    if offences and warn_only:
        offences.append('budget.mode = "warn" in tiers.toml: reported, not refused')
    staged.report(offences)
    return 1 if offences and not warn_only else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""pre-commit hook: staged hot files stay within ``hot.max_bytes`` and ``hot.max_lines``.

Prints ``path: 4300 bytes > 4096 (hot.max_bytes); run: squadmem maintain`` per
offence on stderr and exits 1; with ``budget.mode = "warn"`` in ``tiers.toml``
it prints the same and exits 0. Only hot files the commit adds or changes are
checked, against the staged ``tiers.toml``. While a merge, rebase, cherry-pick
or revert is under way (squadmem maintain refuses to write then) the hook only
reports, with the hint ``once a merge is finished, run: squadmem maintain``.
Standard library only.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from squadmem import gitstate, sections
from squadmem.errors import SquadmemError
from squadmem.hooks import staged
from squadmem.layout import MEMORY_DIR, classify
from squadmem.settings import HotSettings

FIX = "run: squadmem maintain"


def over_budget(raw: bytes, hot: HotSettings) -> list[str]:
    """Why a hot file's bytes break its budget: one reason per budget, [] when it fits."""
    found = []
    if len(raw) > hot.max_bytes:
        found.append(f"{len(raw)} bytes > {hot.max_bytes} (hot.max_bytes); {FIX}")
    n_lines = len(sections.lines(raw.decode("utf-8", "replace")))
    if n_lines > hot.max_lines:
        found.append(f"{n_lines} lines > {hot.max_lines} (hot.max_lines); {FIX}")
    return found


def check(env: dict[str, str]) -> tuple[list[str], bool]:
    """The offences among staged hot files, and whether they only warn."""
    entries = [
        e
        for e in staged.staged(f"{MEMORY_DIR}/hot/", env)
        if e.new_sha and (tf := classify(e.path)) is not None and tf.tier == "hot"
    ]
    if not entries:
        return [], False
    blobs = staged.cat_files([f":{staged.SETTINGS_PATH}", *(e.new_sha or "" for e in entries)], env)
    conf = staged.read_settings(blobs)
    found = [
        f"{e.path}: {why}"
        for e in entries
        for why in over_budget(blobs.get(e.new_sha or "") or b"", conf.hot)
    ]
    return found, conf.budget.mode == "warn"


def mid_operation(offences: list[str], env: dict[str, str]) -> list[str] | None:
    """The offences reworded for a merge/rebase under way (when maintain cannot run), else None."""
    git_dir = Path(staged.git(["rev-parse", "--absolute-git-dir"], env).decode("utf-8").strip())
    operation = gitstate.in_progress(git_dir)
    if operation is None:
        return None
    later = f"once {operation.name} is finished, run: squadmem maintain"
    return [o.replace(FIX, later) for o in offences] + [
        f"{operation.name} is under way: reported, not refused"
    ]


def main(argv: Sequence[str] | None = None) -> int:
    try:
        env = staged.git_env()
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

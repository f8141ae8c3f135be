"""pre-commit hook: hot files stay within ``hot.max_bytes`` and ``hot.max_lines``.

Prints ``path: 4300 bytes > 4096 (hot.max_bytes); run: squadmem maintain
--commit-edits (...)`` per offence on stderr (plain ``maintain`` refuses a hot
file with uncommitted changes; ``--commit-edits`` commits it first) and exits
1; with ``budget.mode = "warn"`` in ``tiers.toml`` it prints the same and
exits 0 (the pre-commit framework shows it: the hook is ``verbose``).
Without file names, the hot files the commit adds or changes are checked
against the staged ``tiers.toml``; with file names (the pre-commit
framework's; every file under ``pre-commit run --all-files``), the named hot
files as they are in the work tree, against the work tree's ``tiers.toml``
(every hot file when ``tiers.toml`` is named). The rule is
:mod:`squadmem.model.budget`'s. While a merge, rebase, cherry-pick or revert
is under way (squadmem maintain refuses to write then) the hook only reports,
with the hint ``once a merge is finished, run: squadmem maintain``. Standard
library only.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from squadmem.hooks import staged

PROG = "squadmem-budget-check"
ABOUT = 'Refuse hot files over hot.max_bytes or hot.max_lines (budget.mode = "warn" only reports).'
HOT = staged.MEMORY + "hot/"  # the Squad layout's hot folder (a workspace's hot file is MEMORY.md)
WARNED = 'budget.mode = "warn" in tiers.toml: reported, not refused'


def _is_hot(path: str, env: Mapping[str, str]) -> bool:
    """Whether ``path`` is a hot file in the layout of the commit being made."""
    from squadmem.model.layout import classify

    tf = classify(path, staged.places(env))
    return tf is not None and tf.tier == "hot"


def _over(
    hot: Mapping[str, bytes], settings_blob: bytes | None, settings_path: str
) -> tuple[list[str], bool]:
    """The offences, naming the run that works while the file is uncommitted: plain maintain refuses
    a tier file with uncommitted changes, and this hook refuses to commit it."""
    from squadmem.model.budget import FIX, STAGED_FIX, hot_blob_over

    conf = staged.read_settings({"": settings_blob}, "", settings_path)
    found = [f"{path}: {why}" for path, raw in hot.items() for why in hot_blob_over(raw, conf.hot)]
    return [o.replace(FIX, STAGED_FIX) for o in found], conf.budget.mode == "warn"


def _hot_prefix(env: Mapping[str, str]) -> str:
    """Where hot files are: the Squad layout's folder, or a workspace's one hot file."""
    places = staged.places(env)
    return HOT if places.kind == "squad" else places.tier_rel("hot", places.agent)


def check_named(names: Sequence[str], env: Mapping[str, str]) -> tuple[list[str], bool]:
    """The offences among the named hot files as they are in the work tree."""
    root = staged.top(env)
    hot, settings_path = _hot_prefix(env), staged.places(env).settings
    paths = [p for p in names if p.startswith(hot) and _is_hot(p, env)]
    folder = os.path.join(root, hot)
    if settings_path in names and os.path.isdir(folder):
        every = sorted(f"{hot}{n}" for n in os.listdir(folder) if os.path.isfile(os.path.join(folder, n)))
        paths += [p for p in every if p not in paths and _is_hot(p, env)]
    elif settings_path in names and os.path.isfile(folder) and hot not in paths:
        paths.append(hot)
    if not paths:
        return [], False
    blobs = staged.work_tree_blobs([settings_path, *paths], root)
    return _over(
        {p: raw for p in paths if (raw := blobs.get(p)) is not None}, blobs[settings_path], settings_path
    )


def check(env: Mapping[str, str], names: Sequence[str] = ()) -> tuple[list[str], bool]:
    """The offences (named files, else staged hot files), and whether they only warn."""
    if names:
        return check_named(names, env)
    entries = [e for e in staged.staged(_hot_prefix(env), env) if e.new_sha and _is_hot(e.path, env)]
    if not entries:
        return [], False
    settings_spec = f":{staged.places(env).settings}"
    blobs = staged.blobs([settings_spec, *(f":{e.path}" for e in entries)], env)
    hot = {e.path: blobs.get(f":{e.path}") or b"" for e in entries}
    return _over(hot, blobs.get(settings_spec), settings_spec[1:])


def mid_operation(offences: list[str], env: Mapping[str, str]) -> list[str] | None:
    """The offences reworded for a merge/rebase under way (when maintain cannot run), else None."""
    from squadmem.model import gitstate
    from squadmem.model.budget import FIX, STAGED_FIX

    operation = gitstate.in_progress(staged.git_dir(env))
    if operation is None:
        return None
    later = f"once {operation.name} is finished, run: squadmem maintain"
    return [o.replace(STAGED_FIX, later).replace(FIX, later) for o in offences] + [
        f"{operation.name} is under way: reported, not refused"
    ]


def lines(env: Mapping[str, str], names: Sequence[str] = ()) -> tuple[list[str], bool]:
    """What to print, and whether it refuses the commit."""
    offences, warn_only = check(env, names)
    if not offences:
        return [], False
    if warn_only:
        return [*offences, WARNED], False
    reworded = mid_operation(offences, env)
    if reworded is not None:
        return reworded, False
    return offences, True


def main(argv: Sequence[str] | None = None) -> int:
    return staged.run_check(lines, argv, PROG, ABOUT)


if __name__ == "__main__":
    raise SystemExit(main())

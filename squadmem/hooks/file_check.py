"""pre-commit hook: never commit a memory file that squadmem would then refuse to read.

A tier file or daily log must be UTF-8 text without a NUL byte, at most 1 MiB,
and a tier file's flag comments must parse, each ``id=`` set once among its
owner's tier files (an agent's hot, cold and archive share ids: a repeat
would leave the agent's whole memory out); ``tiers.toml`` must be valid.
Otherwise every squadmem command that needs the file would stop, for everyone
who pulls it. Without file names the check judges what the index stages for
the commit; with file names (the pre-commit framework's, every file under
``pre-commit run --all-files``) it judges those files as they are in the work
tree. Either way a commit that changes the layout (HEAD's against the
index's) must keep every section HEAD holds (:mod:`squadmem.hooks.layout_check`).
Prints ``path: problem; fix`` per offence on stderr and exits 1.
Standard library only.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence

from squadmem.hooks import staged
from squadmem.model import places as where
from squadmem.model.errors import SquadmemError

PROG = "squadmem-file-check"
ABOUT = (
    "Refuse memory files squadmem could not read (a NUL byte, not UTF-8, over 1 MiB, "
    "a bad flag comment, an invalid tiers.toml)."
)


def problem(path: str, raw: bytes, places: where.Places) -> str | None:
    """``path: problem; fix`` for a file squadmem could not read (in ``places``), or None."""
    from squadmem.model.readable import unreadable

    why = unreadable(path, raw, places)
    return None if why is None else f"{path}: {why}"


def _judged(path: str, layouts: Sequence[where.Places]) -> bool:
    """Whether ``path`` is a memory file (settings, tier file, log) in any of ``layouts``."""
    from squadmem.model import logs
    from squadmem.model.layout import classify

    return any(
        path == p.settings or classify(path, p) is not None or logs.log_day(path, p) is not None
        for p in layouts
    )


def judge(
    blobs: Mapping[str, bytes | None], settings_paths: Sequence[str], places: where.Places
) -> list[str]:
    """``path: problem; fix`` for each file (path -> bytes) squadmem could not read in ``places``."""
    found = []
    for path, raw in blobs.items():
        if raw is None:
            continue
        if path in (settings_paths or (places.settings,)):
            try:
                staged.read_settings({"": raw}, "", path)
            except SquadmemError as exc:
                found.append(f"{exc.message}; {exc.hint}" if exc.hint else exc.message)
        elif (why := problem(path, raw, places)) is not None:
            found.append(why)
    return found


def clashes(
    paths: Sequence[str],
    read: Callable[[list[str]], Mapping[str, bytes | None]],
    places: where.Places,
) -> list[str]:
    """An ``id=`` set twice among the tier files of an owner one of ``paths`` belongs to (in ``places``)."""
    from squadmem.model.readable import id_clashes, owner_files

    groups = {tuple(group) for p in paths if (group := owner_files(p, places))}
    if not groups:
        return []
    found = read(sorted({rel for group in groups for rel in group}))
    return [
        line for group in sorted(groups) for line in id_clashes({rel: found[rel] for rel in group}, places)
    ]


def check(env: Mapping[str, str], names: Sequence[str] = ()) -> list[str]:
    """``path: problem; fix`` for each named (else staged) memory file squadmem could not read."""
    from squadmem.hooks import layout_check

    layouts, places = staged.layouts(env), staged.places(env)
    settings_paths = [p.settings for p in layouts]
    moved = layout_check.check(env)  # a change of layout keeps every section
    if names:
        root = staged.top(env)
        paths = [p for p in names if _judged(p, layouts)]
        if not paths:
            return moved
        odd = {p: kind for p in paths if (kind := staged.odd_kind(os.path.join(root, p))) is not None}
        regular = [p for p in paths if p not in odd]
        blobs = staged.work_tree_blobs(regular, root)
        found = [*(not_regular(p, kind) for p, kind in odd.items()), *judge(blobs, settings_paths, places)]
        return moved + found + clashes(regular, lambda rels: staged.work_tree_blobs(rels, root), places)
    entries = [e for e in staged.memory_changes(env) if e.new_sha and _judged(e.path, layouts)]
    if not entries:
        return moved
    links = [
        not_regular(e.path, _KINDS.get(e.mode, "a special file")) for e in entries if e.mode not in _FILES
    ]
    read = staged.blobs(staged.commit_specs(staged.memory_changes(env), layouts[-1].settings), env)
    kept = [e for e in entries if e.mode in _FILES]
    found = [*links, *judge({e.path: read.get(f":{e.path}") or b"" for e in kept}, settings_paths, places)]

    def in_index(rels: list[str]) -> dict[str, bytes | None]:
        got = staged.blobs([f":{rel}" for rel in rels], env)
        return {rel: got.get(f":{rel}") for rel in rels}

    return moved + found + clashes([e.path for e in kept], in_index, places)


_FILES = ("100644", "100755")  # git's modes of a regular file
_KINDS = {"120000": "a symlink", "160000": "a submodule"}


def not_regular(path: str, kind: str) -> str:
    """The offence of a memory file that is not a regular file (a symlink, a FIFO...)."""
    return f"{path}: {kind}, not a regular file; squadmem reads only regular files: commit the file itself"


def main(argv: Sequence[str] | None = None) -> int:
    return staged.run_check(check, argv, PROG, ABOUT)


if __name__ == "__main__":
    raise SystemExit(main())

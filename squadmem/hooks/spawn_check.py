"""pre-commit hook: with ``squadmem spawn on``, a Squad spawn file is committed with squadmem's block.

``squad upgrade`` (or a hand edit) writes Squad's own line back where squadmem's
block stood, so the next spawn would read the whole ``history.md`` and
``decisions.md`` again. When the commit's own spawn record
(``.squad/memory/squad-spawn.json`` in the index) is on and a staged Squad file
(the spawn template, the coordinator, a skill, the charter template or an
agent's charter) has a line that squadmem answers for without its block, the
check puts the block back in the work tree file, records the line it replaced
(so ``squadmem spawn off`` still gives back Squad's text byte for byte) and
fails the commit with one line per file, as pre-commit-hooks' fixers do:
``<file>: squadmem's spawn block was missing: fixed <files>; add them and commit
again``. A commit that turns spawn off (its record off) passes. With file names
(the pre-commit framework) those files and the record are judged as they are in
the work tree. Standard library only.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from squadmem.hooks import staged
from squadmem.model import constants, spawnblock
from squadmem.model import places as where

PROG = "squadmem-spawn-check"
ABOUT = (
    "With squadmem spawn on, put squadmem's block back in a staged Squad spawn file that lost it"
    " (squad upgrade) and refuse the commit until the fix is added."
)


def check(env: Mapping[str, str], names: Sequence[str] = ()) -> list[str]:
    root = staged.top(env)
    if names:
        rels = [rel for rel in names if where.is_spawn_file(rel)]
        found = staged.work_tree_blobs([*rels, constants.SPAWN_RECORD], root)
    else:
        rels = [e.path for e in staged.spawn_changes(env) if e.new_sha]
        if not rels:
            return []
        found = staged.blobs([f":{rel}" for rel in (*rels, constants.SPAWN_RECORD)], env)
        found = {spec[1:]: raw for spec, raw in found.items()}
    if not rels:
        return []
    record = _record(found.get(constants.SPAWN_RECORD))
    if record is None or not record.on:
        return []
    lost = []
    for rel in rels:
        raw = found.get(rel)
        if raw is None:
            continue
        text = raw.decode("utf-8", "surrogateescape")
        try:
            waiting = spawnblock.apply(rel, text).originals
        except ValueError as exc:  # an end marker lost: a person's edit, not Squad's
            return [f"{rel}: {exc}: put the end marker back, or git checkout the file"]
        if waiting:
            lost.append(rel)
    return [_fix(root, rel) for rel in lost]


def _record(raw: bytes | None) -> spawnblock.Record | None:
    if raw is None:
        return None
    try:
        return spawnblock.Record.parse(raw.decode("utf-8", "surrogateescape"))
    except ValueError:
        return None  # the file check and `squadmem spawn` name a broken record


def _fix(root: str, rel: str) -> str:
    """Put the blocks back in ``rel`` as the work tree has it, and its Squad lines in the work tree's
    record; the one line that says so."""
    from squadmem.model import spawnblock

    said = f"{rel}: squadmem's spawn block was missing (squad upgrade?)"
    texts = staged.work_tree_blobs([rel, constants.SPAWN_RECORD], root)
    raw, record_raw = texts[rel], texts[constants.SPAWN_RECORD]
    kinds = [staged.odd_kind(os.path.join(root, p)) for p in (rel, constants.SPAWN_RECORD)]
    record = _record(record_raw)
    if raw is None or record is None or any(kinds) or _through_link(root, rel):
        return f"{said}: run squadmem spawn on, add the files and commit again"
    record_text = record_raw.decode("utf-8", "surrogateescape") if record_raw is not None else None
    try:
        planned = spawnblock.plan(
            {rel: raw.decode("utf-8", "surrogateescape")}, record, record_text, reword_old=False
        )
    except ValueError as exc:
        return f"{rel}: {exc}: put the end marker back, or git checkout the file"
    from pathlib import Path

    from squadmem.model import writes

    for path, text in planned.files.items():
        target = Path(root, path)
        mode = target.stat().st_mode if target.exists() else None
        writes.atomic(target, text.encode("utf-8", "surrogateescape"), mode=mode)
    fixed = " and ".join(sorted(planned.files, key=lambda p: p != rel))
    return f"{said}: fixed {fixed}; add {'them' if len(planned.files) > 1 else 'it'} and commit again"


def _through_link(root: str, rel: str) -> bool:
    """Whether a folder on the way to ``rel`` is a symlink (squadmem writes Squad's files only in place)."""
    parts = rel.split("/")[:-1]
    return any(os.path.islink(os.path.join(root, *parts[: i + 1])) for i in range(len(parts)))


def main(argv: Sequence[str] | None = None) -> int:
    return staged.run_check(check, argv, PROG, ABOUT)


if __name__ == "__main__":
    raise SystemExit(main())

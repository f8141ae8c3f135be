"""``verify``'s spawn rule: no commit leaves one of Squad's spawn files without squadmem's block
while its spawn record is on.

A commit that changes one of Squad's files that hold squadmem's spawn blocks
(:func:`squadmem.model.places.is_spawn_file`) while the record it commits
(``.squad/memory/squad-spawn.json``) is on must keep a block wherever the file
has a line squadmem answers for: else a spawn from that commit reads the whole
``history.md`` and ``decisions.md`` again (``squad upgrade`` committed with
``--no-verify``, past the pre-commit hook). A commit that turns the record off
(``squadmem spawn off``) gives Squad's lines back and passes.
"""

from __future__ import annotations

from collections.abc import Iterator

from squadmem.engine.verify.range import REGULAR, Commit, Store
from squadmem.model import constants, spawnblock
from squadmem.model.places import is_spawn_file

FIX = "the spawn reads the whole history.md and decisions.md again; squadmem spawn on puts it back"


def check_spawn(store: Store, commit: Commit) -> Iterator[tuple[str, str]]:
    """(file, why) for each Squad file ``commit`` changes that lacks a block its record calls for."""
    changed = [c for c in commit.changes if c.new is not None and is_spawn_file(c.path) and c.mode in REGULAR]
    if not changed:
        return
    tree = store.tree_of(commit.sha)
    entry = store.walk(tree, constants.SPAWN_RECORD)
    if entry is None or entry[0] not in REGULAR:
        return
    try:
        record = spawnblock.Record.parse(store.read(entry[1]).decode("utf-8", "surrogateescape"))
    except ValueError:
        return
    if not record.on:
        return
    for change in changed:
        text = store.read(change.new).decode("utf-8", "surrogateescape")
        try:
            waiting = sorted(spawnblock.apply(change.path, text).originals)
        except ValueError as exc:
            yield change.path, f"{exc}: {FIX}"
            continue
        if waiting:
            keys = ", ".join(f"squadmem:{key}" for key in waiting)
            yield change.path, f"spawn is on but {keys} is gone (squad upgrade?): {FIX}"

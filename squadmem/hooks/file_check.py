"""pre-commit hook: never commit a memory file that squadmem would then refuse to read.

A staged tier file or daily log must be UTF-8 text without a NUL byte, at most
1 MiB, and a tier file's flag comments must parse; a staged ``tiers.toml`` must
be valid. Otherwise every squadmem command that needs the file would stop, for
everyone who pulls it. Prints ``path: problem; fix`` per offence on stderr and
exits 1. Standard library only.
"""

from __future__ import annotations

from collections.abc import Sequence

from squadmem.gitio import formats
from squadmem.hooks import staged
from squadmem.model import logs
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import MEMORY_DIR, classify
from squadmem.model.readable import unreadable


def problem(path: str, raw: bytes) -> str | None:
    """``path: problem; fix`` for a file squadmem could not read, or None."""
    why = unreadable(path, raw)
    return None if why is None else f"{path}: {why}"


def check(env: dict[str, str]) -> list[str]:
    """``path: problem; fix`` for each staged memory file squadmem could not read."""
    entries = [
        e
        for e in staged.staged(f"{MEMORY_DIR}/", env)
        if e.new_sha and (e.path == staged.SETTINGS_PATH or classify(e.path) or logs.log_day(e.path))
    ]
    if not entries:
        return []
    blobs = formats.cat_files([e.new_sha or "" for e in entries], env)
    found = []
    for entry in entries:
        raw = blobs.get(entry.new_sha or "") or b""
        if entry.path == staged.SETTINGS_PATH:
            try:
                staged.read_settings({f":{staged.SETTINGS_PATH}": raw})
            except SquadmemError as exc:
                found.append(f"{exc.message}; {exc.hint}" if exc.hint else exc.message)
        elif (why := problem(entry.path, raw)) is not None:
            found.append(why)
    return found


def main(argv: Sequence[str] | None = None) -> int:
    return staged.run_check(check)


if __name__ == "__main__":
    raise SystemExit(main())

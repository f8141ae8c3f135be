"""What a commit being made stages, read with the standard library only.

The hooks compare the index against HEAD (``git diff --cached --raw``) and read
blobs, settings and a merge's other parent through one ``git cat-file --batch``
process, all through the git gateway (:mod:`squadmem.gitio`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from squadmem.gitio.formats import Staged, parse_raw
from squadmem.gitio.runner import git, git_env
from squadmem.model import settings
from squadmem.model.errors import SquadmemError

SETTINGS_PATH = ".squad/memory/tiers.toml"  # layout.MEMORY_DIR + "/tiers.toml" (a test holds them equal)


def staged(folder: str, env: Mapping[str, str], against: str | None = None) -> list[Staged]:
    """Paths under ``folder`` (relative to the top of the work tree) that the index changes against
    HEAD (renames found), or against the commit ``against`` (no renames)."""
    args = ["diff", "--cached", "--raw", "-z", "--no-ext-diff", "--no-color"]
    args += ["--no-renames", against] if against else ["-M"]
    return parse_raw(git([*args, "--", f":(top){folder}"], env))


def read_settings(blobs: Mapping[str, bytes | None], spec: str = f":{SETTINGS_PATH}") -> settings.Settings:
    """Settings from the blob read as ``spec`` (the index's tiers.toml by default), else the defaults."""
    raw = blobs.get(spec)
    if raw is None:
        return settings.Settings()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SquadmemError(f"{SETTINGS_PATH}: not UTF-8", hint="save tiers.toml as UTF-8") from None
    return settings.parse(text, Path(SETTINGS_PATH))


def run_check(check: Callable[[dict[str, str]], list[str]]) -> int:
    """A pre-commit check as a hook: its offences on stderr; 1 if any, a refusal's own code on error."""
    try:
        offences = check(git_env())
    except SquadmemError as exc:
        report([], exc)
        return int(exc.code)
    report(offences)
    return 1 if offences else 0


def report(lines: Sequence[str], error: SquadmemError | None = None) -> None:
    """Hook output: one line per offence on stderr."""
    for line in lines:
        print(line, file=sys.stderr)
    if error is not None:
        print(error.render(), file=sys.stderr)

"""Installing squadmem's git hooks beside (never instead of) existing ones.

An existing hook that is not squadmem's is renamed ``<event>.squadmem-legacy``
and squadmem's shim runs it first, with the same arguments and input, as
pre-commit's own installer does. With ``core.hooksPath`` set or a
``.pre-commit-config.yaml`` present nothing is installed: the lines to add
are returned instead.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path

from squadmem.model import templates, writes
from squadmem.model.errors import SquadmemError

EVENTS = ("pre-commit", "pre-merge-commit", "prepare-commit-msg", "pre-push")
MARKER = "# squadmem "
LEGACY = ".squadmem-legacy"

PRE_COMMIT_SNIPPET = """\
# .pre-commit-config.yaml: add squadmem's hooks
-   repo: local
    hooks:
    -   id: squadmem-file-check
        name: squadmem memory files stay readable
        entry: squadmem-file-check
        language: system
        files: ^\\.squad/memory/
        pass_filenames: false
    -   id: squadmem-journal-check
        name: squadmem no commit while a move is unfinished
        entry: python3 -m squadmem.hooks.journal_check
        language: system
        always_run: true
        pass_filenames: false
    -   id: squadmem-log-check
        name: squadmem daily logs are append-only
        entry: squadmem-log-check
        language: system
        files: ^\\.squad/memory/log/
        stages: [pre-commit, pre-merge-commit]
        always_run: true
        pass_filenames: false
    -   id: squadmem-budget-check
        name: squadmem hot tier within budget
        entry: squadmem-budget-check
        language: system
        files: ^\\.squad/memory/
        pass_filenames: false
    -   id: squadmem-use-trailers
        name: squadmem use trailers
        entry: squadmem-use-trailers
        language: system
        stages: [prepare-commit-msg]
        always_run: true
    -   id: squadmem-verify-push
        name: squadmem verify
        entry: squadmem-verify-push
        language: system
        stages: [pre-push]
        always_run: true
        pass_filenames: false
# then: pre-commit install --hook-type pre-commit --hook-type pre-merge-commit \\
#     --hook-type prepare-commit-msg --hook-type pre-push
"""


@dataclasses.dataclass(frozen=True)
class HookResult:
    installed: tuple[str, ...] = ()  # events whose shim was written now
    chained: tuple[str, ...] = ()  # events whose earlier hook now runs first
    unchanged: tuple[str, ...] = ()
    instead: str | None = None  # why nothing was installed
    snippet: str | None = None  # what to add instead


def render(event: str, python: str | None = None) -> str:
    template = templates.read("hook.sh")
    return template.format(event=event, python=python or sys.executable)


def _write_executable(path: Path, text: str) -> None:
    writes.atomic_text(path, text, executable=True)


def install(root: Path, hooks_dir: Path, hooks_path_config: str | None) -> HookResult:
    if hooks_path_config:
        return HookResult(
            instead=f"core.hooksPath is set to {hooks_path_config}: squadmem installed no git hook",
            snippet="\n".join(
                f"{hooks_path_config}/{event}: add the line\n    "
                f'{sys.executable} -m squadmem.hooks.run {event} "$@"'
                for event in EVENTS
            ),
        )
    if (root / ".pre-commit-config.yaml").exists():
        return HookResult(
            instead="this repository uses the pre-commit framework: squadmem installed no git hook",
            snippet=PRE_COMMIT_SNIPPET,
        )
    plan: list[tuple[str, bool]] = []  # (event, chain the hook that is there)
    unchanged = []
    for event in EVENTS:
        path = hooks_dir / event
        if not (path.exists() or path.is_symlink()):
            plan.append((event, False))
            continue
        current = path.read_bytes() if path.is_file() else b""
        if current == render(event).encode("utf-8"):
            unchanged.append(event)
        elif (MARKER + event).encode() in current:
            plan.append((event, False))  # an older squadmem shim: rewrite it
        elif (hooks_dir / (event + LEGACY)).exists():
            raise SquadmemError(
                f"{path}: is not squadmem's, and {event + LEGACY} is there already",
                hint=f"merge the two into {event + LEGACY} by hand, then run squadmem init again",
            )
        else:
            plan.append((event, True))
    hooks_dir.mkdir(parents=True, exist_ok=True)
    for event, chain in plan:
        path = hooks_dir / event
        if chain:
            os.replace(path, hooks_dir / (event + LEGACY))
        _write_executable(path, render(event))
    return HookResult(tuple(e for e, _ in plan), tuple(e for e, chain in plan if chain), tuple(unchanged))

"""The commit trailers squadmem writes and reads: each name spelled once, in ``model.constants``.

Every other module imports the name; a message, a regular expression or a
``git log --grep`` builds on it. The scan below reads the package's code
(docstrings and comments aside, which may name a trailer to explain it).
"""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest

from squadmem.engine.planning import plan
from squadmem.engine.verify import range as verify_range
from squadmem.model import constants

PACKAGE = Path(__file__).resolve().parent.parent / "squadmem"
HOME = PACKAGE / "model" / "constants.py"
TRAILERS = {
    name: value for name, value in vars(constants).items() if name.endswith("_TRAILER") or name == "TRAILER"
}
SPELLED = re.compile("|".join(re.escape(v) for v in TRAILERS.values()) + r"|Squad-Memory-", re.IGNORECASE)


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def spelled_outside_home(root: Path) -> list[str]:
    """``path:line: text`` for each string in the code under ``root`` that spells a trailer's name."""
    found = []
    for path in sorted(root.rglob("*.py")):
        if path == HOME:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Constant) or id(node) in docs:
                continue
            value = node.value
            text = value.decode("latin-1") if isinstance(value, bytes) else value
            if isinstance(text, str) and SPELLED.search(text):
                found.append(f"{path.relative_to(root.parent)}:{node.lineno}: {text!r}")
    return found


def test_trailers_are_spelled_in_constants_only() -> None:
    assert spelled_outside_home(PACKAGE) == []


def test_trailers_scan_finds_a_name_spelled_again(tmp_path: Path) -> None:
    """The scan above can fail: a module that spells a name (not in a docstring) is named."""
    package = tmp_path / "squadmem"
    package.mkdir()
    (package / "stray.py").write_text(
        '"""Writes a Squad-Memory-Move trailer."""\nKEY = "squad-memory-move"\nSIGN = b"Signed-off-by:"\n',
        encoding="utf-8",
    )
    assert spelled_outside_home(package) == [
        "squadmem/stray.py:2: 'squad-memory-move'",
        "squadmem/stray.py:3: 'Signed-off-by:'",
    ]


def test_trailers_each_is_a_key_git_reads_as_a_trailer(tmp_path: Path) -> None:
    message = "memory: a subject\n\nA body.\n\n" + "".join(f"{v}: x\n" for v in TRAILERS.values())
    parsed = subprocess.run(
        ["git", "interpret-trailers", "--parse"],
        input=message,
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    ).stdout
    assert [line.partition(":")[0] for line in parsed.splitlines()] == list(TRAILERS.values())


@pytest.mark.parametrize(
    ("written", "read"),
    [
        (constants.MOVE_TRAILER, verify_range.MOVE),
        (constants.REASON_TRAILER, verify_range.REASON),
        (constants.RESTORE_TRAILER, verify_range.RESTORE),
        (constants.INDEX_TRAILER, verify_range.INDEX),
        (constants.INTAKE_TRAILER, verify_range.INTAKE),
    ],
)
def test_trailers_verify_reads_the_keys_the_writer_writes(written: str, read: str) -> None:
    assert written.lower() == read


def test_trailers_a_move_and_an_index_refresh_carry_theirs() -> None:
    move = plan.Move(
        id="picard/warp",
        title="Warp",
        agent="picard",
        source=None,
        source_tier="history",
        source_name="history",
        target=".squad/memory/cold/picard.md",
        target_tier="cold",
        target_name="picard",
        rule="restore",
        reason="manual",
        why="restored",
        text="## Warp\n",
        restore_rev="abc123",
    )
    keys = [key for key, _ in move.trailers()]
    assert keys == [constants.MOVE_TRAILER, constants.REASON_TRAILER, constants.RESTORE_TRAILER]
    refresh = plan.IndexRefresh("picard", ".squad/memory/hot/picard.md", "", ())
    assert [key for key, _ in refresh.trailers()] == [constants.INDEX_TRAILER]

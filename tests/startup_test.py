"""``squadmem context`` at start-up: agents run it at every spawn, so a module it imports and does
not use, or work it repeats, is paid every time. The lane runs it as the console script does, in a
child process; only the modules the command itself brings in count (what the interpreter's own
start loaded is left out)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GitRepo, run_squadmem
from hypothesis import given
from hypothesis import strategies as st

from squadmem.model import layout

# Not needed to print a spawn's payload: typing (annotations only), json (``--json`` only), shlex
# (the merge driver's command line, written by ``init``), click (the lane parses), subprocess (no git
# process is started: the repository is found from ``.git``).
UNUSED = ("typing", "json", "shlex", "click", "subprocess", "squadmem.model.jsontext")

LANE = (
    "import sys; before = set(sys.modules); sys.argv = ['squadmem', *sys.argv[1:]]\n"
    "from squadmem.cli.lane import run\n"
    "try:\n    run()\nexcept SystemExit as exc:\n    status = exc.code\n"
    "print('\\n--imports--', status, *[m for m in {unused!r} if m in sys.modules and m not in before])\n"
)


def lane(repo: GitRepo, *args: str, unused: tuple[str, ...] = UNUSED) -> tuple[str, int, list[str]]:
    """``squadmem ARGS`` through the lane: its output, its status, and which of ``unused`` it
    imported."""
    done = subprocess.run(
        [sys.executable, "-c", LANE.format(unused=unused), *args],
        cwd=repo.root,
        capture_output=True,
        text=True,
        check=True,
    )
    text, _, last = done.stdout.rpartition("\n--imports--")
    status, *imported = last.split()
    return text, int(status), imported


@pytest.fixture
def memory(repo: GitRepo) -> GitRepo:
    assert run_squadmem(repo.root, "init", "--agent", "picard", "--no-hooks").returncode == 0
    hot = repo.read(".squad/memory/hot/picard.md")
    repo.commit(
        "memory: a note",
        {".squad/memory/hot/picard.md": hot + "\n## Deploy checklist\n\nMigrations first.\n"},
        date="2026-01-05T10:00:00Z",
    )
    return repo


def test_context_imports_nothing_it_does_not_use(memory: GitRepo) -> None:
    text, status, imported = lane(memory, "context", "--agent", "picard")
    assert status == 0 and "Migrations first." in text
    assert imported == []


def test_context_without_a_task_imports_neither_the_fill_nor_dataclasses(memory: GitRepo) -> None:
    """Regression: the task's fill and the Index lines it writes (``dataclasses``, and with it
    ``inspect``, ``ast`` and ``dis``) were imported at every spawn's ``context``, task or not."""
    task_only = ("dataclasses", "inspect", "squadmem.engine.index", "squadmem.engine.search.spawn_fill")
    text, status, imported = lane(memory, "context", "--agent", "picard", unused=task_only)
    assert status == 0 and "Migrations first." in text
    assert imported == []
    _, status, imported = lane(memory, "context", "--agent", "picard", "--task", "deploy", unused=task_only)
    assert status == 0 and "squadmem.engine.search.spawn_fill" in imported  # the task does need it


def test_context_with_a_task_imports_nothing_it_does_not_use(memory: GitRepo) -> None:
    """A first task with no history cache yet: the history its fill orders the rest by is read once
    (the engine, its JSON cache and git, and typing with the engine's generic helpers) and nothing
    else; with the cache up to date none of it is (the next test)."""
    text, status, imported = lane(memory, "context", "--agent", "picard", "--task", "deploy migrations")
    assert status == 0 and "Migrations first." in text
    assert set(imported) <= {"json", "subprocess", "squadmem.model.jsontext", "typing"}
    assert "click" not in imported and "shlex" not in imported


def test_context_with_a_task_reads_an_up_to_date_cache_without_git(memory: GitRepo) -> None:
    """The history cache made at HEAD is all a task's payload reads: no git process and no history
    engine; after a new commit the engine reads it, and the payload is the one a cold read gives."""
    engine = ("subprocess", "typing", "squadmem.engine.history.stream")
    args = ("context", "--agent", "picard", "--task", "deploy migrations")
    first, status, imported = lane(memory, *args, unused=engine)
    assert status == 0 and "squadmem.engine.history.stream" in imported  # the cache is made
    again, status, imported = lane(memory, *args, unused=engine)
    assert status == 0 and again == first and imported == []
    hot = memory.read(".squad/memory/hot/picard.md")
    memory.commit(
        "memory: another note",
        {".squad/memory/hot/picard.md": hot + "\n## Deploy rollback\n\nRoll back by flag.\n"},
        date="2026-01-06T10:00:00Z",
    )
    after, status, imported = lane(memory, *args, unused=engine)
    assert status == 0 and "squadmem.engine.history.stream" in imported and "Roll back by flag." in after
    (memory.root / ".git" / "squadmem" / "history-cache").unlink()
    cold, status, _ = lane(memory, *args, unused=engine)
    assert status == 0 and cold == after


def test_context_json_still_prints_json(memory: GitRepo) -> None:
    """json is imported where ``--json`` needs it."""
    text, status, imported = lane(memory, "context", "--agent", "picard", "--json")
    assert status == 0 and '"text"' in text
    assert "json" in imported


PARTS = st.lists(st.sampled_from(["a", "b", "memory", ".", "..", "x y"]), max_size=5)


@given(st.booleans(), PARTS, st.booleans(), PARTS)
def test_the_folders_below_memory_are_the_parents_it_holds(
    rooted: bool, memory_parts: list[str], inside: bool, path_parts: list[str]
) -> None:
    """Each tier folder's check walks the folders between the memory's and it: found from the
    path's parts, they are the parents the memory's folder holds, as the paths' parents say."""
    memory = Path("/" if rooted else ".", *memory_parts)
    path = Path(memory if inside else "/", *path_parts)
    expected = [p for p in reversed(path.parents) if memory in p.parents]
    assert layout._folders_below(memory, path) == expected

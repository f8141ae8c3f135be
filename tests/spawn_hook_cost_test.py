"""The pre-commit hook's cost in a Squad team with spawn on: a commit that stages one of Squad's spawn
files runs the spawn check, which reads the record (JSON) and the file, and imports no
``dataclasses`` (and with it ``inspect``), ``typing`` or ``subprocess``."""

from __future__ import annotations

from conftest import GitRepo
from hook_entry_test import _hook_imports
from spawn_guard_test import LATER, hooked_team

from squadmem.model import spawnblock


def test_a_spawn_file_commit_imports_nothing_heavy_but_json(repo: GitRepo) -> None:
    """Regression: the spawn blocks' values were dataclasses, so every commit staging a Squad
    spawn file paid ``dataclasses`` and ``inspect`` on top of the check (1.09x the CPU of
    ``check-added-large-files``'s whole commit)."""
    hooked_team(repo)
    text = repo.read(spawnblock.SPAWN_TEMPLATE)
    assert "<!-- squadmem:history -->" in text
    repo.write(spawnblock.SPAWN_TEMPLATE, text + "\nOne more line of Squad's.\n")
    repo.git("add", spawnblock.SPAWN_TEMPLATE)
    status, model, heavy = _hook_imports(repo, LATER)
    assert status == 0
    assert "squadmem.model.spawnblock" in model  # the spawn check ran
    assert heavy == ["json"]  # the record is JSON

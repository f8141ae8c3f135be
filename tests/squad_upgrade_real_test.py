"""The real `squad upgrade` (squad-cli 0.10.0) with spawn on: `git commit -a` is refused and mended,
the push of a commit that lost a block is refused, and `spawn off` after all of it gives back every
Squad file byte for byte as Squad itself wrote it."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import GitRepo, bare_remote, hooked_commit, run_squadmem
from squad_cli_test import run_squad, squad_cli, squad_init  # noqa: F401 (the fixture)

from squadmem.model import spawnblock
from squadmem.model.layout import MEMORY_DIR

pytestmark = [pytest.mark.squad_cli, pytest.mark.slow]
DATE = "2026-01-05T09:00:00+00:00"
LATER = "2026-01-06T09:00:00+00:00"
NEW_CHARTER = ".squad/agents/worf/charter.md"


def squads(root: Path) -> dict[str, str]:
    """Squad's own files with their digests: not squadmem's memory, not git's, not .gitattributes
    (where squadmem init adds its merge lines beside Squad's)."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
        and ".git" not in p.relative_to(root).parts
        and not p.relative_to(root).as_posix().startswith(MEMORY_DIR + "/")
        and p.relative_to(root).as_posix() != ".gitattributes"
    }


def _as_squad_upgrades(cli: Path, root: Path, twin: Path) -> dict[str, str]:
    """Squad's files as `squad upgrade` leaves them without squadmem: the same upgrade in a copy of the
    team as `squad init` made it."""
    shutil.copytree(root, twin)
    done = run_squad(cli, GitRepo(twin), "upgrade")
    assert done.returncode == 0, done.stdout + done.stderr
    return squads(twin)


def test_squad_upgrade_is_mended_at_commit_refused_at_push_and_undone_by_spawn_off(
    squad_cli: Path,  # noqa: F811
    repo: GitRepo,
    tmp_path: Path,
) -> None:
    squad_init(squad_cli, repo)
    (repo.root / NEW_CHARTER).parent.mkdir(parents=True)
    shutil.copyfile(repo.root / spawnblock.CHARTER_TEMPLATE, repo.root / NEW_CHARTER)  # a new member
    repo.git("add", "-A")
    repo.commit("squad: worf joins", date=DATE)
    upgraded = _as_squad_upgrades(squad_cli, repo.root, tmp_path / "twin")
    before = squads(repo.root)

    assert run_squadmem(repo.root, "init").returncode == 0
    repo.git("add", "-A")
    assert hooked_commit(repo, DATE, "-m", "squadmem init").returncode == 0
    assert run_squadmem(repo.root, "intake", "--now", DATE).returncode == 0
    done = run_squadmem(repo.root, "spawn", "on")
    assert done.returncode == 0, done.stderr
    assert f"{NEW_CHARTER}: put blocks: charter-decisions" in done.stdout
    remote = bare_remote(repo, tmp_path)
    assert subprocess.run(["git", "push", "-q", "origin", "main"], cwd=repo.root).returncode == 0

    done = run_squad(squad_cli, repo, "upgrade")
    assert done.returncode == 0, done.stdout + done.stderr
    head = repo.head()
    repo.git("add", "-A", "--", ".copilot")  # the upgrade's new skills; `commit -a` takes the rest
    refused = hooked_commit(repo, LATER, "-a", "-m", "squad upgrade")
    assert refused.returncode == 1
    lines = refused.stderr.splitlines()
    assert lines and all("squadmem's spawn block was missing" in line for line in lines), lines
    for rel in (spawnblock.SPAWN_TEMPLATE, spawnblock.COORDINATOR, spawnblock.COPILOT_COLLABORATION_SKILL):
        assert any(line.startswith(f"{rel}: ") for line in lines), rel
    assert all(line.endswith("and commit again") for line in lines)
    assert repo.head() == head
    for rel in (spawnblock.SPAWN_TEMPLATE, spawnblock.COORDINATOR):
        assert "<!-- squadmem:" in repo.read(rel), rel
    repo.git("add", "-A")
    passed = hooked_commit(repo, LATER, "-m", "squad upgrade")
    assert passed.returncode == 0, passed.stderr
    assert run_squadmem(repo.root, "verify", "HEAD").returncode == 0

    # a commit that loses a block past the hook is named at push, and the push refused
    blocked = repo.read(spawnblock.SPAWN_TEMPLATE)
    off = run_squadmem(repo.root, "spawn", "off", "--dry-run")
    assert off.returncode == 0
    record = spawnblock.Record.parse(repo.read(spawnblock.RECORD))
    repo.write(
        spawnblock.SPAWN_TEMPLATE, spawnblock.restore(blocked, record.originals[spawnblock.SPAWN_TEMPLATE])
    )
    assert hooked_commit(repo, LATER, "-a", "--no-verify", "-m", "lost").returncode == 0
    lost = repo.head()
    pushed = subprocess.run(["git", "push", "origin", "main"], cwd=repo.root, text=True, capture_output=True)
    assert pushed.returncode != 0
    assert f"{lost[:7]} {spawnblock.SPAWN_TEMPLATE}: spawn is on but" in pushed.stdout + pushed.stderr
    remote_head = subprocess.run(
        ["git", "rev-parse", "main"], cwd=remote, text=True, capture_output=True, check=True
    ).stdout.strip()
    assert remote_head != lost
    done = run_squadmem(repo.root, "maintain", "--now", LATER)  # upkeep puts it back
    assert done.returncode == 0, done.stderr
    assert repo.read(spawnblock.SPAWN_TEMPLATE) == blocked

    # spawn off: every Squad file as Squad wrote it (before squadmem, or as its upgrade writes it)
    assert run_squadmem(repo.root, "spawn", "off").returncode == 0
    after = squads(repo.root)
    added = {rel for rel in after if rel not in before and rel not in upgraded}
    assert added <= {".github/skills/squadmem-memory/SKILL.md"}, added  # none: the spawn is edited
    changed = {rel for rel in after if rel in before and after[rel] != before[rel]}
    assert changed, "squad upgrade changed nothing?"
    assert {rel: after[rel] for rel in changed} == {rel: upgraded[rel] for rel in changed}
    assert {rel: after[rel] for rel in before if rel not in changed} == {
        rel: before[rel] for rel in before if rel not in changed
    }
    assert not repo.git("status", "--porcelain")

"""Charters and the agent-collaboration skill get squadmem's blocks as the spawn template does: in
place, once, undone byte for byte by `spawn off`; a charter written later gets its block from the
pre-commit hook or from `maintain`. The real Squad CLI's own files are checked in the slow test."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from conftest import GitRepo, hooked_commit, run_squadmem
from spawn_test import SQUAD
from squad_cli_test import run_squad, squad_cli, squad_init  # noqa: F401 (the fixture)

from squadmem.model import spawnblock

DATE = "2026-03-02T09:00:00+00:00"
LATER = "2026-03-02T10:00:00+00:00"
READ = "Before starting work, read `.squad/decisions.md` for team decisions that affect me."
CHARTER = (
    "# {Name} — {Role}\n\n## How I Work\n\n- Read decisions.md before starting\n- Focused\n\n"
    f"## Collaboration\n\n{READ}\nAfter making a decision, write it to the inbox.\n"
)
COLLABORATION = (
    "## Context\n\nThe coordinator's spawn prompt already instructs agents to read decisions.md and their"
    " history.md. This skill adds the patterns for WRITING decisions.\n\n## Anti-Patterns\n"
    "- Don't read all agent charters — you only need your own context + decisions.md\n"
)
FILES = {
    **SQUAD,
    spawnblock.CHARTER_TEMPLATE: CHARTER,
    ".squad/agents/picard/charter.md": CHARTER.replace("{Name}", "Picard"),
    spawnblock.COLLABORATION_SKILL: COLLABORATION,
}


def test_charters_and_the_skill_get_blocks_once_and_give_them_back(repo: GitRepo) -> None:
    repo.commit("squad init", dict(FILES), date=DATE)
    done = run_squadmem(repo.root, "init", "--no-hooks")
    assert done.returncode == 0, done.stderr
    for rel in (spawnblock.CHARTER_TEMPLATE, ".squad/agents/picard/charter.md"):
        text = repo.read(rel)
        assert READ not in text and "- Read decisions.md before starting" not in text
        assert "<!-- squadmem:charter-decisions -->" in text and "<!-- squadmem:charter-read -->" in text
    skill = repo.read(spawnblock.COLLABORATION_SKILL)
    assert "already instructs agents to read decisions.md" not in skill and "squadmem context" in skill
    repo.git("add", "-A")
    repo.commit("squadmem init", date=DATE)
    status = run_squadmem(repo.root, "spawn", "on")
    assert status.returncode == 0 and status.stdout.startswith("nothing to do"), status.stdout
    assert run_squadmem(repo.root, "spawn", "off").returncode == 0
    for rel, text in FILES.items():
        assert repo.read(rel) == text, rel


def test_a_charter_written_later_gets_its_block(repo: GitRepo) -> None:
    """A new team member's charter (the coordinator copies the template) gets its block from the
    hook, and one committed past the hook from the next maintain."""
    repo.commit("squad init", dict(FILES), date=DATE)
    assert run_squadmem(repo.root, "init").returncode == 0
    repo.git("add", "-A")
    assert hooked_commit(repo, DATE, "-m", "squadmem init").returncode == 0
    data = ".squad/agents/data/charter.md"
    repo.write(data, CHARTER.replace("{Name}", "Data"))
    repo.git("add", data)
    refused = hooked_commit(repo, LATER, "-m", "new member")
    assert refused.returncode == 1 and f"fixed {data} and {spawnblock.RECORD}" in refused.stderr
    repo.git("add", "-A")
    assert hooked_commit(repo, LATER, "-m", "new member").returncode == 0

    worf = ".squad/agents/worf/charter.md"
    repo.write(worf, CHARTER.replace("{Name}", "Worf"))
    repo.git("add", worf)
    assert hooked_commit(repo, LATER, "--no-verify", "-m", "past the hook").returncode == 0
    done = run_squadmem(repo.root, "maintain", "--now", LATER)
    assert done.returncode == 0, done.stderr
    assert "<!-- squadmem:charter-decisions -->" in repo.read(worf)
    assert repo.git("status", "--porcelain") == ""
    assert run_squadmem(repo.root, "spawn", "off").returncode == 0
    assert repo.read(worf) == CHARTER.replace("{Name}", "Worf")
    assert repo.read(data) == CHARTER.replace("{Name}", "Data")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.slow
@pytest.mark.squad_cli
def test_the_real_squad_files_get_their_blocks(squad_cli: Path, repo: GitRepo) -> None:  # noqa: F811
    """The lines of squad-cli 0.10.0's charter template and agent-collaboration skill are found."""
    squad_init(squad_cli, repo)
    before = {rel: _digest(repo.root / rel) for rel in spawnblock.FILES if (repo.root / rel).is_file()}
    done = run_squadmem(repo.root, "init")
    assert done.returncode == 0, done.stderr
    assert "squadmem intake" in done.stdout  # a fresh team's histories wait for the intake
    repo.git("add", "-A")
    assert hooked_commit(repo, DATE, "-m", "squadmem init").returncode == 0
    assert run_squadmem(repo.root, "intake", "--now", DATE).returncode == 0
    done = run_squadmem(repo.root, "spawn", "on")
    assert done.returncode == 0, done.stderr
    assert f"{spawnblock.CHARTER_TEMPLATE}: put blocks: charter-decisions" in done.stdout
    assert f"{spawnblock.COLLABORATION_SKILL}: put blocks: collaboration-context, collaboration-spawn" in (
        done.stdout
    )
    assert run_squadmem(repo.root, "spawn", "off").returncode == 0
    assert {rel: _digest(repo.root / rel) for rel in before} == before

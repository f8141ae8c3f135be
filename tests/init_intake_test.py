"""Never an empty spawn: `init` in a team with entries leaves spawn off until `squadmem intake`, and
`spawn on` waits for it; `init` again keeps `spawn off` and says "kept" for files it did not create."""

from __future__ import annotations

from conftest import GitRepo, assert_refused, run_squadmem
from spawn_test import SQUAD

from squadmem.model import spawnblock

DATE = "2026-03-02T09:00:00+00:00"
HISTORY = (
    "# Project Context\n\n## Core Context\n\nPicard leads the away team.\n\n## Learnings\n\n"
    "### Warp core (2026-02-01)\n\nThe plasma relays overheat above warp 9.\n"
)


def team_with_history(repo: GitRepo) -> GitRepo:
    repo.commit("squad init", {**SQUAD, ".squad/agents/picard/history.md": HISTORY}, date=DATE)
    return repo


def test_init_leaves_spawn_off_until_the_intake_and_says_so(repo: GitRepo) -> None:
    """Regression: init turned the spawn blocks on before any entry was taken in, so the next spawn
    read an empty hot file instead of the agent's history."""
    team_with_history(repo)
    done = run_squadmem(repo.root, "init", "--no-hooks")
    assert done.returncode == 0, done.stderr
    assert repo.read(spawnblock.SPAWN_TEMPLATE) == SQUAD[spawnblock.SPAWN_TEMPLATE]
    assert not (repo.root / spawnblock.RECORD).exists()
    assert (
        "left Squad's spawn lines as they are: spawns keep reading Squad's whole files until its 2 entries"
        " are taken in (a spawn reading squadmem's memory would miss them): commit, run squadmem intake,"
        " then squadmem spawn on"
    ) in done.stdout.splitlines()
    assert "migrate squad" not in done.stdout
    repo.git("add", "-A")
    repo.commit("squadmem init", date=DATE)

    assert_refused(
        repo,
        "spawn",
        "on",
        message="squadmem: 2 entries of Squad's history.md and decisions files are not taken in yet:"
        " a spawn reading squadmem's memory would miss them",
    )
    done = run_squadmem(repo.root, "intake", "--now", DATE)
    assert done.returncode == 0, done.stderr
    done = run_squadmem(repo.root, "spawn", "on")
    assert done.returncode == 0, done.stderr
    payload = run_squadmem(repo.root, "context", "--agent", "picard", "--task", "warp core")
    assert "Picard leads the away team." in payload.stdout


def test_init_again_keeps_spawn_off_and_says_kept(repo: GitRepo) -> None:
    repo.commit("squad init", dict(SQUAD), date=DATE)
    assert run_squadmem(repo.root, "init", "--no-hooks").returncode == 0
    repo.git("add", "-A")
    repo.commit("squadmem init", date=DATE)
    assert run_squadmem(repo.root, "spawn", "off").returncode == 0
    before = repo.snapshot()
    done = run_squadmem(repo.root, "init", "--no-hooks")
    assert done.returncode == 0, done.stderr
    assert repo.snapshot() == before
    lines = done.stdout.splitlines()
    assert lines[0] == "nothing to do: squadmem is already set up here"
    assert f"kept {spawnblock.RECORD}" in lines and "kept .squad/memory/tiers.toml" in lines
    assert not [line for line in lines if line.startswith("created ")]
    assert (
        "left Squad's spawn lines as they are: squadmem spawn off was run here, so the blocks stay off"
        " (squadmem spawn on turns them on)"
    ) in lines


def test_init_again_with_spawn_on_changes_nothing(repo: GitRepo) -> None:
    repo.commit("squad init", dict(SQUAD), date=DATE)
    assert run_squadmem(repo.root, "init", "--no-hooks").returncode == 0
    repo.git("add", "-A")
    repo.commit("squadmem init", date=DATE)
    before = repo.snapshot()
    done = run_squadmem(repo.root, "init", "--no-hooks")
    assert done.returncode == 0 and repo.snapshot() == before
    assert "created" not in done.stdout and f"updated {spawnblock.SPAWN_TEMPLATE}" not in done.stdout

"""No window without the spawn blocks: the pre-commit hook puts a lost block back and refuses, verify
and the pre-push hook name a commit that lost one; the blocks' size; agent names in any case.

The files carry only the lines squadmem answers for (as in spawn_test.py); the real
Squad CLI's `squad upgrade` is in squad_upgrade_real_test.py.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import GitRepo, bare_remote, hooked_commit, run_squadmem
from spawn_test import COORDINATOR, HISTORY, SQUAD, TEMPLATE

from squadmem.model import spawnblock

DATE = "2026-03-02T09:00:00+00:00"
LATER = "2026-03-02T10:00:00+00:00"
UPGRADED = "<!-- Squad v0.11 -->\n" + TEMPLATE  # what `squad upgrade` writes: Squad's lines, no block


def hooked_team(repo: GitRepo) -> GitRepo:
    """A Squad team with squadmem init (its git hooks installed) and spawn on, committed."""
    repo.commit("squad init", dict(SQUAD), date=DATE)
    done = run_squadmem(repo.root, "init")
    assert done.returncode == 0, done.stderr
    assert f"updated {spawnblock.SPAWN_TEMPLATE}" in done.stdout
    repo.git("add", "-A")
    done = hooked_commit(repo, DATE, "-m", "squadmem init")
    assert done.returncode == 0, done.stderr
    return repo


def test_the_hook_puts_a_lost_block_back_and_refuses_until_it_is_added(repo: GitRepo) -> None:
    """Regression: after `squad upgrade`, `git commit -a` committed Squad's lines without squadmem's
    blocks, and every spawn until the nightly maintain read the whole history.md again."""
    hooked_team(repo)
    record_before = repo.read(spawnblock.RECORD)
    repo.write(spawnblock.SPAWN_TEMPLATE, UPGRADED)
    head = repo.head()
    refused = hooked_commit(repo, LATER, "-a", "-m", "squad upgrade")
    assert refused.returncode == 1
    assert refused.stderr.splitlines() == [
        f"{spawnblock.SPAWN_TEMPLATE}: squadmem's spawn block was missing (squad upgrade?):"
        f" fixed {spawnblock.SPAWN_TEMPLATE}; add it and commit again"
    ]
    assert repo.head() == head
    fixed = repo.read(spawnblock.SPAWN_TEMPLATE)
    assert fixed.startswith("<!-- Squad v0.11 -->\n") and HISTORY not in fixed
    assert "<!-- squadmem:history -->" in fixed
    assert repo.read(spawnblock.RECORD) == record_before  # Squad's lines are the ones recorded

    passed = hooked_commit(repo, LATER, "-a", "-m", "squad upgrade")
    assert passed.returncode == 0, passed.stderr
    assert run_squadmem(repo.root, "verify", "HEAD").returncode == 0

    off = run_squadmem(repo.root, "spawn", "off")  # squadmem's own commit: Squad's lines, record off
    assert off.returncode == 0, off.stderr
    assert repo.read(spawnblock.SPAWN_TEMPLATE) == UPGRADED
    repo.write(spawnblock.SPAWN_TEMPLATE, UPGRADED + "\nmore of Squad's\n")
    again = hooked_commit(repo, LATER, "-a", "-m", "squad edit, spawn off")
    assert again.returncode == 0, again.stderr
    assert run_squadmem(repo.root, "verify", "HEAD").returncode == 0


def test_the_hook_records_a_line_squad_reworded(repo: GitRepo) -> None:
    """A Squad line in new words gets its block, and `spawn off` gives back the new words."""
    hooked_team(repo)
    reworded = TEMPLATE.replace(
        "fall back to `.squad/agents/{name}/history.md`",
        "fall back to `.squad/agents/{name}/history.md` (v2)",
    )
    repo.write(spawnblock.SPAWN_TEMPLATE, reworded)
    refused = hooked_commit(repo, LATER, "-a", "-m", "squad upgrade")
    assert refused.returncode == 1
    assert refused.stderr.strip().endswith(
        f"fixed {spawnblock.SPAWN_TEMPLATE} and {spawnblock.RECORD}; add them and commit again"
    )
    repo.git("add", "-A")
    assert hooked_commit(repo, LATER, "-m", "squad upgrade").returncode == 0
    assert run_squadmem(repo.root, "spawn", "off").returncode == 0
    assert repo.read(spawnblock.SPAWN_TEMPLATE) == reworded


def test_push_of_a_commit_that_lost_a_block_is_refused(repo: GitRepo, tmp_path: Path) -> None:
    hooked_team(repo)
    remote = bare_remote(repo, tmp_path)
    assert subprocess.run(["git", "push", "-q", "origin", "main"], cwd=repo.root).returncode == 0
    repo.write(spawnblock.COORDINATOR, COORDINATOR)
    bypassed = hooked_commit(repo, LATER, "-a", "--no-verify", "-m", "squad upgrade")
    assert bypassed.returncode == 0
    sha = repo.head()
    pushed = subprocess.run(["git", "push", "origin", "main"], cwd=repo.root, text=True, capture_output=True)
    assert pushed.returncode != 0
    assert (
        f"{sha[:7]} {spawnblock.COORDINATOR}: spawn is on but squadmem:at-spawn, squadmem:template is gone"
        in pushed.stdout + pushed.stderr
    )
    remote_head = subprocess.run(
        ["git", "rev-parse", "main"], cwd=remote, text=True, capture_output=True, check=True
    ).stdout.strip()
    assert remote_head == repo.git("rev-parse", "HEAD~1").strip()


def test_a_commit_without_squads_files_starts_no_spawn_check(repo: GitRepo) -> None:
    """The shim's one `git diff` lists Squad's spawn files too: a commit of other files passes as before."""
    hooked_team(repo)
    repo.write("src/app.py", "print('hi')\n")
    repo.git("add", "src/app.py")
    done = hooked_commit(repo, LATER, "-m", "code")
    assert done.returncode == 0 and done.stderr == ""


# -- the block's size ---------------------------------------------------------------------------

LONG_NAME = "commander-montgomery-sco"  # 24 characters


@pytest.mark.parametrize("edit", spawnblock.EDITS, ids=lambda e: e.key)
def test_each_block_is_at_most_400_bytes(edit: spawnblock.Edit) -> None:
    """Each rendered block (markers, indent and a long agent name included) stays within 400 bytes."""
    squads = {
        "history": "    " + HISTORY,
        "decisions": "    Read `decisions.md` with `squad_state_read`; else `.squad/decisions.md`.",
    }
    line = squads.get(edit.key, "    x") + "\n"
    block = "".join(spawnblock._marked(edit, edit.key, line)).replace("{name}", LONG_NAME)
    assert len(block.encode("utf-8")) <= 400, block


def test_the_memory_block_says_what_a_spawn_needs() -> None:
    text = " ".join(spawnblock.MEMORY_LINES)
    for needed in (
        'squadmem context --agent {name} --task "',
        ".squad/memory/hot/{name}.md",
        "--include <id>",
        'squadmem recall --agent {name} --beyond-spawn "',
        "squadmem touch <id>",
    ):
        assert needed in text


# -- agent names, as Squad matches them ----------------------------------------------------------


def test_agent_names_match_as_squad_matches_them(repo: GitRepo) -> None:
    """Squad shows "Rai" and keeps `.squad/agents/rai/`: `--agent Rai` finds rai's memory."""
    hot = "# Hot memory: rai\n\n## Red flags\n\nCheck the prompt logs.\n"
    repo.commit("init", {".squad/memory/hot/rai.md": hot, ".squad/memory/tiers.toml": ""}, date=DATE)
    done = run_squadmem(repo.root, "context", "--agent", "Rai", "--now", DATE)
    assert done.returncode == 0, done.stderr
    assert "Check the prompt logs." in done.stdout
    done = run_squadmem(repo.root, "context", "--agent", "RAI", "--task", "red flags", "--now", DATE)
    assert done.returncode == 0 and "Check the prompt logs." in done.stdout, done.stderr
    done = run_squadmem(repo.root, "list", "--agent", "Rai")
    assert done.returncode == 0 and "rai/red-flags" in done.stdout, done.stderr
    done = run_squadmem(repo.root, "recall", "prompt", "--agent", "Rai", "--now", DATE)
    assert done.returncode == 0 and "rai/red-flags" in done.stdout, done.stderr
    done = run_squadmem(repo.root, "touch", "Rai/red-flags", "--now", DATE)
    assert done.returncode == 0, done.stderr


def test_agents_differing_only_in_case_are_named_exactly(repo: GitRepo) -> None:
    files = {".squad/memory/hot/rai.md": "# a\n", ".squad/memory/hot/Rai.md": "# b\n"}
    repo.commit("init", {**files, ".squad/memory/tiers.toml": ""}, date=DATE)
    before = repo.snapshot()
    done = run_squadmem(repo.root, "context", "--agent", "RAI", "--now", DATE)
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == "squadmem: agent RAI: Rai, rai differ only in case"
    assert done.stderr.splitlines()[1].startswith("hint: ")
    assert repo.snapshot() == before
    assert run_squadmem(repo.root, "context", "--agent", "rai", "--now", DATE).returncode == 0

from __future__ import annotations

import os
import stat
import subprocess

import pytest
from conftest import GitRepo, squadmem

from squadmem.engine.install import githooks


def squad_tree(repo: GitRepo) -> None:
    """What `squad init` leaves: agents, histories, and Squad's own memory files."""
    repo.write(".squad/agents/picard/charter.md", "# Picard\n")
    repo.write(".squad/agents/picard/history.md", "# History\n\n## 2026-01-02\nDid things.\n")
    repo.write(".squad/agents/worf/charter.md", "# Worf\n")
    repo.write(".squad/decisions.md", "# Decisions\n")
    repo.write(".squad/memory/config.json", '{"version": 1}\n')
    repo.write(".squad/memory/index.json", "{}\n")
    repo.write(".squad/memory/audit.jsonl", '{"a": 1}\n')
    repo.write(".squad/memory/local/notes.md", "# local\n")
    repo.write(".gitattributes", ".squad/agents/*/history.md merge=union\n")


def test_init_fresh_repository_creates_layout(repo: GitRepo) -> None:
    code, out, _ = squadmem(repo, "init", "--agent", "picard")
    assert code == 0
    for rel in (
        ".squad/memory/tiers.toml",
        ".squad/memory/hot/picard.md",
        ".squad/memory/cold/picard.md",
        ".squad/memory/wiki/.gitkeep",
        ".squad/memory/archive/.gitkeep",
        ".squad/memory/log/.gitkeep",
    ):
        assert (repo.root / rel).is_file(), rel
        assert f"created {rel}" in out
    assert "merge=union" in repo.read(".gitattributes")
    for event in githooks.EVENTS:
        hook = repo.root / ".git" / "hooks" / event
        assert hook.stat().st_mode & stat.S_IXUSR
        assert "squadmem.hooks.run" in hook.read_text()


def test_init_second_run_is_a_no_op(repo: GitRepo) -> None:
    squad_tree(repo)
    assert squadmem(repo, "init")[0] == 0
    before = repo.snapshot()
    hooks_before = {p.name: p.read_bytes() for p in (repo.root / ".git" / "hooks").iterdir()}
    code, out, _ = squadmem(repo, "init")
    assert code == 0
    assert out.startswith("nothing to do")
    assert repo.snapshot() == before
    assert {p.name: p.read_bytes() for p in (repo.root / ".git" / "hooks").iterdir()} == hooks_before


def test_init_again_names_the_agents_there_and_says_to_commit(repo: GitRepo) -> None:
    """Regression: `init --agent picard` then `init` said "no agents yet" although picard had tier
    files; and init never said to commit, so the `session start` right after it refused. Now init
    says what to commit, the second run names the agents, and after the commit session start works."""
    code, out, _ = squadmem(repo, "init", "--agent", "picard")
    assert code == 0
    assert out.splitlines()[-1] == (
        "commit these files before other squadmem commands (they write only on committed tier files):"
        ' git add .gitattributes .squad/memory && git commit -m "squadmem init"'
    )
    code, out, _ = squadmem(repo, "init")
    assert code == 0
    assert out.splitlines()[0] == "nothing to do: squadmem is already set up here"
    assert "kept .squad/memory/tiers.toml" in out.splitlines() and out.endswith("\nagents: picard\n")
    assert "created" not in out
    subprocess.run(
        "git add .gitattributes .squad/memory && git commit -q --no-gpg-sign -m 'squadmem init'",
        shell=True,
        cwd=repo.root,
        check=True,
    )
    assert squadmem(repo, "session", "start", "--agent", "picard", "--task", "t")[0] == 0


def test_init_squad_tree_keeps_every_file_and_finds_agents(repo: GitRepo) -> None:
    squad_tree(repo)
    before = repo.snapshot()
    code, _, _ = squadmem(repo, "init")
    assert code == 0
    after = repo.snapshot()
    for rel, data in before.items():
        if rel == ".gitattributes":
            assert after[rel].startswith(data)  # only appended to
        else:
            assert after[rel] == data, rel
    assert (repo.root / ".squad/memory/hot/picard.md").exists()
    assert (repo.root / ".squad/memory/cold/worf.md").exists()


def test_init_never_overwrites_a_tier_file(repo: GitRepo) -> None:
    repo.write(".squad/memory/hot/picard.md", "# mine\n\n## Keep\nme\n")
    repo.write(".squad/memory/tiers.toml", "[hot]\nstale_days = 3\n")
    squadmem(repo, "init", "--agent", "picard")
    assert repo.read(".squad/memory/hot/picard.md") == "# mine\n\n## Keep\nme\n"
    assert repo.read(".squad/memory/tiers.toml") == "[hot]\nstale_days = 3\n"


def test_init_chains_an_existing_hook(repo: GitRepo) -> None:
    hook = repo.root / ".git" / "hooks" / "pre-commit"
    hook.parent.mkdir(parents=True, exist_ok=True)
    original = b"#!/bin/sh\necho legacy-hook-ran\nexit 0\n"
    hook.write_bytes(original)
    hook.chmod(0o755)
    code, out, _ = squadmem(repo, "init", "--agent", "picard")
    assert code == 0
    assert "pre-commit.squadmem-legacy" in out
    assert (hook.parent / "pre-commit.squadmem-legacy").read_bytes() == original
    repo.git("add", "-A")
    proc = subprocess.run(
        ["git", "commit", "-q", "--no-gpg-sign", "-m", "x"], cwd=repo.root, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert "legacy-hook-ran" in proc.stdout + proc.stderr


def test_init_chained_hook_failure_refuses_the_commit(repo: GitRepo) -> None:
    hook = repo.root / ".git" / "hooks" / "pre-commit"
    hook.parent.mkdir(parents=True, exist_ok=True)
    hook.write_text("#!/bin/sh\necho no >&2\nexit 7\n")
    hook.chmod(0o755)
    squadmem(repo, "init", "--agent", "picard")
    repo.git("add", "-A")
    proc = subprocess.run(["git", "commit", "-q", "-m", "x"], cwd=repo.root, capture_output=True, text=True)
    assert proc.returncode != 0
    assert repo.git("rev-parse", "--verify", "-q", "HEAD", check=False) == ""


def test_init_with_hooks_path_installs_nothing(repo: GitRepo) -> None:
    repo.git("config", "core.hooksPath", ".githooks")
    code, out, _ = squadmem(repo, "init", "--agent", "picard")
    assert code == 0
    assert "core.hooksPath" in out
    assert "-m squadmem.hooks.run pre-commit" in out
    assert not (repo.root / ".githooks").exists()
    assert not (repo.root / ".git" / "hooks" / "pre-commit").exists()


def test_init_with_pre_commit_config_prints_the_snippet(repo: GitRepo) -> None:
    repo.write(".pre-commit-config.yaml", "repos: []\n")
    code, out, _ = squadmem(repo, "init", "--agent", "picard")
    assert code == 0
    assert "id: squadmem-log-check" in out
    assert repo.read(".pre-commit-config.yaml") == "repos: []\n"
    assert not (repo.root / ".git" / "hooks" / "pre-commit").exists()


def test_init_skips_agent_folders_with_bad_names(repo: GitRepo) -> None:
    repo.write(".squad/agents/_alumni/x.md", "x\n")
    repo.write(".squad/agents/data/charter.md", "x\n")
    code, out, _ = squadmem(repo, "init")
    assert code == 0
    assert "_alumni" in out
    assert (repo.root / ".squad/memory/hot/data.md").exists()
    assert not (repo.root / ".squad/memory/hot/_alumni.md").exists()


@pytest.mark.parametrize("name", ["../evil", "a/b", ".hidden", "bad\x01name", "..", "x\x00y"])
def test_init_bad_agent_name_exits_2_and_changes_nothing(repo: GitRepo, name: str) -> None:
    before = repo.snapshot()
    code, _, err = squadmem(repo, "init", "--agent", name)
    assert code == 2
    first = "squadmem: --agent: holds a NUL byte" if "\0" in name else "squadmem: invalid agent name"
    assert err.splitlines()[0].startswith(first)
    assert err.splitlines()[1].startswith("hint: ")
    assert repo.snapshot() == before


def test_init_symlinked_memory_outside_exits_2(repo: GitRepo, tmp_path: os.PathLike[str]) -> None:
    outside = repo.root.parent / "elsewhere"
    outside.mkdir()
    (repo.root / ".squad").mkdir()
    (repo.root / ".squad" / "memory").symlink_to(outside)
    before = repo.snapshot()
    code, _, err = squadmem(repo, "init", "--agent", "picard")
    assert code == 2
    assert "leads outside .squad/memory/" in err
    assert repo.snapshot() == before
    assert list(outside.iterdir()) == []


def test_init_in_a_squad_team_writes_the_skill_that_spawns_with_the_task(repo: GitRepo) -> None:
    squad_tree(repo)
    code, out, _ = squadmem(repo, "init")
    assert code == 0
    skill = (repo.root / ".github/skills/squadmem-memory/SKILL.md").read_text("utf-8")
    assert 'squadmem context --agent <name> --task "<the task you are giving it>"' in skill
    assert 'MEMORY: {output of `squadmem context --agent {name} --task "{task}"`}' in skill
    assert "squadmem touch <id>" in skill
    head = skill.split("---\n")[1]  # the front matter Squad reads: one line per key, no stray quote
    assert all(line.count('"') in (0, 2) for line in head.splitlines())
    assert "spawns load `squadmem context --agent <name> --task '<the task>'`" in out


def test_init_never_overwrites_a_skill_file_and_skips_it_on_request(repo: GitRepo) -> None:
    squad_tree(repo)
    repo.write(".github/skills/squadmem-memory/SKILL.md", "mine\n")
    assert squadmem(repo, "init")[0] == 0
    assert repo.read(".github/skills/squadmem-memory/SKILL.md") == "mine\n"
    other = repo.root.parent / "other"
    other.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(other)], check=True)
    again = GitRepo(other)
    squad_tree(again)
    assert squadmem(again, "init", "--no-squad-skill")[0] == 0
    assert not (other / ".github/skills").exists()

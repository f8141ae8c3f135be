"""init's hook installer, and the snippet it prints for repositories on the pre-commit framework."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml  # type: ignore[import-untyped]
from conftest import GitRepo

from squadmem.engine.install import githooks

LOG = ".squad/memory/log/2026-03-01.md"


def commit(repo: GitRepo, date: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    return subprocess.run(
        ["git", "commit", "-q", "--no-gpg-sign", "-m", "log"],
        cwd=repo.root,
        env=env,
        text=True,
        capture_output=True,
    )


def test_render_names_the_installing_interpreter() -> None:
    text = githooks.render("pre-commit")
    assert text.startswith("#!/bin/sh\n")
    assert f'SQUADMEM_PYTHON="${{SQUADMEM_PYTHON:-{sys.executable}}}"' in text
    assert '-m squadmem.hooks.run pre-commit "$@"' in text


MANIFEST = Path(__file__).resolve().parents[1] / ".pre-commit-hooks.yaml"
FIXED = {"description", "language", "minimum_pre_commit_version"}


def test_manifest_table_is_the_manifest() -> None:
    hooks = yaml.safe_load(MANIFEST.read_text("utf-8"))
    assert [{k: v for k, v in h.items() if k not in FIXED} for h in hooks] == list(githooks.MANIFEST)
    assert all(h["language"] == "python" for h in hooks)
    assert sorted({s for h in hooks for s in h["stages"]}) == sorted(githooks.HOOK_TYPES)


def test_snippet_from_a_git_source_names_every_hook() -> None:
    text = githooks.pre_commit_snippet(("https://example.com/squadmem.git", "a" * 40))
    config = yaml.safe_load(text)
    assert config["default_install_hook_types"] == list(githooks.HOOK_TYPES)
    (entry,) = config["repos"]
    assert (entry["repo"], entry["rev"]) == ("https://example.com/squadmem.git", "a" * 40)
    assert [h["id"] for h in entry["hooks"]] == [h["id"] for h in githooks.MANIFEST]


def test_snippet_local_repeats_the_manifest_with_a_pinned_requirement() -> None:
    text = githooks.pre_commit_snippet(requirement="squadmem==0.1.0")
    (entry,) = yaml.safe_load(text)["repos"]
    assert entry["repo"] == "local"
    for hook, listed in zip(githooks.MANIFEST, entry["hooks"], strict=True):
        assert listed["language"] == "python"
        assert listed["additional_dependencies"] == ["squadmem==0.1.0"]
        assert {k: v for k, v in listed.items() if k not in {"language", "additional_dependencies"}} == hook
    assert "system" not in text


def test_init_after_pre_commit_install_leaves_the_frameworks_hook(repo: GitRepo) -> None:
    """Regression: chaining the framework's script made it run itself in "migration mode"."""
    from conftest import squadmem as cli

    hook = repo.root / ".git" / "hooks" / "pre-commit"
    hook.parent.mkdir(parents=True, exist_ok=True)
    hook.write_text(f"#!/usr/bin/env bash\n{githooks.FRAMEWORK_MARKER}\nexit 0\n")
    before = hook.read_text()
    code, out, _ = cli(repo, "init", "--agent", "picard")
    assert code == 0
    assert "uses the pre-commit framework (its hook is installed for pre-commit)" in out
    assert "id: squadmem-verify-push" in out
    assert hook.read_text() == before
    assert not (repo.root / ".git" / "hooks" / "pre-commit.squadmem-legacy").exists()


def test_hook_text_appended_after_squadmems_cannot_hide_its_refusal(repo: GitRepo) -> None:
    """Regression: `squad upgrade` appends its hook block after ours; our exit status must survive it."""
    from conftest import squadmem as cli

    repo.commit("start", {"README.md": "x\n"}, date="2026-03-01T08:00:00+00:00")
    assert cli(repo, "init", "--agent", "picard")[0] == 0
    hook = repo.root / ".git" / "hooks" / "pre-commit"
    hook.write_text(
        hook.read_text()
        + '\n# --- appended by another tool ---\nif [ -z "$OTHER_ACTIVE" ]; then\n  true\nfi\n'
    )
    repo.write(".squad/memory/hot/picard.md", "# Hot memory: picard\n" + "x\n" * 200)
    repo.git("add", "-A")
    done = commit(repo, "2026-03-01T09:00:00+00:00")
    assert done.returncode == 1
    assert "hot.max_lines" in done.stderr

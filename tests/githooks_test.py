"""init's hook installer, and the snippet it prints for repositories on the pre-commit framework."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from conftest import GitRepo

from squadmem.commands import githooks

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


def console_scripts(folder: Path) -> Path:
    """This checkout's console scripts (pyproject.toml), as pip would install them, in ``folder``."""
    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text("utf-8"))
    folder.mkdir()
    for name, target in project["project"]["scripts"].items():
        module, _, function = target.partition(":")
        script = folder / name
        script.write_text(
            f"#!{sys.executable}\nfrom {module} import {function}\nraise SystemExit({function}())\n"
        )
        script.chmod(0o755)
    return folder


def test_pre_commit_snippet_works_with_the_real_framework(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The lines init prints for a pre-commit repository are a working configuration."""
    bin_dir = console_scripts(tmp_path / "bin")
    assert shutil.which("squadmem-file-check", path=str(bin_dir)), "console scripts are there"
    config = githooks.PRE_COMMIT_SNIPPET.split("\n", 1)[1].split("# then:")[0]
    repo.write(".pre-commit-config.yaml", "repos:\n" + config)
    repo.write(LOG, "# Daily log 2026-03-01\n- 09:00 first\n")
    repo.git("add", "-A")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    install = [sys.executable, "-m", "pre_commit", "install"]
    install += ["--hook-type", "pre-commit", "--hook-type", "prepare-commit-msg"]
    subprocess.run(install, cwd=repo.root, check=True, capture_output=True)
    assert commit(repo, "2026-03-01T10:00:00+00:00").returncode == 0
    repo.write(LOG, "# Daily log 2026-03-01\n- 09:00 first, edited\n")
    repo.git("add", "-A")
    refused = commit(repo, "2026-03-02T10:00:00+00:00")
    assert refused.returncode != 0
    assert LOG in refused.stdout + refused.stderr


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

"""A new user's first commands: before ``init`` they say squadmem is not set up here (never "memory is
in shape"); a tier file with uncommitted changes, or never committed, is named by ``maintain`` as left
unjudged, never passed over in silence."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import conftest
import pytest
from conftest import GitRepo, init_hooked, run_squadmem

DATE = "2026-03-02T09:00:00+00:00"
NOW = "2026-04-20T09:00:00Z"


@pytest.mark.parametrize(
    "args",
    [
        ("report",),
        ("maintain",),
        ("maintain", "--dry-run"),
        ("context", "--agent", "picard"),
        ("recall", "vault"),
        ("touch", "picard/x"),
        ("promote", "picard/x"),
        ("intake",),
    ],
    ids=lambda a: " ".join(a),
)
def test_before_init_commands_say_squadmem_is_not_set_up(repo: GitRepo, args: tuple[str, ...]) -> None:
    repo.commit("first", {"README.md": "hello\n"}, date=DATE)
    before = repo.snapshot()
    done = run_squadmem(repo.root, *args)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        f"squadmem: not set up here: {repo.root} has no .squad/memory/ folder",
        "hint: run squadmem init (and commit what it writes)",
    ]
    assert done.stdout == ""
    assert repo.snapshot() == before


def test_after_init_report_runs(repo: GitRepo) -> None:
    init_hooked(repo, DATE)
    done = run_squadmem(repo.root, "report", "--now", NOW)
    assert done.returncode == 0, done.stderr


def _with_loose_tier_file(repo: GitRepo) -> GitRepo:
    init_hooked(repo, DATE)
    repo.write(".squad/memory/hot/worf.md", "# Hot memory: worf\n\n## Old thing\nx\n")
    return repo


@pytest.mark.parametrize("dry_run", [False, True])
def test_maintain_names_a_tier_file_never_committed(repo: GitRepo, dry_run: bool) -> None:
    _with_loose_tier_file(repo)
    before = repo.snapshot()
    done = run_squadmem(repo.root, "maintain", "--now", NOW, *(["--dry-run"] if dry_run else []))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == (
        "not judged: .squad/memory/hot/worf.md (never committed) has uncommitted changes, so their"
        " sections count as used now and stay where they are; commit them, or run maintain --commit-edits"
    )
    assert repo.snapshot() == before


def test_maintain_json_names_an_edited_tier_file(repo: GitRepo) -> None:
    init_hooked(repo, DATE)
    hot = ".squad/memory/hot/picard.md"
    repo.write(hot, repo.read(hot) + "\n## Edited\ny\n")
    done = run_squadmem(repo.root, "maintain", "--now", NOW, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["unjudged"].startswith(f"not judged: {hot} has uncommitted changes")


def test_maintain_with_commit_edits_judges_them_and_says_nothing_more(repo: GitRepo) -> None:
    _with_loose_tier_file(repo)
    done = run_squadmem(repo.root, "maintain", "--now", NOW, "--commit-edits")
    assert done.returncode == 0, done.stderr
    assert "not judged" not in done.stdout
    assert repo.git("status", "--porcelain", "--", ".squad") == ""


# -- the tests' own guard against writes to $HOME ---------------------------------------------------


def test_the_tests_home_is_neither_the_real_one_nor_the_sessions() -> None:
    home = Path(os.environ["HOME"])
    assert home not in (conftest.REAL_HOME, conftest.SESSION_HOME)
    assert conftest.home_writes(home) == []
    assert conftest.home_writes(conftest.SESSION_HOME) == []


def test_the_guard_sees_what_a_subprocess_writes_deep_in_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    subprocess.run(
        ["sh", "-c", 'mkdir -p "$HOME/.config/git" && echo x > "$HOME/.config/git/config"'],
        env=dict(os.environ, HOME=str(home)),
        check=True,
    )
    (home / ".openclaw").mkdir()
    assert conftest.home_writes(home, conftest.HOST_FIXTURES) == [
        ".config",
        ".config/git",
        ".config/git/config",
    ]


def test_a_command_run_as_a_subprocess_leaves_home_empty(repo: GitRepo) -> None:
    """init, maintain and recall as whole processes write nothing to $HOME (the guard checks it
    after every test; here it is asserted where the writes would come from)."""
    init_hooked(repo, DATE)
    for args in (("maintain", "--now", NOW), ("recall", "hot"), ("report",)):
        assert run_squadmem(repo.root, *args).returncode == 0
    assert conftest.home_writes(Path(os.environ["HOME"]), conftest.HOST_FIXTURES) == []

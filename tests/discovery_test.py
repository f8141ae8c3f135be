"""Finding the repository without starting git says what ``git rev-parse`` says, or leaves it to git.

Each layout is made with real git in a temporary folder; ``gitdir.discover`` must give the git
directory, common git directory, object format and top of the work tree exactly as ``git
rev-parse`` gives them (the common one made absolute, as ``Repo`` does), or None (git is asked).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import GitRepo, run_squadmem

from squadmem.gitio import gitdir, runner
from squadmem.gitio.repo import Repo

WHERE = ("--absolute-git-dir", "--git-common-dir", "--show-object-format", "--show-toplevel")


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def rev_parse(start: Path) -> tuple[str, str, str, str] | None:
    env = runner.git_env(keep_index=False, keep_identity=True)
    proc = subprocess.run(["git", "rev-parse", *WHERE], cwd=start, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        return None
    own, common, fmt, top = proc.stdout.splitlines()
    return own, common if os.path.isabs(common) else os.path.realpath(start / common), fmt, top


@pytest.fixture(scope="module")
def layouts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A plain repository, its linked worktree, a --separate-git-dir one, a sha256 one, a bare one,
    a submodule, one whose core.worktree is elsewhere, symlinks into them, and no repository."""
    here = tmp_path_factory.mktemp("layouts")
    for name, *extra in (("plain",), ("sha", "--object-format=sha256"), ("host",), ("src",), ("elsewhere",)):
        git("init", "-q", "-b", "main", *extra, name, cwd=here)
    for name in ("plain", "host", "src"):
        git(
            "-c",
            "user.name=a",
            "-c",
            "user.email=a@b",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "x",
            cwd=here / name,
        )
    (here / "plain" / "a" / "b").mkdir(parents=True)
    git("worktree", "add", "-q", "../linked", "-b", "linked", cwd=here / "plain")
    (here / "linked" / "sub").mkdir()
    git("init", "-q", "-b", "main", "--separate-git-dir=apart.git", "work", cwd=here)
    git("init", "-q", "--bare", "bare.git", cwd=here)
    git("-c", "protocol.file.allow=always", "submodule", "-q", "add", "../src", "mod", cwd=here / "host")
    git("config", "core.worktree", str(here), cwd=here / "elsewhere")
    git("config", "merge.squadmem.driver", 'python -m "x" %O %A', cwd=here / "plain")
    (here / "link").symlink_to(here / "plain" / "a")
    (here / "linked-link").symlink_to(here / "linked")
    (here / "none").mkdir()
    return here


PLAIN = [
    "plain",
    "plain/a/b",
    "link",
    "link/b",
    "linked",
    "linked/sub",
    "linked-link/sub",
    "work",
    "sha",
    "host",
]
TO_GIT = ["bare.git", "plain/.git", "plain/.git/objects", "host/mod", "elsewhere", "none"]


@pytest.mark.parametrize("where", PLAIN)
def test_a_plain_layout_is_found_as_git_finds_it(layouts: Path, where: str) -> None:
    env = runner.git_env(keep_index=False, keep_identity=True)
    found = gitdir.discover(str(layouts / where), env)
    assert found is not None
    assert found == rev_parse(layouts / where)


@pytest.mark.parametrize("where", TO_GIT)
def test_any_other_layout_is_left_to_git(layouts: Path, where: str) -> None:
    assert gitdir.discover(str(layouts / where), runner.git_env(keep_index=False, keep_identity=True)) is None


def test_configuration_in_the_environment_is_left_to_git(layouts: Path) -> None:
    env = dict(runner.git_env(keep_index=False), GIT_CONFIG_COUNT="1")
    assert gitdir.discover(str(layouts / "plain"), env) is None


@pytest.mark.parametrize("where", [*PLAIN, "host/mod", "elsewhere"])
def test_a_repo_opened_either_way_is_the_same(layouts: Path, where: str) -> None:
    with Repo(layouts / where) as repo:
        opened = (str(repo.work_git_dir), str(repo.git_dir), repo.object_format, str(repo.root))
        assert opened == repo._ask(layouts / where)


# -- GIT_DIR / GIT_WORK_TREE set, squadmem started elsewhere ------------------------------------------
HOT = ".squad/memory/hot/picard.md"
OLD = "2026-01-01T10:00:00+00:00"


def test_git_dir_and_work_tree_from_the_environment_are_honoured(
    repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: with GIT_DIR and GIT_WORK_TREE set (as tools and CI runners set them) and
    squadmem started in another folder, every command failed "not a git repository"."""
    assert run_squadmem(repo.root, "init", "--agent", "picard").returncode == 0
    repo.git("add", "-A")
    repo.commit("memory", {HOT: "# Hot\n\n## Plan\nship it\n\n## Notes\nnotes\n"}, date=OLD)
    store = tmp_path / "store.git"
    (repo.root / ".git").rename(store)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setenv("GIT_DIR", os.path.relpath(store, elsewhere))  # relative, as git reads it
    monkeypatch.setenv("GIT_WORK_TREE", str(repo.root))
    listed = run_squadmem(elsewhere, "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert "picard/plan" in listed.stdout
    moved = run_squadmem(elsewhere, "demote", "picard/plan", date=OLD)
    assert moved.returncode == 0, moved.stderr
    assert run_squadmem(elsewhere, "verify").returncode == 0
    status = subprocess.run(["git", "status", "--porcelain"], cwd=elsewhere, capture_output=True, text=True)
    assert status.returncode == 0 and status.stdout == ""
    assert not (elsewhere / ".squad").exists()


def test_a_git_dir_naming_no_repository_is_not_a_repository(
    repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A GIT_DIR that names no repository is refused as git refuses it, nothing written."""
    assert run_squadmem(repo.root, "init", "--agent", "picard").returncode == 0
    before = repo.snapshot()
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "missing.git"))
    done = run_squadmem(repo.root, "list")
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == f"squadmem: not a git repository: {repo.root.resolve()}"
    assert done.stderr.splitlines()[1].startswith("hint: ")
    monkeypatch.delenv("GIT_DIR")
    assert repo.snapshot() == before

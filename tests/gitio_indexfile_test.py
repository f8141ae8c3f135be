"""The index refreshed in-process: byte for byte what ``git update-index --add`` writes, or left to git."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import GitRepo

from squadmem.gitio import config, indexfile
from squadmem.gitio.objects import object_name

DATE = "2026-03-01T12:00:00Z"
HOT = ".squad/memory/hot/picard.md"
COLD = ".squad/memory/cold/picard.md"


def _by_git(repo: GitRepo, paths: list[str], scratch: Path) -> bytes:
    shutil.copyfile(repo.root / ".git" / "index", scratch)
    env = dict(os.environ, GIT_INDEX_FILE=str(scratch))
    subprocess.run(["git", "update-index", "--add", "--", *paths], cwd=repo.root, env=env, check=True)
    return scratch.read_bytes()


def _in_process(repo: GitRepo, paths: list[str], algorithm: str = "sha1") -> bytes | None:
    files = {}
    for rel in paths:
        data = (repo.root / rel).read_bytes()
        files[rel] = (object_name("blob", data, algorithm), os.lstat(repo.root / rel))
    return indexfile.refresh((repo.root / ".git" / "index").read_bytes(), files, algorithm)


@pytest.mark.parametrize("algorithm", ["sha1", "sha256"])
def test_refreshed_entries_and_a_new_path_are_what_update_index_writes(
    tmp_path: Path, algorithm: str
) -> None:
    root = tmp_path / algorithm
    subprocess.run(["git", "init", "-q", "-b", "main", f"--object-format={algorithm}", str(root)], check=True)
    repo = GitRepo(root)
    repo.commit("one", {HOT: "## A\na\n", COLD: "## B\nb\n", "src/x.py": "x\n", "z": "z\n"}, date=DATE)
    repo.git("status")  # the cache-tree is written
    repo.write(HOT, "## A\na\nmore\n")
    repo.write(".squad/memory/cold/worf.md", "## W\nw\n")
    paths = [HOT, ".squad/memory/cold/worf.md"]
    made = _in_process(repo, paths, algorithm)
    assert made is not None
    assert made == _by_git(repo, paths, tmp_path / "scratch")


def test_an_index_git_must_handle_is_left_to_git(repo: GitRepo) -> None:
    """Version 4 (paths compressed), a conflict or a folder where a path goes: refresh says None."""
    repo.commit("one", {HOT: "## A\na\n", "x": "x\n"}, date=DATE)
    repo.write("x", "changed\n")
    assert _in_process(repo, ["x"]) is not None
    (repo.root / "x").unlink()
    (repo.root / "x").mkdir()
    (repo.root / "x" / "y").write_text("y\n")
    assert _in_process(repo, ["x/y"]) is None  # x is a file in the index
    repo.git("update-index", "--index-version", "4")
    assert _in_process(repo, [HOT]) is None


def test_config_matches_keys_as_git_does_and_reads_the_identity(repo: GitRepo) -> None:
    repo.git("config", "merge.SquadMem.Driver", "x")
    repo.git("config", "core.hooksPath", "hooks")
    read = config.read(os.environ.copy(), repo.root)
    assert read.get("core.HOOKSPATH") == "hooks" and read.get("merge.SquadMem.driver") == "x"
    assert read.get("merge.squadmem.driver") is None
    assert read.ident("COMMITTER").count("<") == 1 and read.committer_time() > 0

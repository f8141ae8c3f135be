"""Writers in the git states a team's repository is found in: autocrlf, sparse checkout, a merge,
rebase or cherry-pick under way, linked worktrees, and the budget hook's hint in each."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GitRepo, assert_refused, run_squadmem
from conftest import squadmem as cli

from squadmem.engine.writing import writer
from squadmem.model.layout import MEMORY_DIR

HOT = f"{MEMORY_DIR}/hot/picard.md"
COLD = f"{MEMORY_DIR}/cold/picard.md"
OLD = "2026-01-01T10:00:00+00:00"
HOT_TEXT = "# Hot\n\n## Plan\nship it\n\n## Notes\nsome notes\n"
COLD_TEXT = "# Cold\n\n## Old\nold\n"


def seed(repo: GitRepo) -> None:
    repo.commit("memory", {HOT: HOT_TEXT, COLD: COLD_TEXT, "a.txt": "a\n"}, date=OLD)


def test_autocrlf_writers_work_on_a_clean_checkout_and_leave_index_equal_to_head(repo: GitRepo) -> None:
    """Failure: with core.autocrlf=true writers refused on a clean status, or left index != HEAD."""
    seed(repo)
    repo.git("config", "core.autocrlf", "true")
    for rel in (HOT, COLD):
        (repo.root / rel).unlink()
    repo.git("checkout", "--", HOT, COLD)
    assert b"\r\n" in (repo.root / HOT).read_bytes()
    assert repo.git("status", "--porcelain") == ""
    code, out, err = cli(repo, "demote", "picard/plan")
    assert code == 0, out + err
    assert repo.git("status", "--porcelain") == ""
    assert repo.git("diff", "--cached", "--name-only") == ""
    assert b"\r" not in repo.git("cat-file", "blob", f"HEAD:{COLD}").encode()
    assert b"## Plan\r\nship it" in (repo.root / COLD).read_bytes()
    assert cli(repo, "verify")[0] == 0


def test_autocrlf_set_after_checkout_is_no_uncommitted_change(repo: GitRepo) -> None:
    """Failure: core.autocrlf=true set on an LF checkout made demote refuse with "uncommitted
    changes" git status does not see (squadmem compared the bytes a checkout would write now)."""
    seed(repo)
    repo.git("config", "core.autocrlf", "true")
    assert repo.git("status", "--porcelain") == "" and b"\r" not in (repo.root / HOT).read_bytes()
    code, out, err = cli(repo, "demote", "picard/plan")
    assert code == 0, out + err
    assert repo.git("status", "--porcelain") == ""
    assert "## Plan\nship it" in repo.git("cat-file", "blob", f"HEAD:{COLD}")
    assert cli(repo, "verify")[0] == 0


def test_autocrlf_set_after_checkout_commits_edits_with_commit_edits(repo: GitRepo) -> None:
    """Failure: under core.autocrlf=true on an LF checkout, --commit-edits refused too."""
    seed(repo)
    repo.git("config", "core.autocrlf", "true")
    repo.write(HOT, HOT_TEXT + "\n## Fresh\nnew\n")
    code, out, err = cli(repo, "demote", "picard/plan", "--commit-edits")
    assert code == 0, out + err
    assert repo.git("status", "--porcelain") == ""
    assert "## Fresh\nnew" in repo.git("cat-file", "blob", f"HEAD:{HOT}")
    assert cli(repo, "verify")[0] == 0


def test_autocrlf_an_edit_is_still_an_uncommitted_change(repo: GitRepo) -> None:
    """A real edit under core.autocrlf=true is still refused, naming --commit-edits."""
    seed(repo)
    repo.git("config", "core.autocrlf", "true")
    repo.write(HOT, HOT_TEXT.replace("ship it", "ship it now"))
    before = repo.snapshot()
    code, _, err = cli(repo, "demote", "picard/plan")
    assert code == 2
    assert err.splitlines()[0] == f"squadmem: {HOT}: has uncommitted changes"
    assert "--commit-edits" in err
    assert repo.snapshot() == before


def test_sparse_checkout_refuses_to_write_into_an_excluded_folder(repo: GitRepo) -> None:
    """Failure: in a sparse checkout a move wrote into a folder git leaves out of the work tree."""
    seed(repo)
    repo.git("sparse-checkout", "set", "--no-cone", "/*", f"!/{MEMORY_DIR}/cold/")
    assert not (repo.root / COLD).exists()
    assert_refused(
        repo,
        "demote",
        "picard/plan",
        message=(
            f"squadmem: {COLD}: outside this sparse checkout; squadmem writes nowhere git leaves files out"
        ),
    )


def test_sparse_checkout_writes_what_it_includes(repo: GitRepo) -> None:
    seed(repo)
    repo.git("sparse-checkout", "set", "--no-cone", "/*", "!/docs/")
    code, out, err = cli(repo, "demote", "picard/plan")
    assert code == 0, out + err
    assert repo.git("status", "--porcelain") == ""


def _conflict(repo: GitRepo, operation: str) -> None:
    seed(repo)
    repo.git("checkout", "-q", "-b", "side")
    repo.commit("side", {"a.txt": "side\n"}, date=OLD)
    repo.git("checkout", "-q", "main")
    repo.commit("main", {"a.txt": "main\n"}, date=OLD)
    if operation == "merge":
        repo.git("merge", "side", check=False)
    elif operation == "cherry-pick":
        repo.git("cherry-pick", "side", check=False)
    else:
        repo.git("checkout", "-q", "side")
        repo.git("rebase", "main", check=False)
    assert "a.txt" in repo.git("diff", "--name-only", "--diff-filter=U")


@pytest.mark.parametrize(
    ("operation", "name", "hint"),
    [
        ("merge", "a merge", "git commit, or git merge --abort"),
        ("cherry-pick", "a cherry-pick", "git cherry-pick --continue, or git cherry-pick --abort"),
        ("rebase", "a rebase", "git rebase --continue, or git rebase --abort"),
    ],
)
def test_writers_refuse_mid_operation(repo: GitRepo, operation: str, name: str, hint: str) -> None:
    """Failure: maintain committed in the middle of a merge, rebase or cherry-pick."""
    _conflict(repo, operation)
    before = repo.snapshot()
    done = run_squadmem(repo.root, "demote", "picard/plan")
    assert done.returncode == 2
    first, second = done.stderr.splitlines()
    assert (
        first == f"squadmem: {name} is under way in this work tree: squadmem writes nothing until it is done"
    )
    assert second == f"hint: finish it first ({hint}), then run the command again"
    assert repo.snapshot() == before


def test_budget_hook_mid_merge_names_a_command_that_works(repo: GitRepo) -> None:
    """Failure: mid-merge the budget hook said `run: squadmem maintain`, which then refused."""
    done = run_squadmem(repo.root, "init", "--agent", "picard")
    assert done.returncode == 0, done.stderr
    middle = "## Middle\n" + "".join(f"- keep {n}\n" for n in range(10))
    repo.commit("memory", {HOT: HOT_TEXT + middle, COLD: COLD_TEXT, "a.txt": "a\n"}, date=OLD)
    lines = "".join(f"- line {n}\n" for n in range(50))
    repo.git("checkout", "-q", "-b", "side")
    repo.commit("side", {"a.txt": "side\n", HOT: HOT_TEXT + middle + lines}, date=OLD)
    repo.git("checkout", "-q", "main")
    repo.commit(
        "main",
        {"a.txt": "main\n", HOT: HOT_TEXT.replace("ship it\n", "ship it\n" + lines) + middle},
        date=OLD,
    )
    repo.git("merge", "side", check=False)
    repo.write("a.txt", "both\n")
    repo.git("add", "a.txt")
    done = subprocess.run(["git", "commit", "-q", "--no-edit"], cwd=repo.root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "once a merge is finished, run: squadmem maintain" in done.stderr
    assert "a merge is under way: reported, not refused" in done.stderr
    code, out, err = cli(repo, "maintain")
    assert code == 0, out + err


def test_linked_worktrees_each_keep_their_own_journal(repo: GitRepo, tmp_path: Path) -> None:
    """Failure: linked worktrees shared one journal: one worktree rolled back another's state."""
    seed(repo)
    other = GitRepo(tmp_path / "other")
    repo.git("worktree", "add", "-q", "-b", "other", str(other.root))
    env = dict(os.environ, SQUADMEM_FAULT="head-moved")
    crashed = subprocess.run(
        [sys.executable, "-m", "squadmem", "demote", "picard/plan"],
        cwd=other.root,
        env=env,
        capture_output=True,
    )
    assert crashed.returncode == writer.FAULT_STATUS
    own = repo.root / ".git" / "worktrees" / "other" / "squadmem" / "journal.json"
    assert own.exists() and not (repo.root / ".git" / "squadmem" / "journal.json").exists()
    code, out, err = cli(repo, "demote", "picard/notes")
    assert code == 0, out + err
    assert "interrupted" not in out
    assert own.exists()
    code, out, _ = cli(other, "doctor", "--fix")
    assert "an interrupted move was completed" in out
    assert other.git("status", "--porcelain") == "" and repo.git("status", "--porcelain") == ""
    assert "## Plan" in other.read(COLD) and "## Plan" in repo.read(HOT)

"""squadmem beside the user's own git traffic: commits, status, kills, an index.lock held by git.

Each test pins a reproduction where a section went missing (or a move was
silently reverted) when the user's git met a squadmem move.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections import Counter

import pytest
from conftest import GitRepo, run_squadmem
from conftest import squadmem as cli

from squadmem.engine import catalog
from squadmem.engine.writing import writer
from squadmem.model import sections
from squadmem.model.layout import MEMORY_DIR
from squadmem.model.places import SQUAD_PLACES

HOT = f"{MEMORY_DIR}/hot/picard.md"
COLD = f"{MEMORY_DIR}/cold/picard.md"
OLD = "2026-01-01T10:00:00+00:00"
NOW = "2026-02-20T12:00:00+00:00"


def seed(repo: GitRepo, n: int = 6) -> Counter[str]:
    bodies = "".join(f"## Item {k}\nbody {k}\n\n" for k in range(n))
    repo.commit(
        "memory", {HOT: "# Hot\n\n" + bodies, COLD: "# Cold\n\n## Old\nold\n", "notes.txt": "0\n"}, date=OLD
    )
    return sections_at(repo)


def sections_of(blobs: dict[str, bytes]) -> Counter[str]:
    memory = catalog.from_blobs(blobs, SQUAD_PLACES)
    return Counter(sections.trimmed(e.text) for e in memory.entries if not e.is_index)


def sections_at(repo: GitRepo, rev: str = "HEAD") -> Counter[str]:
    names = repo.git("ls-tree", "-r", "--name-only", rev, "--", MEMORY_DIR).split()
    show = ["git", "cat-file", "blob"]
    return sections_of(
        {n: subprocess.run([*show, f"{rev}:{n}"], cwd=repo.root, capture_output=True).stdout for n in names}
    )


def work_sections(repo: GitRepo) -> Counter[str]:
    folder = repo.root / MEMORY_DIR
    return sections_of({p.relative_to(repo.root).as_posix(): p.read_bytes() for p in folder.rglob("*.md")})


def every_commit_whole(repo: GitRepo, expected: Counter[str]) -> None:
    """No commit of HEAD's history (after the seed) lost or doubled a section."""
    for rev in repo.git("rev-list", "HEAD").split():
        assert sections_at(repo, rev) == expected, rev


def crash(repo: GitRepo, fault: str, *args: str) -> None:
    env = dict(os.environ, SQUADMEM_FAULT=fault)
    done = subprocess.run(
        [sys.executable, "-m", "squadmem", *args], cwd=repo.root, env=env, capture_output=True
    )
    assert done.returncode == writer.FAULT_STATUS, done.stderr


def install_hooks(repo: GitRepo) -> None:
    done = run_squadmem(repo.root, "init", "--agent", "picard")
    assert done.returncode == 0, done.stderr
    repo.git("add", "-A")
    repo.git("commit", "-q", "--no-gpg-sign", "-m", "init", date=OLD)


def commit_all(repo: GitRepo, message: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "commit", "-a", "-q", "--no-gpg-sign", *extra, "-m", message],
        cwd=repo.root,
        capture_output=True,
        text=True,
    )


def test_demote_killed_between_its_two_writes_then_commit_all_loses_nothing(repo: GitRepo) -> None:
    """Failure: demote interrupted between its two work-tree writes, then `git commit -a`: the section
    was in no tier, in HEAD or the work tree; doctor --fix said all ok; verify passed."""
    expected = seed(repo)
    install_hooks(repo)
    crash(repo, "worktree-partial", "demote", "picard/item-0")
    assert work_sections(repo)["## Item 0\nbody 0"] >= 1  # the arrival is written first
    repo.write("notes.txt", "mine\n")
    blocked = commit_all(repo, "mine")
    assert blocked.returncode != 0 and "index.lock" in blocked.stderr  # squadmem still holds git's lock
    (repo.root / ".git" / "index.lock").unlink()  # as git's message tells the user to
    refused = commit_all(repo, "mine")
    assert refused.returncode == 1
    assert "a move is unfinished" in refused.stderr and "run: squadmem doctor --fix" in refused.stderr
    assert sections_at(repo) == expected
    _, out, _ = cli(repo, "doctor", "--fix")
    assert "fixed: an interrupted move was completed" in out
    assert commit_all(repo, "mine").returncode == 0
    assert sections_at(repo) == expected and work_sections(repo) == expected
    assert cli(repo, "verify")[0] == 0


def test_commit_all_past_the_hooks_after_a_kill_duplicates_and_verify_says_so(repo: GitRepo) -> None:
    """The worst a user can do after a kill (delete index.lock, `commit -a --no-verify`) doubles a
    section, never loses one; verify names the duplicate."""
    expected = seed(repo)
    crash(repo, "worktree-partial", "demote", "picard/item-0")
    (repo.root / ".git" / "index.lock").unlink()
    assert commit_all(repo, "mine", "--no-verify").returncode == 0
    assert sections_at(repo)["## Item 0\nbody 0"] == 2
    code, out, _ = cli(repo, "verify")
    assert code == 1 and "is there 2 times after this commit" in out
    assert expected.keys() <= sections_at(repo).keys()


def _loop(repo: GitRepo, stop: threading.Event, args: list[str], edit: bool) -> list[int]:
    codes = []
    n = 0
    while not stop.is_set():
        if edit:
            n += 1
            (repo.root / "notes.txt").write_text(f"{n}\n")
        codes.append(subprocess.run(["git", *args], cwd=repo.root, capture_output=True).returncode)
    return codes


def test_a_commit_all_loop_beside_promote_and_demote_drops_nothing(repo: GitRepo) -> None:
    """Failure: a `git commit -a` loop beside promote/demote: 5 of 352 user commits dropped a section
    squadmem had just moved; verify passed all of them."""
    expected = seed(repo)
    stop = threading.Event()
    codes: list[int] = []
    made: list[int] = []
    loop = threading.Thread(
        target=lambda: codes.extend(
            _loop(repo, stop, ["commit", "-a", "-q", "--no-gpg-sign", "-m", "u"], True)
        )
    )
    loop.start()
    try:
        for k in range(4):
            for verb in ("demote", "promote"):
                code, out, err = cli(repo, verb, f"picard/item-{k}")
                made.append(code)
                assert code in (0, 2), out + err
    finally:
        stop.set()
        loop.join()
    assert 0 in codes  # the user's commits did land
    assert made.count(0) >= 4, made
    every_commit_whole(repo, expected)
    code, out, _ = cli(repo, "verify")
    assert code == 0, out


def test_a_status_loop_beside_maintain_leaves_index_equal_to_head(repo: GitRepo) -> None:
    """Failure: a `git status` loop beside maintain: index.lock -> exit 3 after the commit was made,
    the index left stale; the user's next plain commit silently reverted the move."""
    expected = seed(repo, 10)
    repo.commit("use", {".squad/memory/tiers.toml": "[hot]\nstale_days = 1\n"}, date=OLD)
    stop = threading.Event()
    loop = threading.Thread(target=lambda: _loop(repo, stop, ["status", "--porcelain"], False))
    loop.start()
    try:
        code, out, err = cli(repo, "maintain", "--now", NOW)
    finally:
        stop.set()
        loop.join()
    assert code == 0, out + err
    assert "memory(picard): archive" in repo.git("log", "-3", "--format=%s")  # maintain moved sections
    assert repo.git("diff", "--cached", "--name-only") == ""
    moved = sections_at(repo)
    repo.write("notes.txt", "mine\n")
    repo.git("add", "notes.txt")
    repo.git("commit", "-q", "--no-gpg-sign", "-m", "mine")
    assert sections_at(repo) == moved == expected
    assert repo.git("diff", "HEAD~1", "--name-only").split() == ["notes.txt"]


def test_a_user_commit_cannot_land_between_update_ref_and_the_index_update(repo: GitRepo) -> None:
    """Failure: a user commit landing between squadmem's update-ref and its index update reverted an
    Index refresh (or a move) silently."""
    seed(repo)
    crash(repo, "head-moved", "demote", "picard/item-1")
    moved = sections_at(repo)
    repo.write("notes.txt", "mine\n")
    done = subprocess.run(["git", "add", "notes.txt"], cwd=repo.root, capture_output=True, text=True)
    assert done.returncode != 0 and "index.lock" in done.stderr
    code, out, _ = cli(repo, "doctor", "--fix")
    assert code == 0, out
    repo.git("add", "notes.txt")
    repo.git("commit", "-q", "--no-gpg-sign", "-m", "mine")
    assert sections_at(repo) == moved
    assert repo.git("diff", "HEAD~1", "--name-only").split() == ["notes.txt"]


def test_an_index_lock_held_by_git_is_waited_for(repo: GitRepo) -> None:
    """Failure: an index.lock held by another git process made squadmem fail (exit 3) mid-move."""
    expected = seed(repo)
    lock = repo.root / ".git" / "index.lock"
    lock.write_bytes(b"")
    proc = subprocess.Popen(
        [sys.executable, "-m", "squadmem", "demote", "picard/item-2"],
        cwd=repo.root,
        env=dict(os.environ, SQUADMEM_LOCK_TIMEOUT="20"),
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(1.0)
    assert proc.poll() is None  # still waiting
    lock.unlink()
    assert proc.wait(timeout=20) == 0, proc.stderr.read() if proc.stderr else ""
    assert sections_at(repo) == expected
    assert repo.git("status", "--porcelain") == ""


def test_an_index_lock_that_never_frees_is_a_clear_refusal(repo: GitRepo) -> None:
    seed(repo)
    (repo.root / ".git" / "index.lock").write_bytes(b"")
    before = repo.snapshot()
    done = subprocess.run(
        [sys.executable, "-m", "squadmem", "demote", "picard/item-2"],
        cwd=repo.root,
        env=dict(os.environ, SQUADMEM_LOCK_TIMEOUT="0.3"),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    first, hint = done.stderr.splitlines()
    assert first == (
        "squadmem: git's index is locked (.git/index.lock): another git command is running in this "
        "work tree; gave up after waiting 0.3 s, nothing written"
    )
    assert hint.startswith("hint: run it again when that command is done (if none is running, delete ")
    assert repo.snapshot() == before
    assert (repo.root / ".git" / "index.lock").exists()  # not squadmem's to remove


def test_a_kill_while_holding_the_index_lock_is_cleaned_up_by_the_next_command(repo: GitRepo) -> None:
    expected = seed(repo)
    crash(repo, "index-locked", "demote", "picard/item-3")
    assert (repo.root / ".git" / "index.lock").exists()
    code, out, _ = cli(repo, "doctor")
    assert code == 1 and "left git's index.lock" in out
    code, out, err = cli(repo, "demote", "picard/item-3")
    assert code == 0, out + err
    assert not (repo.root / ".git" / "index.lock").exists()
    assert sections_at(repo) == expected and repo.git("status", "--porcelain") == ""


@pytest.mark.parametrize("step", ["head-moved", "worktree-partial", "worktree-written", "index-staged"])
def test_a_kill_mid_write_never_leaves_a_committable_loss(repo: GitRepo, step: str) -> None:
    """Where HEAD, work tree and index disagree after a kill, whatever the user commits next
    (after removing the stale index.lock, past the hooks) holds every section at least once."""
    expected = seed(repo)
    crash(repo, step, "demote", "picard/item-4")
    (repo.root / ".git" / "index.lock").unlink(missing_ok=True)
    repo.write("notes.txt", "mine\n")
    assert commit_all(repo, "mine", "--no-verify").returncode == 0
    assert set(sections_at(repo)) == set(expected)

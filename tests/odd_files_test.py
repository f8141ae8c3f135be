"""One odd file locks nobody out and hangs nothing.

Each test pins a reproduction: a folder named ``*.md``, a symlink loop, a
symlink to nothing, a symlink leading outside or a FIFO where a tier file or
daily log goes; a committed file where a tier folder goes; something else at
the journal's path. Before, each made every agent's commands exit 3 or 2 (a
FIFO made ``list``, ``doctor``, ``maintain`` and ``recall`` block forever),
and a file named ``archive`` made ``maintain`` commit a move it could not
write, after which every command, ``doctor --fix`` and every commit failed.
Now only the odd file's owner is left out, a command that needs it exits 2
naming it, nothing is ever opened that could block, and ``doctor`` names the
file and the command that clears it (``doctor --fix`` clears what is
squadmem's own). Every command runs as a real process with a timeout, so a
hang fails the test instead of stopping the run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import GitRepo, hooked_commit, init_hooked

from squadmem.model.layout import MEMORY_DIR

OLD = "2026-01-01T10:00:00+00:00"
DAY = "2026-02-20T12:00:00+00:00"
NOW = "2026-02-20T12:00:00Z"
HOT = f"{MEMORY_DIR}/hot/picard.md"
COLD = f"{MEMORY_DIR}/cold/picard.md"
ODD = f"{MEMORY_DIR}/hot/x.md"  # the odd file: agent x's hot file
LOG = f"{MEMORY_DIR}/log/2026-02-19.md"
TIMEOUT = 60  # seconds: a command that blocks fails the test


def run(repo: GitRepo, *args: str) -> subprocess.CompletedProcess[str]:
    """The real ``squadmem ARGS`` in ``repo``; fails the test if it does not end in time."""
    return subprocess.run(
        [sys.executable, "-m", "squadmem", *args],
        cwd=repo.root,
        text=True,
        capture_output=True,
        timeout=TIMEOUT,
        env=dict(os.environ),
    )


def commit(repo: GitRepo, *args: str) -> subprocess.CompletedProcess[str]:
    """A real ``git commit`` (its hooks fire) at ``DAY``, with a timeout."""
    return hooked_commit(repo, DAY, *args, timeout=TIMEOUT)


@pytest.fixture
def team(repo: GitRepo) -> GitRepo:
    """picard with a stale hot section (maintain moves it), worf with one; hooks installed."""
    init_hooked(repo, OLD)
    repo.write(HOT, "# Hot\n\n## Stale\ns\n")
    repo.write(f"{MEMORY_DIR}/hot/worf.md", "# Hot\n\n## Worf note\nw\n")
    repo.git("add", "-A")
    assert commit(repo, "-m", "memory").returncode == 0
    repo.git("commit", "-q", "--amend", "--no-edit", "--no-verify", "--no-gpg-sign", date=OLD)
    return repo


def _folder(root: Path, rel: str) -> None:
    (root / rel).mkdir()


def _loop(root: Path, rel: str) -> None:
    (root / rel).symlink_to("loop.md")
    (root / rel).with_name("loop.md").symlink_to(Path(rel).name)


def _dangling(root: Path, rel: str) -> None:
    (root / rel).symlink_to("nowhere.md")


def _outside(root: Path, rel: str) -> None:
    secret = root.parent / "secret.md"
    secret.write_text("## Secret\nnot memory\n")
    (root / rel).symlink_to(secret)


def _fifo(root: Path, rel: str) -> None:
    os.mkfifo(root / rel)


KINDS: dict[str, tuple[Callable[[Path, str], None], str]] = {
    "folder": (_folder, "a folder, not a regular file"),
    "symlink loop": (_loop, "a symlink loop"),
    "dangling symlink": (_dangling, "a symlink to nothing (nowhere.md)"),
    "symlink outside": (_outside, "leads outside .squad/memory/"),
    "fifo": (_fifo, "a FIFO (named pipe), not a regular file"),
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_an_odd_tier_file_leaves_out_only_its_owner(team: GitRepo, kind: str) -> None:
    """Lockout: a folder named x.md, a symlink loop, a dangling symlink or one leading outside made
    every agent's commands exit 3 or 2; a FIFO made list, doctor, maintain and recall block forever."""
    make, problem = KINDS[kind]
    make(team.root, ODD)
    shown = f"{ODD}: {problem}"
    for args in (["list"], ["context", "--agent", "picard"], ["recall", "stale"], ["report"]):
        done = run(team, *args)
        assert done.returncode == 0, (args, done.stderr)
        assert f"squadmem: warning: {shown}" in done.stderr, (args, done.stderr)
        assert "Secret" not in done.stdout
    before = team.snapshot()
    for args in (["context", "--agent", "x"], ["list", "--agent", "x"], ["session", "start", "-a", "x"]):
        done = run(team, *args, "--task", "t") if args[0] == "session" else run(team, *args)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr.splitlines()[0].startswith(f"squadmem: {shown}"), (args, done.stderr)
        assert done.stderr.splitlines()[1].startswith("hint: ")
        assert team.snapshot() == before
    doctor = run(team, "doctor")
    assert doctor.returncode == 1
    line = next(x for x in doctor.stdout.splitlines() if x.startswith("tier files"))
    assert line.startswith(f"tier files    fail    {MEMORY_DIR}/hot/") and problem in line, line
    moved = run(team, "maintain", "--now", NOW)
    assert moved.returncode == 0, moved.stderr
    assert "worf/worf-note" in moved.stdout  # another agent's memory moves as usual
    assert run(team, "doctor", "--fix").returncode == 1  # it ends, names the file, and exits 1


@pytest.mark.parametrize("kind", list(KINDS))
def test_an_odd_daily_log_is_left_out_of_recall_and_named(team: GitRepo, kind: str) -> None:
    """Lockout: a folder, FIFO or symlink named like a daily log made recall exit 3 or block forever
    (and a symlink leading outside was searched)."""
    make, problem = KINDS[kind]
    make(team.root, LOG)
    shown = f"{LOG}: {problem}"
    done = run(team, "recall", "secret")
    assert done.returncode == 0, done.stderr
    assert "Secret" not in done.stdout and "not memory" not in done.stdout
    assert f"squadmem: warning: {shown}" in done.stderr
    before = team.snapshot()
    done = run(team, "log", "show", "2026-02-19")
    assert done.returncode == 2
    assert done.stderr.splitlines()[0].startswith(f"squadmem: {shown}")
    assert team.snapshot() == before
    doctor = run(team, "doctor")
    assert doctor.returncode == 1
    assert f"tier files    fail    {shown}" in doctor.stdout
    assert run(team, "maintain", "--now", NOW).returncode == 0


@pytest.mark.parametrize(
    ("kind", "problem"),
    [
        ("fifo", "a FIFO (named pipe) where the daily logs' folder belongs"),
        ("symlink outside", "leads outside .squad/memory/"),
    ],
)
def test_an_odd_log_folder_is_left_out_and_named(team: GitRepo, kind: str, problem: str) -> None:
    """A FIFO or a symlink leading outside at log/: recall searches no log (and reads nothing
    outside), doctor names it, log add exits 2 naming it."""
    folder = f"{MEMORY_DIR}/log"
    for child in (team.root / folder).iterdir():
        child.unlink()
    (team.root / folder).rmdir()
    if kind == "fifo":
        os.mkfifo(team.root / folder)
    else:
        _tier_outside(team.root, folder)
    done = run(team, "recall", "secret")
    assert done.returncode == 0, done.stderr
    assert "not memory" not in done.stdout
    assert f"squadmem: warning: {folder}: {problem}" in done.stderr
    doctor = run(team, "doctor")
    assert doctor.returncode == 1
    assert f"tier files    fail    {folder}: {problem}" in doctor.stdout
    before = team.snapshot()
    done = run(team, "log", "add", "--agent", "picard", "--now", NOW, "x")
    assert done.returncode == 2
    assert done.stderr.splitlines()[0].startswith(f"squadmem: {folder}: ")
    assert team.snapshot() == before


def test_an_odd_log_for_today_refuses_log_add_naming_it(team: GitRepo) -> None:
    """Hang: log add into a FIFO at today's log's path; now exit 2 naming it, nothing written."""
    os.mkfifo(team.root / f"{MEMORY_DIR}/log/2026-02-20.md")
    before = team.snapshot()
    done = run(team, "log", "add", "--agent", "picard", "--now", NOW, "did it")
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == (
        f"squadmem: {MEMORY_DIR}/log/2026-02-20.md: a FIFO (named pipe), not a regular file"
    )
    assert team.snapshot() == before


def _tier_outside(root: Path, rel: str) -> None:
    outside = root.parent / "elsewhere"
    outside.mkdir()
    (outside / "secret.md").write_text("## Secret\nnot memory\n")
    (root / rel).symlink_to(outside)


FOLDERS: dict[str, tuple[str, Callable[[Path, str], None], str]] = {
    "wiki symlink outside": ("wiki", _tier_outside, "leads outside .squad/memory/"),
    "cold symlink to nothing": (
        "cold",
        _dangling,
        "a symlink to nothing where the cold tier's folder belongs",
    ),
    "archive fifo": ("archive", _fifo, "a FIFO (named pipe) where the archive tier's folder belongs"),
    "hot symlink loop": ("hot", _loop, "a symlink loop where the hot tier's folder belongs"),
}


@pytest.mark.parametrize("kind", list(FOLDERS))
def test_an_odd_tier_folder_leaves_out_only_that_tier(team: GitRepo, kind: str) -> None:
    """Lockout and hang: a tier folder that is a symlink leading outside made every command exit 2,
    and doctor walked the folder it led to (all of it); a FIFO or a broken symlink there is no folder."""
    tier, make, problem = FOLDERS[kind]
    folder = f"{MEMORY_DIR}/{tier}"
    for child in (team.root / folder).iterdir() if (team.root / folder).is_dir() else []:
        child.unlink()
    if (team.root / folder).is_dir():
        (team.root / folder).rmdir()
    make(team.root, folder)
    shown = f"squadmem: warning: {folder}: {problem}"
    for args in (["list"], ["recall", "secret"], ["report"], ["log", "add", "--agent", "picard", "x"]):
        done = run(team, *args)
        assert done.returncode == 0, (args, done.stderr)
        assert "Secret" not in done.stdout and "not memory" not in done.stdout
        assert args[0] == "log" or shown in done.stderr, (args, done.stderr)
    doctor = run(team, "doctor")
    assert doctor.returncode == 1
    assert f"tier files    fail    {folder}: {problem}" in doctor.stdout
    assert run(team, "maintain", "--now", NOW).returncode == 0
    assert run(team, "doctor", "--fix").returncode == 1


ARCHIVE = f"{MEMORY_DIR}/archive"


@pytest.fixture
def archive_file(team: GitRepo) -> GitRepo:
    """A committed file named ``archive`` where the archive tier's folder goes; an expiring cold section."""
    team.git("rm", "-rq", "--cached", "--ignore-unmatch", ARCHIVE)
    for child in (team.root / ARCHIVE).iterdir() if (team.root / ARCHIVE).is_dir() else []:
        child.unlink()
    if (team.root / ARCHIVE).is_dir():
        (team.root / ARCHIVE).rmdir()
    team.write(ARCHIVE, "notes, not a tier\n")
    team.write(COLD, "# Cold\n\n## Old note\no\n")
    team.git("add", "-A")
    team.git("commit", "-q", "--no-verify", "--no-gpg-sign", "-m", "archive file", date=OLD)
    return team


def test_a_file_where_archive_goes_keeps_the_section_where_it_is(archive_file: GitRepo) -> None:
    """Lockout: maintain committed a move into archive/ that the work tree could not hold; every later
    command, doctor --fix and every commit then failed. Now the section stays, with a warning."""
    repo = archive_file
    done = run(repo, "maintain", "--now", NOW)
    assert done.returncode == 0, done.stderr
    assert "picard/old-note stays in .squad/memory/cold/picard.md: it cannot move to archive" in done.stdout
    assert f"squadmem: warning: {ARCHIVE}: a file where the archive tier's folder belongs" in done.stderr
    assert repo.git("cat-file", "-t", f"HEAD:{ARCHIVE}").strip() == "blob"
    assert "## Old note" in repo.read(COLD)
    assert repo.git("status", "--porcelain") == ""
    assert not (repo.root / ".git/squadmem/journal.json").exists()
    before = repo.snapshot()
    done = run(repo, "demote", "picard/old-note")
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == (
        f"squadmem: {ARCHIVE}: a file where the archive tier's folder belongs"
    )
    assert done.stderr.splitlines()[1] == (
        f"hint: move it aside, then commit: git mv {ARCHIVE} {ARCHIVE}.old (or mv, if git does not track it)"
    )
    assert repo.snapshot() == before
    doctor = run(repo, "doctor")
    assert doctor.returncode == 1
    assert f"git mv {ARCHIVE} {ARCHIVE}.old" in doctor.stdout
    repo.git("mv", ARCHIVE, f"{ARCHIVE}.old")  # the command doctor names
    assert commit(repo, "-m", "move it aside").returncode == 0
    done = run(repo, "maintain", "--now", NOW)
    assert done.returncode == 0, done.stderr
    assert "## Old note" in repo.read(f"{ARCHIVE}/picard.md")
    assert run(repo, "verify").returncode == 0


def test_a_file_in_head_where_archive_goes_refuses_the_commit_not_just_the_work_tree(
    archive_file: GitRepo,
) -> None:
    """The file named archive deleted from the work tree but not from HEAD: a move into archive/
    would commit a tree that drops it. The writer refuses before anything is written."""
    repo = archive_file
    (repo.root / ARCHIVE).unlink()
    before = repo.snapshot()
    done = run(repo, "maintain", "--now", NOW)
    assert done.returncode == 2
    assert done.stderr.splitlines()[:2] == [
        f"squadmem: {ARCHIVE}: a file in HEAD where a folder belongs; squadmem changed nothing",
        f"hint: commit it out of the way first: git mv {ARCHIVE} {ARCHIVE}.old"
        f" (or, if it is gone from the work tree, git rm --cached {ARCHIVE}), then git commit",
    ]
    assert repo.snapshot() == before
    repo.git("rm", "-q", "--cached", ARCHIVE)
    assert commit(repo, "-m", "archive is a folder again").returncode == 0
    assert run(repo, "maintain", "--now", NOW).returncode == 0
    assert "## Old note" in repo.read(f"{ARCHIVE}/picard.md")


def test_doctor_fix_rolls_back_a_move_the_work_tree_cannot_hold(archive_file: GitRepo) -> None:
    """Stuck: the state the old maintain left (HEAD on a move into archive/ while a file named archive
    is there, and its journal) made every command and doctor --fix exit 3 and every commit fail.
    doctor --fix now moves HEAD back and clears the journal."""
    repo = archive_file
    old = repo.head()
    text = "# Archive\n\n## Old note\no\n"
    blob = repo.git("hash-object", "-w", "--stdin", input=text).strip()
    cold = repo.git("hash-object", "-w", "--stdin", input="# Cold\n\n").strip()
    index = repo.root / ".git/scratch-index"
    env = dict(os.environ, GIT_INDEX_FILE=str(index))
    subprocess.run(["git", "read-tree", "HEAD"], cwd=repo.root, env=env, check=True)
    subprocess.run(["git", "rm", "-q", "--cached", ARCHIVE], cwd=repo.root, env=env, check=True)
    for mode_sha_path in (f"100644,{blob},{ARCHIVE}/picard.md", f"100644,{cold},{COLD}"):
        subprocess.run(
            ["git", "update-index", "--add", "--cacheinfo", mode_sha_path], cwd=repo.root, env=env, check=True
        )
    tree = subprocess.run(
        ["git", "write-tree"], cwd=repo.root, env=env, check=True, text=True, capture_output=True
    ).stdout.strip()
    index.unlink()
    new = repo.git("commit-tree", tree, "-p", old, "-m", "memory(picard): archive", date=DAY).strip()
    repo.git("update-ref", "HEAD", new)
    journal = {"old": old, "new": new, "paths": [COLD, f"{ARCHIVE}/picard.md"], "consume": [], "subject": "s"}
    (repo.root / ".git/squadmem").mkdir(exist_ok=True)
    (repo.root / ".git/squadmem/journal.json").write_text(json.dumps(journal))
    refused = commit(repo, "--allow-empty", "-m", "x")
    assert refused.returncode == 1
    assert "run: squadmem doctor --fix" in refused.stderr
    fixed = run(repo, "doctor", "--fix")
    assert "fixed: an interrupted move was rolled back (the work tree could not take it:" in fixed.stdout
    assert "Traceback" not in fixed.stderr and "internal error" not in fixed.stderr
    assert repo.head() == old
    assert repo.git("status", "--porcelain") == ""
    assert not (repo.root / ".git/squadmem/journal.json").exists()
    assert commit(repo, "--allow-empty", "-m", "works again").returncode == 0


@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_something_else_at_the_journals_path_is_cleared_by_doctor_fix(team: GitRepo, kind: str) -> None:
    """Stuck: a folder at .git/squadmem/journal.json made every git commit fail with a traceback (a
    FIFO would have blocked it). Now the hook refuses in one line and doctor --fix clears it."""
    path = team.root / ".git/squadmem/journal.json"
    path.parent.mkdir(exist_ok=True)
    if kind == "folder":
        (path / "inside").mkdir(parents=True)
    else:
        os.mkfifo(path)
    team.write(HOT, "# Hot\n\n## Stale\ns\n\n## New\nn\n")
    team.git("add", HOT)
    before = team.snapshot()
    refused = commit(team, "-m", "edit")
    assert team.snapshot() == before
    assert refused.returncode == 1
    assert refused.stderr.splitlines() == [
        "squadmem: a move is unfinished ((unreadable journal)); commit after it is finished: "
        "run: squadmem doctor --fix"
    ]
    doctor = run(team, "doctor")
    assert doctor.returncode == 1 and "(run: squadmem doctor --fix)" in doctor.stdout
    fixed = run(team, "doctor", "--fix")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert not os.path.lexists(path)
    assert commit(team, "-m", "edit").returncode == 0


def test_the_file_check_refuses_to_commit_a_symlinked_tier_file(team: GitRepo) -> None:
    """Lockout for everyone who pulls: a committed symlink at a tier path (its blob is the link, not
    the text) left its owner out in every clone. The file check refuses it, naming the file."""
    (team.root / ODD).symlink_to("picard.md")
    team.git("add", ODD)
    before = team.snapshot()
    refused = commit(team, "-m", "link")
    assert team.snapshot() == before
    assert refused.returncode == 1
    assert refused.stderr.splitlines() == [
        f"{ODD}: a symlink, not a regular file; squadmem reads only regular files: commit the file itself"
    ]


@pytest.mark.parametrize("kind", ["fifo", "symlink outside"])
def test_the_file_check_on_named_files_never_opens_what_is_not_a_regular_file(
    team: GitRepo, kind: str
) -> None:
    """Hang: the file check given a FIFO's name (pre-commit run --all-files) blocked on opening it."""
    KINDS[kind][0](team.root, ODD)
    done = subprocess.run(
        [sys.executable, "-m", "squadmem.hooks.file_check", ODD, HOT],
        cwd=team.root,
        text=True,
        capture_output=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 1
    what = "a FIFO, socket or device" if kind == "fifo" else "a symlink"
    assert done.stderr.splitlines() == [
        f"{ODD}: {what}, not a regular file; squadmem reads only regular files: commit the file itself"
    ]
    budget = subprocess.run(
        [sys.executable, "-m", "squadmem.hooks.budget_check", ODD, HOT, f"{MEMORY_DIR}/tiers.toml"],
        cwd=team.root,
        text=True,
        capture_output=True,
        timeout=TIMEOUT,
    )
    assert (budget.returncode, budget.stderr) == (0, "")


STATE = ["pending-uses.json", "merge-settle.json", "history-cache", "timeline-cache", "timeline-walks"]


@pytest.mark.parametrize("kind", ["folder", "fifo"])
@pytest.mark.parametrize("name", STATE)
def test_something_else_at_a_state_files_path_hangs_nothing(team: GitRepo, name: str, kind: str) -> None:
    """Hang and crash: a FIFO at pending-uses.json made every command and every git commit block
    (its hook reads it); a folder at merge-settle.json made doctor --fix exit 3. squadmem's state
    files are read only when regular; what it must remove is moved aside."""
    path = team.root / ".git/squadmem" / name
    path.parent.mkdir(exist_ok=True)
    if kind == "folder":
        (path / "inside").mkdir(parents=True)
    else:
        os.mkfifo(path)
    for args in (["list"], ["report"], ["history", "picard/stale"], ["maintain", "--now", NOW], ["doctor"]):
        done = run(team, *args)
        assert done.returncode in (0, 1), (args, done.stderr)
        assert "internal error" not in done.stderr
    assert run(team, "doctor", "--fix").returncode in (0, 1)
    team.write(HOT, team.read(HOT) + "\n## New\nn\n")
    team.git("add", HOT)
    assert commit(team, "-m", "edit").returncode == 0
    if name == "pending-uses.json" and kind == "folder":
        before = team.snapshot()
        done = run(team, "touch", "worf/worf-note")
        assert done.returncode == 2
        assert (
            done.stderr.splitlines()[0] == f"squadmem: {path}: a folder where squadmem keeps its pending uses"
        )
        assert team.snapshot() == before


@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_something_else_at_the_locks_path_is_named_with_its_fix(team: GitRepo, kind: str) -> None:
    """Crash: a folder or FIFO at .git/squadmem/lock made every writing command and doctor exit 3."""
    path = team.root / ".git/squadmem/lock"
    path.parent.mkdir(exist_ok=True)
    if kind == "folder":
        path.mkdir()
    else:
        os.mkfifo(path)
    before = team.snapshot()
    for args in (["maintain", "--now", NOW], ["doctor"], ["doctor", "--fix"]):
        done = run(team, *args)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr.splitlines() == [
            f"squadmem: {path}: not a regular file; squadmem keeps its lock there",
            f"hint: remove it (nothing is lost): rm -r {path}",
        ]
        assert team.snapshot() == before
    if kind == "folder":
        path.rmdir()
    else:
        path.unlink()
    assert run(team, "maintain", "--now", NOW).returncode == 0

"""The daily-log hook, fired by real `git commit` through the plain shims `squadmem init` installs."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import GitRepo, run_squadmem, stage

LOG_DIR = ".squad/memory/log"
DAY1 = f"{LOG_DIR}/2026-03-01.md"
DAY2 = f"{LOG_DIR}/2026-03-02.md"


def attempt(
    repo: GitRepo, *args: str, date: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``git commit ARGS`` at ``date``, hooks on; the process, whatever its outcome."""
    full = dict(os.environ, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date, **(env or {}))
    return subprocess.run(
        ["git", "commit", "-q", "--no-gpg-sign", *args],
        cwd=repo.root,
        env=full,
        text=True,
        capture_output=True,
    )


def refused(repo: GitRepo, message: str, date: str) -> str:
    """Commit, expect the log hook's refusal, and prove nothing changed; return its stderr."""
    before = repo.snapshot()
    done = attempt(repo, "-m", "try", date=date)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert message in done.stderr
    assert repo.snapshot() == before
    return done.stderr


@pytest.fixture
def hooked(repo: GitRepo) -> GitRepo:
    """A repository set up by `squadmem init` (its git hooks installed), with the 1 March log committed."""
    done = run_squadmem(repo.root, "init", "--agent", "picard")
    assert done.returncode == 0, done.stderr
    assert "installed git hook pre-commit" in done.stdout
    repo.write(DAY1, "# Daily log 2026-03-01\n\n- 09:00 first\n")
    repo.git("add", "-A")
    committed = attempt(repo, "-m", "init", date="2026-03-01T09:00:00+00:00")
    assert committed.returncode == 0, committed.stderr
    return repo


def test_log_check_append_today_passes(hooked: GitRepo) -> None:
    stage(hooked, {DAY1: hooked.read(DAY1) + "- 18:00 second\n"})
    done = attempt(hooked, "-m", "append", date="2026-03-01T18:00:00+00:00")
    assert done.returncode == 0, done.stderr
    assert hooked.git("status", "--porcelain") == ""


def test_log_check_edit_yesterday_refused(hooked: GitRepo) -> None:
    stage(hooked, {DAY1: hooked.read(DAY1) + "- 18:00 late\n"})
    err = refused(hooked, "changed after its day ended", date="2026-03-02T08:00:00+00:00")
    assert err.strip() == (
        f"{DAY1}: changed after its day ended 2026-03-02 00:00 UTC; a past day's log is frozen "
        "(add to today's log instead)"
    )


def test_log_check_rewrite_today_refused(hooked: GitRepo) -> None:
    stage(hooked, {DAY1: "# Daily log 2026-03-01\n\n- 09:00 FIRST\n"})
    refused(hooked, f"{DAY1}: not an append", date="2026-03-01T10:00:00+00:00")


def test_log_check_no_verify_passes_and_verify_catches_it(hooked: GitRepo) -> None:
    stage(hooked, {DAY1: hooked.read(DAY1) + "- 18:00 late\n"})
    done = attempt(hooked, "--no-verify", "-m", "sneak", date="2026-03-02T08:00:00+00:00")
    assert done.returncode == 0, done.stderr
    short = hooked.head()[:7]
    checked = run_squadmem(hooked.root, "verify")
    assert checked.returncode == 1
    assert checked.stdout.splitlines()[0].startswith(f"{short} {DAY1}: changed after its day ended")


@pytest.mark.parametrize(
    ("timezone", "grace", "date", "allowed"),
    [
        ("UTC", 0, "2026-03-01T23:59:00+00:00", True),
        ("UTC", 0, "2026-03-02T00:00:00+00:00", False),
        ("UTC", 30, "2026-03-02T00:29:00+00:00", True),
        ("UTC", 30, "2026-03-02T00:31:00+00:00", False),
        ("America/New_York", 0, "2026-03-02T03:00:00+00:00", True),  # 22:00 on 1 March in New York
        ("America/New_York", 0, "2026-03-02T05:01:00+00:00", False),
        ("Asia/Tokyo", 0, "2026-03-01T16:00:00+01:00", False),  # 00:00 on 2 March in Tokyo
    ],
)
def test_log_check_time_zone_and_grace(
    hooked: GitRepo, timezone: str, grace: int, date: str, allowed: bool
) -> None:
    toml = f'timezone = "{timezone}"\n\n[log]\ngrace_minutes = {grace}\n'
    hooked.write(".squad/memory/tiers.toml", toml)
    hooked.git("add", "-A")
    hooked.git("commit", "-q", "--no-verify", "-m", "settings", date="2026-03-01T09:30:00+00:00")
    stage(hooked, {DAY1: hooked.read(DAY1) + "- late\n"})
    if allowed:
        done = attempt(hooked, "-m", "append", date=date)
        assert done.returncode == 0, done.stderr
    else:
        refused(hooked, f"{DAY1}: changed after its day ended", date=date)


def test_log_check_settings_are_the_parents(hooked: GitRepo) -> None:
    """HEAD's tiers.toml decides, not the one staged with the edit nor the work tree's."""
    hooked.commit(
        "grace", {".squad/memory/tiers.toml": "[log]\ngrace_minutes = 90\n"}, date="2026-03-01T10:00:00Z"
    )
    stage(
        hooked,
        {DAY1: hooked.read(DAY1) + "- late\n", ".squad/memory/tiers.toml": "[log]\ngrace_minutes = 0\n"},
    )
    hooked.write(".squad/memory/tiers.toml", "[log]\ngrace_minutes = 0\n")
    done = attempt(hooked, "-m", "late", date="2026-03-02T01:00:00+00:00")
    assert done.returncode == 0, done.stderr


def test_log_check_rename_refused(hooked: GitRepo) -> None:
    hooked.git("mv", DAY1, DAY2)
    refused(hooked, f"{DAY1}: renamed to {DAY2} after its day ended", date="2026-03-02T09:00:00+00:00")


def test_log_check_rename_today_refused(hooked: GitRepo) -> None:
    hooked.git("mv", DAY1, f"{LOG_DIR}/notes.md")
    message = f"{DAY1}: renamed to {LOG_DIR}/notes.md; a daily log is never deleted or renamed"
    refused(hooked, message, date="2026-03-01T12:00:00+00:00")


def test_log_check_delete_refused(hooked: GitRepo) -> None:
    stage(hooked, {DAY1: None})
    refused(hooked, f"{DAY1}: deleted after its day ended", date="2026-03-04T09:00:00+00:00")


def test_log_check_delete_today_refused(hooked: GitRepo) -> None:
    stage(hooked, {DAY1: None})
    refused(hooked, f"{DAY1}: deleted;", date="2026-03-01T12:00:00+00:00")


@pytest.mark.parametrize(
    ("rel", "message"),
    [
        (f"{LOG_DIR}/2026-02-30.md", "2026-02-30 is not a real date"),
        (f"{LOG_DIR}/2026-03-05.md", "dated in the future: it is 2026-03-01 in UTC"),
    ],
)
def test_log_check_bad_names_refused(hooked: GitRepo, rel: str, message: str) -> None:
    stage(hooked, {rel: "# x\n"})
    err = refused(hooked, message, date="2026-03-01T12:00:00+00:00")
    assert err.startswith(f"{rel}: ")


def test_log_check_dot_files_in_log_folder_allowed_and_other_files_refused(hooked: GitRepo) -> None:
    """Only a log's name (and dot files such as .gitkeep) may be added to log/: a README.md there could
    pass for a record of the memory as well as a look-alike log name."""
    stage(hooked, {f"{LOG_DIR}/.gitkeep": None, f"{LOG_DIR}/README.md": "about logs\n"})
    err = refused(hooked, "README.md: not a daily log's name", date="2026-03-05T12:00:00+00:00")
    assert len(err.strip().splitlines()) == 1
    hooked.git("rm", "-q", "--cached", f"{LOG_DIR}/README.md")
    done = attempt(hooked, "-m", "no .gitkeep", date="2026-03-05T12:00:00+00:00")
    assert done.returncode == 0, done.stderr


def test_log_check_reports_every_offence(hooked: GitRepo) -> None:
    stage(hooked, {DAY1: None, f"{LOG_DIR}/2026-02-30.md": "x\n", f"{LOG_DIR}/2027-01-01.md": "x\n"})
    err = refused(hooked, "deleted after", date="2026-03-02T12:00:00+00:00")
    assert len(err.strip().splitlines()) == 3


def test_log_check_reads_the_index_being_committed_with_commit_all(hooked: GitRepo) -> None:
    """Regression: `git commit -a` commits a temporary index (GIT_INDEX_FILE); an unstaged edit of a past
    log reaches the commit through it and must be refused, not missed by reading .git/index."""
    hooked.write(DAY1, hooked.read(DAY1) + "- late, unstaged\n")
    before = hooked.snapshot()
    done = attempt(hooked, "-a", "-m", "all", date="2026-03-02T09:00:00+00:00")
    assert done.returncode == 1
    assert f"{DAY1}: changed after its day ended" in done.stderr
    assert hooked.snapshot() == before


def test_log_check_commit_only_paths_ignores_other_staged_logs(hooked: GitRepo) -> None:
    """`git commit PATH` commits HEAD plus PATH: a bad log change staged aside is not in it."""
    stage(hooked, {DAY1: "rewritten\n"})
    hooked.write("notes.txt", "n\n")
    hooked.git("add", "notes.txt")
    done = attempt(hooked, "-m", "notes only", "--", "notes.txt", date="2026-03-02T09:00:00+00:00")
    assert done.returncode == 0, done.stderr
    assert hooked.git("diff", "--cached", "--name-only").strip() == DAY1


def test_log_check_first_commit_backfill_allowed(repo: GitRepo) -> None:
    """An unborn HEAD: the check compares the index with nothing; a past day's new log is a backfill."""
    run_squadmem(repo.root, "init", "--agent", "picard")
    repo.write(f"{LOG_DIR}/2025-12-31.md", "# old\n")
    repo.git("add", "-A")
    done = attempt(repo, "-m", "first", date="2026-03-01T09:00:00+00:00")
    assert done.returncode == 0, done.stderr


def test_log_check_follows_the_git_dir_git_commits_with(hooked: GitRepo, tmp_path: Path) -> None:
    """Regression: with GIT_DIR / GIT_WORK_TREE set (a tool or CI runner) and the commit made from
    another folder, the hook looked for a ``.git`` in the work tree and failed "not a git
    repository"; it checks the repository git commits to, as git exports it to the hook."""
    store = tmp_path / "store.git"
    (hooked.root / ".git").rename(store)
    stage_env = dict(os.environ, GIT_DIR=str(store), GIT_WORK_TREE=str(hooked.root))
    (hooked.root / DAY1).write_text(hooked.read(DAY1) + "- 18:00 late\n")
    subprocess.run(["git", "add", "-A"], cwd=tmp_path, env=stage_env, check=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=tmp_path, env=stage_env, capture_output=True)
    date = "2026-03-02T09:00:00+00:00"
    done = subprocess.run(
        ["git", "commit", "-q", "--no-gpg-sign", "-m", "late"],
        cwd=tmp_path,
        env=dict(stage_env, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines()[0].startswith(f"{DAY1}: changed after its day ended")
    after = subprocess.run(["git", "rev-parse", "HEAD"], cwd=tmp_path, env=stage_env, capture_output=True)
    assert after.stdout == head.stdout


def test_log_check_bad_settings_refuse_with_message(hooked: GitRepo) -> None:
    stage(
        hooked, {".squad/memory/tiers.toml": 'timezone = "Mars/Olympus"\n', DAY1: hooked.read(DAY1) + "- x\n"}
    )
    before = hooked.snapshot()
    done = attempt(hooked, "-m", "x", date="2026-03-01T12:00:00+00:00")
    assert done.returncode == 1  # the file check, which runs first, refuses the staged tiers.toml
    assert done.stderr.splitlines()[0] == (
        ".squad/memory/tiers.toml:1: timezone is not a known time zone: 'Mars/Olympus'; "
        "fix the value or delete the line to use the default"
    )
    assert hooked.snapshot() == before


def test_log_check_refuses_with_a_message_when_committed_settings_are_bad(hooked: GitRepo) -> None:
    """A bad tiers.toml already committed (with --no-verify): the log check says so, no traceback."""
    stage(hooked, {".squad/memory/tiers.toml": "[log]\ngrace_minutes = 500000000\n"})
    assert attempt(hooked, "--no-verify", "-m", "bad", date="2026-03-01T11:00:00+00:00").returncode == 0
    stage(hooked, {DAY1: hooked.read(DAY1) + "- x\n"})
    before = hooked.snapshot()
    done = attempt(hooked, "-m", "x", date="2026-03-01T12:00:00+00:00")
    assert done.returncode == 1  # git's status for any refusing hook; the hook itself exits 2
    assert done.stderr.splitlines()[0].startswith(
        "squadmem: .squad/memory/tiers.toml:2: log.grace_minutes must be a number from 0 to 1440"
    )
    assert "Traceback" not in done.stderr
    assert hooked.snapshot() == before


def test_log_check_concluding_a_union_merge_after_the_day(hooked: GitRepo) -> None:
    """Regression: concluding a conflicted merge days later stages the log that merge=union combined from
    both branches' same-day appends; that is not an edit of a past log, and must not be refused."""
    hooked.commit("base", {"a.txt": "base\n"}, date="2026-03-01T09:30:00+00:00")
    hooked.git("switch", "-q", "-c", "side")
    hooked.commit(
        "theirs",
        {"a.txt": "theirs\n", DAY1: hooked.read(DAY1) + "- theirs\n"},
        date="2026-03-01T10:00:00+00:00",
    )
    hooked.git("switch", "-q", "main")
    hooked.commit(
        "ours", {"a.txt": "ours\n", DAY1: hooked.read(DAY1) + "- ours\n"}, date="2026-03-01T11:00:00+00:00"
    )
    merged = subprocess.run(["git", "merge", "-q", "side"], cwd=hooked.root, capture_output=True, text=True)
    assert merged.returncode == 1  # a.txt conflicts; the log merged by union
    assert hooked.read(DAY1).endswith("- ours\n- theirs\n")
    stage(hooked, {"a.txt": "both\n"})
    done = attempt(hooked, "--no-edit", date="2026-03-03T09:00:00+00:00")
    assert done.returncode == 0, done.stderr
    assert len(hooked.git("log", "-1", "--format=%P").split()) == 2
    checked = run_squadmem(hooked.root, "verify")
    assert checked.returncode == 0, checked.stdout


def test_log_check_concluding_a_merge_with_an_edited_past_log_refused(hooked: GitRepo) -> None:
    hooked.commit("base", {"a.txt": "base\n"}, date="2026-03-01T09:30:00+00:00")
    hooked.git("switch", "-q", "-c", "side")
    hooked.commit("theirs", {"a.txt": "theirs\n"}, date="2026-03-01T10:00:00+00:00")
    hooked.git("switch", "-q", "main")
    hooked.commit("ours", {"a.txt": "ours\n"}, date="2026-03-01T11:00:00+00:00")
    subprocess.run(["git", "merge", "-q", "side"], cwd=hooked.root, capture_output=True)
    stage(hooked, {"a.txt": "both\n", DAY1: "# rewritten\n"})
    refused(hooked, f"{DAY1}: changed by a merge after its day ended", date="2026-03-03T09:00:00+00:00")

"""Daily logs stay immutable against every path git offers, with the hooks `squadmem init` installs on.

Each test reproduces one way a frozen log was changed (or legitimate work refused) with real git
commands, merges, rebases and pushes, and real hooks; dates come from GIT_AUTHOR_DATE /
GIT_COMMITTER_DATE.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import GitRepo, assert_refused, bare_remote, hooked_commit, init_hooked, run_squadmem, stage

LOG = ".squad/memory/log/2026-03-01.md"
OLD_LOG = ".squad/memory/log/2026-02-01.md"
SETTINGS = ".squad/memory/tiers.toml"
DAY = "2026-03-01T09:00:00+00:00"
LATER = "2026-03-05T09:00:00+00:00"
B0 = "# Daily log 2026-03-01\n\n- 09:00 first\n"


def git(
    repo: GitRepo, *args: str, date: str | None = None, author: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``git ARGS`` with the hooks on, dated ``date`` (committer, and author unless ``author`` is given)."""
    env = dict(os.environ)
    if date is not None:
        env["GIT_COMMITTER_DATE"] = date
        env["GIT_AUTHOR_DATE"] = author or date
    return subprocess.run(["git", *args], cwd=repo.root, env=env, text=True, capture_output=True)


def ok(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0, done.stdout + done.stderr


def commit(
    repo: GitRepo, files: dict[str, str | None], date: str, *flags: str
) -> subprocess.CompletedProcess[str]:
    stage(repo, files)
    return git(repo, "commit", "-q", "--no-gpg-sign", "-m", "change", *flags, date=date)


def refused_commit(repo: GitRepo, files: dict[str, str | None], date: str, message: str) -> None:
    """The commit is refused by the log hook with ``message``; nothing is committed."""
    head = repo.head()
    done = commit(repo, files, date)
    assert done.returncode == 1, done.stderr
    assert message in done.stderr, done.stderr
    assert repo.head() == head


def violations(repo: GitRepo, *revs: str) -> list[str]:
    done = run_squadmem(repo.root, "verify", *revs)
    assert done.returncode in (0, 1), done.stderr
    return done.stdout.splitlines()[:-1]


@pytest.fixture
def hooked(repo: GitRepo) -> GitRepo:
    """`squadmem init` (its hooks installed) committed on 1 March at 08:00, before any log."""
    return init_hooked(repo, "2026-03-01T08:00:00+00:00")


def side_without_the_log(repo: GitRepo) -> None:
    """A branch `side` forked before the 1 March log, and main holding that log (appended on its day)."""
    repo.git("branch", "side")
    ok(commit(repo, {LOG: B0}, DAY))
    ok(commit(repo, {LOG: B0 + "- 10:00 ours\n"}, "2026-03-01T10:00:00+00:00"))
    repo.git("switch", "-q", "side")
    ok(commit(repo, {"notes.txt": "side\n"}, "2026-03-01T11:00:00+00:00"))


# -- merges -----------------------------------------------------------------------------------------
def test_a_merge_taking_the_side_without_a_past_log_is_refused(hooked: GitRepo) -> None:
    """Failure: a merge that took the side without a past log deleted it, and the hooks let it in (a
    merge git commits itself runs no pre-commit hook; `git log -c` never lists a path equal to one
    parent)."""
    side_without_the_log(hooked)
    done = git(hooked, "merge", "-q", "-s", "ours", "--no-edit", "main", date=LATER)
    assert done.returncode != 0
    assert f"{LOG}: deleted by a merge after its day ended 2026-03-02 00:00 UTC" in done.stderr
    hooked.git("merge", "--abort")
    ok(git(hooked, "merge", "-q", "-s", "ours", "--no-edit", "--no-verify", "main", date=LATER))
    assert not (hooked.root / LOG).exists()
    assert violations(hooked) == [
        f"{hooked.head()[:7]} {LOG}: deleted by a merge after its day ended 2026-03-02 00:00 UTC; "
        "a past day's log is frozen"
    ]


def test_a_deleted_past_log_recreated_with_new_text_is_no_backfill(hooked: GitRepo) -> None:
    """Failure: after a merge deleted a past log, creating it again with new text passed as a
    "backfill"; giving it back as it was passes."""
    side_without_the_log(hooked)
    ok(git(hooked, "merge", "-q", "-s", "ours", "--no-edit", "--no-verify", "main", date=LATER))
    why = "re-created after its day ended 2026-03-02 00:00 UTC with other text than it had"
    refused_commit(hooked, {LOG: B0 + "- 10:00 forged\n"}, "2026-03-06T09:00:00+00:00", f"{LOG}: {why}")
    ok(commit(hooked, {LOG: B0 + "- 10:00 forged\n"}, "2026-03-06T09:00:00+00:00", "--no-verify"))
    assert violations(hooked, "HEAD~1..HEAD") == [
        f"{hooked.head()[:7]} {LOG}: {why}; a past day's log is frozen"
    ]
    hooked.git("reset", "-q", "--hard", "HEAD~1")
    ok(commit(hooked, {LOG: B0 + "- 10:00 ours\n"}, "2026-03-06T09:00:00+00:00"))  # given back as it was
    assert violations(hooked, "HEAD~1..HEAD") == []


def merge_to_resolve(repo: GitRepo, ours: str, theirs: str) -> None:
    """main appended ``ours`` to the 1 March log on its day, side ``theirs``; on 5 March main merges
    side without committing."""
    ok(commit(repo, {LOG: B0}, DAY))
    repo.git("switch", "-q", "-c", "side")
    ok(commit(repo, {LOG: B0 + theirs}, "2026-03-01T10:00:00+00:00"))
    repo.git("switch", "-q", "main")
    ok(commit(repo, {LOG: B0 + ours}, "2026-03-01T11:00:00+00:00"))
    git(repo, "merge", "-q", "--no-commit", "--no-ff", "side", date=LATER)


@pytest.mark.parametrize(
    ("ours", "theirs", "result"),
    [
        ("- 11:00 ours\n", "- 10:00 theirs\n", B0 + "- 10:00 theirs\n"),  # one side's version: ours' lost
        ("- 11:00 x\n- 11:00 x\n", "- 10:00 y\n", B0 + "- 11:00 x\n- 10:00 y\n"),  # a repeat dropped
        ("- 11:00 a\n- 11:00 b\n", "- 10:00 c\n", B0 + "- 11:00 b\n- 11:00 a\n- 10:00 c\n"),  # reordered
        ("- 11:00 a\n", "- 10:00 c\n", B0 + "- 11:00 a\n- 10:00 c\n- 12:00 added\n"),  # a line made up
    ],
    ids=["one-side-taken", "repeat-dropped", "reordered", "line-added"],
)
def test_a_merge_is_checked_against_every_parent_as_lists_of_lines(
    hooked: GitRepo, ours: str, theirs: str, result: str
) -> None:
    """Failure: a merge that took an older side's version truncated a past log, and one that dropped
    repeated lines or reordered them passed (the hook compared sets of lines)."""
    merge_to_resolve(hooked, ours, theirs)
    why = f"{LOG}: changed by a merge after its day ended 2026-03-02 00:00 UTC"
    hooked.write(LOG, result)
    hooked.git("add", LOG)
    done = git(hooked, "commit", "-q", "--no-edit", date=LATER)
    assert done.returncode == 1 and why in done.stderr, done.stderr
    ok(git(hooked, "commit", "-q", "--no-edit", "--no-verify", date=LATER))
    assert [line.split(" ", 1)[1].split(":")[0] for line in violations(hooked)] == [LOG]


def test_a_union_merge_of_same_day_appends_passes(hooked: GitRepo) -> None:
    """Legitimate: two branches appended on the day; merging them later by merge=union keeps both."""
    merge_to_resolve(hooked, "- 11:00 ours\n", "- 10:00 theirs\n")
    assert hooked.read(LOG) == B0 + "- 11:00 ours\n- 10:00 theirs\n"
    ok(git(hooked, "commit", "-q", "--no-edit", date=LATER))
    assert violations(hooked) == []


# -- dates and settings --------------------------------------------------------------------------------
def test_a_commit_dated_before_its_parent_cannot_reopen_a_past_log(hooked: GitRepo) -> None:
    """Failure: a commit with GIT_COMMITTER_DATE set before its parent appended to a 4-week-old log; it
    is judged by its parent's date."""
    ok(commit(hooked, {OLD_LOG: "# Daily log 2026-02-01\n"}, DAY))  # a backfill, on 1 March
    why = f"{OLD_LOG}: changed after its day ended 2026-02-02 00:00 UTC"
    backdated = "2026-02-01T12:00:00+00:00"
    refused_commit(hooked, {OLD_LOG: "# Daily log 2026-02-01\n- 12:00 forged\n"}, backdated, why)
    ok(git(hooked, "commit", "-q", "--no-verify", "-m", "backdated", date=backdated))
    assert violations(hooked, "HEAD~1..HEAD") == [
        f"{hooked.head()[:7]} {why}; a past day's log is frozen (add to today's log instead)"
    ]


def test_settings_staged_with_the_edit_do_not_judge_it(hooked: GitRepo) -> None:
    """Failure: `grace_minutes = 500000000` staged with an edit of a past log passed (verify read the
    work tree's tiers.toml); a commit is judged by its parent's settings. (That value is now refused
    outright, as a setting out of range; the most grace a setting may give, a day, shows the rule.)"""
    ok(commit(hooked, {LOG: B0}, DAY))
    late = "2026-03-02T01:00:00+00:00"  # within the staged day of grace, past the parent's none
    files: dict[str, str | None] = {LOG: B0 + "- late\n", SETTINGS: "[log]\ngrace_minutes = 1440\n"}
    refused_commit(hooked, files, late, f"{LOG}: changed after its day ended")
    ok(git(hooked, "commit", "-q", "--no-verify", "-m", "late", date=late))
    assert len(violations(hooked)) == 1


def test_settings_of_the_parent_commit_judge_the_next(hooked: GitRepo) -> None:
    """A grace period committed before the edit applies to it, in the hook and in verify."""
    ok(commit(hooked, {LOG: B0, SETTINGS: "[log]\ngrace_minutes = 120\n"}, DAY))
    ok(commit(hooked, {LOG: B0 + "- 01:00 late\n"}, "2026-03-02T01:00:00+00:00"))
    assert violations(hooked) == []


# -- amend, rebase, cherry-pick ------------------------------------------------------------------------
def test_amend_of_yesterdays_append(hooked: GitRepo) -> None:
    """Failure: `git commit --amend` of yesterday's append passed the hook and then failed verify. An
    amend that keeps the log is a replay of yesterday's append (its author date) and passes both; one
    that adds to yesterday's log is judged by today's date and refused."""
    ok(commit(hooked, {LOG: B0}, DAY))
    ok(commit(hooked, {LOG: B0 + "- 23:00 late\n"}, "2026-03-01T23:00:00+00:00"))
    today = "2026-03-02T09:00:00+00:00"
    stage(hooked, {LOG: B0 + "- 23:00 late\n- 09:00 more\n"})
    done = git(hooked, "commit", "-q", "--amend", "--no-edit", date=today, author="2026-03-01T23:00:00+00:00")
    assert done.returncode == 1 and f"{LOG}: changed after its day ended" in done.stderr
    stage(hooked, {LOG: B0 + "- 23:00 late\n", "notes.txt": "n\n"})
    env = dict(os.environ, GIT_COMMITTER_DATE=today)  # git keeps the amended commit's author date
    done = subprocess.run(
        ["git", "commit", "-q", "--amend", "--no-edit"],
        cwd=hooked.root,
        env=env,
        capture_output=True,
        text=True,
    )
    ok(done)
    assert hooked.git("log", "-1", "--format=%aI %cI").split() == ["2026-03-01T23:00:00+00:00", today + ""]
    assert violations(hooked) == []


def with_remote(repo: GitRepo, tmp_path: Path) -> Path:
    remote = bare_remote(repo, tmp_path)
    ok(git(repo, "push", "-q", "-u", "origin", "main"))
    return remote


def clone(remote: Path, where: Path) -> GitRepo:
    """Another clone of the remote (a teammate's), without hooks."""
    subprocess.run(["git", "clone", "-q", "-b", "main", str(remote), str(where)], check=True)
    return GitRepo(where)


PUSH_REFUSED = (
    "the remote holds this log and its day has ended: a push may not add to it, whatever its "
    "commits' dates (add the lines to today's log instead)"
)


def test_an_append_rebased_the_next_day_passes_verify_not_the_push(hooked: GitRepo, tmp_path: Path) -> None:
    """Failure: a branch's append made yesterday and rebased today (`git pull --rebase`) failed verify.
    A replayed append keeps its author date, within its day: verify passes. The push does not: the
    remote holds that log and its day has ended, and a push adds nothing to such a log (dates can be
    set at will); the hook says to put the line in today's log, and the remote is unchanged."""
    ok(commit(hooked, {LOG: B0}, DAY))
    remote = with_remote(hooked, tmp_path)
    other = clone(remote, tmp_path / "other")
    ok(commit(other, {LOG: B0 + "- 21:00 theirs\n"}, "2026-03-01T21:00:00+00:00"))
    ok(git(other, "push", "-q"))
    ok(commit(hooked, {LOG: B0 + "- 22:00 mine\n"}, "2026-03-01T22:00:00+00:00"))
    today = "2026-03-02T09:00:00+00:00"
    ok(git(hooked, "pull", "-q", "--rebase", date=today, author="2026-03-01T22:00:00+00:00"))
    assert hooked.read(LOG) == B0 + "- 21:00 theirs\n- 22:00 mine\n"
    assert hooked.git("log", "-1", "--format=%aI %cI").split() == ["2026-03-01T22:00:00+00:00", today]
    assert violations(hooked) == []
    pushed = hooked.git("rev-parse", "origin/main").strip()
    done = git(hooked, "push", "-q", date=today)
    assert done.returncode == 1
    assert f"{LOG}: {PUSH_REFUSED} (refs/heads/main at {pushed[:7]})" in done.stderr.splitlines()
    assert hooked.git("ls-remote", "origin", "main").split()[0] == pushed
    hooked.git("reset", "-q", "--hard", "origin/main")  # the line goes to today's log: the push passes
    ok(commit(hooked, {".squad/memory/log/2026-03-02.md": "# Daily log 2026-03-02\n\n- 09:00 mine\n"}, today))
    ok(git(hooked, "push", "-q", date=today))


def test_a_cherry_picked_append_passes_within_the_replay_window(hooked: GitRepo) -> None:
    """Legitimate: cherry-picking a branch's append of its day keeps its author date; a replay more than
    the replay window (7 days) after the day is refused."""
    ok(commit(hooked, {LOG: B0}, DAY))
    hooked.git("switch", "-q", "-c", "side")
    ok(commit(hooked, {LOG: B0 + "- 20:00 side\n"}, "2026-03-01T20:00:00+00:00"))
    hooked.git("switch", "-q", "main")
    ok(
        git(
            hooked,
            "cherry-pick",
            "side",
            date="2026-03-03T09:00:00+00:00",
            author="2026-03-01T20:00:00+00:00",
        )
    )
    assert violations(hooked) == []
    hooked.git("reset", "-q", "--hard", "HEAD~1")
    ok(
        git(
            hooked,
            "cherry-pick",
            "side",
            date="2026-03-09T09:00:00+00:00",
            author="2026-03-01T20:00:00+00:00",
        )
    )
    assert [v.split(" ", 1)[1] for v in violations(hooked)] == [
        f"{LOG}: changed after its day ended 2026-03-02 00:00 UTC; a past day's log is frozen "
        "(add to today's log instead)"
    ]


def test_a_squash_of_a_pushed_branch_passes(hooked: GitRepo, tmp_path: Path) -> None:
    """Failure: a squash merge of a verified branch failed verify. A late append passes when a
    remote-tracking branch (the one squashed) already holds its lines; a line of its own does not."""
    ok(commit(hooked, {LOG: B0}, DAY))
    with_remote(hooked, tmp_path)
    hooked.git("switch", "-q", "-c", "feature")
    ok(commit(hooked, {LOG: B0 + "- 20:00 feature\n"}, "2026-03-01T20:00:00+00:00"))
    ok(commit(hooked, {LOG: B0 + "- 20:00 feature\n- 21:00 more\n"}, "2026-03-01T21:00:00+00:00"))
    ok(git(hooked, "push", "-q", "origin", "feature", date="2026-03-01T21:00:00+00:00"))
    hooked.git("switch", "-q", "main")
    ok(git(hooked, "merge", "-q", "--squash", "feature"))
    ok(git(hooked, "commit", "-q", "--no-gpg-sign", "-m", "feature (squashed)", date=LATER))
    assert hooked.read(LOG) == B0 + "- 20:00 feature\n- 21:00 more\n"
    assert violations(hooked, "origin/main..HEAD") == []
    hooked.git("reset", "-q", "--hard", "HEAD~1")
    ok(git(hooked, "merge", "-q", "--squash", "feature"))
    hooked.write(LOG, hooked.read(LOG) + "- 22:00 not on the branch\n")
    hooked.git("add", LOG)
    done = git(hooked, "commit", "-q", "--no-gpg-sign", "-m", "squash and more", date=LATER)
    assert done.returncode == 1 and f"{LOG}: changed after its day ended" in done.stderr


# -- history rewritten under a pushed ref ----------------------------------------------------------------
def test_a_forced_push_over_a_rewritten_log_is_refused(hooked: GitRepo, tmp_path: Path) -> None:
    """Failure: rebase away the commit that created a past log, commit a forged one, `git push -f`:
    the pre-push verify passed (the forged log looked like a backfill)."""
    ok(commit(hooked, {LOG: B0}, DAY))
    remote = with_remote(hooked, tmp_path)
    hooked.git("reset", "-q", "--hard", "HEAD~1")
    hooked.git("update-ref", "-d", "refs/remotes/origin/main")  # a forger who hides what was pushed
    ok(commit(hooked, {LOG: "# Daily log 2026-03-01\n\n- 09:00 forged\n"}, LATER))
    done = git(hooked, "push", "-q", "-f", "origin", "main", date=LATER)
    assert done.returncode != 0
    assert f"{LOG}: lines already pushed are gone or reordered: history under a pushed ref was rewritten" in (
        done.stderr
    )
    remote_tip = subprocess.run(
        ["git", "-C", str(remote), "rev-parse", "main"], capture_output=True, text=True
    )
    assert remote_tip.stdout.strip() != hooked.head()


def test_a_forced_push_that_keeps_the_logs_passes(hooked: GitRepo, tmp_path: Path) -> None:
    """Legitimate: rewriting unrelated history and pushing with -f keeps every pushed log line."""
    ok(commit(hooked, {LOG: B0}, DAY))
    ok(commit(hooked, {"notes.txt": "typo\n"}, "2026-03-01T10:00:00+00:00"))
    with_remote(hooked, tmp_path)
    stage(hooked, {"notes.txt": "fixed\n"})
    ok(git(hooked, "commit", "-q", "--amend", "--no-edit", date=LATER))
    ok(git(hooked, "push", "-q", "-f", "origin", "main", date=LATER))


def test_an_amend_of_a_pushed_append_is_caught_at_push(hooked: GitRepo, tmp_path: Path) -> None:
    """Failure: `git commit --amend` of yesterday's append (hooks skipped) slipped a new line into
    yesterday's log under the kept author date. Once pushed, the pre-push hook refuses the rewrite."""
    ok(commit(hooked, {LOG: B0}, DAY))
    ok(commit(hooked, {LOG: B0 + "- 23:00 late\n"}, "2026-03-01T23:00:00+00:00"))
    with_remote(hooked, tmp_path)
    stage(hooked, {LOG: B0 + "- 23:00 late\n- 23:30 slipped in\n"})
    env = dict(os.environ, GIT_COMMITTER_DATE="2026-03-02T09:00:00+00:00")
    amended = subprocess.run(
        ["git", "commit", "-q", "--amend", "--no-edit", "--no-verify"],
        cwd=hooked.root,
        env=env,
        capture_output=True,
    )
    assert amended.returncode == 0
    done = git(hooked, "push", "-q", "-f", "origin", "main", date="2026-03-02T09:00:00+00:00")
    assert done.returncode != 0
    assert f"{LOG}: {PUSH_REFUSED}" in done.stderr


def test_a_forced_push_over_a_tip_this_clone_lacks_is_refused(hooked: GitRepo, tmp_path: Path) -> None:
    """The remote's tip is unknown here, so its logs cannot be compared: fetch first."""
    ok(commit(hooked, {LOG: B0}, DAY))
    remote = with_remote(hooked, tmp_path)
    other = clone(remote, tmp_path / "other")
    ok(commit(other, {LOG: B0 + "- 10:00 other\n"}, "2026-03-01T10:00:00+00:00"))
    ok(git(other, "push", "-q"))
    ok(commit(hooked, {"notes.txt": "n\n"}, "2026-03-01T11:00:00+00:00"))
    done = git(hooked, "push", "-q", "-f", "origin", "main", date="2026-03-01T11:00:00+00:00")
    assert done.returncode != 0
    assert "is not in this repository, so its daily logs cannot be compared" in done.stderr
    assert "hint: git fetch origin, then push again" in done.stderr


# -- squadmem's own commits ------------------------------------------------------------------------------
def test_session_end_never_makes_a_commit_verify_refuses(hooked: GitRepo) -> None:
    """Failure: `session end --now <yesterday 23:59>` committed into yesterday's log with today's date,
    a commit its own verify refused. Its commit is dated at --now now, inside the open day, whatever
    GIT_COMMITTER_DATE says."""
    ok(commit(hooked, {LOG: B0}, DAY))
    assert (
        run_squadmem(
            hooked.root, "session", "start", "--agent", "picard", "--task", "keys", date=DAY
        ).returncode
        == 0
    )
    done = run_squadmem(
        hooked.root,
        "session",
        "end",
        "--agent",
        "picard",
        "--now",
        "2026-03-01T23:59:00Z",
        date="2026-03-02T09:00:00+00:00",
    )
    assert done.returncode == 0, done.stderr
    assert hooked.git("log", "-1", "--format=%cI").strip() == "2026-03-01T23:59:00+00:00"
    assert violations(hooked) == []


# -- names ---------------------------------------------------------------------------------------------
WIDE_LOG = ".squad/memory/log/\uff12\uff10\uff12\uff16-03-01.md"  # 2026-03-01 in full-width digits


def test_a_log_named_in_other_digits_is_refused(hooked: GitRepo) -> None:
    """Failure: `log/２０２６-03-01.md` (full-width digits) was read as a second log of a frozen day:
    accepted as a backfill by the hook and verify, and served by `recall` as that day's record. Only
    ASCII `YYYY-MM-DD.md` (or a session file's `YYYY-MM-DD-<suffix>.md`) is a log's name; anything
    else in `log/` is refused."""
    ok(commit(hooked, {LOG: B0}, DAY))
    why = (
        "not a daily log's name: only log/YYYY-MM-DD.md or YYYY-MM-DD-<suffix>.md (ASCII digits;"
        " the suffix a-z, 0-9 and dashes) belongs in log/"
    )
    refused_commit(hooked, {WIDE_LOG: "# Daily log\n\n- 09:00 forged\n"}, LATER, f"{WIDE_LOG}: {why}")
    refused_commit(hooked, {".squad/memory/log/notes.md": "x\n"}, LATER, f".squad/memory/log/notes.md: {why}")
    hooked.git("reset", "-q", "--hard")
    hooked.git("clean", "-q", "-fd")
    ok(commit(hooked, {WIDE_LOG: "# Daily log\n\n- 09:00 forged\n"}, LATER, "--no-verify"))
    assert violations(hooked, "HEAD~1..HEAD") == [f"{hooked.head()[:7]} {WIDE_LOG}: {why}"]
    done = run_squadmem(hooked.root, "recall", "forged", "--no-record")
    assert "log/" not in done.stdout, done.stdout
    ok(commit(hooked, {WIDE_LOG: None}, LATER))  # taking it out again passes
    assert violations(hooked, "HEAD~1..HEAD") == []


# -- orphan branches -------------------------------------------------------------------------------------
FORGED = B0 + "- 09:30 slipped in\n- 10:00 second\n"


def orphan_with_forged_log(repo: GitRepo, *flags: str) -> subprocess.CompletedProcess[str]:
    """An orphan branch `forged` whose root commit, on 5 March, holds the pushed 1 March log with a line
    inserted in the middle."""
    repo.git("switch", "-q", "--orphan", "forged")
    repo.git("clean", "-qfdx", "-e", ".git")
    return commit(repo, {LOG: FORGED}, LATER, *flags)


def test_an_orphan_root_commit_cannot_forge_a_pushed_log(hooked: GitRepo, tmp_path: Path) -> None:
    """Failure: merging an orphan branch whose root commit holds a frozen log with a line inserted in the
    middle (`-X theirs`) passed the hooks, `verify origin/main..HEAD` and pre-push: a root commit's log
    was a "backfill" whatever it said. A root commit's log is judged against what the branches and the
    range's base hold."""
    ok(commit(hooked, {LOG: B0 + "- 10:00 second\n"}, DAY))
    remote = with_remote(hooked, tmp_path)
    pushed = hooked.head()
    why = "re-created after its day ended 2026-03-02 00:00 UTC with other text than it had"
    done = orphan_with_forged_log(hooked)
    assert done.returncode == 1 and f"{LOG}: {why}" in done.stderr, done.stderr
    assert hooked.git("rev-parse", "-q", "--verify", "HEAD", check=False) == ""
    ok(git(hooked, "commit", "-q", "--no-verify", "-m", "forged root", date=LATER))
    root = hooked.head()
    hooked.git("switch", "-q", "main")
    ok(
        git(
            hooked,
            "merge",
            "-q",
            "--no-edit",
            "--no-verify",
            "--allow-unrelated-histories",
            "-X",
            "theirs",
            "forged",
            date=LATER,
        )
    )
    assert hooked.read(LOG) == FORGED
    assert violations(hooked, "origin/main..HEAD") == [f"{root[:7]} {LOG}: {why}; a past day's log is frozen"]
    done = git(hooked, "push", "-q", "origin", "main", date=LATER)
    assert done.returncode != 0
    assert f"{root[:7]} {LOG}: {why}" in done.stdout + done.stderr
    remote_tip = subprocess.run(
        ["git", "-C", str(remote), "rev-parse", "main"], capture_output=True, text=True
    )
    assert remote_tip.stdout.strip() == pushed


# -- what a remote-tracking branch proves ----------------------------------------------------------------
LATE = "- 23:00 late\n"


def test_a_remote_branch_pushed_without_checks_is_no_proof(hooked: GitRepo, tmp_path: Path) -> None:
    """Failure: the "squash of a pushed range" rule took any remote-tracking branch holding a late
    append's lines as proof: push a branch with `--no-verify` that appends the line to a frozen log,
    append the same line on a PR branch, and `verify origin/main..origin/pr` in a fresh clone (the CI
    check) passed. A branch now proves lines only when its own commits kept the log rules."""
    ok(commit(hooked, {LOG: B0}, DAY))
    remote = with_remote(hooked, tmp_path)
    hooked.git("switch", "-q", "-c", "x")
    ok(commit(hooked, {LOG: B0 + LATE}, LATER, "--no-verify"))
    ok(git(hooked, "push", "-q", "--no-verify", "origin", "x"))
    hooked.git("switch", "-q", "-c", "pr", "main")
    refused_commit(hooked, {LOG: B0 + LATE}, LATER, f"{LOG}: changed after its day ended")
    ok(git(hooked, "commit", "-q", "--no-verify", "-m", "pr", date=LATER))
    ok(git(hooked, "push", "-q", "--no-verify", "origin", "pr"))
    ci = clone(remote, tmp_path / "ci")
    ci.git("fetch", "-q", "origin")
    done = run_squadmem(ci.root, "verify", "origin/main..origin/pr")
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{LOG}: changed after its day ended" in done.stdout


def test_a_hand_made_remote_tracking_ref_is_no_proof(hooked: GitRepo) -> None:
    """Failure: `git update-ref refs/remotes/origin/x <commit>` made any local commit's lines "pushed",
    so a late append of them passed the hook and `verify`."""
    ok(commit(hooked, {LOG: B0}, DAY))
    hooked.git("switch", "-q", "-c", "x")
    ok(commit(hooked, {LOG: B0 + LATE}, LATER, "--no-verify"))
    hooked.git("update-ref", "refs/remotes/origin/x", "HEAD")
    hooked.git("switch", "-q", "main")
    refused_commit(hooked, {LOG: B0 + LATE}, LATER, f"{LOG}: changed after its day ended")
    ok(git(hooked, "commit", "-q", "--no-verify", "-m", "late", date=LATER))
    assert [v.split(" ", 1)[1] for v in violations(hooked, "HEAD~1..HEAD")] == [
        f"{LOG}: changed after its day ended 2026-03-02 00:00 UTC; a past day's log is frozen "
        "(add to today's log instead)"
    ]


def test_a_backdated_fork_cannot_add_to_a_pushed_frozen_log(hooked: GitRepo, tmp_path: Path) -> None:
    """Failure: a branch forked from the commit that made a pushed log, with a commit dated within that
    day appending a line, merged on 5 March: the hooks, verify and pre-push all passed (each commit is
    judged by its dates), though the threat model promises that nothing recorded in a log changes after
    its day. The push now refuses any addition to a frozen log the remote holds, whatever the dates."""
    ok(commit(hooked, {LOG: B0}, DAY))
    made = hooked.head()
    ok(commit(hooked, {"notes.txt": "n\n"}, "2026-03-02T09:00:00+00:00"))
    remote = with_remote(hooked, tmp_path)
    pushed = hooked.head()
    hooked.git("switch", "-q", "-c", "fork", made)
    ok(commit(hooked, {LOG: B0 + "- 10:00 backdated\n"}, "2026-03-01T10:00:00+00:00"))
    hooked.git("switch", "-q", "main")
    ok(git(hooked, "merge", "-q", "--no-edit", "fork", date=LATER))
    assert violations(hooked, "origin/main..HEAD") == []  # verify judges by dates: the fork's are forged
    done = git(hooked, "push", "-q", "origin", "main", date=LATER)
    assert done.returncode == 1
    assert f"{LOG}: {PUSH_REFUSED} (refs/heads/main at {pushed[:7]})" in done.stderr.splitlines()
    remote_tip = subprocess.run(
        ["git", "-C", str(remote), "rev-parse", "main"], capture_output=True, text=True
    )
    assert remote_tip.stdout.strip() == pushed


def test_log_add_now_into_a_frozen_committed_log_is_refused_up_front(hooked: GitRepo) -> None:
    """Regression: `log add --now` for a past day wrote into that day's committed (frozen) log with
    exit 0, and the next commit was refused. It is now refused before writing, naming the fix; a
    past day with no committed log (a backfill, which the rules allow) is still written."""
    log = ".squad/memory/log/2026-03-01.md"
    assert run_squadmem(hooked.root, "log", "add", "first", "--now", "2026-03-01T10:00:00Z").returncode == 0
    hooked.git("add", log)
    assert hooked_commit(hooked, "2026-03-01T11:00:00+00:00", "-m", "log").returncode == 0
    assert_refused(
        hooked,
        "log",
        "add",
        "late",
        "--now",
        "2026-03-01T15:00:00Z",
        message=f"squadmem: {log}: the log of 2026-03-01 froze at 2026-03-02 00:00 UTC; a past day's log"
        " is frozen and the next commit would be refused",
    )
    done = run_squadmem(hooked.root, "log", "add", "backfill", "--now", "2026-02-20T10:00:00Z")
    assert (done.returncode, done.stdout) == (0, "appended to .squad/memory/log/2026-02-20.md\n")
    hooked.git("add", "-A")
    assert hooked_commit(hooked, "2026-03-02T11:00:00+00:00", "-m", "backfill").returncode == 0

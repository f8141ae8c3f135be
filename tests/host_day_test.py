"""The host's day in a memory-tiers workspace: OpenClaw's time zone, its evening flush, its session files.

OpenClaw's pre-compaction flush appends to ``memory/<day>.md`` with the day in
``agents.defaults.userTimezone``; its session-memory hook writes
``memory/<day>-HHMM.md`` (``-2`` when taken, or a slug). Here the workspace's
OpenClaw config says America/Los_Angeles (UTC-8 in these days of March 2026),
``squadmem init`` reads it, and real hooks fired by real ``git commit`` judge
what the host wrote. The text is made up for these tests.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import GitRepo, bare_remote, hooked_commit, run_squadmem, stage

ZONE = "America/Los_Angeles"
HOT = "# MEMORY.md\n\n## Greenhouse vents\nOpen the east vent above 24 °C.\n"
LOG = "memory/2026-03-02.md"
MORNING = "# 2026-03-02\n\n- 09:10 moved the seed trays to the greenhouse\n"
EVENING = MORNING + "- 22:00 flush: the west vent sticks; oil the hinge tomorrow\n"
SESSION = "memory/2026-03-02-2215.md"
SESSION_TEXT = "# Session: 2026-03-02 22:15:07 America/Los_Angeles\n\n- user: the kiln reached 1040 °C\n"


def openclaw_config(home: Path, text: str) -> Path:
    path = home / ".openclaw" / "openclaw.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return path


@pytest.fixture
def pacific(repo: GitRepo) -> GitRepo:
    """A workspace whose OpenClaw config says Los Angeles, set up by init and committed on 2026-03-02."""
    openclaw_config(Path(os.environ["HOME"]), json.dumps({"agents": {"defaults": {"userTimezone": ZONE}}}))
    repo.commit("workspace", {"MEMORY.md": HOT, "memory/.keep": ""}, date="2026-03-02T08:00:00-08:00")
    done = run_squadmem(repo.root, "init")
    assert done.returncode == 0, done.stderr
    assert f"timezone {ZONE} (OpenClaw's agents.defaults.userTimezone" in done.stdout
    repo.git("add", "-A")
    committed(repo, "2026-03-02T08:30:00-08:00", {})
    committed(repo, "2026-03-02T09:15:00-08:00", {LOG: MORNING})
    return repo


def committed(repo: GitRepo, when: str, files: dict[str, str | None], *args: str) -> None:
    stage(repo, files)
    done = hooked_commit(repo, when, "-m", "host", *args)
    assert done.returncode == 0, done.stderr


def refused(repo: GitRepo, when: str, files: dict[str, str | None], message: str) -> None:
    """The hook refuses the commit with ``message`` on one line; HEAD stays where it was."""
    head = repo.head()
    stage(repo, files)
    done = hooked_commit(repo, when, "-m", "host")
    assert done.returncode == 1, done.stderr
    assert message in done.stdout + done.stderr, done.stdout + done.stderr
    assert repo.head() == head
    repo.git("reset", "-q", "--hard")


def verify(repo: GitRepo, when: str) -> subprocess.CompletedProcess[str]:
    return run_squadmem(repo.root, "verify", "--now", when)


def push(repo: GitRepo, when: str) -> subprocess.CompletedProcess[str]:
    """A real ``git push`` (the pre-push hook fires) at ``when``."""
    env = dict(os.environ, GIT_COMMITTER_DATE=when)
    args = ["git", "push", "-q", "origin", "main"]
    return subprocess.run(args, cwd=repo.root, env=env, text=True, capture_output=True)


def test_init_writes_the_hosts_zone_and_the_grace_until_noon(pacific: GitRepo) -> None:
    text = pacific.read("memory/tiers.toml")
    assert f'timezone = "{ZONE}"' in text
    assert "grace_minutes = 720" in text


def test_an_evening_flush_lands_on_its_local_day_and_commits(pacific: GitRepo) -> None:
    """Failure: with tiers.toml on UTC, OpenClaw's flush at 22:00 in Los Angeles (06:00 UTC the next
    day) appended to the local day's log, which squadmem took for yesterday's, and the commit was
    refused. The log day is the host's: the append commits at 22:05 and verify passes."""
    committed(pacific, "2026-03-02T22:05:00-08:00", {LOG: EVENING})
    done = verify(pacific, "2026-03-02T22:10:00-08:00")
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_flush_of_22_00_committed_at_09_00_passes_hook_and_verify(pacific: GitRepo) -> None:
    """Failure: a flush written at 22:00 and committed the next morning was refused with no clean
    way out (the log was frozen at midnight). Within the grace until noon it may still grow."""
    committed(pacific, "2026-03-03T09:00:00-08:00", {LOG: EVENING})
    done = verify(pacific, "2026-03-03T09:05:00-08:00")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_same_flush_committed_after_noon_is_refused(pacific: GitRepo) -> None:
    """After the grace the log is frozen: hook and verify (a --no-verify commit) refuse it."""
    why = f"{LOG}: changed after its day ended 2026-03-03 12:00 {ZONE}; a past day's log is frozen"
    refused(pacific, "2026-03-03T12:30:00-08:00", {LOG: EVENING}, why)
    committed(pacific, "2026-03-03T12:30:00-08:00", {LOG: EVENING}, "--no-verify")
    done = verify(pacific, "2026-03-03T12:35:00-08:00")
    assert done.returncode == 1
    assert why in done.stdout


def test_an_old_line_changed_within_the_grace_is_refused(pacific: GitRepo) -> None:
    """Failure it guards against: the grace reopening a past log to any edit. Inside it a log still
    only grows at its end: an earlier line changed (or removed) is refused by hook and verify."""
    edited = EVENING.replace("seed trays", "seed boxes")
    why = f"{LOG}: not an append: today's log may only grow at its end (earlier bytes changed)"
    refused(pacific, "2026-03-03T09:00:00-08:00", {LOG: edited}, why)
    refused(pacific, "2026-03-03T09:00:00-08:00", {LOG: "# 2026-03-02\n"}, why)
    committed(pacific, "2026-03-03T09:00:00-08:00", {LOG: edited}, "--no-verify")
    done = verify(pacific, "2026-03-03T09:05:00-08:00")
    assert done.returncode == 1
    assert why in done.stdout


def test_the_pre_push_hook_takes_the_morning_flush_and_refuses_an_old_line_changed(
    pacific: GitRepo, tmp_path: Path
) -> None:
    """Within the grace a push of the evening's append passes; one bringing an earlier line changed
    (a --no-verify commit) is stopped at pre-push."""
    bare_remote(pacific, tmp_path)
    first = push(pacific, "2026-03-02T10:00:00-08:00")
    assert first.returncode == 0, first.stderr
    committed(pacific, "2026-03-03T09:00:00-08:00", {LOG: EVENING})
    morning = push(pacific, "2026-03-03T09:10:00-08:00")
    assert morning.returncode == 0, morning.stdout + morning.stderr
    edited = EVENING.replace("seed trays", "seed boxes") + "- 09:20 late note\n"
    committed(pacific, "2026-03-03T09:20:00-08:00", {LOG: edited}, "--no-verify")
    stopped = push(pacific, "2026-03-03T09:25:00-08:00")
    assert stopped.returncode != 0
    assert f"{LOG}: not an append" in stopped.stdout + stopped.stderr


@pytest.mark.parametrize("name", ["2026-03-02-2215.md", "2026-03-02-2215-2.md", "2026-03-02-kiln-firing.md"])
def test_a_session_file_is_a_log_of_its_day(pacific: GitRepo, name: str) -> None:
    """OpenClaw's session files (time, time taken twice, slug) commit on their day and may grow."""
    rel = f"memory/{name}"
    committed(pacific, "2026-03-02T22:16:00-08:00", {rel: SESSION_TEXT})
    committed(pacific, "2026-03-03T08:00:00-08:00", {rel: SESSION_TEXT + "- assistant: noted\n"})
    done = verify(pacific, "2026-03-03T08:05:00-08:00")
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_session_file_edited_days_later_is_refused_everywhere(pacific: GitRepo, tmp_path: Path) -> None:
    """Failure: ``memory/YYYY-MM-DD-HHMM.md`` was neither a log nor a tier: an edit days later passed
    the hook and verify. It is frozen after its day: the hook, verify (for a --no-verify commit) and
    the pre-push hook refuse it."""
    committed(pacific, "2026-03-02T22:16:00-08:00", {SESSION: SESSION_TEXT})
    bare_remote(pacific, tmp_path)
    pacific.git("push", "-q", "origin", "main")
    edited = SESSION_TEXT.replace("1040", "1280")
    why = f"{SESSION}: changed after its day ended 2026-03-03 12:00 {ZONE}; a past day's log is frozen"
    refused(pacific, "2026-03-06T10:00:00-08:00", {SESSION: edited}, why)
    refused(pacific, "2026-03-06T10:00:00-08:00", {SESSION: None}, f"{SESSION}: deleted after its day ended")
    committed(pacific, "2026-03-06T10:00:00-08:00", {SESSION: edited}, "--no-verify")
    done = verify(pacific, "2026-03-06T10:05:00-08:00")
    assert done.returncode == 1
    assert why in done.stdout
    pushed = push(pacific, "2026-03-06T10:10:00-08:00")
    assert pushed.returncode != 0
    assert SESSION in pushed.stdout + pushed.stderr


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("2026-02-30-1200.md", "2026-02-30 is not a real date"),
        ("2026-03-09-0900.md", "dated in the future: it is 2026-03-02 in America/Los_Angeles"),
    ],
)
def test_a_session_file_of_no_real_day_or_a_future_one_is_refused(
    pacific: GitRepo, name: str, why: str
) -> None:
    refused(pacific, "2026-03-02T12:00:00-08:00", {f"memory/{name}": SESSION_TEXT}, f"memory/{name}: {why}")


def test_recall_searches_session_files(pacific: GitRepo) -> None:
    committed(pacific, "2026-03-02T22:16:00-08:00", {SESSION: SESSION_TEXT})
    done = run_squadmem(pacific.root, "recall", "kiln", "--no-record")
    assert done.returncode == 0, done.stderr
    assert f"{SESSION}:3: - user: the kiln reached 1040 °C" in done.stdout


def test_recall_history_finds_a_session_files_removed_text(pacific: GitRepo) -> None:
    """Failure: once a session file was removed (or a line of it changed), ``recall --history`` did
    not find its text. It names the file, the line and the commit that last held it."""
    committed(pacific, "2026-03-02T22:16:00-08:00", {SESSION: SESSION_TEXT})
    holder = pacific.head()
    committed(pacific, "2026-03-06T10:00:00-08:00", {SESSION: None}, "--no-verify")
    done = run_squadmem(pacific.root, "recall", "kiln", "--history", "--no-record", "--json")
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)["removed_log_lines"]
    assert [(f["file"], f["line"], f["commit"]) for f in found] == [
        (SESSION, "- user: the kiln reached 1040 °C", holder)
    ]
    text = run_squadmem(pacific.root, "recall", "kiln", "--history", "--no-record").stdout
    assert f"{SESSION}: - user: the kiln reached 1040 °C" in text
    assert f"git show {holder[:12]}:{SESSION}" in text


def test_recall_history_skips_log_lines_still_there(pacific: GitRepo) -> None:
    """An append replaces a log's blob but keeps its lines: nothing of it is reported removed."""
    committed(pacific, "2026-03-02T22:05:00-08:00", {LOG: EVENING})
    done = run_squadmem(pacific.root, "recall", "seed", "--history", "--no-record", "--json")
    assert json.loads(done.stdout)["removed_log_lines"] == []


def test_log_show_lists_the_session_files_of_the_day(pacific: GitRepo) -> None:
    """Failure: a session file was listed nowhere squadmem lists logs. ``log show`` prints it after
    the day's log (and alone when the day has no other log); ``report`` counts it."""
    committed(pacific, "2026-03-02T22:16:00-08:00", {SESSION: SESSION_TEXT})
    shown = run_squadmem(pacific.root, "log", "show", "2026-03-02")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == f"{MORNING}\n==> {SESSION} <==\n{SESSION_TEXT}"
    data = json.loads(run_squadmem(pacific.root, "log", "show", "2026-03-02", "--json").stdout)
    assert data["file"] == LOG
    assert data["sessions"] == [{"file": SESSION, "text": SESSION_TEXT}]
    alone = "memory/2026-03-01-0930.md"
    committed(pacific, "2026-03-02T22:20:00-08:00", {alone: "# Session\n"})
    only = run_squadmem(pacific.root, "log", "show", "2026-03-01", "--json")
    assert json.loads(only.stdout)["file"] is None
    assert json.loads(only.stdout)["sessions"] == [{"file": alone, "text": "# Session\n"}]
    report = json.loads(
        run_squadmem(pacific.root, "report", "--json", "--now", "2026-03-03T08:00:00-08:00").stdout
    )
    assert report["logs"] == {"count": 3, "first": "2026-03-01", "last": "2026-03-02"}


def test_recall_history_finds_a_log_line_changed(pacific: GitRepo) -> None:
    """A line edited in place (its words kept but one) is found by any of its words, the words git
    walks by included, and only the version no log holds now is shown."""
    committed(pacific, "2026-03-02T22:16:00-08:00", {SESSION: SESSION_TEXT})
    committed(pacific, "2026-03-02T22:30:00-08:00", {LOG: EVENING})
    committed(
        pacific, "2026-03-06T10:00:00-08:00", {SESSION: SESSION_TEXT.replace("1040", "1280")}, "--no-verify"
    )
    for query in ("kiln", "KILN reached", "1040", "°C kiln"):
        done = run_squadmem(pacific.root, "recall", query, "--history", "--no-record", "--json")
        found = json.loads(done.stdout)["removed_log_lines"]
        assert [(f["file"], f["line"]) for f in found] == [(SESSION, "- user: the kiln reached 1040 °C")], (
            query
        )
    none = run_squadmem(pacific.root, "recall", "1280", "--history", "--no-record", "--json")
    assert json.loads(none.stdout)["removed_log_lines"] == []

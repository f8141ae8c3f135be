from __future__ import annotations

import datetime as dt
import json
import os
import stat
import sys
from pathlib import Path

import pytest
from conftest import GitRepo, run_squadmem

from squadmem.hooks import use_trailers
from squadmem.model import uses

HOT = ".squad/memory/hot/picard.md"
D1 = "2026-03-01T12:00:00+00:00"
D2 = "2026-03-02T12:00:00+00:00"
D3 = "2026-03-03T12:00:00+00:00"
D4 = "2026-03-04T12:00:00+00:00"
TRAILER = "Squad-Memory-Used: picard/auth-tokens"


@pytest.fixture
def hooked(repo: GitRepo) -> GitRepo:
    """A repository with squadmem's hooks installed by init, a section committed, and one pending use."""
    done = run_squadmem(repo.root, "init", "--agent", "picard")
    assert done.returncode == 0, done.stderr
    repo.write(HOT, repo.read(HOT) + "\n## Auth tokens\n\nRotate weekly.\n")
    repo.git("add", "-A")
    repo.git("commit", "-q", "--no-gpg-sign", "-m", "memory", date=D1)
    touched = run_squadmem(repo.root, "touch", "picard/auth-tokens", "--now", D2)
    assert touched.returncode == 0, touched.stderr
    return repo


def state(repo: GitRepo) -> Path:
    return repo.root / ".git" / "squadmem"


def message(repo: GitRepo, rev: str = "HEAD") -> str:
    return repo.git("log", "-1", "--format=%B", rev)


def commit(repo: GitRepo, *args: str, date: str = D3, check: bool = True) -> str:
    repo.write("src/app.py", f"print({date!r})\n")
    repo.git("add", "src/app.py")
    return repo.git("commit", "-q", "--no-gpg-sign", *args, date=date, check=check)


def report(repo: GitRepo) -> dict[str, object]:
    done = run_squadmem(repo.root, "report", "--json", "--now", D4)
    assert done.returncode == 0, done.stderr
    data: dict[str, object] = json.loads(done.stdout)
    return data


def section(data: dict[str, object], ident: str) -> dict[str, object]:
    rows = data["sections"]
    assert isinstance(rows, list)
    return next(r for r in rows if r["id"] == ident)


def test_hook_puts_pending_uses_on_the_next_commit(hooked: GitRepo) -> None:
    """The use (a day before the commit) rides on it dated at its own time: history dates it there,
    not at the commit that carried it (a host's use read in the evening was dated the evening)."""
    commit(hooked, "-m", "fix login")
    assert message(hooked).rstrip("\n") == f"fix login\n\n{TRAILER}@2026-03-02T12:00:00Z"
    data = report(hooked)
    row = section(data, "picard/auth-tokens")
    assert (row["last_use_kind"], row["last_used"], row["uses"]) == ("trailer", "2026-03-02T12:00:00Z", 1)
    assert data["pending_uses"] == []
    assert uses.pending(state(hooked)) == {}


def test_hook_names_a_use_of_the_last_hour_plainly(hooked: GitRepo) -> None:
    """A use made within the hour before its commit is named by its id alone (the commit's time)."""
    commit(hooked, "-m", "fix login", date="2026-03-02T12:30:00+00:00")
    assert message(hooked).rstrip("\n") == f"fix login\n\n{TRAILER}"


def test_carried_dates_only_uses_an_hour_older_than_the_commit() -> None:
    at = dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC)
    pending = {"a/x": at, "b/y": at + dt.timedelta(minutes=30)}
    tokens = uses.carried(pending, ["a/x", "b/y", "c/z"], at + dt.timedelta(hours=1))
    assert tokens == ["a/x@2026-03-02T12:00:00Z", "b/y", "c/z"]
    assert uses.parse_dated(f"{uses.TRAILER}: {uses.join(tokens)}") == [
        ("a/x", at),
        ("b/y", None),
        ("c/z", None),
    ]


def test_hook_next_commit_does_not_carry_the_use_again(hooked: GitRepo) -> None:
    commit(hooked, "-m", "fix login")
    commit(hooked, "-m", "more", date=D4)
    assert TRAILER not in message(hooked)
    assert section(report(hooked), "picard/auth-tokens")["uses"] == 1


def test_hook_counts_once_however_often_report_runs(hooked: GitRepo) -> None:
    first = section(report(hooked), "picard/auth-tokens")
    assert (first["last_use_kind"], first["uses"]) == ("pending", 1)
    assert section(report(hooked), "picard/auth-tokens") == first
    commit(hooked, "-m", "fix login")
    after = [section(report(hooked), "picard/auth-tokens") for _ in range(2)]
    assert after[0] == after[1]
    assert (after[0]["last_use_kind"], after[0]["uses"]) == ("trailer", 1)


def test_hook_empty_message_aborts_and_keeps_the_uses(hooked: GitRepo) -> None:
    head = hooked.head()
    commit(hooked, "-m", "", check=False)
    assert hooked.head() == head
    assert list(uses.pending(state(hooked))) == ["picard/auth-tokens"]
    commit(hooked, "-m", "now for real")
    assert TRAILER in message(hooked)


def _failing_hook(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\necho refused >&2\nexit 1\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def test_hook_commit_refused_by_a_commit_msg_hook_keeps_the_uses(hooked: GitRepo) -> None:
    """The trailer was already written when commit-msg refused: the uses must survive for the retry."""
    hook = hooked.root / ".git" / "hooks" / "commit-msg"
    _failing_hook(hook)
    head = hooked.head()
    commit(hooked, "-m", "fix login", check=False)
    assert hooked.head() == head
    assert list(uses.pending(state(hooked))) == ["picard/auth-tokens"]
    hook.unlink()
    commit(hooked, "-m", "fix login")
    assert message(hooked).count(TRAILER) == 1


def test_hook_commit_refused_by_pre_commit_keeps_the_uses(repo: GitRepo) -> None:
    _failing_hook(repo.root / ".git" / "hooks" / "pre-commit")  # chained by init as the legacy hook
    assert run_squadmem(repo.root, "init", "--agent", "picard").returncode == 0
    repo.write(HOT, repo.read(HOT) + "\n## Auth tokens\n\nRotate weekly.\n")
    repo.git("add", "-A")
    repo.git("commit", "-q", "--no-verify", "--no-gpg-sign", "-m", "memory", date=D1)
    assert run_squadmem(repo.root, "touch", "Auth tokens", "--now", D2).returncode == 0
    head = repo.head()
    commit(repo, "-m", "fix login", check=False)
    assert repo.head() == head
    assert list(uses.pending(state(repo))) == ["picard/auth-tokens"]


def test_hook_editor_session_starts_below_a_blank_first_line(hooked: GitRepo, tmp_path: Path) -> None:
    editor = tmp_path / "editor.py"
    editor.write_text(
        "import sys\np = sys.argv[1]\ntext = open(p).read()\nopen(p, 'w').write('Write docs' + text)\n"
    )
    os.environ["GIT_EDITOR"] = f"{sys.executable} {editor}"
    try:
        commit(hooked)
    finally:
        del os.environ["GIT_EDITOR"]
    assert hooked.git("log", "-1", "--format=%s") == "Write docs\n"
    trailers = hooked.git("log", "-1", "--format=%(trailers:key=Squad-Memory-Used,valueonly)")
    assert trailers.strip() == "picard/auth-tokens@2026-03-02T12:00:00Z"


def test_hook_leaves_an_id_the_message_names_already(hooked: GitRepo) -> None:
    commit(hooked, "-m", f"fix\n\n{TRAILER}")
    assert message(hooked).count("picard/auth-tokens") == 1


def test_hook_amend_keeps_one_trailer(hooked: GitRepo) -> None:
    commit(hooked, "-m", "fix login")
    hooked.git("commit", "-q", "--amend", "--no-edit", "--no-gpg-sign", date=D4)
    assert message(hooked).count("picard/auth-tokens") == 1


def test_hook_merge_commit_carries_the_trailer(hooked: GitRepo) -> None:
    hooked.git("checkout", "-q", "-b", "feature")
    hooked.git("commit", "-q", "--no-verify", "--no-gpg-sign", "--allow-empty", "-m", "on feature", date=D3)
    hooked.git("checkout", "-q", "main")
    hooked.git("merge", "-q", "--no-ff", "--no-edit", "feature", date=D3)
    assert message(hooked).startswith("Merge branch 'feature'")
    assert TRAILER in message(hooked)


def test_main_without_a_message_file_does_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert use_trailers.main([]) == 0
    assert "no commit message file" in capsys.readouterr().err


def test_main_never_stops_a_commit(
    hooked: GitRepo, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(hooked.root)
    missing = hooked.root / "no-such-dir" / "COMMIT_EDITMSG"
    assert use_trailers.main([str(missing), "message"]) == 0
    assert "uses stay pending" in capsys.readouterr().err
    assert list(uses.pending(state(hooked))) == ["picard/auth-tokens"]


def test_main_with_nothing_pending_leaves_the_message(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo.root)
    msg = repo.root / ".git" / "COMMIT_EDITMSG"
    msg.write_text("subject\n")
    assert use_trailers.main([str(msg), "message"]) == 0
    assert msg.read_text() == "subject\n"


def test_touch_unknown_id_exits_2_and_changes_nothing(hooked: GitRepo) -> None:
    before = hooked.snapshot()
    pending = uses.pending(state(hooked))
    done = run_squadmem(hooked.root, "touch", "picard/auth-tokens", "picard/nope")
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == "squadmem: no section has the id or heading 'picard/nope'"
    assert hooked.snapshot() == before
    assert uses.pending(state(hooked)) == pending


def test_touch_ambiguous_heading_lists_the_candidates(hooked: GitRepo) -> None:
    cold = ".squad/memory/cold/picard.md"
    hooked.write(cold, hooked.read(cold) + "\n## Auth tokens\n\nOld notes.\n")
    before = hooked.snapshot()
    done = run_squadmem(hooked.root, "touch", "Auth tokens")
    assert done.returncode == 2
    assert "is ambiguous: picard/auth-tokens" in done.stderr.splitlines()[0]
    assert hooked.snapshot() == before


def test_touch_bad_now_exits_2(hooked: GitRepo) -> None:
    done = run_squadmem(hooked.root, "touch", "picard/auth-tokens", "--now", "someday")
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == "squadmem: --now 'someday': not a date in an ISO form"

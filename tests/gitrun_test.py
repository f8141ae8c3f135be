"""bench/gitrun.py: the benchmarks' one way to run git and squadmem."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.gitrun import Done, Failed, git, squadmem


def test_git_dates_a_commit_and_returns_its_output(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "config", "user.name", "Bench")
    git(tmp_path, "config", "user.email", "bench@example.com")
    git(
        tmp_path,
        "commit",
        "-q",
        "--allow-empty",
        "--no-gpg-sign",
        "-m",
        "one",
        date="2026-01-02T03:04:05+00:00",
    )
    shown = git(tmp_path, "log", "-1", "--format=%aI|%cI").out.strip()
    assert shown == "2026-01-02T03:04:05+00:00|2026-01-02T03:04:05+00:00"


def test_git_raises_with_the_command_and_its_stderr_unless_told_not_to(tmp_path: Path) -> None:
    with pytest.raises(Failed, match=r"^git rev-parse --verify nowhere: exit 128: fatal: "):
        git(tmp_path, "rev-parse", "--verify", "nowhere")
    done = git(tmp_path, "rev-parse", "--verify", "nowhere", check=False)
    assert done.returncode == 128
    assert "fatal" in done.err


def test_squadmem_runs_under_this_interpreter(tmp_path: Path) -> None:
    done = squadmem(tmp_path, "--version")
    assert done.returncode == 0
    assert done.out.startswith("squadmem")


def test_text_reads_line_endings_as_text_mode_does() -> None:
    assert Done(0, b"a\r\nb\rc\n\xff", b"").out == "a\nb\nc\n\ufffd"

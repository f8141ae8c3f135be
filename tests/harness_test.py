"""bench/harness.py: a scratch repository with dated commits, and the one table printer."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.gitrun import git
from bench.harness import commit, options, scratch_repo, table


def test_scratch_repository_takes_dated_commits(tmp_path: Path) -> None:
    root = scratch_repo(tmp_path / "repo", "picard")
    commit(root, {".squad/memory/hot/picard.md": "# Hot\n\n## Note\nnote\n"}, "note", "2026-01-02T10:00:00Z")
    assert git(root, "log", "-1", "--format=%cI %s").out.strip() == "2026-01-02T10:00:00+00:00 note"
    assert git(root, "status", "--porcelain").out == ""


def test_table_prints_a_markdown_table(capsys: pytest.CaptureFixture[str]) -> None:
    table(("what", "ms"), [("a", 1.5)], right=1)
    assert capsys.readouterr().out == "| what | ms |\n|---|---:|\n| a | 1.5 |\n"


def test_options_give_the_common_flags() -> None:
    args = options("A bench.\n\nMore.", rounds=3, seed=7, json=True).parse_args(["--json"])
    assert (args.rounds, args.seed, args.json) == (3, 7, True)

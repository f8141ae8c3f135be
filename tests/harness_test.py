"""bench/harness.py: scratch repositories, dated commits, a sealed environment, the table, the options."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.gitrun import git
from bench.harness import commit, identify, markdown, options, scratch_repo, sealed, table


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


def test_markdown_is_the_table_as_text(capsys: pytest.CaptureFixture[str]) -> None:
    rows = [("a", 1.5), ("b", 2)]
    table(("what", "ms"), rows, right=1)
    assert markdown(("what", "ms"), rows, right=1) + "\n" == capsys.readouterr().out


def test_a_scratch_repository_on_another_branch(tmp_path: Path) -> None:
    root = scratch_repo(tmp_path / "repo", branch="trunk")
    commit(root, {"a.txt": "a\n"}, "first", "2026-01-02T10:00:00Z")
    assert git(root, "symbolic-ref", "HEAD").out.strip() == "refs/heads/trunk"


def test_a_sealed_environment_drops_what_it_inherits_and_commits_as_the_bench(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SQUADMEM_LOCK_TIMEOUT", "1")
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("OPENCLAW_HOME", str(tmp_path / "claw"))
    env = sealed(tmp_path / "home", drop=("GIT_", "SQUADMEM_", "OPENCLAW_"), EXTRA="1")
    assert not any(k.startswith(("SQUADMEM_", "OPENCLAW_", "GIT_DIR")) for k in env)
    assert (env["HOME"], env["GIT_CONFIG_NOSYSTEM"], env["EXTRA"]) == (str(tmp_path / "home"), "1", "1")
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main", env=env)
    commit(root, {"a.txt": "a\n"}, "first", "2026-01-02T10:00:00Z", env=env)
    assert git(root, "log", "-1", "--format=%an <%ae>", env=env).out.strip() == "Bench <bench@example.com>"


def test_a_clone_is_given_the_bench_identity(tmp_path: Path) -> None:
    root = scratch_repo(tmp_path / "repo")
    commit(root, {"a.txt": "a\n"}, "first", "2026-01-02T10:00:00Z")
    git(tmp_path, "clone", "-q", str(root), str(tmp_path / "clone"))
    identify(tmp_path / "clone")
    config = git(tmp_path / "clone", "config", "--local", "--list").out
    assert "user.name=Bench" in config and "commit.gpgsign=false" in config


def test_options_give_days_and_agents_where_asked() -> None:
    args = options("A team bench.", seed=3, days=60, agents=4).parse_args(["--days", "5"])
    assert (args.days, args.agents, args.seed) == (5, 4, 3)
    assert not hasattr(options("A bench.").parse_args([]), "days")

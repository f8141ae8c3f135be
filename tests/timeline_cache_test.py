from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import GitRepo

from squadmem.commands import timeline
from squadmem.gitio.repo import Repo

HOT = ".squad/memory/hot/picard.md"
COLD = ".squad/memory/cold/picard.md"
AUTH = "## Auth tokens\n\nRotate weekly.\n"


def hot(*parts: str) -> str:
    return "# Hot\n\n" + "\n".join(parts)


def story(repo: GitRepo) -> None:
    repo.commit("code", {"src/a.py": "1\n"}, date="2026-03-01T10:00:00+00:00")
    repo.commit("memory", {HOT: hot("## Session\n- none yet\n", AUTH)}, date="2026-03-01T12:00:00+00:00")
    repo.commit("code 2", {"src/a.py": "2\n"}, date="2026-03-02T10:00:00+00:00")
    repo.git("checkout", "-q", "-b", "side")
    repo.commit("side code", {"src/b.py": "b\n"}, date="2026-03-02T11:00:00+00:00")
    repo.commit("side edit", {HOT: hot("## Session\n- task x\n", AUTH)}, date="2026-03-02T12:00:00+00:00")
    repo.git("checkout", "-q", "main")
    repo.commit("main code", {"src/a.py": "3\n"}, date="2026-03-03T10:00:00+00:00")
    repo.git("merge", "-q", "--no-gpg-sign", "--no-edit", "side", date="2026-03-03T11:00:00+00:00")
    repo.commit(
        "use\n\nSquad-Memory-Used: picard/auth-tokens", {"src/a.py": "4\n"}, date="2026-03-04T10:00:00+00:00"
    )


def timelines(root: Path) -> list[dict[str, Any]]:
    with Repo(root) as repo:
        return [timeline.timeline(repo, ref) for ref in ("picard/session", "picard/auth-tokens")]


def cache(root: Path) -> Path:
    return root / ".git" / "squadmem" / timeline.CACHE_FILE


def walks(root: Path) -> Path:
    return root / ".git" / "squadmem" / timeline.WALKS_FILE


def fresh(root: Path) -> list[dict[str, Any]]:
    """The timelines walked from scratch (no cache before, none left after)."""
    for path in (cache(root), walks(root)):
        path.unlink(missing_ok=True)
    found = timelines(root)
    for path in (cache(root), walks(root)):
        path.unlink()
    return found


def test_cached_graph_gives_the_same_timelines(repo: GitRepo) -> None:
    """Commits where nothing happened to memory are left out of the cache; timelines do not change."""
    story(repo)
    expected = fresh(repo.root)
    assert [e["event"] for e in expected[0]["events"]] == ["created", "edited"]
    assert timelines(repo.root) == expected  # builds the cache
    assert cache(repo.root).exists()
    assert timelines(repo.root) == expected  # reads it


def test_cache_follows_new_commits_and_rewritten_history(repo: GitRepo) -> None:
    story(repo)
    timelines(repo.root)
    repo.commit("code 5", {"src/a.py": "5\n"}, date="2026-03-05T10:00:00+00:00")
    repo.commit("edit", {HOT: hot("## Session\n- task y\n", AUTH)}, date="2026-03-05T11:00:00+00:00")
    incremental = timelines(repo.root)
    assert incremental == fresh(repo.root)
    timelines(repo.root)
    repo.git("reset", "-q", "--hard", "HEAD~3")
    assert timelines(repo.root) == fresh(repo.root)
    cache(repo.root).write_bytes(b"{not json")
    assert timelines(repo.root) == fresh(repo.root)


def test_a_kept_walk_gives_the_same_timelines_and_walks_no_commit(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    story(repo)
    expected = fresh(repo.root)
    assert timelines(repo.root) == expected  # walks, and keeps the walks
    assert walks(repo.root).exists()

    def no_step(*args: object) -> None:
        raise AssertionError("walked a commit")

    with monkeypatch.context() as patched:
        patched.setattr(timeline, "_step", no_step)
        assert timelines(repo.root) == expected  # every walk taken from the record


def test_after_new_commits_only_they_are_walked(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    story(repo)
    timelines(repo.root)
    repo.commit("edit", {HOT: hot("## Session\n- task y\n", AUTH)}, date="2026-03-05T11:00:00+00:00")
    repo.commit("edit 2", {HOT: hot("## Session\n- task z\n", AUTH)}, date="2026-03-06T11:00:00+00:00")
    stepped: list[str] = []
    real_step = timeline._step

    def counting(past: Any, commit: Any, *rest: Any) -> Any:
        stepped.append(commit.sha)
        return real_step(past, commit, *rest)

    with monkeypatch.context() as patched:
        patched.setattr(timeline, "_step", counting)
        incremental = timelines(repo.root)
    assert len(stepped) == 2 * 2  # the two new commits, for each of the two sections
    assert incremental == fresh(repo.root)
    assert [e["event"] for e in incremental[0]["events"]] == ["created", "edited", "edited", "edited"]


def test_a_stale_or_broken_record_is_walked_again(repo: GitRepo) -> None:
    story(repo)
    timelines(repo.root)
    expected = fresh(repo.root)
    timelines(repo.root)
    record = json.loads(walks(repo.root).read_bytes())
    record["key"] = "made by another squadmem"
    walks(repo.root).write_text(json.dumps(record))
    assert timelines(repo.root) == expected
    assert json.loads(walks(repo.root).read_bytes())["key"] != "made by another squadmem"
    walks(repo.root).write_bytes(b"{not json")
    assert timelines(repo.root) == expected
    repo.git("reset", "-q", "--hard", "HEAD~2")  # history rewritten: the records' commits are gone
    assert timelines(repo.root) == fresh(repo.root)


def test_each_section_keeps_one_walk_and_at_most_walks_kept(
    repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    story(repo)
    timelines(repo.root)
    repo.commit("edit", {HOT: hot("## Session\n- task y\n", AUTH)}, date="2026-03-05T11:00:00+00:00")
    timelines(repo.root)
    kept = json.loads(walks(repo.root).read_bytes())["walks"]
    assert sorted(state[3] for state, _, _ in kept) == ["picard/auth-tokens", "picard/session"]
    monkeypatch.setattr(timeline, "WALKS_KEPT", 1)
    repo.commit("edit 2", {HOT: hot("## Session\n- task z\n", AUTH)}, date="2026-03-06T11:00:00+00:00")
    with Repo(repo.root) as opened:
        timeline.timeline(opened, "picard/session")
    kept = json.loads(walks(repo.root).read_bytes())["walks"]
    assert [state[3] for state, _, _ in kept] == ["picard/session"]

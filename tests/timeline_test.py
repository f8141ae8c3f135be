from __future__ import annotations

import datetime as dt
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import GitRepo, run_squadmem

from squadmem.commands import timeline
from squadmem.gitio.repo import Repo
from squadmem.model import uses

HOT = ".squad/memory/hot/picard.md"
COLD = ".squad/memory/cold/picard.md"
WIKI = ".squad/memory/wiki/security.md"
D1 = "2026-03-01T12:00:00+00:00"
D2 = "2026-03-02T12:00:00+00:00"
D3 = "2026-03-03T12:00:00+00:00"
D4 = "2026-03-04T12:00:00+00:00"
D5 = "2026-03-05T12:00:00+00:00"

AUTH = "## Auth tokens\n\nRotate weekly.\n"
AUTH2 = "## Auth tokens\n\nRotate daily.\n"
OTHER = "## Deploy\n\nTag, push.\n"


def hot(*parts: str) -> str:
    return "# Hot\n\n" + "\n".join(parts)


def cold(*parts: str) -> str:
    return "# Cold\n\n" + "\n".join(parts)


def events(root: Path, ref: str) -> list[dict[str, Any]]:
    with Repo(root) as repo:
        data = timeline.timeline(repo, ref)
    found: list[dict[str, Any]] = data["events"]
    return found


def brief(found: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(e["event"], e["commit"], e["date"], e["from"], e["to"]) for e in found]


def test_history_created_edited_moved_used(repo: GitRepo) -> None:
    created = repo.commit("memory", {HOT: hot(AUTH, OTHER), COLD: cold()}, date=D1)
    edited = repo.commit("edit", {HOT: hot(AUTH2, OTHER)}, date=D2)
    repo.commit("other edit", {HOT: hot(AUTH2, OTHER + "- verify\n")}, date=D3)
    moved = repo.commit(
        'memory(picard): demote "Auth tokens" hot → cold\n\n'
        "Squad-Memory-Move: picard/auth-tokens hot -> cold",
        {HOT: hot(OTHER + "- verify\n"), COLD: cold(AUTH2)},
        date=D4,
    )
    used = repo.commit("fix\n\nSquad-Memory-Used: picard/auth-tokens", {"src/a.py": "x\n"}, date=D5)
    found = events(repo.root, "picard/auth-tokens")
    assert brief(found) == [
        ("created", created, "2026-03-01T12:00:00Z", None, None),
        ("edited", edited, "2026-03-02T12:00:00Z", None, None),
        ("moved", moved, "2026-03-04T12:00:00Z", HOT, COLD),
        ("used", used, "2026-03-05T12:00:00Z", None, None),
    ]
    assert {e["author"] for e in found} == {"Test Author"}
    assert found[2]["subject"] == 'memory(picard): demote "Auth tokens" hot → cold'


def test_history_hand_move_is_a_move(repo: GitRepo) -> None:
    repo.commit("memory", {HOT: hot(AUTH, OTHER), COLD: cold(OTHER.replace("Deploy", "Old"))}, date=D1)
    moved = repo.commit(
        "by hand", {HOT: hot(OTHER), COLD: "# Cold\n\nnotes\n\n\n" + AUTH + "\n\n## Old\n"}, date=D2
    )
    assert brief(events(repo.root, "Auth tokens"))[1] == ("moved", moved, "2026-03-02T12:00:00Z", HOT, COLD)


def test_history_move_to_the_wiki_follows_the_new_id(repo: GitRepo) -> None:
    repo.commit("memory", {HOT: hot(AUTH, OTHER)}, date=D1)
    moved = repo.commit("archive", {HOT: hot(OTHER), WIKI: "# Security\n\n" + AUTH}, date=D2)
    with Repo(repo.root) as r:
        data = timeline.timeline(r, "wiki:security/auth-tokens")
    assert data["ids"] == ["picard/auth-tokens", "wiki:security/auth-tokens"]
    assert [e["event"] for e in data["events"]] == ["created", "moved"]
    assert data["events"][1]["commit"] == moved


def test_history_branch_edit_is_dated_by_the_branch_commit(repo: GitRepo) -> None:
    repo.commit("memory", {HOT: hot(AUTH, OTHER)}, date=D1)
    repo.git("checkout", "-q", "-b", "feature")
    edited = repo.commit("edit on feature", {HOT: hot(AUTH2, OTHER)}, date=D2)
    repo.git("checkout", "-q", "main")
    repo.commit("main", {"src/a.py": "x\n"}, date=D3)
    repo.git("merge", "-q", "--no-ff", "--no-edit", "feature", date=D4)
    assert brief(events(repo.root, "picard/auth-tokens"))[1] == (
        "edited",
        edited,
        "2026-03-02T12:00:00Z",
        None,
        None,
    )


def test_history_pending_and_uncommitted(repo: GitRepo) -> None:
    repo.commit("memory", {HOT: hot(AUTH, OTHER)}, date=D1)
    uses.record(repo.root / ".git" / "squadmem", ["picard/auth-tokens"], dt.datetime.fromisoformat(D2))
    repo.write(HOT, hot(AUTH2, OTHER))
    assert [(e["event"], e["date"]) for e in events(repo.root, "picard/auth-tokens")] == [
        ("created", "2026-03-01T12:00:00Z"),
        ("pending", "2026-03-02T12:00:00Z"),
        ("uncommitted", None),
    ]


def test_history_shallow_clone_marks_the_boundary(repo: GitRepo, tmp_path: Path) -> None:
    repo.commit("memory", {HOT: hot(AUTH, OTHER)}, date=D1)
    tip = repo.commit("code", {"a": "1"}, date=D2)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo.root}", str(clone)], check=True)
    assert brief(events(clone, "picard/auth-tokens")) == [
        ("boundary", tip, "2026-03-02T12:00:00Z", None, None)
    ]


def test_history_cli_text_and_json(repo: GitRepo) -> None:
    repo.commit("memory", {HOT: hot(AUTH, OTHER), COLD: cold()}, date=D1)
    repo.commit("move", {HOT: hot(OTHER), COLD: cold(AUTH)}, date=D2)
    text = run_squadmem(repo.root, "history", "picard/auth-tokens")
    assert text.returncode == 0, text.stderr
    assert text.stdout.splitlines()[0] == f"picard/auth-tokens: Auth tokens (cold, {COLD})"
    assert "moved hot/picard → cold/picard" in text.stdout
    data = json.loads(run_squadmem(repo.root, "history", "Auth tokens", "--json").stdout)
    assert set(data) == {"id", "title", "tier", "file", "ids", "events"}
    assert set(data["events"][0]) == {
        "event",
        "commit",
        "date",
        "author",
        "subject",
        "file",
        "from",
        "to",
        "id",
    }


@pytest.mark.parametrize("ref", ["picard/nope", "Nope"])
def test_history_unknown_id_exits_2_and_changes_nothing(repo: GitRepo, ref: str) -> None:
    repo.commit("memory", {HOT: hot(AUTH, OTHER)}, date=D1)
    before = repo.snapshot()
    done = run_squadmem(repo.root, "history", ref)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"squadmem: no section has the id or heading {ref!r}",
        "hint: see the ids with: squadmem list",
    ]
    assert repo.snapshot() == before

"""``recall --beyond-spawn``: what a spawn for the query holds is left out, the rest ranked as before."""

from __future__ import annotations

import json

import pytest
from conftest import GitRepo, squadmem

HOT = ".squad/memory/hot/picard.md"
COLD = ".squad/memory/cold/picard.md"
ARGS = ("--no-record", "--no-logs")


def _cold(count: int) -> str:
    """Notes that all name the vault and rotation, each about 400 B: a 4 KB spawn holds some, not all."""
    return "# Cold\n\n" + "".join(
        f"## Vault note {n}\n2026-01-{n + 1:02d}: rotate the vault keys, step {n}. " + "detail " * 48 + "\n"
        for n in range(count)
    )


@pytest.fixture
def memory(repo: GitRepo) -> GitRepo:
    hot = "# Hot\n\n## Core Context\n<!-- squadmem: pin -->\nPicard owns the vault.\n"
    repo.commit("memory", {HOT: hot, COLD: _cold(24)}, date="2026-03-01T12:00:00Z")
    return repo


def _ids(out: str) -> list[str]:
    return [h["id"] for h in json.loads(out)["sections"]]


def test_the_sections_the_spawn_holds_are_left_out_and_the_rest_keep_their_order(memory: GitRepo) -> None:
    task = "rotate the vault keys"
    code, out, _ = squadmem(memory, "context", "--agent", "picard", "--task", task, "--json")
    held = json.loads(out)["task"]["held"]
    assert code == 0 and "picard/core-context" in held and len(held) > 3
    code, out, _ = squadmem(memory, "recall", task, "--agent", "picard", "--limit", "100", "--json", *ARGS)
    everything = _ids(out)
    code, out, _ = squadmem(memory, "recall", task, "--agent", "picard", "--beyond-spawn", "--json", *ARGS)
    data = json.loads(out)
    assert code == 0 and data["spawn_held"] == len(held)
    assert _ids(out) == [i for i in everything if i not in held][:5]
    assert data["more_sections"] == len([i for i in everything if i not in held]) - 5


def test_the_text_says_what_was_left_out(memory: GitRepo) -> None:
    code, out, _ = squadmem(
        memory, "recall", "rotate the vault keys", "-a", "picard", "--beyond-spawn", *ARGS
    )
    assert code == 0
    assert "(left out: the " in out and " section(s) a spawn for these words holds)" in out


def test_when_the_spawn_holds_every_match_recall_says_so(repo: GitRepo) -> None:
    repo.commit("memory", {HOT: "# Hot\n\n## Vault\nRotate the vault keys.\n"}, date="2026-03-01T12:00:00Z")
    code, out, _ = squadmem(repo, "recall", "vault keys", "-a", "picard", "--beyond-spawn", *ARGS)
    assert code == 0
    assert (
        out
        == "nothing in memory matches 'vault keys' beyond the 1 section(s) a spawn for these words holds\n"
    )


def test_recall_records_only_what_it_shows(memory: GitRepo) -> None:
    before = memory.snapshot()
    code, out, _ = squadmem(memory, "recall", "vault keys", "-a", "picard", "--beyond-spawn", "--json")
    data = json.loads(out)
    assert code == 0 and data["used"] == _ids(out)
    assert memory.snapshot() == before  # uses are pending in .git/squadmem, no file of the work tree


def test_log_lines_alone_still_say_what_was_left_out(repo: GitRepo) -> None:
    log = ".squad/memory/log/2026-03-01.md"
    files = {
        HOT: "# Hot\n\n## Vault\nRotate the vault keys.\n",
        log: "# Daily log 2026-03-01\n\n- 09:00 [picard] vault\n",
    }
    repo.commit("memory", files, date="2026-03-01T12:00:00Z")
    code, out, _ = squadmem(repo, "recall", "vault", "-a", "picard", "--beyond-spawn", "--no-record")
    assert code == 0
    assert out.splitlines() == [
        "(left out: the 1 section(s) a spawn for these words holds)",
        "",
        ".squad/memory/log/2026-03-01.md:3: - 09:00 [picard] vault",
    ]

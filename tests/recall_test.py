from __future__ import annotations

import json

import pytest
from conftest import GitRepo, squadmem

from squadmem.commands import recall
from squadmem.model import uses
from squadmem.model.errors import SquadmemError

FILES = {
    ".squad/memory/hot/picard.md": (
        "# Hot\n\n## Auth tokens\nUse JWT, rotate keys weekly.\n## Index → Deeper Tiers\n- key\n"
    ),
    ".squad/memory/cold/picard.md": "# Cold\n\n## Key rotation\nRotate signing keys; keys live in vault.\n",
    ".squad/memory/archive/worf.md": "# Archive\n\n## Old VPN\nkeys for the vpn\n",
    ".squad/memory/log/2026-03-01.md": "# Daily log 2026-03-01\n\n- 09:00 [picard] rotate keys today\n",
}


DAY = "2026-03-01T12:00:00+00:00"


@pytest.fixture
def memory(repo: GitRepo) -> GitRepo:
    repo.commit("memory", FILES, date="2026-03-01T12:00:00+00:00")
    return repo


def test_recall_ranks_the_sections_holding_more_words_first_and_titles_double(memory: GitRepo) -> None:
    """Any word finds a section; the one holding both words (one in its title) comes first."""
    code, out, _ = squadmem(memory, "recall", "rotat key", "--json", "--no-record", "--no-logs")
    hits = json.loads(out)["sections"]
    assert code == 0 and [h["id"] for h in hits] == [
        "picard/key-rotation",
        "picard/auth-tokens",
        "worf/old-vpn",
    ]
    assert hits[0]["score"] > hits[1]["score"]
    code, out, _ = squadmem(memory, "recall", "jwt vpn", "--json", "--no-record", "--no-logs")
    assert sorted(h["id"] for h in json.loads(out)["sections"]) == ["picard/auth-tokens", "worf/old-vpn"]
    code, out, _ = squadmem(memory, "recall", "kubernetes pods", "--json", "--no-record", "--no-logs")
    assert json.loads(out)["sections"] == []


def test_a_task_named_by_a_slug_finds_the_sections_holding_its_parts(memory: GitRepo) -> None:
    """Squad names a task ``picard-key-vault``: no section holds the three words in a row, nor inside
    a longer word; its parts then find the sections about keys and the vault."""
    args = ("--json", "--no-record", "--no-logs")
    code, out, _ = squadmem(memory, "recall", "picard-key-vault", *args)
    ids = [h["id"] for h in json.loads(out)["sections"]]
    assert code == 0 and ids[0] == "picard/key-rotation"
    assert set(ids) >= {"picard/auth-tokens", "worf/old-vpn"}
    # a joined word held whole is found whole, its parts not asked for
    code, out, _ = squadmem(memory, "recall", "key-rotation", *args)
    assert [h["id"] for h in json.loads(out)["sections"]] == ["picard/key-rotation"]
    # parts that are stop words alone still find nothing
    code, out, _ = squadmem(memory, "recall", "to-the", *args)
    assert json.loads(out)["sections"] == []


def test_recall_skips_the_index(repo: GitRepo) -> None:
    """The Index lists other sections' titles; matching it would only echo them."""
    repo.commit("m", {".squad/memory/hot/picard.md": "## Index → Deeper Tiers\n- key rotation\n"}, date=DAY)
    code, out, _ = squadmem(repo, "recall", "key", "--json", "--no-record")
    assert code == 0 and json.loads(out)["sections"] == []


def test_recall_records_uses_of_what_it_shows(memory: GitRepo) -> None:
    code, out, _ = squadmem(memory, "recall", "keys", "--limit", "2", "--now", "2026-03-02T08:00:00Z")
    assert code == 0
    assert "(+1 more sections; raise --limit to see them)" in out
    assert ".squad/memory/log/2026-03-01.md:3: - 09:00 [picard] rotate keys today" in out
    pending = uses.pending(memory.root / ".git" / "squadmem")
    assert len(pending) == 2


def test_recall_json_and_filters(memory: GitRepo) -> None:
    code, out, _ = squadmem(memory, "recall", "keys", "--agent", "worf", "--json", "--no-logs", "--no-record")
    data = json.loads(out)
    assert code == 0
    assert [s["id"] for s in data["sections"]] == ["worf/old-vpn"]
    assert data["logs"] == []
    assert data["used"] == []
    assert not (memory.root / ".git" / "squadmem" / "pending-uses.json").exists()


def test_recall_nothing_found(memory: GitRepo) -> None:
    code, out, _ = squadmem(memory, "recall", "kubernetes")
    assert code == 0
    assert out == "nothing in memory matches 'kubernetes'\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("   ",), "squadmem: recall needs a query"),
        (("keys", "--tier", "tepid"), "squadmem: unknown tier 'tepid'"),
        (("keys", "--limit", "0"), "squadmem: --limit 0: must be 1 to 1000000"),
        (("keys", "--limit", str(10**23)), f"squadmem: --limit {10**23}: must be 1 to 1000000"),
        (("keys", "--agent", "../x"), "squadmem: invalid agent name '../x'"),
        (("keys", "--beyond-spawn"), "squadmem: --beyond-spawn needs --agent: whose spawn?"),
        (
            ("keys", "--beyond-spawn", "--agent", "nobody"),
            "squadmem: agent nobody: no tier file belongs to this agent",
        ),
    ],
)
def test_recall_bad_input_exits_2_and_changes_nothing(
    memory: GitRepo, args: tuple[str, ...], message: str
) -> None:
    before = memory.snapshot()
    code, _, err = squadmem(memory, "recall", *args)
    assert code == 2
    assert err.splitlines()[0] == message
    assert memory.snapshot() == before


def test_words_refuses_blank() -> None:
    with pytest.raises(SquadmemError):
        recall.words(" \t")

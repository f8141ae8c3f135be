from __future__ import annotations

import json

import pytest
from conftest import GitRepo, squadmem

from squadmem.commands import context
from squadmem.engine import catalog
from squadmem.model import uses
from squadmem.model.places import SQUAD_PLACES

HOT = ".squad/memory/hot/picard.md"
COLD = ".squad/memory/cold/picard.md"
WIKI = ".squad/memory/wiki/security.md"
FILES = {
    HOT: "# Hot memory: picard\n<!-- for people -->\n\n## Session\n- **Task:** ship\n## Notes\nkeep\n",
    COLD: "# Cold\n\n## 2026-02-01: auth\nchose JWT\n## 2026-02-02: db\nchose pg\n",
    WIKI: "# Wiki\n\n## Threat model\nSTRIDE\n",
}


@pytest.fixture
def memory(repo: GitRepo) -> GitRepo:
    repo.commit("memory", FILES, date="2026-03-01T12:00:00+00:00")
    return repo


def test_context_default_is_hot_only_without_header(memory: GitRepo) -> None:
    code, out, err = squadmem(memory, "context", "--agent", "picard", "--now", "2026-03-02")
    assert code == 0
    assert out == (
        "## Memory Context\n\n### Hot (current session)\n\n## Session\n- **Task:** ship\n## Notes\nkeep\n"
    )
    assert "for people" not in out
    assert err.startswith(f"memory context: {len(out.encode())} bytes, about ")
    assert uses.pending(memory.root / ".git" / "squadmem") == {}


def test_context_hot_load_is_not_a_use(memory: GitRepo) -> None:
    """A spawn's automatic hot load must not count as a use, or nothing in hot would ever age."""
    squadmem(memory, "context", "--agent", "picard")
    assert not (memory.root / ".git" / "squadmem" / "pending-uses.json").exists() or not uses.pending(
        memory.root / ".git" / "squadmem"
    )


def test_context_include_cold_adds_it_and_records_no_use(memory: GitRepo) -> None:
    code, out, _ = squadmem(memory, "context", "--agent", "picard", "--include-cold")
    assert code == 0
    assert (
        "### Cold (summarized history)\n\n## 2026-02-01: auth\nchose JWT\n## 2026-02-02: db\nchose pg\n"
        in out
    )
    assert uses.pending(memory.root / ".git" / "squadmem") == {}


def test_context_include_wiki_and_section_record_uses(memory: GitRepo) -> None:
    args = ["context", "-a", "picard", "--include-wiki", "security", "--include", "picard/2026-02-02-db"]
    code, out, err = squadmem(memory, *args, "--now", "2026-03-02T10:00:00Z")
    assert code == 0
    assert "### Wiki: security\n\n## Threat model\nSTRIDE\n" in out
    assert "### Sections from deeper tiers\n\n## 2026-02-02: db\nchose pg\n" in out
    assert "recorded 2 use(s)" in err
    pending = uses.pending(memory.root / ".git" / "squadmem")
    assert sorted(pending) == ["picard/2026-02-02-db", "wiki:security/threat-model"]


def test_context_no_record_flag(memory: GitRepo) -> None:
    code, _, _ = squadmem(memory, "context", "-a", "picard", "--include-wiki", "security", "--no-record")
    assert code == 0
    assert uses.pending(memory.root / ".git" / "squadmem") == {}


def test_context_json(memory: GitRepo) -> None:
    code, out, _ = squadmem(memory, "context", "-a", "picard", "--json", "--include-cold")
    data = json.loads(out)
    assert code == 0
    assert data["bytes"] == len(data["text"].encode())
    assert [p["what"] for p in data["parts"]] == ["hot", "cold"]


@pytest.mark.parametrize(("name", "hint"), [("worf", "hint: agents here: ")])  # "Picard" is picard
def test_context_refuses_an_agent_with_no_tier_files(memory: GitRepo, name: str, hint: str) -> None:
    """Regression: `context --agent Scribe` / `--agent nope` printed "(no hot memory yet)" with exit 0."""
    code, _, err = squadmem(memory, "context", "-a", name)
    assert code == 2
    assert err.splitlines()[0] == f"squadmem: agent {name}: no tier file belongs to this agent"
    assert err.splitlines()[1].startswith(hint)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--include-wiki", "nope"), "squadmem: no wiki page .squad/memory/wiki/nope.md"),
        (("--include-wiki", "../etc"), "squadmem: invalid topic name '../etc'"),
        (("--include", "Nothing"), "squadmem: no section has the id or heading 'Nothing'"),
    ],
)
def test_context_bad_input_exits_2_and_changes_nothing(
    memory: GitRepo, args: tuple[str, ...], message: str
) -> None:
    before = memory.snapshot()
    code, out, err = squadmem(memory, "context", "-a", "picard", *args)
    assert code == 2
    assert out == ""
    assert err.splitlines()[0] == message
    assert memory.snapshot() == before
    assert not (memory.root / ".git" / "squadmem" / "pending-uses.json").exists()


def test_build_is_pure_and_keeps_section_bytes() -> None:
    mem = catalog.from_texts({HOT: "## A\r\nx  \r\n## B\ny"}, SQUAD_PLACES)
    text, parts, used = context.build(mem, "picard")
    assert "## A\r\nx  \r\n## B\ny\n" in text
    assert parts == [("hot", len("## A\r\nx  \r\n## B\ny\n"))]
    assert used == []


def test_a_pinned_section_demoted_by_hand_is_cold_memory_without_a_warning(repo: GitRepo) -> None:
    """Regression: after `demote` of a small pinned section, every `context` warned it was "pinned
    but too large for hot" (73 B) and carried it; `report` recommended shortening it. Only a pinned
    section that would take hot over hot.max_bytes is carried (a Squad Core Context); one that fits
    was put in cold by hand and is cold memory like any other."""
    pinned = "## Rules\n<!-- squadmem: pin -->\nalways pair on deploys\n"
    repo.commit(
        "memory", {HOT: "# Hot memory: picard\n\n" + pinned + "\n## Notes\nn\n"}, date="2026-03-01T10:00:00Z"
    )
    assert squadmem(repo, "demote", "picard/rules")[0] == 0
    code, out, err = squadmem(repo, "context", "--agent", "picard")
    assert code == 0
    assert "too large" not in err and "warning" not in err
    assert "always pair" not in out and "## Notes" in out
    code, out, _ = squadmem(repo, "context", "--agent", "picard", "--include-cold")
    assert "always pair on deploys" in out
    code, out, err = squadmem(repo, "context", "--agent", "picard", "--task", "pair on deploys")
    assert (code, "warning" in err) == (0, False)
    assert "always pair on deploys" in out  # found for the task like any cold section
    assert "too large" not in squadmem(repo, "report")[1]

from __future__ import annotations

import json

import pytest
from conftest import GitRepo
from conftest import squadmem as cli

from squadmem.commands import migrate
from squadmem.model import sections, squad
from squadmem.model.layout import MEMORY_DIR

OLD = "2025-01-10T09:00:00+00:00"
BASE = "2026-03-01T08:00:00+00:00"
NOW = "2026-03-02T08:00:00+00:00"
PICARD = ".squad/agents/picard/history.md"
DATA = ".squad/agents/data/history.md"
COLD_P = f"{MEMORY_DIR}/cold/picard.md"
COLD_D = f"{MEMORY_DIR}/cold/data.md"
ARCH_D = f"{MEMORY_DIR}/archive/data.md"  # an entry a year old lands in the archive
WIKI = f"{MEMORY_DIR}/wiki/decisions.md"
P_SECTIONS = (
    "## Learnings\n\n<!-- Append new learnings below. -->\n\n### 2025-01-09: auth\n- tokens live 15 min\n\n",
    "## Notes\r\n```\n## not a heading\n```\r\n",
)
D_SECTIONS = ("## Learnings\n- the warp core is in src/warp.py\n",)
PICARD_TEXT = "# Project Context\n\n- **Owner:** someone\n\n" + "".join(P_SECTIONS)
DATA_TEXT = "# Project Context\n" + "".join(D_SECTIONS)
DECISIONS_H3 = (
    "# Decisions\n\n## Active Decisions\n\n"
    "### 2026-02-01: Use vault\n**By:** picard\n**What:** keys in vault\n\n"
    "### 2026-02-02: Tabs\n```\n### not an entry\n```\n"
)


def squad_tree(repo: GitRepo, decisions: str = DECISIONS_H3) -> None:
    repo.commit(
        "squad init", {PICARD: PICARD_TEXT, DATA: DATA_TEXT, ".squad/decisions.md": decisions}, date=OLD
    )
    repo.commit("app", {"src/app.py": "print(1)\n"}, date=BASE)


def cold_sections(repo: GitRepo, rel: str) -> tuple[str, ...]:
    return tuple(s.text for s in sections.split(repo.read(rel)).sections)


def tier_texts(repo: GitRepo) -> list[str]:
    return [
        s.text
        for p in sorted((repo.root / MEMORY_DIR).rglob("*.md"))
        if p.parent.name in ("hot", "cold", "archive", "wiki")
        for s in sections.split(p.read_bytes().decode()).sections
    ]


def test_every_entry_lands_byte_for_byte_in_one_commit(repo: GitRepo) -> None:
    squad_tree(repo)
    code, _, err = cli(repo, "migrate", "squad", "--now", NOW)
    assert code == 0, err
    got = tier_texts(repo)
    wanted = [
        e.text
        for rel, text in ((PICARD, PICARD_TEXT), (DATA, DATA_TEXT), (".squad/decisions.md", DECISIONS_H3))
        for e in squad.entries(rel, text)
    ]
    assert sorted(got) == sorted(wanted)
    # each ### learning is a section of its own, its body byte for byte
    assert "## 2025-01-09: auth\n- tokens live 15 min\n\n" in got
    wiki = sections.split(repo.read(WIKI)).sections
    assert [s.text for s in wiki] == [
        "## 2026-02-01: Use vault\n<!-- squadmem: kind=decision -->\n"
        "**By:** picard\n**What:** keys in vault\n\n",
        "## 2026-02-02: Tabs\n<!-- squadmem: kind=decision -->\n```\n### not an entry\n```\n",
    ]
    assert repo.git("log", "-1", "--format=%s").strip() == f"memory: intake {len(wanted)} Squad entries"
    changed = set(repo.git("show", "--name-only", "--format=", "HEAD").split())
    assert changed <= {
        f"{MEMORY_DIR}/hot/picard.md",  # picard's Project Context: standing context, pinned in hot
        COLD_P,
        COLD_D,
        WIKI,
        f"{MEMORY_DIR}/archive/picard.md",
        f"{MEMORY_DIR}/archive/data.md",
        f"{MEMORY_DIR}/intake.tsv",
    }
    assert repo.read(PICARD) == PICARD_TEXT  # originals untouched
    assert repo.git("status", "--porcelain") == ""


def test_second_run_is_a_no_op(repo: GitRepo) -> None:
    squad_tree(repo)
    assert cli(repo, "migrate", "squad", "--now", NOW)[0] == 0
    before = repo.snapshot()
    code, out, _ = cli(repo, "migrate", "squad", "--now", NOW)
    assert code == 0
    assert "nothing new" in out
    assert repo.snapshot() == before


def test_json(repo: GitRepo) -> None:
    squad_tree(repo)
    code, out, err = cli(repo, "migrate", "squad", "--json", "--now", NOW)
    assert code == 0, err
    data = json.loads(out)
    assert data["taken"] == len(data["entries"]) == 7
    assert {e["source"] for e in data["entries"]} == {PICARD, DATA, ".squad/decisions.md"}


def test_dry_run_changes_nothing(repo: GitRepo) -> None:
    squad_tree(repo)
    before = repo.snapshot()
    code, out, _ = cli(repo, "migrate", "squad", "--dry-run", "--now", NOW)
    assert code == 0
    assert "would take in 7 entries" in out
    assert repo.snapshot() == before


def test_remove_originals_keeps_the_header(repo: GitRepo) -> None:
    squad_tree(repo)
    code, out, err = cli(repo, "migrate", "squad", "--remove-originals", "--now", NOW)
    assert code == 0, err
    assert repo.read(PICARD) == "# Project Context\n\n- **Owner:** someone\n\n" + migrate.MARKER + "\n"
    assert repo.read(DATA) == "# Project Context\n" + migrate.MARKER + "\n"
    assert "commit it yourself" in out
    # the squadmem commit holds tier files only; the cut originals wait for the user's commit
    assert PICARD not in repo.git("show", "--name-only", "--format=", "HEAD")


def test_a_staged_file_stays_staged_and_out_of_the_commit(repo: GitRepo) -> None:
    squad_tree(repo)
    repo.write("src/app.py", "print(2)\n")
    repo.git("add", "src/app.py")
    assert cli(repo, "migrate", "squad", "--now", NOW)[0] == 0
    assert "src/app.py" not in repo.git("show", "--name-only", "--format=", "HEAD")
    assert repo.git("diff", "--cached", "--name-only").split() == ["src/app.py"]


def test_a_dirty_target_is_refused(repo: GitRepo) -> None:
    squad_tree(repo)
    repo.commit("cold", {ARCH_D: "# Archive: data\n"}, date=BASE)
    repo.write(ARCH_D, "# Archive: data\nedited\n")
    before = repo.snapshot()
    code, _, err = cli(repo, "migrate", "squad", "--now", NOW)
    assert code == 2
    assert "has uncommitted changes" in err
    assert repo.snapshot() == before


def test_no_squad_tree(repo: GitRepo) -> None:
    repo.commit("app", {"src/app.py": "print(1)\n"}, date=BASE)
    code, _, err = cli(repo, "migrate", "squad")
    assert code == 2
    assert "no .squad/agents/ or .squad/decisions.md here" in err


def test_a_team_with_decisions_and_no_agent_folder_is_taken_in(repo: GitRepo) -> None:
    repo.commit("squad", {".squad/decisions.md": DECISIONS_H3}, date=OLD)
    repo.commit("app", {"src/app.py": "print(1)\n"}, date=BASE)
    code, _, err = cli(repo, "migrate", "squad", "--now", NOW)
    assert code == 0, err
    wiki = repo.read(WIKI)
    assert "### not an entry" in wiki and "keys in vault" in wiki
    code, out, err = cli(repo, "verify")
    assert code == 0, out + err


def test_an_old_entry_keeps_its_date(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    squad_tree(repo)
    monkeypatch.setenv("GIT_AUTHOR_DATE", NOW)
    monkeypatch.setenv("GIT_COMMITTER_DATE", NOW)
    assert cli(repo, "migrate", "squad", "--now", NOW)[0] == 0
    code, out, err = cli(repo, "report", "--json", "--now", NOW)
    assert code == 0, err
    migrated = [s for s in json.loads(out)["sections"] if s["tier"] != "wiki"]
    assert migrated
    assert {s["last_used"][:10] for s in migrated} == {OLD[:10]}
    assert {s["last_use_kind"] for s in migrated} == {"content"}

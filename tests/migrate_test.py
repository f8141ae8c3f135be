from __future__ import annotations

import json
import shutil

import pytest
from conftest import GitRepo
from conftest import squadmem as cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from squadmem import migrate, sections
from squadmem.layout import MEMORY_DIR

OLD = "2025-01-10T09:00:00+00:00"
BASE = "2026-03-01T08:00:00+00:00"
NOW = "2026-03-02T08:00:00+00:00"
PICARD = ".squad/agents/picard/history.md"
DATA = ".squad/agents/data/history.md"
COLD_P = f"{MEMORY_DIR}/cold/picard.md"
COLD_D = f"{MEMORY_DIR}/cold/data.md"
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


def test_histories_and_decisions_move_byte_for_byte_in_one_commit(repo: GitRepo) -> None:
    squad_tree(repo)
    code, out, err = cli(repo, "migrate", "squad")
    assert code == 0, err
    assert cold_sections(repo, COLD_P) == P_SECTIONS
    assert cold_sections(repo, COLD_D) == D_SECTIONS
    assert repo.read(COLD_P).startswith("# Cold memory: picard\n")
    assert "Project Context" not in repo.read(COLD_P)
    wiki = sections.split(repo.read(WIKI)).sections
    assert [s.text for s in wiki] == [
        "## 2026-02-01: Use vault\n<!-- squadmem: kind=decision -->\n"
        "**By:** picard\n**What:** keys in vault\n\n",
        "## 2026-02-02: Tabs\n<!-- squadmem: kind=decision -->\n```\n### not an entry\n```\n",
    ]
    assert all(s.flags.kind == "decision" for s in wiki)
    subject = repo.git("log", "-1", "--format=%s")
    assert subject.strip() == "memory: migrate squad history (5 sections from 2 agents)"
    body = repo.git("log", "-1", "--format=%b")
    assert "picard: 2 section(s)" in body and "data: 1 section(s)" in body and "decisions: 2" in body
    assert set(repo.git("show", "--name-only", "--format=", "HEAD").split()) == {COLD_P, COLD_D, WIKI}
    assert repo.read(PICARD) == PICARD_TEXT  # originals untouched
    assert repo.git("status", "--porcelain") == ""
    assert "## Notes" in out


def test_second_run_is_a_no_op(repo: GitRepo) -> None:
    squad_tree(repo)
    assert cli(repo, "migrate", "squad")[0] == 0
    before = repo.snapshot()
    code, out, _ = cli(repo, "migrate", "squad")
    assert code == 0
    assert "nothing to migrate" in out
    assert repo.snapshot() == before


def test_one_agent_and_json(repo: GitRepo) -> None:
    squad_tree(repo)
    code, out, err = cli(repo, "migrate", "squad", "--agent", "data", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["moved"] == 3  # data's one section and the two decisions
    assert [s["name"] for s in data["sources"]] == ["data", "decisions"]
    assert not (repo.root / COLD_P).exists()


def test_dry_run_changes_nothing(repo: GitRepo) -> None:
    squad_tree(repo)
    before = repo.snapshot()
    code, out, _ = cli(repo, "migrate", "squad", "--dry-run")
    assert code == 0
    assert "would move 2 section(s) .squad/agents/picard/history.md" in out
    assert repo.snapshot() == before


def test_remove_originals_keeps_the_header(repo: GitRepo) -> None:
    squad_tree(repo)
    code, out, err = cli(repo, "migrate", "squad", "--remove-originals")
    assert code == 0, err
    assert repo.read(PICARD) == "# Project Context\n\n- **Owner:** someone\n\n" + migrate.MARKER + "\n"
    assert repo.read(DATA) == "# Project Context\n" + migrate.MARKER + "\n"
    assert cold_sections(repo, COLD_P) == P_SECTIONS
    assert "commit it yourself" in out
    # the squadmem commit holds tier files only; the cut originals wait for the user's commit
    assert PICARD not in repo.git("show", "--name-only", "--format=", "HEAD")


def test_a_staged_file_stays_staged_and_out_of_the_commit(repo: GitRepo) -> None:
    squad_tree(repo)
    repo.write("src/app.py", "print(2)\n")
    repo.git("add", "src/app.py")
    assert cli(repo, "migrate", "squad")[0] == 0
    assert "src/app.py" not in repo.git("show", "--name-only", "--format=", "HEAD")
    assert repo.git("diff", "--cached", "--name-only").split() == ["src/app.py"]


def test_a_dirty_target_is_refused(repo: GitRepo) -> None:
    squad_tree(repo)
    repo.commit("cold", {COLD_D: "# Cold memory: data\n"}, date=BASE)
    repo.write(COLD_D, "# Cold memory: data\nedited\n")
    before = repo.snapshot()
    code, _, err = cli(repo, "migrate", "squad")
    assert code == 2
    assert f"{COLD_D}: has uncommitted changes" in err
    assert repo.snapshot() == before


def test_no_squad_tree(repo: GitRepo) -> None:
    repo.commit("app", {"src/app.py": "print(1)\n"}, date=BASE)
    code, _, err = cli(repo, "migrate", "squad")
    assert code == 2
    assert "no .squad/agents/" in err


def test_an_old_section_keeps_its_date(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    squad_tree(repo)
    monkeypatch.setenv("GIT_AUTHOR_DATE", NOW)
    monkeypatch.setenv("GIT_COMMITTER_DATE", NOW)
    assert cli(repo, "migrate", "squad")[0] == 0
    code, out, err = cli(repo, "report", "--json", "--now", NOW)
    assert code == 0, err
    migrated = [s for s in json.loads(out)["sections"] if s["file"] == COLD_P]
    assert migrated
    assert {s["last_used"][:10] for s in migrated} == {OLD[:10]}
    assert {s["last_use_kind"] for s in migrated} == {"content"}


@pytest.mark.parametrize(
    ("text", "titles"),
    [
        ("# D\n\n## A\nx\n\n## B\ny\n", ["A", "B"]),
        ("# D\n\n### A\nx\n### B\ny\n", ["A", "B"]),
        ("# D\n\n## All\nintro\n### A\nx\n### B\ny\n", ["A", "B"]),
        ("# D\n\n## One\nno entries\n", ["One"]),
        ("# D\n\n## A\n### a1\n## B\n### b1\n", ["A", "B"]),
        ("# D\n```\n### no\n```\n", []),
    ],
)
def test_decision_entries(text: str, titles: list[str]) -> None:
    assert [t for t, _ in migrate.decision_entries(text)] == titles


def test_decision_entries_keep_the_bytes() -> None:
    entries = migrate.decision_entries("# D\r\n### A\r\nx\r\n\r\n### B\r\ny")
    assert entries == [("A", "x\r\n\r\n"), ("B", "y")]
    assert migrate.decision_section("A", "<!-- squadmem: pin -->\nx\n") == "## A\n<!-- squadmem: pin -->\nx\n"


_line = st.sampled_from(
    [
        "## A\n",
        "## B\r\n",
        "### c\n",
        "text\n",
        "\n",
        "- item\n",
        "```\n",
        "    ## code\n",
        "> ## quoted\n",
        "B\n---\n",
    ]
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.lists(_line, max_size=12), last=st.sampled_from(["", "tail"]))
def test_nothing_lost_nothing_duplicated(repo: GitRepo, body: list[str], last: str) -> None:
    history = "# Title\n\n" + "".join(body) + last
    if history.count("```") % 2:
        history += "```\n"  # an unclosed fence at the end would swallow nothing but is not Squad's
    repo.git("rm", "-rq", "--ignore-unmatch", ".squad")
    shutil.rmtree(repo.root / ".squad", ignore_errors=True)
    repo.commit("history", {PICARD: history}, date=BASE)
    code, _, err = cli(repo, "migrate", "squad")
    assert code == 0, err
    expected = "".join(s.text for s in sections.split(history).sections)
    cold = repo.root / COLD_P
    got = "".join(cold_sections(repo, COLD_P)) if cold.exists() else ""
    assert got == expected

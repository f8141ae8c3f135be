from __future__ import annotations

import datetime as dt
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import GitRepo, run_squadmem

from squadmem.cli.app import app
from squadmem.commands import report
from squadmem.gitio.repo import Repo

HOT = ".squad/memory/hot/picard.md"
COLD = ".squad/memory/cold/picard.md"
RIKER = ".squad/memory/hot/riker.md"
WIKI = ".squad/memory/wiki/security.md"
D1 = "2026-03-01T12:00:00+00:00"
D2 = "2026-03-05T12:00:00+00:00"
NOW = "2026-03-07T12:00:00+00:00"

AUTH = "## Auth tokens\n<!-- squadmem: pin -->\n\nRotate weekly.\n"
DEPLOY = "## Deploy checklist\n\n1. tag\n2. push\n"
OLD = "## Old incident\n\nThe outage of January.\n"

TOP_KEYS = {
    "squad_entries_not_taken_in",
    "schema",
    "now",
    "head",
    "shallow",
    "agent",
    "budgets",
    "files",
    "sections",
    "logs",
    "pending_uses",
    "unknown_ages",
    "recommendations",
}
FILE_KEYS = {
    "file",
    "tier",
    "name",
    "bytes",
    "lines",
    "tokens",
    "sections",
    "max_bytes",
    "max_lines",
    "over_budget",
    "fix",
}
SECTION_KEYS = {
    "id",
    "tier",
    "file",
    "title",
    "bytes",
    "lines",
    "tokens",
    "pinned",
    "kind",
    "last_used",
    "age_days",
    "last_use_commit",
    "last_use_kind",
    "uses",
    "due",
}
runner = CliRunner()


@pytest.fixture
def memory(repo: GitRepo) -> GitRepo:
    repo.commit(
        "memory",
        {
            HOT: f"# Hot memory: picard\n\n{AUTH}\n{DEPLOY}",
            COLD: f"# Cold memory: picard\n\n{OLD}",
            RIKER: "# Hot memory: riker\n\n## Warp core\n\nCheck it.\n",
            WIKI: "# Security\n\n## Key rotation\n<!-- squadmem: kind=decision -->\n\nWeekly.\n",
            ".squad/memory/log/2026-02-27.md": "# Log\n",
            ".squad/memory/log/2026-03-01.md": "# Log\n",
            ".squad/memory/log/notes.txt": "not a log\n",
        },
        date=D1,
    )
    repo.commit("deploy notes", {HOT: f"# Hot memory: picard\n\n{AUTH}\n{DEPLOY}- 3. verify\n"}, date=D2)
    return repo


def squadmem_json(root: Path, *args: str) -> dict[str, Any]:
    done = run_squadmem(root, "report", "--json", *args)
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def row(data: dict[str, Any], ident: str) -> dict[str, Any]:
    found: dict[str, Any] = next(r for r in data["sections"] if r["id"] == ident)
    return found


def test_report_json_has_the_documented_keys(memory: GitRepo) -> None:
    data = squadmem_json(memory.root, "--now", NOW)
    assert set(data) == TOP_KEYS
    assert all(set(f) == FILE_KEYS for f in data["files"])
    assert all(set(s) == SECTION_KEYS for s in data["sections"])
    assert set(data["logs"]) == {"count", "first", "last"}
    assert all(set(r) == {"command", "reason"} for r in data["recommendations"])
    assert (data["schema"], data["now"], data["head"], data["shallow"]) == (
        1,
        "2026-03-07T12:00:00Z",
        memory.head(),
        False,
    )


def test_report_ages_against_now(memory: GitRepo) -> None:
    data = squadmem_json(memory.root, "--now", NOW)
    first = memory.git("rev-list", "--max-parents=0", "HEAD").strip()
    assert row(data, "picard/auth-tokens") == {
        "id": "picard/auth-tokens",
        "tier": "hot",
        "file": HOT,
        "title": "Auth tokens",
        "bytes": len(AUTH) + 1,  # with the blank line before the next heading
        "lines": 5,
        "tokens": (len(AUTH) + 1 + 3) // 4,
        "pinned": True,
        "kind": None,
        "last_used": "2026-03-01T12:00:00Z",
        "age_days": 6.0,
        "last_use_commit": first,
        "last_use_kind": "content",
        "uses": 0,
        "due": None,
    }
    deploy = row(data, "picard/deploy-checklist")
    assert (deploy["age_days"], deploy["last_use_commit"], deploy["due"]) == (2.0, memory.head(), None)
    assert row(data, "picard/old-incident")["age_days"] == 6.0


def test_report_due_and_recommendations_name_the_command(memory: GitRepo) -> None:
    data = squadmem_json(memory.root, "--now", "2026-04-15T12:00:00Z")
    assert row(data, "picard/deploy-checklist")["due"] == "demote"
    assert row(data, "picard/auth-tokens")["due"] is None  # pinned
    assert row(data, "picard/old-incident")["due"] == "expire"
    assert row(data, "wiki:security/key-rotation")["due"] is None  # the wiki is durable
    commands = [r["command"] for r in data["recommendations"]]
    assert commands == ["squadmem maintain --dry-run"] * 2
    assert "picard/deploy-checklist" in data["recommendations"][0]["reason"]
    assert "picard/old-incident" in data["recommendations"][1]["reason"]


def test_report_no_recommendation_when_in_shape(memory: GitRepo) -> None:
    data = squadmem_json(memory.root, "--now", NOW)
    assert data["recommendations"] == []


def test_report_budgets_over_are_flagged(memory: GitRepo) -> None:
    big = "\n".join(f"- line {i}" for i in range(120))
    memory.write(HOT, f"# Hot memory: picard\n\n{AUTH}\n## Big\n\n{big}\n")
    memory.write(COLD, "# Cold memory: picard\n\n" + OLD + "## Huge\n\n" + "x" * 13000 + "\n")
    data = squadmem_json(memory.root, "--now", NOW)
    files = {f["file"]: f for f in data["files"]}
    assert files[HOT]["over_budget"] and files[COLD]["over_budget"]
    assert (files[HOT]["max_bytes"], files[HOT]["max_lines"], files[COLD]["max_lines"]) == (4096, 100, None)
    assert files[WIKI]["max_bytes"] is None and not files[WIKI]["over_budget"]
    recs = {r["command"]: r["reason"] for r in data["recommendations"]}
    assert f"{HOT} is over its budget" in recs["squadmem maintain --dry-run"]
    by_hand = "squadmem demote picard/old-incident --to archive && squadmem demote picard/huge --to archive"
    assert by_hand in recs  # the huge section is too recent for any TTL


def test_report_logs_count_first_last(memory: GitRepo) -> None:
    assert squadmem_json(memory.root, "--now", NOW)["logs"] == {
        "count": 2,
        "first": "2026-02-27",
        "last": "2026-03-01",
    }


def test_report_agent_keeps_that_agents_files(memory: GitRepo) -> None:
    data = squadmem_json(memory.root, "--now", NOW, "--agent", "riker")
    assert [f["file"] for f in data["files"]] == [RIKER]
    assert [s["id"] for s in data["sections"]] == ["riker/warp-core"]
    assert data["agent"] == "riker"


@pytest.mark.parametrize(
    ("args", "first_line"),
    [
        (("--agent", "q"), "squadmem: agent q: no tier file belongs to this agent"),
        (("--agent", "../x"), "squadmem: invalid agent name '../x'"),
        (("--now", "yesterday-ish"), "squadmem: --now 'yesterday-ish': not a date in an ISO form"),
        (("--format", "yaml"), "squadmem: --format yaml: unknown format"),
        # regression: --json won over --format text without a word
        (("--json", "--format", "text"), "squadmem: --json and --format text ask for two formats"),
        (("--format", "markdown", "--json"), "squadmem: --json and --format markdown ask for two formats"),
    ],
    ids=["unknown-agent", "bad-agent", "bad-now", "bad-format", "json-and-text", "json-and-markdown"],
)
def test_report_bad_input_exits_2_and_changes_nothing(
    memory: GitRepo, args: tuple[str, ...], first_line: str
) -> None:
    before = memory.snapshot()
    done = run_squadmem(memory.root, "report", *args)
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == first_line
    assert done.stderr.splitlines()[1].startswith("hint: ")
    assert memory.snapshot() == before


def test_report_changes_nothing_in_the_work_tree(memory: GitRepo) -> None:
    memory.write(HOT, memory.read(HOT) + "\n## Draft\n\nnot committed\n")
    before = memory.snapshot()
    assert run_squadmem(memory.root, "report").returncode == 0
    assert memory.snapshot() == before


def test_report_text_and_markdown(memory: GitRepo) -> None:
    text = runner.invoke(app, ["-C", str(memory.root), "report", "--now", NOW])
    assert text.exit_code == 0
    assert "picard/deploy-checklist" in text.stdout and "2026-03-05 12:00" in text.stdout
    assert "Daily logs: 2, 2026-02-27 … 2026-03-01" in text.stdout
    assert "Recommendations: none" in text.stdout
    md = runner.invoke(app, ["-C", str(memory.root), "report", "--now", "2026-04-15", "--format", "markdown"])
    assert md.exit_code == 0
    assert "| `picard/deploy-checklist` | hot |" in md.stdout
    assert "- `squadmem maintain --dry-run`:" in md.stdout


def test_report_shallow_clone_flags_unknown(memory: GitRepo, tmp_path: Path) -> None:
    memory.commit("code", {"a": "1"}, date=D2)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{memory.root}", str(clone)], check=True)
    data = squadmem_json(clone, "--now", "2026-06-01")
    auth = row(data, "picard/auth-tokens")
    assert (auth["last_used"], auth["age_days"], auth["last_use_kind"], auth["due"]) == (
        None,
        None,
        "unknown",
        None,
    )
    assert data["shallow"] and data["unknown_ages"] == len(data["sections"])
    assert data["recommendations"][-1]["command"] == "git fetch --unshallow"
    text = run_squadmem(clone, "report", "--now", "2026-06-01").stdout
    assert "unknown (shallow)" in text


def test_report_in_a_linked_worktree_of_a_shallow_clone_says_shallow(memory: GitRepo, tmp_path: Path) -> None:
    """Regression: the worktree's own git dir has no ``shallow`` file (the clone's common dir has), and
    ``shallow`` was false while the ages came out unknown."""
    memory.commit("code", {"a": "1"}, date=D2)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{memory.root}", str(clone)], check=True)
    linked = tmp_path / "linked"
    subprocess.run(["git", "-C", str(clone), "worktree", "add", "-q", str(linked)], check=True)
    data = squadmem_json(linked, "--now", "2026-06-01")
    assert data["shallow"] and data["unknown_ages"] == len(data["sections"])
    assert data["recommendations"][-1]["command"] == "git fetch --unshallow"


def test_report_make_in_process(memory: GitRepo) -> None:
    with Repo(memory.root) as repo:
        data = report.make(repo, now=dt.datetime(2026, 3, 10, 12, tzinfo=dt.UTC))
    assert report.text(data).startswith("squadmem report: 2026-03-10T12:00:00Z")
    assert report.markdown(data).startswith("## squadmem report")


def _git_processes(root: Path, trace: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    with monkeypatch.context() as patched:
        patched.setenv("GIT_TRACE2_EVENT", str(trace))
        done = run_squadmem(root, "report", "--json")
    assert done.returncode == 0, done.stderr
    return sum(1 for line in trace.read_text().splitlines() if '"event":"start"' in line)


def test_report_git_processes_do_not_grow_with_history(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: never a git process per commit, however long the history."""
    counts = []
    for n in (5, 40):
        root = tmp_path / f"r{n}"
        subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
        work = GitRepo(root)
        for i in range(n):
            work.commit(f"c{i}", {HOT: f"# Hot\n\n## Note\n\n{i}\n", f"src/{i}.py": "x\n"}, date=D1)
        counts.append(_git_processes(root, tmp_path / f"r{n}.trace", monkeypatch))
    assert counts[0] == counts[1]

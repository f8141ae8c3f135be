"""`squadmem review`: a range's memory changes as a pull-request comment (Markdown or JSON)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from conftest import GitRepo, assert_refused

from squadmem.cli.app import app

HOT = ".squad/memory/hot/picard.md"
COLD = ".squad/memory/cold/picard.md"
LOG = ".squad/memory/log/2026-03-01.md"
D0 = "2026-03-01T09:00:00+00:00"
D1 = "2026-03-01T10:00:00+00:00"
AUTH = "## Auth tokens\nUse short-lived tokens.\n\n"
DEPLOY = "## Deploy | prod\nBlue/green.\n\n"
HOT0 = "# Hot memory: picard\n\n" + AUTH + DEPLOY
COLD0 = "# Cold memory: picard\n\n"
HOT_END = "# Hot memory: picard\n\n"
COLD_END = COLD0 + AUTH + DEPLOY.replace("green", "red")
SIZES = {"hot0": len(HOT0), "hot1": len(HOT_END), "cold0": len(COLD0), "cold1": len(COLD_END)}

runner = CliRunner()


def move_message(sid: str, source: str, destination: str, reason: str) -> str:
    return (
        f'memory(picard): demote "{sid}" {source} → {destination}\n\n{reason}\n\n'
        f"Squad-Memory-Move: {sid} {source} -> {destination}\nSquad-Memory-Reason: {reason}\n"
    )


@pytest.fixture
def branch(repo: GitRepo) -> tuple[GitRepo, dict[str, str]]:
    """main holds the memory; `work` adds a good move, a forged move, a log append and a late log edit."""
    repo.commit("memory", {HOT: HOT0, COLD: COLD0, LOG: "# log\n"}, date=D0)
    repo.git("switch", "-q", "-c", "work")
    shas = {
        "good": repo.commit(
            move_message("picard/auth-tokens", "hot", "cold", "stale 9d > 7d"),
            {HOT: "# Hot memory: picard\n\n" + DEPLOY, COLD: COLD0 + AUTH},
            date=D1,
        ),
        "forged": repo.commit(
            move_message("picard/deploy-prod", "hot", "cold", "over budget | lru"),
            {HOT: HOT_END, COLD: COLD_END},
            date=D1,
        ),
    }
    repo.commit("log", {LOG: "# log\n- 10:00 hello\n"}, date=D1)
    shas["late"] = repo.commit("late", {LOG: "# log\n- 10:00 hello!\n"}, date="2026-03-03T10:00:00+00:00")
    return repo, shas


def test_review_markdown(branch: tuple[GitRepo, dict[str, str]]) -> None:
    repo, shas = branch
    result = runner.invoke(app, ["-C", str(repo.root), "review", "main..work"])
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    assert text.startswith(
        "## squadmem review: `main..work`\n\n**✗ verified 4 commits (2 moves, 0 index refreshes, 2 log"
    )
    assert "| `picard/auth-tokens` Auth tokens | hot → cold | stale 9d > 7d | ✓ |" in text
    assert "| `picard/deploy-prod` Deploy \\| prod | hot → cold | over budget \\| lru | ✗ |" in text
    hot0, hot1, cold0, cold1 = SIZES.values()
    hot_lines = len((repo.root / HOT).read_text().splitlines())
    assert f"| `{HOT}` | {hot0} B → {hot1} B ({hot1 - hot0:+d}) | 4096 B, {hot_lines} / 100 lines ✓ |" in text
    assert f"| `{COLD}` | {cold0} B → {cold1} B ({cold1 - cold0:+d}) | 12288 B ✓ |" in text
    assert f"| `{LOG}` | 14 |" in text
    why = f"picard/deploy-prod arrived with content different from what left {HOT}"
    assert f"- `{shas['forged'][:7]}` `{COLD}`: {why}" in text
    assert f"- `{shas['late'][:7]}` `{LOG}`: changed after its day ended" in text


def test_review_json(branch: tuple[GitRepo, dict[str, str]]) -> None:
    repo, shas = branch
    result = runner.invoke(app, ["-C", str(repo.root), "review", "main..work", "--format", "json"])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert [(m["id"], m["verified"]) for m in data["moves"]] == [
        ("picard/deploy-prod", False),
        ("picard/auth-tokens", True),
    ]
    assert data["budgets"] == [
        {
            "file": COLD,
            "tier": "cold",
            "before": SIZES["cold0"],
            "after": SIZES["cold1"],
            "budget": 12288,
            "lines_before": data["budgets"][0]["lines_before"],
            "lines_after": data["budgets"][0]["lines_after"],
            "max_lines": None,
            "over": False,
        },
        {
            "file": HOT,
            "tier": "hot",
            "before": SIZES["hot0"],
            "after": SIZES["hot1"],
            "budget": 4096,
            "lines_before": data["budgets"][1]["lines_before"],
            "lines_after": data["budgets"][1]["lines_after"],
            "max_lines": 100,
            "over": False,
        },
    ]
    assert data["logs_appended"] == {LOG: len("- 10:00 hello\n")}
    assert {v["commit"] for v in data["violations"]} == {shas["forged"][:7], shas["late"][:7]}
    assert data["ok"] is False


def test_review_clean_range(repo: GitRepo) -> None:
    repo.commit("memory", {HOT: HOT0}, date=D0)
    repo.commit("other", {"a.txt": "a\n"}, date=D1)
    result = runner.invoke(app, ["-C", str(repo.root), "review", "HEAD~1..HEAD"])
    assert result.exit_code == 0
    assert (
        "**✓ verified 1 commit (0 moves, 0 index refreshes, 0 log changes): no violations**" in result.stdout
    )
    assert "No tier moves." in result.stdout
    assert "No hot or cold file changed size." in result.stdout
    assert "No daily log grew." in result.stdout
    assert result.stdout.rstrip().endswith("### Violations\n\nNone.")


def test_review_whole_history_budget_from_nothing(repo: GitRepo) -> None:
    repo.commit("memory", {HOT: HOT0}, date=D0)
    result = runner.invoke(app, ["-C", str(repo.root), "review", "HEAD", "--format", "json"])
    assert json.loads(result.stdout)["budgets"][0] == {
        "file": HOT,
        "tier": "hot",
        "before": None,
        "after": SIZES["hot0"],
        "budget": 4096,
        "lines_before": None,
        "lines_after": len(HOT0.splitlines()),
        "max_lines": 100,
        "over": False,
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("review", "HEAD", "--format", "html"), "squadmem: --format 'html': unknown format"),
        (("review", "nope..HEAD"), "squadmem: range 'nope..HEAD': git does not know it"),
    ],
)
def test_review_bad_input(repo: GitRepo, args: tuple[str, ...], message: str) -> None:
    repo.commit("memory", {HOT: HOT0}, date=D0)
    assert_refused(repo, *args, message=message)


def test_review_hot_file_over_its_line_budget_is_over(repo: GitRepo) -> None:
    """Regression: review judged hot files by bytes alone; 150 short lines passed as within budget."""
    repo.commit("memory", {HOT: HOT0}, date=D0)
    repo.commit("lines", {HOT: HOT0 + "x\n" * 150}, date=D1)
    result = runner.invoke(app, ["-C", str(repo.root), "review", "HEAD~1..HEAD", "--format", "json"])
    (hot,) = json.loads(result.stdout)["budgets"]
    assert hot["after"] < 4096 and hot["lines_after"] > 100
    assert hot["over"] is True


WIKI = ".squad/memory/wiki/auth.md"
ARCHIVE = ".squad/memory/archive/picard.md"


def test_review_lists_every_memory_commit_kind_with_bytes_per_tier(repo: GitRepo) -> None:
    """Regression: review showed moves only: no intake, migrate, session or wiki commit, no archive growth."""
    repo.commit("memory", {HOT: HOT0, COLD: COLD0, LOG: "# log\n"}, date=D0)
    base = repo.head()
    kinds = [
        ("move", move_message("picard/auth-tokens", "hot", "cold", "stale"), {COLD: COLD0 + AUTH}),
        (
            "restore",
            'memory(picard): restore "x"\n\nSquad-Memory-Move: picard/x history -> hot\n'
            f"Squad-Memory-Restore: {base}\n",
            {HOT: HOT0 + "## X\nx\n"},
        ),
        ("index", "memory(picard): index\n\nSquad-Memory-Index: picard\n", {HOT: HOT0 + "## X\nxy\n"}),
        ("intake", "memory: intake 1 Squad entry\n\nSquad-Memory-Intake: 1\n", {ARCHIVE: "# Archive\n"}),
        ("migrate", "memory(picard): migrate memory-tiers workspace\n", {LOG: "# log\n- 09:00 a\n"}),
        ("session", 'memory(picard): session start "task"\n', {LOG: "# log\n- 09:00 a\n- 09:01 b\n"}),
        ("wiki", 'memory(wiki:auth): write "Tokens"\n', {WIKI: "# Auth\n\n## Tokens\nshort\n"}),
        ("edit", "notes by hand", {HOT: HOT0}),
    ]
    shas = [repo.commit(message, files, date=D1) for _, message, files in kinds]
    repo.commit("code only", {"src/app.py": "print(1)\n"}, date=D1)
    result = runner.invoke(app, ["-C", str(repo.root), "review", f"{base}..HEAD", "--format", "json"])
    assert result.exit_code in (0, 1), result.stderr
    listed = json.loads(result.stdout)["memory_commits"]
    assert [(c["commit"], c["kind"]) for c in listed] == [
        (sha[:7], kind) for sha, (kind, _, _) in zip(shas, kinds, strict=True)
    ]
    assert listed[0]["added"] == {"cold": len(AUTH)}
    assert listed[3]["added"] == {"archive": len("# Archive\n")}
    assert listed[6]["added"] == {"wiki": len("# Auth\n\n## Tokens\nshort\n")}
    assert listed[7]["added"] == {"hot": -len("## X\nxy\n")}
    text = runner.invoke(app, ["-C", str(repo.root), "review", f"{base}..HEAD"]).stdout
    assert "### Memory commits" in text
    assert f'| `{shas[6][:7]}` | wiki | memory(wiki:auth): write "Tokens" |  |  |  | +24 B |  |' in text

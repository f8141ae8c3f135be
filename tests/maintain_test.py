from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import GitRepo
from conftest import squadmem as cli

from squadmem.engine import index
from squadmem.engine.writing import writer
from squadmem.gitio import questions
from squadmem.gitio.repo import Repo
from squadmem.model import templates
from squadmem.model.layout import MEMORY_DIR

HOT = f"{MEMORY_DIR}/hot/picard.md"
COLD = f"{MEMORY_DIR}/cold/picard.md"
ARCHIVE = f"{MEMORY_DIR}/archive/picard.md"
WIKI = f"{MEMORY_DIR}/wiki/security.md"
OLD = "2026-01-01T10:00:00+00:00"
NOW = "2026-02-20T12:00:00+00:00"


def seed(repo: GitRepo) -> None:
    repo.commit(
        "memory",
        {
            HOT: "# Hot\n\n## Session\n- task\n\n## Stale plan\nold\n\n",
            COLD: "# Cold\n\n## Auth tokens\n<!-- squadmem: kind=decision topic=security -->\n15 min\n\n"
            "## Kept\nk\n",
        },
        date=OLD,
    )
    repo.commit("recent", {HOT: repo.read(HOT) + "## Fresh\nnew\n"}, date="2026-02-19T12:00:00+00:00")
    repo.commit("use\n\nSquad-Memory-Used: picard/kept", date="2026-02-20T09:00:00+00:00")


def subjects(repo: GitRepo, rev_range: str) -> list[str]:
    return repo.git("log", "--reverse", "--format=%s", rev_range).splitlines()


# -- maintain ------------------------------------------------------------------------------------


def test_maintain_dry_run_prints_the_plan_and_changes_nothing(repo: GitRepo) -> None:
    seed(repo)
    before = repo.snapshot()
    code, out, _ = cli(repo, "maintain", "--dry-run", "--now", NOW)
    assert code == 0
    assert out.splitlines() == [
        "section             from → to             reason",
        "picard/stale-plan   hot → archive         ttl 50d > 30d",
        "picard/auth-tokens  cold → wiki:security  ttl 50d > 30d",
        "picard/kept         cold → hot            used 3h ago",
        f"index: rewrite the Index of {HOT} (2 line(s))",
        "dry run: 3 moves and 1 Index refresh planned; nothing changed",
    ]
    assert repo.snapshot() == before


def test_maintain_json_is_the_plan(repo: GitRepo) -> None:
    seed(repo)
    code, out, _ = cli(repo, "maintain", "--dry-run", "--json", "--now", NOW)
    data = json.loads(out)
    assert code == 0 and data["dry_run"] is True and data["commits"] == []
    assert [(m["id"], m["from"], m["to"], m["reason"]) for m in data["moves"]] == [
        ("picard/stale-plan", "hot", "archive", "ttl 50d > 30d"),
        ("picard/auth-tokens", "cold", "wiki:security", "ttl 50d > 30d"),
        ("picard/kept", "cold", "hot", "used 3h ago"),
    ]
    assert data["indexes"] == [{"agent": "picard", "file": HOT, "lines": 2}]
    assert set(data["moves"][0]) >= {"verb", "rule", "why", "last_used", "bytes", "source", "target"}


def test_maintain_executes_exactly_the_dry_run_plan(repo: GitRepo) -> None:
    seed(repo)
    _, planned, _ = cli(repo, "maintain", "--dry-run", "--json", "--now", NOW)
    base = repo.head()
    code, out, _ = cli(repo, "maintain", "--json", "--now", NOW)
    done = json.loads(out)
    assert code == 0
    assert done["moves"] == json.loads(planned)["moves"]
    assert [c["subject"] for c in done["commits"]] == subjects(repo, f"{base}..HEAD")
    assert subjects(repo, f"{base}..HEAD") == [
        'memory(picard): archive "Stale plan" hot → archive',
        'memory(picard): promote "Auth tokens" cold → wiki',
        'memory(picard): promote "Kept" cold → hot',
        "memory(picard): refresh index",
    ]


def test_maintain_commit_message_has_reason_and_trailers(repo: GitRepo) -> None:
    seed(repo)
    cli(repo, "maintain", "--now", NOW)
    message = repo.git("log", "-1", "--format=%B", "HEAD~3")
    assert message == (
        'memory(picard): archive "Stale plan" hot → archive\n\n'
        "unused 50 d > 30 d (cold.ttl_days): to the archive\n\n"
        "Squad-Memory-Move: picard/stale-plan hot -> archive\n"
        "Squad-Memory-Reason: ttl 50d > 30d\n\n"
    )
    assert repo.git("log", "-1", "--format=%(trailers:key=Squad-Memory-Index,valueonly)").strip() == "picard"


def test_maintain_index_commit_changes_only_the_index(repo: GitRepo) -> None:
    seed(repo)
    cli(repo, "maintain", "--now", NOW)
    assert repo.git("diff", "--name-only", "HEAD~1", "HEAD").split() == [HOT]
    before, after = repo.git("show", f"HEAD~1:{HOT}"), repo.read(HOT)
    assert index.current(before) is None
    assert after.startswith(before)
    assert after[len(before) :] == "\n" + (index.current(after) or "")  # set apart by a blank line
    assert after.endswith(
        f"- Stale plan — {MEMORY_DIR}/archive/picard.md (archive, 2026-01-01)\n"
        f"- security — {MEMORY_DIR}/wiki/security.md (wiki, 1 section, 2026-01-01)\n"
    )


def test_maintain_second_run_plans_nothing_and_verify_accepts_the_commits(repo: GitRepo) -> None:
    seed(repo)
    base = repo.head()
    cli(repo, "maintain", "--now", NOW)
    code, out, _ = cli(repo, "maintain", "--now", NOW)
    assert (code, out) == (0, "nothing to do: every section is where the rules want it\n")
    code, out, _ = cli(repo, "verify", f"{base}..HEAD")
    assert code == 0, out
    assert out.endswith("no violations\n")


def test_maintain_flags_override_tiers_toml(repo: GitRepo) -> None:
    seed(repo)
    repo.commit("settings", {f"{MEMORY_DIR}/tiers.toml": "[cold]\nttl_days = 90\n"}, date=OLD)
    _, out, _ = cli(repo, "maintain", "--dry-run", "--json", "--now", NOW)
    assert [m["reason"] for m in json.loads(out)["moves"]] == ["stale 50d > 7d", "used 3h ago"]
    _, out, _ = cli(repo, "maintain", "--dry-run", "--json", "--now", NOW, "--cold-ttl-days", "10")
    assert [m["reason"] for m in json.loads(out)["moves"]][:2] == ["ttl 50d > 10d", "ttl 50d > 10d"]
    _, out, _ = cli(repo, "maintain", "--dry-run", "--json", "--now", NOW, "--hot-stale-days", "60")
    assert all(m["from"] != "hot" for m in json.loads(out)["moves"])
    _, out, _ = cli(repo, "maintain", "--dry-run", "--json", "--now", NOW, "--promote-window-hours", "1")
    assert all(m["to"] != "hot" for m in json.loads(out)["moves"])
    _, out, _ = cli(repo, "maintain", "--dry-run", "--json", "--now", NOW, "--hot-max-bytes", "60")
    assert any(m["rule"] == "budget" for m in json.loads(out)["moves"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--agent", "../x"], "squadmem: invalid agent name '../x'"),
        (["--now", "someday"], "squadmem: --now 'someday': not a date in an ISO form"),
        (
            ["--hot-max-bytes", "-1"],
            "squadmem: --hot-max-bytes -1: must be a whole number from 0 to 1000000000, not -1",
        ),
    ],
)
def test_maintain_bad_input_is_refused_and_changes_nothing(
    repo: GitRepo, args: list[str], message: str
) -> None:
    seed(repo)
    before = repo.snapshot()
    code, _, err = cli(repo, "maintain", *args)
    assert code == 2
    assert err.splitlines()[0] == message
    assert repo.snapshot() == before


def test_maintain_agent_filter(repo: GitRepo) -> None:
    seed(repo)
    repo.commit("worf", {f"{MEMORY_DIR}/hot/worf.md": "## Old worf\nx\n"}, date=OLD)
    _, out, _ = cli(repo, "maintain", "--dry-run", "--json", "--agent", "worf", "--now", NOW)
    assert [m["id"] for m in json.loads(out)["moves"]] == ["worf/old-worf"]


def test_maintain_with_nothing_to_do_makes_no_commit(repo: GitRepo) -> None:
    repo.commit("memory", {HOT: "## Fresh\nx\n"}, date=NOW)
    head = repo.head()
    code, out, _ = cli(repo, "maintain", "--now", NOW)
    assert (code, repo.head()) == (0, head)
    assert "nothing to do" in out


# -- promote / demote ----------------------------------------------------------------------------


def test_demote_moves_one_section_down_one_tier(repo: GitRepo) -> None:
    seed(repo)
    code, out, _ = cli(repo, "demote", "Fresh")
    assert code == 0, out
    assert subjects(repo, "HEAD~2..HEAD") == [
        'memory(picard): demote "Fresh" hot → cold',
        "memory(picard): refresh index",
    ]
    assert repo.git("log", "-1", "--format=%B", "HEAD~1").endswith(
        "Squad-Memory-Move: picard/fresh hot -> cold\nSquad-Memory-Reason: manual\n\n"
    )
    assert "## Fresh\nnew\n" in repo.read(COLD)


def test_promote_counts_as_a_use_so_the_section_stays(repo: GitRepo) -> None:
    seed(repo)
    code, _, _ = cli(repo, "promote", "picard/auth-tokens")
    assert code == 0
    assert "Squad-Memory-Used: picard/auth-tokens" in repo.git("log", "-1", "--format=%B", "HEAD~1")
    assert "## Auth tokens" in repo.read(HOT)


def test_promote_to_the_tier_it_is_in_says_so_and_changes_nothing(repo: GitRepo) -> None:
    seed(repo)
    before = repo.snapshot()
    code, out, _ = cli(repo, "promote", "picard/fresh")
    assert (code, out) == (0, f"picard/fresh is already in hot ({HOT}): nothing to do\n")
    assert repo.snapshot() == before


def test_demote_from_the_archive_has_nowhere_to_go(repo: GitRepo) -> None:
    repo.commit("memory", {ARCHIVE: "## Deep\nx\n"}, date=OLD)
    before = repo.snapshot()
    code, out, _ = cli(repo, "demote", "picard/deep")
    assert (code, out) == (0, "picard/deep is in archive, the deepest tier: nothing to do\n")
    assert repo.snapshot() == before


def test_demote_to_the_wiki_uses_the_topic(repo: GitRepo) -> None:
    seed(repo)
    code, _, _ = cli(repo, "demote", "picard/kept", "--to", "wiki", "--topic", "ops")
    assert code == 0
    assert (
        repo.read(f"{MEMORY_DIR}/wiki/ops.md")
        == templates.tier_header("wiki", "ops", workspace=False) + "## Kept\nk\n"
    )
    assert "Squad-Memory-Move: picard/kept cold -> wiki:ops" in repo.git("log", "-1", "--format=%B", "HEAD~1")


def test_promote_creates_a_missing_hot_file_from_the_template(repo: GitRepo) -> None:
    repo.commit("memory", {f"{MEMORY_DIR}/cold/data.md": "## Runbook\nsteps\n"}, date=OLD)
    code, out, _ = cli(repo, "promote", "data/runbook")
    assert code == 0, out
    hot = repo.read(f"{MEMORY_DIR}/hot/data.md")
    assert hot == templates.tier_header("hot", "data", workspace=False) + "## Runbook\nsteps\n"
    assert repo.git("status", "--porcelain") == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["promote", "Auth"], "squadmem: no section has the id or heading 'Auth'"),
        (
            ["promote", "Notes"],
            "squadmem: 'Notes' is ambiguous: picard/notes (.squad/memory/hot/picard.md), ",
        ),
        (["promote", "picard/kept", "--to", "attic"], "squadmem: --to 'attic': not a tier"),
        (["demote", "picard/kept", "--topic", "x"], "squadmem: --topic goes with --to wiki only"),
        (["demote", "wiki:security/rule"], "squadmem: wiki:security/rule is in the wiki, whose sections"),
        (["demote", "picard/kept", "--to", "wiki", "--topic", "a/b"], "squadmem: invalid topic name 'a/b'"),
        (["demote", "picard/index-deeper-tiers"], "squadmem: picard/index-deeper-tiers is the Index of"),
    ],
)
def test_moves_by_hand_refuse_bad_names_and_change_nothing(
    repo: GitRepo, args: list[str], message: str
) -> None:
    repo.commit(
        "memory",
        {
            HOT: "## Notes\na\n\n## Auth tokens\nt\n\n## OAuth\no\n\n## Index → Deeper Tiers\n- x\n",
            COLD: "## Notes\nb\n\n## Kept\nk\n",
            WIKI: "## Rule\nr\n",
        },
        date=OLD,
    )
    before = repo.snapshot()
    code, _, err = cli(repo, *args)
    assert code == 2
    assert err.splitlines()[0].startswith(message)
    assert repo.snapshot() == before


# -- restore -------------------------------------------------------------------------------------


def test_restore_brings_back_a_deleted_section_from_the_last_commit_that_had_it(repo: GitRepo) -> None:
    seed(repo)
    had = repo.commit(
        "edit kept", {COLD: repo.read(COLD).replace("## Kept\nk\n", "## Kept\nk, edited\n")}, date=OLD
    )
    repo.commit("drop kept", {COLD: repo.read(COLD).replace("## Kept\nk, edited\n", "")}, date=OLD)
    code, out, _ = cli(repo, "restore", "picard/kept")
    assert code == 0, out
    message = repo.git("log", "-1", "--format=%B", "HEAD~1")
    assert message.startswith('memory(picard): restore "Kept" history → cold\n')
    assert "Squad-Memory-Move: picard/kept history -> cold\n" in message
    assert f"Squad-Memory-Restore: {had}\n" in message
    assert "Squad-Memory-Used: picard/kept" in message
    assert repo.read(COLD).endswith("## Kept\nk, edited\n")
    code, out, _ = cli(repo, "verify", "HEAD~2..HEAD")
    assert code == 0, out


def test_restore_at_a_revision_into_another_tier(repo: GitRepo) -> None:
    seed(repo)
    first = repo.git("rev-list", "--max-parents=0", "HEAD").strip()
    repo.commit("drop", {HOT: repo.read(HOT).replace("## Stale plan\nold\n\n", "")}, date=OLD)
    code, _, _ = cli(repo, "restore", "Stale plan", "--at", first[:8], "--to", "archive")
    assert code == 0
    assert repo.read(ARCHIVE).endswith("## Stale plan\nold\n\n")
    assert f"Squad-Memory-Restore: {first}" in repo.git("log", "-1", "--format=%B", "HEAD~1")


def test_restore_of_a_section_still_there_changes_nothing(repo: GitRepo) -> None:
    seed(repo)
    before = repo.snapshot()
    code, out, _ = cli(repo, "restore", "picard/kept")
    assert (code, out) == (0, f"picard/kept is in {COLD}: nothing to restore\n")
    assert repo.snapshot() == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["restore", "picard/never"],
            "squadmem: no commit on this branch had a section with the id or heading",
        ),
        (["restore", "picard/kept", "--at", "nope"], "squadmem: --at 'nope': not a commit here"),
    ],
)
def test_restore_refuses_what_it_cannot_find(repo: GitRepo, args: list[str], message: str) -> None:
    seed(repo)
    before = repo.snapshot()
    code, _, err = cli(repo, *args)
    assert code == 2
    assert err.startswith(message)
    assert repo.snapshot() == before


def test_maintain_dry_run_mentions_an_interrupted_move_and_leaves_it(repo: GitRepo) -> None:
    seed(repo)
    with Repo(repo.root) as gateway:
        writer.Journal(
            questions.head(gateway.git) or "", "0" * 40, (HOT,), (), "memory(picard): demote"
        ).write(gateway)
    before = repo.snapshot()
    code, out, _ = cli(repo, "maintain", "--dry-run", "--now", NOW)
    assert code == 0
    assert out.splitlines()[0] == (
        "an interrupted move waits to be finished (memory(picard): demote): run squadmem doctor --fix"
    )
    assert repo.snapshot() == before
    assert (repo.root / ".git" / "squadmem" / writer.JOURNAL).exists()


def test_a_use_counts_for_its_owner_only_in_the_index(repo: GitRepo) -> None:
    """Regression: a use of picard's "📌 Team initialized" (Squad writes the same entry into every
    agent's history) changed the date on worf's Index line for his identically worded entry, so the
    Index disagreed with `report` and `maintain` committed a needless refresh of worf's Index. A use
    now counts for its owner's section only."""
    entry = "## 📌 Team initialized\nThe team was set up.\n"
    files = {}
    for agent in ("picard", "worf"):
        pinned = "## Notes\n<!-- squadmem: pin -->\nn\n"
        files[f"{MEMORY_DIR}/hot/{agent}.md"] = f"# Hot memory: {agent}\n\n{pinned}"
        files[f"{MEMORY_DIR}/cold/{agent}.md"] = f"# Cold memory: {agent}\n\n{entry}"
    repo.commit("memory", files, date="2026-02-10T10:00:00+00:00")
    env = {"GIT_AUTHOR_DATE": "2026-02-10T11:00:00+00:00", "GIT_COMMITTER_DATE": "2026-02-10T11:00:00+00:00"}
    assert cli(repo, "maintain", "--now", "2026-02-10T11:00:00Z", env=env)[0] == 0  # both Indexes written
    worf_hot = repo.read(f"{MEMORY_DIR}/hot/worf.md")
    assert f"- 📌 Team initialized — {MEMORY_DIR}/cold/worf.md (cold, 2026-02-10)" in worf_hot
    repo.commit("used\n\nSquad-Memory-Used: picard/team-initialized", date="2026-02-20T09:00:00+00:00")
    head = repo.head()
    code, _, err = cli(repo, "maintain", "--now", NOW, "--json", env={"GIT_COMMITTER_DATE": NOW})
    assert code == 0, err
    assert "memory(worf): refresh index" not in subjects(repo, f"{head}..HEAD")
    assert repo.read(f"{MEMORY_DIR}/hot/worf.md") == worf_hot
    report = json.loads(cli(repo, "report", "--json", "--now", NOW)[1])
    worf = next(s for s in report["sections"] if s["id"] == "worf/team-initialized")
    assert worf["last_used"].startswith("2026-02-10")


def test_maintain_in_a_shallow_clone_makes_no_index_churn(repo: GitRepo, tmp_path: Path) -> None:
    """Regression: in a shallow clone `maintain` committed an Index refresh whose only change was
    its dates turned "date unknown" (a full clone's same run has none). Lines whose date history
    cannot tell keep the date the Index shows; nothing of unknown age moves; the warning names
    `git fetch --unshallow`."""
    repo.commit(
        "memory",
        {HOT: "# Hot\n\n## Other\nother\n", COLD: "# Cold\n\n## Ancient\nvery old\n\n## Kept\nk\n"},
        date=OLD,
    )
    env = {"GIT_AUTHOR_DATE": OLD, "GIT_COMMITTER_DATE": OLD}
    code, out, err = cli(repo, "maintain", "--now", "2026-01-02T10:00:00+00:00", env=env)
    assert code == 0, out + err
    assert "(cold, 2026-01-01)" in repo.read(HOT)
    for n in range(2):
        repo.commit(f"unrelated {n}", {f"f{n}.txt": "x\n"}, date="2026-01-10T10:00:00+00:00")
    full = cli(repo, "maintain", "--dry-run", "--now", "2026-01-12T10:00:00+00:00")
    assert full[0] == 0 and "unknown" not in full[1] + full[2]
    clone = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "2", f"file://{repo.root}", str(clone)], check=True)
    shallow = GitRepo(clone)
    before = shallow.snapshot()
    code, out, err = cli(shallow, "maintain", "--now", "2026-01-12T10:00:00+00:00")
    assert code == 0, out + err
    assert shallow.snapshot() == before
    said = out + err
    assert "(this shallow clone lacks their history: unshallow with `git fetch --unshallow`)" in said
    assert "date unknown" not in shallow.read(HOT)


def test_restore_in_a_shallow_clone_says_unshallow(repo: GitRepo, tmp_path: Path) -> None:
    """Regression: in a shallow clone, `restore --at` a commit beyond its boundary, or of a section
    removed before it, said "not a commit here" / "no commit had it", with no word of the history
    the clone lacks. Both say `git fetch --unshallow`, exit 2, nothing changed."""
    seed(repo)
    old = repo.git("rev-list", "--max-parents=0", "HEAD").strip()
    repo.commit(
        "drop kept\n\nSquad-Memory-Delete: picard/kept",
        {COLD: repo.read(COLD).replace("## Kept\nk\n", "")},
        date=NOW,
    )
    for n in range(2):
        repo.commit(f"unrelated {n}", {f"f{n}.txt": "x\n"}, date=NOW)
    clone = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "2", f"file://{repo.root}", str(clone)], check=True)
    shallow = GitRepo(clone)
    before = shallow.snapshot()
    for args, first in (
        (["--at", old], f"squadmem: --at '{old}': not a commit here, and this shallow clone lacks history:"),
        ([], "squadmem: no commit of this shallow clone had a section with the id or heading 'picard/kept':"),
    ):
        code, _, err = cli(shallow, "restore", "picard/kept", *args)
        assert code == 2, err
        assert err.splitlines()[0] == first + " unshallow with `git fetch --unshallow`"
        assert err.splitlines()[1].startswith("hint: ")
        assert shallow.snapshot() == before

"""A memory-tiers skill workspace kept in place, as OpenClaw loads it.

OpenClaw puts the workspace's ``MEMORY.md`` into its main sessions' prompt,
today's and yesterday's ``memory/YYYY-MM-DD.md`` only on a bare ``/new`` or
``/reset``; its memory search indexes ``MEMORY.md`` and the Markdown under
``memory/`` where they are (docs/openclaw.md). After ``squadmem init`` in
such a workspace, squadmem's tiers are those very files: real repositories,
real hooks fired by real ``git commit``, dates from GIT_AUTHOR_DATE /
GIT_COMMITTER_DATE. The text is made up for these tests.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import GitRepo, assert_refused, bare_remote, hooked_commit, run_squadmem

from squadmem.model import settings

HEADER = (
    "# MEMORY.md — Working Memory (Tier 1)\n"
    "<!-- last_maintained: 2026-03-01 -->\n"
    "<!-- tier: 1 — hot context -->\n"
)
HOT = (
    HEADER + "\n## Greenhouse vents\nOpen the east vent above 24 °C; the west one sticks.\n"
    "\n## Ferry timetable\nThe 07:40 ferry skips Sundays; the 08:15 does not.\n"
    "\n## Library card\nRenew it at the desk in the annex, never online.\n"
    "\n## Index → Deeper Tiers\n- tier 2: recent things\n- tier 3: old things\n"
)
COLD = (
    "# Tier 2 — Recent\n<!-- tier: 2 — warm -->\n"
    "\n## Kettle descaling\nVinegar, then two rinses; the filter comes out upward.\n"
)
ARCHIVE = (
    "# Tier 3 — Archive\n<!-- tier: 3 — cold -->\n"
    "\n## Rowboat outboard\nThe outboard wants two-stroke mix at 1:50; the choke is the blue lever.\n"
)
LOG_1 = "# 2026-03-01\n\n- 09:10 moved the seed trays to the greenhouse\n"
LOG_2 = "# 2026-03-02\n\n- 18:00 the 07:40 ferry was late again\n"
D0 = "2026-03-01T10:00:00+00:00"
D1 = "2026-03-02T18:30:00+00:00"
D38 = "2026-04-08T09:00:00+00:00"
D41 = "2026-04-11T09:00:00+00:00"  # 40 days after the ferry and library sections were last used


def workspace(repo: GitRepo) -> GitRepo:
    """A memory-tiers workspace as the skill leaves it, committed before squadmem (no hooks yet)."""
    repo.commit(
        "workspace",
        {
            "MEMORY.md": HOT,
            "memory/tier2-recent.md": COLD,
            "memory/tier3-archive.md": ARCHIVE,
            "memory/2026-03-01.md": LOG_1,
            "AGENTS.md": "# Agents\n\nRead MEMORY.md first.\n",
        },
        date=D0,
    )
    return repo


def kept_in_place(repo: GitRepo, *flags: str) -> GitRepo:
    """``squadmem init`` in the workspace, committed through the hooks it installs."""
    workspace(repo)
    done = run_squadmem(repo.root, "init", *flags)
    assert done.returncode == 0, done.stderr
    assert "memory-tiers workspace kept in place, agent main" in done.stdout
    repo.git("add", "-A")
    committed = hooked_commit(repo, "2026-03-01T11:00:00+00:00", "-m", "squadmem init")
    assert committed.returncode == 0, committed.stderr
    return repo


def squadmem_at(repo: GitRepo, when: str, *args: str) -> str:
    done = run_squadmem(repo.root, *args, "--now", when, date=when)
    assert done.returncode == 0, done.stderr
    return done.stdout


def commit_at(repo: GitRepo, when: str, files: dict[str, str]) -> None:
    for rel, text in files.items():
        repo.write(rel, text)
        repo.git("add", "--", rel)
    done = hooked_commit(repo, when, "-m", "work")
    assert done.returncode == 0, done.stderr


@pytest.fixture
def grown(repo: GitRepo) -> GitRepo:
    """Kept in place, then 41 days of use: the greenhouse section used on day 38, nothing else."""
    kept_in_place(repo)
    commit_at(repo, D1, {"memory/2026-03-02.md": LOG_2})
    squadmem_at(repo, D38, "touch", "main/greenhouse-vents")
    commit_at(repo, D38, {"memory/2026-04-08.md": "# 2026-04-08\n\n- 08:50 vents again\n"})
    return repo


def test_init_keeps_the_workspace_in_place(repo: GitRepo) -> None:
    kept_in_place(repo)
    assert not (repo.root / ".squad").exists()
    assert repo.read("memory/tiers.toml") == settings.workspace_template("main")
    assert repo.read("MEMORY.md") == HOT and repo.read("memory/tier2-recent.md") == COLD
    attributes = {
        rel: repo.git("check-attr", "merge", "--", rel).rsplit(":", 1)[1].strip()
        for rel in ("MEMORY.md", "memory/tier2-recent.md", "memory/tier3-archive.md", "memory/wiki/a.md")
    }
    assert set(attributes.values()) == {"squadmem"}
    assert repo.git("check-attr", "merge", "--", "memory/2026-03-01.md").endswith(": union\n")
    listed = json.loads(run_squadmem(repo.root, "list", "--json").stdout)
    tiers = {s["id"]: s["tier"] for s in listed["sections"]}
    assert tiers == {
        "main/greenhouse-vents": "hot",
        "main/ferry-timetable": "hot",
        "main/library-card": "hot",
        "main/index-deeper-tiers": "hot",
        "main/kettle-descaling": "cold",
        "main/rowboat-outboard": "archive",
    }
    again = run_squadmem(repo.root, "init")
    assert again.returncode == 0 and again.stdout.startswith("nothing to do")


def test_openclaw_after_40_days_memory_md_is_squadmems_hot_tier(grown: GitRepo) -> None:
    """Unused 40 days: out of MEMORY.md; recalled: back in it; logs where OpenClaw reads them."""
    repo = grown
    squadmem_at(repo, D41, "maintain")
    hot = repo.read("MEMORY.md")
    assert hot.startswith(
        HEADER.replace("2026-03-01", "2026-04-11")
    )  # the skill's header, its date kept current
    assert "## Greenhouse vents" in hot  # used on day 38
    assert "## Ferry timetable" not in hot and "## Library card" not in hot
    deeper = repo.read("memory/tier3-archive.md")
    assert "## Ferry timetable" in deeper and "## Library card" in deeper
    assert hot.rstrip("\n").split("\n## ")[-1].startswith("Index → Deeper Tiers")  # the Index is last
    assert "- Ferry timetable — memory/tier3-archive.md (archive" in hot  # a line the host can follow
    assert "- tier 2: recent things" not in hot
    assert len(hot.splitlines()) <= 100 and len(hot.encode()) <= 4096

    found = squadmem_at(repo, D41, "recall", "outboard choke")  # what the agent looks up in tier 3
    assert "main/rowboat-outboard" in found and "archive" in found
    commit_at(repo, "2026-04-11T09:30:00+00:00", {"memory/2026-04-11.md": "# 2026-04-11\n\n- 09:20 boat\n"})
    assert "Squad-Memory-Used: main/rowboat-outboard" in repo.git("log", "-1", "--format=%B")
    squadmem_at(repo, "2026-04-11T10:00:00+00:00", "maintain")
    hot = repo.read("MEMORY.md")
    assert "## Rowboat outboard" in hot and "## Rowboat outboard" not in repo.read("memory/tier3-archive.md")
    assert hot.startswith(HEADER.replace("2026-03-01", "2026-04-11"))
    assert len(hot.splitlines()) <= 100 and len(hot.encode()) <= 4096

    # the daily logs are where OpenClaw reads them, byte for byte
    assert (repo.root / "memory/2026-03-01.md").read_bytes() == LOG_1.encode()
    assert (repo.root / "memory/2026-03-02.md").read_bytes() == LOG_2.encode()
    squadmem_at(repo, "2026-04-11T10:05:00+00:00", "log", "add", "--agent", "main", "checked the fuel")
    assert repo.read("memory/2026-04-11.md").endswith("- 10:05 [main] checked the fuel\n")
    assert not (repo.root / ".squad").exists()

    verified = run_squadmem(repo.root, "verify", "--now", "2026-04-11T10:10:00+00:00")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "no violations" in verified.stdout


def test_a_past_days_log_is_frozen_in_the_workspace(grown: GitRepo) -> None:
    repo = grown
    head = repo.head()
    repo.write("memory/2026-03-02.md", LOG_2 + "- 19:00 written a month later\n")
    repo.git("add", "-A")
    done = hooked_commit(repo, D41, "-m", "edit the past")
    assert done.returncode == 1
    assert done.stderr.splitlines()[0].startswith("memory/2026-03-02.md: changed after its day ended")
    assert repo.head() == head


def test_verify_refuses_a_forged_log_in_the_workspace(grown: GitRepo) -> None:
    repo = grown
    repo.write("memory/2026-03-01.md", LOG_1.replace("greenhouse", "garage"))
    repo.git("add", "-A")
    done = hooked_commit(repo, D41, "--no-verify", "-m", "forged")
    assert done.returncode == 0, done.stderr
    verified = run_squadmem(repo.root, "verify", "--now", D41)
    assert verified.returncode == 1
    assert "memory/2026-03-01.md" in verified.stdout and "frozen" in verified.stdout


def test_the_hot_budget_holds_memory_md_at_commit(grown: GitRepo) -> None:
    """The budget hook refuses a MEMORY.md over hot.max_lines, as it does a hot file."""
    repo = grown
    head = repo.head()
    repo.write("MEMORY.md", repo.read("MEMORY.md") + "".join(f"\n## Note {n}\nx\n" for n in range(40)))
    repo.git("add", "MEMORY.md")
    done = hooked_commit(repo, D41, "-m", "too much")
    assert done.returncode == 1
    assert done.stderr.splitlines()[0].startswith("MEMORY.md: ")
    assert repo.head() == head


def test_wiki_and_context_in_the_workspace(grown: GitRepo) -> None:
    repo = grown
    done = run_squadmem(
        repo.root, "wiki", "write", "garden", "--title", "Frost", input="Cover the beds.\n", date=D41
    )
    assert done.returncode == 0, done.stderr
    assert "## Frost" in repo.read("memory/wiki/garden.md")
    context = squadmem_at(repo, D41, "context", "--agent", "main")
    assert "## Greenhouse vents" in context


@pytest.mark.parametrize(
    ("setup", "args", "message"),
    [
        (
            {".squad/team.md": "# Team\n"},
            ("init",),
            "squadmem: both a Squad team (.squad/) and a memory-tiers workspace (MEMORY.md, memory/) here",
        ),
        (
            {".squad/memory/tiers.toml": settings.TEMPLATE},
            ("init", "--layout", "in-place"),
            "squadmem: .squad/memory/: this repository already keeps its memory there",
        ),
        (
            {},
            ("init", "--agent", "one", "--agent", "two"),
            "squadmem: a memory-tiers workspace holds one agent's memory, not 2",
        ),
    ],
)
def test_init_refuses_what_could_be_either(
    repo: GitRepo, setup: dict[str, str], args: tuple[str, ...], message: str
) -> None:
    workspace(repo)
    repo.commit("more", setup, date=D0)
    assert_refused(repo, *args, message=message)


def test_commands_refuse_in_the_workspace(grown: GitRepo) -> None:
    assert_refused(
        grown,
        "migrate",
        "memory-tiers",
        message="squadmem: memory/tiers.toml: this workspace's memory is kept in place: nothing to migrate",
    )
    assert_refused(
        grown,
        "context",
        "--agent",
        "other",
        message="squadmem: agent other: no tier file belongs to this agent",
    )
    assert_refused(
        grown,
        "init",
        "--agent",
        "other",
        message="squadmem: memory/tiers.toml: this workspace is agent main's, not other",
    )
    assert_refused(
        grown,
        "init",
        "--layout",
        "squad",
        message="squadmem: memory/tiers.toml: this workspace's memory is already kept in place",
    )


def test_init_names_the_agent(repo: GitRepo) -> None:
    kept = workspace(repo)
    kept.commit("skill state", {"state/access-log.json": '{"sections": {}}'}, date=D0)
    done = run_squadmem(kept.root, "init", "--agent", "wren")
    assert done.returncode == 0, done.stderr
    assert "agent wren" in done.stdout
    assert "state/access-log.json: the skill's access times count as uses" in done.stdout
    listed = run_squadmem(kept.root, "list", "--tier", "archive").stdout
    assert "wren/rowboat-outboard" in listed


def test_migrate_memory_tiers_says_what_the_host_loads(repo: GitRepo) -> None:
    """With .squad/memory/ chosen, the host still loads a MEMORY.md squadmem no longer maintains."""
    workspace(repo)
    done = run_squadmem(repo.root, "init", "--layout", "squad", "--agent", "main", "--no-hooks")
    assert done.returncode == 0, done.stderr
    assert "kept in place" not in done.stdout
    repo.git("add", "-A")
    repo.git("commit", "-q", "--no-gpg-sign", "-m", "init", date=D1)
    migrated = run_squadmem(repo.root, "migrate", "memory-tiers", date=D1)
    assert migrated.returncode == 0, migrated.stderr
    assert "still loads the workspace's MEMORY.md" in migrated.stdout
    assert "squadmem maintains .squad/memory/hot/main.md instead" in migrated.stdout
    assert "run squadmem init in the workspace" in migrated.stdout


def test_the_merge_driver_merges_memory_md_by_sections(grown: GitRepo) -> None:
    """Two branches each add a section at the same place of MEMORY.md: both are kept, no conflict."""
    repo = grown
    base = repo.read("MEMORY.md")
    ours, theirs = "\n## Ours\no\n", "\n## Theirs\nt\n"
    repo.git("checkout", "-q", "-b", "side")
    commit_at(repo, D41, {"MEMORY.md": base + theirs})
    repo.git("checkout", "-q", "main")
    commit_at(repo, D41, {"MEMORY.md": base + ours})
    done = subprocess.run(
        ["git", "merge", "--no-gpg-sign", "--no-verify", "-m", "merge", "side"],
        cwd=repo.root,
        text=True,
        capture_output=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    merged = repo.read("MEMORY.md")  # a line merge would conflict: both appended at the end
    assert merged.startswith(base + ours) and merged.count("## Theirs\nt\n") == 1 and "<<<<<<<" not in merged


def test_a_session_in_the_workspace(grown: GitRepo) -> None:
    """session start puts its block in MEMORY.md; session end logs it in memory/YYYY-MM-DD.md."""
    repo = grown
    squadmem_at(repo, D41, "session", "start", "--agent", "main", "--task", "fix the vent")
    assert "## Session" in repo.read("MEMORY.md")
    squadmem_at(repo, "2026-04-11T12:00:00+00:00", "session", "end", "--agent", "main")
    assert "## Session\n- none yet\n" in repo.read("MEMORY.md") and "fix the vent" not in repo.read(
        "MEMORY.md"
    )
    assert "fix the vent" in repo.read("memory/2026-04-11.md")
    assert not (repo.root / ".squad").exists()


def test_the_pre_push_hook_verifies_the_workspace(grown: GitRepo, tmp_path: Path) -> None:
    """A push of the workspace's history passes; one that brings a forged past log is stopped."""
    repo = grown
    bare_remote(repo, tmp_path)

    def push() -> subprocess.CompletedProcess[str]:
        env = dict(os.environ, GIT_COMMITTER_DATE=D41)
        args = ["git", "push", "-q", "origin", "main"]
        return subprocess.run(args, cwd=repo.root, env=env, text=True, capture_output=True)

    first = push()
    assert first.returncode == 0, first.stderr
    repo.write("memory/2026-03-02.md", LOG_2.replace("late", "early"))
    repo.git("add", "-A")
    assert hooked_commit(repo, D41, "--no-verify", "-m", "forged").returncode == 0
    refused = push()
    assert refused.returncode != 0
    assert "memory/2026-03-02.md" in refused.stdout + refused.stderr

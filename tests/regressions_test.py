"""One test per failure of the script version of memory tiers, which squadmem replaces."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from collections import Counter

from conftest import GitRepo
from conftest import squadmem as cli

from squadmem.engine import catalog, index
from squadmem.engine.history import cache as history_cache
from squadmem.engine.history import lastuse
from squadmem.gitio.repo import Repo
from squadmem.model import sections, templates, uses
from squadmem.model.layout import MEMORY_DIR
from squadmem.model.places import SQUAD_PLACES

HOT = f"{MEMORY_DIR}/hot/picard.md"
COLD = f"{MEMORY_DIR}/cold/picard.md"
OLD = "2026-01-01T10:00:00+00:00"
NOW = "2026-02-20T12:00:00+00:00"


def sections_at(repo: GitRepo, rev: str = "HEAD") -> Counter[str]:
    names = repo.git("ls-tree", "-r", "--name-only", rev, "--", MEMORY_DIR).split()
    blobs = {
        n: subprocess.run(
            ["git", "cat-file", "blob", f"{rev}:{n}"], cwd=repo.root, capture_output=True
        ).stdout
        for n in names
    }
    return Counter(
        sections.trimmed(e.text) for e in catalog.from_blobs(blobs, SQUAD_PLACES).entries if not e.is_index
    )


def test_a_moved_section_takes_its_children_along(repo: GitRepo) -> None:
    """Script failure: moving a ``##`` section left its ``###`` children behind."""
    section = "## Auth\ntokens\n### Refresh\nrotate\n#### Detail\nreuse revokes\n\n"
    repo.commit("memory", {HOT: "# Hot\n\n" + section + "## Next\nx\n"}, date=OLD)
    assert cli(repo, "demote", "picard/auth")[0] == 0
    assert repo.git("show", f"HEAD~1:{HOT}") == "# Hot\n\n## Next\nx\n"  # then the Index commit
    assert repo.read(COLD) == templates.tier_header("cold", "picard", workspace=False) + section


def test_headings_inside_code_fences_are_not_cut(repo: GitRepo) -> None:
    """Script failure: a ``##`` line inside a fenced code block was cut as a section of its own."""
    section = "## Deploy\n```sh\n## not a heading\nmake deploy\n```\n~~~\n## nor this\n~~~\n"
    section += "    ## indented code\n\n"
    repo.commit("memory", {HOT: section + "## Other\no\n"}, date=OLD)
    memory = catalog.from_texts({HOT: section + "## Other\no\n"}, SQUAD_PLACES)
    assert [e.title for e in memory.entries] == ["Deploy", "Other"]
    assert cli(repo, "demote", "Deploy")[0] == 0
    assert repo.read(COLD).endswith(section)
    assert repo.git("show", f"HEAD~1:{HOT}") == "## Other\no\n"


def test_a_moved_section_does_not_ping_pong_back(repo: GitRepo) -> None:
    """Script failure: a moved section took its new file's access time and bounced back next run."""
    repo.commit(
        "memory",
        {
            HOT: "## Stale\ns\n\n## Fresh\nf\n",
            COLD: "## Used\nu\n\n## Old\n<!-- squadmem: kind=fact -->\no\n",
        },
        date="2026-02-10T10:00:00+00:00",
    )
    repo.commit("use\n\nSquad-Memory-Used: picard/used", date="2026-02-20T08:00:00+00:00")
    repo.commit("fresh", {HOT: "## Stale\ns\n\n## Fresh\nf, edited\n"}, date="2026-02-19T10:00:00+00:00")
    code, out, _ = cli(repo, "maintain", "--json", "--now", NOW)
    assert code == 0
    assert [(m["id"], m["to"]) for m in json.loads(out)["moves"]] == [
        ("picard/stale", "cold"),
        ("picard/used", "hot"),
    ]
    for later in ("2026-02-20T12:00:00+00:00", "2026-02-20T20:00:00+00:00"):
        code, out, _ = cli(repo, "maintain", "--dry-run", "--now", later)
        assert "nothing to do" in out, out
    with Repo(repo.root) as gateway:
        memory = catalog.load(gateway.layout)
        ages = lastuse.last_uses(gateway, memory, now=dt.datetime(2026, 2, 20, 12, tzinfo=dt.UTC))
    assert ages["picard/stale"].when == dt.datetime(
        2026, 2, 10, 10, tzinfo=dt.UTC
    )  # its content's age, not the move's


def test_uses_are_counted_once_however_often_history_is_read(repo: GitRepo) -> None:
    """Script failure: re-scanning the transcripts counted the same accesses again."""
    repo.commit("memory", {HOT: "## A\na\n\n## Old\no\n"}, date=OLD)
    state = repo.root / ".git" / "squadmem"
    uses.record(state, ["picard/a"], dt.datetime(2026, 2, 20, 9, tzinfo=dt.UTC))
    base = repo.head()
    for _ in range(3):
        assert cli(repo, "maintain", "--now", NOW)[0] == 0
    carrying = repo.git("log", "--format=%H", f"--grep={uses.TRAILER}", f"{base}..HEAD").split()
    assert len(carrying) == 1
    assert uses.pending_ids(state) == ()
    with Repo(repo.root) as gateway:
        memory = catalog.load(gateway.layout)
        now = dt.datetime(2026, 2, 20, 12, tzinfo=dt.UTC)
        first = lastuse.usage(gateway, memory, now=now)
        (state / history_cache.CACHE_FILE).unlink()
        rebuilt = lastuse.usage(gateway, memory, now=now)
        again = lastuse.usage(gateway, memory, now=now)
    assert first == rebuilt == again
    assert first["picard/a"].trailer_commits == 1


def test_a_name_is_an_id_or_an_exact_heading_never_a_substring(repo: GitRepo) -> None:
    """Script failure: ``--section "Auth"`` matched the first heading containing it."""
    repo.commit(
        "memory", {HOT: "## Auth tokens\nt\n\n## OAuth\no\n", COLD: "## Authentication\na\n"}, date=OLD
    )
    before = repo.snapshot()
    code, _, err = cli(repo, "promote", "Auth")
    assert code == 2
    assert err.splitlines() == [
        "squadmem: no section has the id or heading 'Auth'",
        "hint: see the ids with: squadmem list",
    ]
    assert repo.snapshot() == before
    assert cli(repo, "demote", "OAuth")[0] == 0
    assert "## OAuth" in repo.read(COLD) and "## Auth tokens" in repo.read(HOT)


def test_moving_a_section_to_its_own_tier_changes_nothing(repo: GitRepo) -> None:
    """Script failure: promoting a section to the tier it was in duplicated it."""
    repo.commit("memory", {HOT: "## Plan\np\n"}, date=OLD)
    before = repo.snapshot()
    code, out, _ = cli(repo, "promote", "picard/plan", "--to", "hot")
    assert (code, out) == (0, f"picard/plan is already in hot ({HOT}): nothing to do\n")
    assert repo.snapshot() == before
    assert sections_at(repo) == Counter({"## Plan\np": 1})


def test_a_missing_tier_file_is_created_not_a_crash(repo: GitRepo) -> None:
    """Script failure: a tier file that did not exist yet crashed the run."""
    repo.commit("memory", {f"{MEMORY_DIR}/cold/data.md": "## Runbook\nsteps\n"}, date=OLD)
    code, _, _ = cli(repo, "promote", "data/runbook")
    assert code == 0
    assert (
        repo.read(f"{MEMORY_DIR}/hot/data.md")
        == templates.tier_header("hot", "data", workspace=False) + "## Runbook\nsteps\n"
    )
    repo.commit("old hot", {f"{MEMORY_DIR}/hot/worf.md": "## Stale\nx\n"}, date=OLD)
    code, _, _ = cli(repo, "maintain", "--now", NOW)  # no cold/ or archive/ file for worf yet
    assert code == 0
    assert repo.read(f"{MEMORY_DIR}/archive/worf.md").endswith("## Stale\nx\n")
    assert repo.git("status", "--porcelain") == ""


def test_eight_concurrent_writers_leave_every_section_exactly_once(repo: GitRepo) -> None:
    """Script failure: no locking and no atomic writes; concurrent runs lost or doubled sections."""
    bodies = "".join(f"## Item {n}\nbody {n}\n\n" for n in range(8))
    repo.commit("memory", {HOT: "# Hot\n\n" + bodies, COLD: "# Cold\n\n## Old\nold\n"}, date=OLD)
    expected = sections_at(repo)
    # every commit dated NOW: maintain's --now is never before the newest commit, whoever goes first
    env = dict(os.environ, SQUADMEM_LOCK_TIMEOUT="120", GIT_AUTHOR_DATE=NOW, GIT_COMMITTER_DATE=NOW)
    commands = [["demote", f"picard/item-{n}"] for n in range(6)]
    commands += [["maintain", "--now", NOW], ["promote", "picard/old"]]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "squadmem", *args],
            cwd=repo.root,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for args in commands
    ]
    results = [(p.wait(), p.stderr.read().decode() if p.stderr else "") for p in procs]
    assert [code for code, _ in results] == [0] * 8, results
    assert sections_at(repo) == expected
    work = {
        p.relative_to(repo.root).as_posix(): p.read_bytes() for p in (repo.root / MEMORY_DIR).rglob("*.md")
    }
    assert (
        Counter(
            sections.trimmed(e.text) for e in catalog.from_blobs(work, SQUAD_PLACES).entries if not e.is_index
        )
        == expected
    )
    assert repo.git("status", "--porcelain") == ""
    assert repo.git("fsck", "--strict", "--no-dangling") == ""


def test_the_over_limit_rule_and_the_index_are_built(repo: GitRepo) -> None:
    """Script failure: the over-limit rule ("demote least-used") and the Index were documented, not built."""
    big = "".join(f"## Topic {n}\n{'words ' * 80}\n\n" for n in range(10))  # about 5 KB, all used this week
    repo.commit("memory", {HOT: "# Hot\n\n" + big}, date="2026-02-15T10:00:00+00:00")
    for n in range(10):  # Topic 0 least recently used, Topic 9 most
        repo.commit(
            f"use {n}\n\nSquad-Memory-Used: picard/topic-{n}",
            date=f"2026-02-{16 + n // 4:02d}T{10 + n}:00:00+00:00",
        )
    code, out, _ = cli(repo, "maintain", "--json", "--now", NOW)
    assert code == 0
    moves = json.loads(out)["moves"]
    assert [m["id"] for m in moves] == [f"picard/topic-{n}" for n in range(len(moves))]
    assert all(m["rule"] == "budget" and m["reason"].startswith("over budget ") for m in moves)
    hot = repo.read(HOT)
    assert len(hot.encode()) <= 4096
    listed = [title for title, _ in index.listed_places(index.current(hot) or "")]
    assert listed == [f"Topic {n}" for n in reversed(range(len(moves)))]  # newest first
    assert cli(repo, "verify", "HEAD~5..HEAD")[0] == 0

"""The real OpenClaw over a memory-tiers workspace squadmem keeps in place.

A workspace repository kept by squadmem (``init``, then ``maintain`` over
simulated days, dates from GIT_AUTHOR_DATE / GIT_COMMITTER_DATE and
``--now``) is the workspace of a sealed OpenClaw 2026.9.6 home
(tests/openclaw_host.py). At each checkpoint ``openclaw memory index`` then
``openclaw memory search --json`` finds every section squadmem moved out of
``MEMORY.md``, in the file squadmem moved it to, so what leaves the hot tier
stays one ``memory_search`` away for the agent. The text is made up for these
tests.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import GitRepo, hooked_commit, run_squadmem
from openclaw_host import OpenClawHost, sealed_host

pytestmark = [pytest.mark.openclaw, pytest.mark.slow]

HEADER = "# MEMORY.md — Working Memory (Tier 1)\n<!-- tier: 1 — hot context -->\n"
# title -> (a body with words found nowhere else, the words the agent would search for)
SECTIONS = {
    "Greenhouse vents": ("Open the east vent above 24 °C; the west hinge sticks.", "east vent hinge"),
    "Ferry timetable": (
        "The 07:40 ferry skips Sundays; the harbourmaster posts changes.",
        "ferry harbourmaster",
    ),
    "Library card": ("Renew the card at the annex desk, never online.", "annex desk card"),
    "Kiln schedule": ("Bisque firing on Thursdays, glaze on Saturdays.", "bisque firing glaze"),
    "Beehive inspection": ("Check the brood frames every ninth day for queen cells.", "brood frames queen"),
}
DECISION = "Kiln schedule"  # kind=decision: from cold it goes to the wiki, not the archive
USED = "Greenhouse vents"  # touched every few days: stays in MEMORY.md
D0 = "2026-03-01T10:00:00+00:00"


def memory_md() -> str:
    parts = [HEADER]
    for title, (body, _words) in SECTIONS.items():
        flags = "<!-- squadmem: kind=decision topic=studio -->\n" if title == DECISION else ""
        parts.append(f"\n## {title}\n{flags}{body}\n")
    return "".join(parts)


def day(n: int, hour: int = 9) -> str:
    return (
        f"2026-03-{n + 1:02d}T{hour:02d}:00:00+00:00"
        if n < 31
        else f"2026-04-{n - 30:02d}T{hour:02d}:00:00+00:00"
    )


def squadmem_at(repo: GitRepo, when: str, *args: str) -> str:
    done = run_squadmem(repo.root, *args, "--now", when, date=when)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def kept(repo: GitRepo) -> GitRepo:
    """A memory-tiers workspace, kept in place by squadmem from day 0."""
    repo.commit(
        "workspace",
        {"MEMORY.md": memory_md(), "memory/2026-03-01.md": "# 2026-03-01\n\n- started\n"},
        date=D0,
    )
    done = run_squadmem(repo.root, "init")
    assert done.returncode == 0, done.stderr
    repo.git("add", "-A")
    committed = hooked_commit(repo, D0, "-m", "squadmem init")
    assert committed.returncode == 0, committed.stderr
    return repo


def where_squadmem_keeps(repo: GitRepo) -> dict[str, str]:
    """Each section's title -> the workspace file squadmem holds it in, from ``squadmem list --json``."""
    listed = json.loads(run_squadmem(repo.root, "list", "--json").stdout)["sections"]
    return {s["title"]: s["file"] for s in listed if s["title"] in SECTIONS}


def grow(repo: GitRepo, first: int, last: int) -> None:
    """Days ``first``..``last``: the greenhouse section used every third day, ``maintain`` each morning."""
    for n in range(first, last + 1):
        squadmem_at(repo, day(n, 8), "maintain")
        if n % 3 == 0:
            squadmem_at(repo, day(n, 9), "touch", "main/greenhouse-vents")
            log = f"memory/{day(n)[:10]}.md"
            repo.write(log, f"# {day(n)[:10]}\n\n- checked the vents\n")
            repo.git("add", "--", log)
            done = hooked_commit(repo, day(n, 9), "-m", "work")
            assert done.returncode == 0, done.stderr


def assert_found_where_kept(host: OpenClawHost, repo: GitRepo, moved: set[str]) -> None:
    host.index()
    kept_in = where_squadmem_keeps(repo)
    for title in sorted(moved):
        body, words = SECTIONS[title]
        hits = host.search(words)
        paths = [hit["path"] for hit in hits if body.split(";")[0].split(",")[0] in hit["snippet"]]
        assert kept_in[title] in paths, (title, kept_in[title], hits)
        assert kept_in[title] != "MEMORY.md"


def test_openclaw_memory_search_finds_every_section_squadmem_moved(kept: GitRepo, tmp_path: Path) -> None:
    repo = kept
    host = sealed_host(tmp_path, repo.root)

    grow(repo, 1, 10)  # day 10: the four unused sections are stale (7 days) and in tier 2
    kept_in = where_squadmem_keeps(repo)
    moved = {title for title, rel in kept_in.items() if rel != "MEMORY.md"}
    assert moved == set(SECTIONS) - {USED}
    assert {kept_in[t] for t in moved} == {"memory/tier2-recent.md"}
    assert_found_where_kept(host, repo, moved)

    grow(repo, 11, 42)  # day 42: 30 more days unused in tier 2, to the archive (and the decision to the wiki)
    kept_in = where_squadmem_keeps(repo)
    assert kept_in[USED] == "MEMORY.md"
    assert kept_in[DECISION] == "memory/wiki/studio.md"
    assert {kept_in[t] for t in moved - {DECISION}} == {"memory/tier3-archive.md"}
    assert_found_where_kept(host, repo, moved)

    hot = repo.read("MEMORY.md")
    assert hot.startswith(HEADER) and hot.rstrip("\n").split("\n## ")[-1].startswith("Index → Deeper Tiers")
    index = hot.rsplit("\n## Index → Deeper Tiers\n", 1)[1]
    for title in moved - {DECISION}:  # the Index names each moved section's title and file, and the topic
        assert f"- {title} — {kept_in[title]} (archive, " in index, index
    assert "- studio — memory/wiki/studio.md (wiki, " in index, index
    verified = run_squadmem(repo.root, "verify", "--now", day(42, 12))
    assert verified.returncode == 0, verified.stdout + verified.stderr

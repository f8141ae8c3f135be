from __future__ import annotations

import json

import pytest
from conftest import GitRepo, assert_refused
from conftest import squadmem as cli
from hypothesis import given, settings
from hypothesis import strategies as st

from squadmem.commands import migrate_tiers
from squadmem.model import sections, uses
from squadmem.model.layout import MEMORY_DIR

BASE = "2026-02-01T08:00:00+00:00"
MIGRATED = "2026-03-01T08:00:00+00:00"
NOW = "2026-03-01T12:00:00+00:00"
HOT = f"{MEMORY_DIR}/hot/main.md"
COLD = f"{MEMORY_DIR}/cold/main.md"
ARCHIVE = f"{MEMORY_DIR}/archive/main.md"

# A workspace as the skill documents it: tier files with its header lines, ## / ### sections,
# the Index last in MEMORY.md, raw daily logs, and the tracker's access log.
HOT_SECTIONS = (
    "## Deploy keys\nKeys live in the vault.\n\n### Rotation\nEvery 90 days.\n\n",
    "## Team\r\n- worf: security\r\n\r\n",
    "## Open questions\n- none\n\n",
)
MEMORY_MD = (
    "# MEMORY.md — Working Memory (Tier 1)\n"
    "<!-- last_maintained: 2026-02-27 -->\n"
    "<!-- tier: 1 — hot context -->\n"
    "Personal notes kept at the top.\n\n"
    + "".join(HOT_SECTIONS)
    + "## Index → Deeper Tiers\n- Project Atlas → tier 2\n- 2025 retro → tier 3\n"
)
WARM_SECTIONS = (
    "## Project Atlas\nThe map service rewrite.\n\n",
    "## Old incident\n```\n## not a heading\n```\n\n",
)
TIER2 = (
    "# Tier 2 — Recent (Warm)\n<!-- last_maintained: 2026-02-27 -->\n<!-- tier: 2 — warm -->\n\n"
    + "".join(WARM_SECTIONS)
)
COLD_SECTIONS = ("## 2025 retro\nShipped three things.\n",)
TIER3 = "# Tier 3 — Archive (Cold)\n<!-- tier: 3 — cold archive -->\n\n" + "".join(COLD_SECTIONS)
LOGS = {
    "memory/2026-02-10.md": "# 2026-02-10\n\n- 09:00 started the Atlas spike\n",
    "memory/2026-02-11.md": "# 2026-02-11\r\n\r\n- deployed\r\n",
}
ACCESS = {
    "lastScanTime": "2026-03-01T07:00:00.000Z",
    "lastScanSession": "s1.jsonl",
    "files": {
        "MEMORY.md": {
            "firstAccessed": "2026-01-01T00:00:00.000Z",
            "lastAccessed": "2026-03-01T07:00:00.000Z",
            "accessCount": 40,
            "readCount": 40,
            "writeCount": 0,
            "searchHitCount": 0,
        }
    },
    "sections": {
        "MEMORY.md#Rotation": {
            "file": "MEMORY.md",
            "section": "Rotation",
            "firstAccessed": "2026-01-05T10:00:00.000Z",
            "lastAccessed": "2026-02-10T10:00:00.000Z",
            "accessCount": 3,
        },
        "MEMORY.md#Team": {
            "file": "MEMORY.md",
            "section": "Team",
            "firstAccessed": "2026-02-27T10:00:00.000Z",
            "lastAccessed": "2026-02-28T10:00:00.000Z",
            "accessCount": 2,
        },
        "memory/tier2-recent.md#Project Atlas": {
            "file": "memory/tier2-recent.md",
            "section": "Project Atlas",
            "firstAccessed": "2026-02-01T10:00:00.000Z",
            "lastAccessed": "2026-03-01T06:00:00.000Z",
            "accessCount": 5,
        },
        "MEMORY.md#Old incident": {
            "file": "MEMORY.md",
            "section": "Old incident",
            "firstAccessed": "2025-12-01T10:00:00.000Z",
            "lastAccessed": "2025-12-20T10:00:00.000Z",
            "accessCount": 1,
        },
        "MEMORY.md#Something deleted": {
            "file": "MEMORY.md",
            "section": "Something deleted",
            "firstAccessed": "2025-12-01T10:00:00.000Z",
            "lastAccessed": "2025-12-20T10:00:00.000Z",
            "accessCount": 1,
        },
    },
}


def workspace(repo: GitRepo, where: str = "") -> None:
    files = {
        "MEMORY.md": MEMORY_MD,
        "memory/tier2-recent.md": TIER2,
        "memory/tier3-archive.md": TIER3,
        "memory/notes.txt": "scratch\n",
        "state/access-log.json": json.dumps(ACCESS, indent=2),
        **LOGS,
    }
    for rel, text in files.items():
        repo.write(f"{where}{rel}", text)


def team(repo: GitRepo) -> None:
    assert cli(repo, "init", "--agent", "main", "--no-hooks")[0] == 0
    repo.git("add", "-A")
    repo.git("commit", "-q", "--no-gpg-sign", "-m", "squadmem init", date=BASE)


def migrate(repo: GitRepo, *args: str) -> tuple[int, str, str]:
    return cli(repo, "migrate", "memory-tiers", *args, env={"GIT_COMMITTER_DATE": MIGRATED})


def texts_of(repo: GitRepo, rel: str) -> tuple[str, ...]:
    return tuple(s.text for s in sections.split(repo.read(rel)).sections)


def test_workspace_moves_byte_for_byte_in_one_commit(repo: GitRepo) -> None:
    team(repo)
    workspace(repo, "ws/")
    before = repo.head()
    code, out, err = migrate(repo, "ws")
    assert code == 0, err
    assert repo.git("rev-list", "--count", f"{before}..HEAD").strip() == "1"
    hot = texts_of(repo, HOT)
    assert hot[: len(HOT_SECTIONS)] == HOT_SECTIONS  # the skill's Index is not copied
    assert [s for s in hot if "Project Atlas" in s] == []
    assert texts_of(repo, COLD) == WARM_SECTIONS
    assert texts_of(repo, ARCHIVE) == COLD_SECTIONS
    header = sections.split(repo.read(HOT)).header
    assert (
        header.startswith("# Hot memory: main\n") and header.count("Personal notes kept at the top.\n") == 1
    )
    assert "last_maintained" not in repo.read(HOT) and "tier: 1" not in repo.read(HOT)
    for rel, text in LOGS.items():
        assert (repo.root / f"{MEMORY_DIR}/log/{rel.split('/')[1]}").read_bytes() == text.encode()
    changed = set(repo.git("show", "--name-only", "--format=", "HEAD").split())
    assert changed == {
        HOT,
        COLD,
        ARCHIVE,
        f"{MEMORY_DIR}/log/2026-02-10.md",
        f"{MEMORY_DIR}/log/2026-02-11.md",
    }
    message = repo.git("log", "-1", "--format=%B")
    assert message.startswith("memory(main): migrate memory-tiers workspace (6 sections, 2 daily logs)\n")
    assert uses.parse_dated(message) == [
        ("main/deploy-keys", _utc("2026-02-10T10:00:00")),
        ("main/old-incident", _utc("2025-12-20T10:00:00")),
        ("main/project-atlas", _utc("2026-03-01T06:00:00")),
        ("main/team", _utc("2026-02-28T10:00:00")),
    ]
    assert "notes.txt: not a tier file" in out and "'MEMORY.md#Something deleted'" in out
    assert "1 file-level record(s) not carried" in out
    assert repo.git("status", "--porcelain", "--", MEMORY_DIR) == ""
    code, out, err = cli(repo, "verify", "--now", NOW)
    assert code == 0, out + err


def _utc(text: str) -> object:
    import datetime as dt

    return dt.datetime.fromisoformat(text).replace(tzinfo=dt.UTC)


def test_first_maintain_acts_on_the_skill_access_history(repo: GitRepo) -> None:
    """Stale by the skill's record: demoted; used within the window: promoted; never recorded: kept."""
    team(repo)
    workspace(repo)
    assert migrate(repo)[0] == 0
    code, out, err = cli(repo, "maintain", "--dry-run", "--json", "--now", NOW)
    assert code == 0, err
    planned = {(m["id"], m["from"], m["to"]) for m in json.loads(out)["moves"]}
    assert planned == {
        ("main/deploy-keys", "hot", "cold"),  # last accessed 19 days ago
        ("main/project-atlas", "cold", "hot"),  # accessed 6 hours ago
        ("main/old-incident", "cold", "archive"),  # 71 days ago
    }
    code, out, _ = cli(repo, "report", "--json", "--now", NOW)
    last = {s["id"]: s["last_used"] for s in json.loads(out)["sections"]}
    assert last["main/team"].startswith("2026-02-28T10:00")
    assert last["main/open-questions"].startswith("2026-03-01T08:00")  # no record: the migration


def test_second_run_is_a_no_op(repo: GitRepo) -> None:
    team(repo)
    workspace(repo)
    assert migrate(repo)[0] == 0
    before = repo.snapshot()
    code, out, _ = migrate(repo)
    assert code == 0
    assert "nothing to migrate" in out
    assert repo.snapshot() == before


def test_dry_run_lists_and_changes_nothing(repo: GitRepo) -> None:
    team(repo)
    workspace(repo)
    before = repo.snapshot()
    code, out, _ = migrate(repo, "--dry-run", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["dry_run"] is True and "commit" not in data
    assert [t["sections"] for t in data["tiers"]] == [
        ["Deploy keys", "Team", "Open questions"],
        ["Project Atlas", "Old incident"],
        ["2025 retro"],
    ]
    assert {u["id"]: u["count"] for u in data["uses"]} == {
        "main/deploy-keys": 3,
        "main/team": 2,
        "main/project-atlas": 5,
        "main/old-incident": 1,
    }
    assert repo.snapshot() == before


def test_sections_already_there_are_skipped_and_logs_present_are_kept(repo: GitRepo) -> None:
    team(repo)
    workspace(repo)
    repo.commit("by hand", {COLD: repo.read(COLD) + WARM_SECTIONS[0]}, date=BASE)
    code, out, err = migrate(repo, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["tiers"][1]["sections"] == ["Old incident"] and data["tiers"][1]["skipped"] == 1
    assert texts_of(repo, COLD) == WARM_SECTIONS
    assert "main/project-atlas" not in {u["id"] for u in data["uses"]}  # not brought in by this commit


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"memory/tier2-recent.md": "# T2\n<!-- tier: 3 — cold -->\n## A\n"},
            "squadmem: memory/tier2-recent.md: its header says tier 3, but this file is tier 2",
        ),
        ({"state/access-log.json": "{not json"}, "squadmem: state/access-log.json: not valid JSON"),
        (  # regression: a log without "sections" was taken as no access at all, without a word
            {"state/access-log.json": '{"files": {"MEMORY.md": {"lastAccessed": 1}}}'},
            'squadmem: state/access-log.json: expected an object with "sections"',
        ),
        (
            {"state/access-log.json": '{"sections": {"MEMORY.md#A": {"lastAccessed": "yesterday"}}}'},
            "squadmem: state/access-log.json: MEMORY.md#A: lastAccessed 'yesterday' is not a time",
        ),
        (
            {"memory/2099-01-01.md": "# later\n"},
            "squadmem: memory/2099-01-01.md: a daily log of a future day",
        ),
        ({"MEMORY.md": b"# M\n## A\n\xff\n"}, "squadmem: MEMORY.md: not UTF-8 (byte 9)"),
    ],
)
def test_bad_workspace_is_refused(repo: GitRepo, change: dict[str, str | bytes], message: str) -> None:
    team(repo)
    workspace(repo)
    for rel, text in change.items():
        repo.write(rel, text)
    assert_refused(repo, "migrate", "memory-tiers", message=message)


def test_a_log_that_differs_from_the_one_there_is_refused(repo: GitRepo) -> None:
    team(repo)
    workspace(repo)
    repo.commit("log", {f"{MEMORY_DIR}/log/2026-02-10.md": "# other\n"}, date=BASE)
    assert_refused(
        repo,
        "migrate",
        "memory-tiers",
        message="squadmem: .squad/memory/log/2026-02-10.md: already exists with other content than "
        "memory/2026-02-10.md",
    )


def test_no_agent_and_no_workspace_are_refused(repo: GitRepo) -> None:
    repo.commit("app", {"src/app.py": "print(1)\n"}, date=BASE)
    workspace(repo)
    assert_refused(
        repo, "migrate", "memory-tiers", message="squadmem: which agent's tiers? no agent has tier files yet"
    )
    assert_refused(
        repo,
        "migrate",
        "memory-tiers",
        "src",
        "--agent",
        "main",
        message="squadmem: src: no MEMORY.md or memory/ here: not a memory-tiers workspace",
    )


# -- properties ------------------------------------------------------------------------------------

_line = st.text(st.characters(codec="utf-8", exclude_characters="\r\n\x00#`~<"), max_size=12)
_ending = st.sampled_from(["\n", "\r\n"])


@st.composite
def _tier_file(draw: st.DrawFn, index_last: bool) -> tuple[str, list[str]]:
    titles = draw(st.lists(st.from_regex(r"[A-Za-z][A-Za-z0-9 ]{0,8}", fullmatch=True), max_size=5))
    body = []
    for title in titles:
        end = draw(_ending)
        lines = draw(st.lists(_line, max_size=3))
        body.append(
            f"## {title}{end}" + "".join(f"x{line}{end}" for line in lines) + draw(st.sampled_from(["", end]))
        )
    header = draw(st.sampled_from(["", "# T\n", "# T\n<!-- last_maintained: 2026-01-01 -->\n"]))
    header += draw(st.sampled_from(["", "free text\n", "\n"]))
    tail = "## Index → Deeper Tiers\n- a → b\n" if index_last else ""
    return header + "".join(body) + tail, body


@settings(max_examples=150, deadline=None)
@given(_tier_file(index_last=True), st.sampled_from([None, "# Hot memory: main\n\n## Mine\nkept\n"]))
def test_merge_tier_keeps_every_section_once(source: tuple[str, list[str]], had: str | None) -> None:
    text, body = source
    known = {sections.trimmed(s.text) for s in sections.split(had or "").sections}
    merged, new, _, _, _ = migrate_tiers.merge_tier(had, text, "MEMORY.md", "hot", "main", known)
    result = merged if merged is not None else had or ""
    got = [sections.trimmed(s.text) for s in sections.split(result).sections]
    wanted = [sections.trimmed(section) for section in body]
    for section in wanted:  # each source section once (twice if the source holds it twice)
        assert got.count(section) == wanted.count(section)
    if had is not None:
        assert got.count(sections.trimmed("## Mine\nkept\n")) == 1
    assert "## Index → Deeper Tiers" not in result
    assert sum(len(s.text) for s in new) <= len(result)
    if "free text" in text:
        assert result.count("free text") == 1
    # Every source section's bytes, as written (but a missing last line ending), are there.
    for section in body:
        assert section.rstrip("\r\n") in result
    again, more, _, _, _ = migrate_tiers.merge_tier(result, text, "MEMORY.md", "hot", "main", set(got))
    assert again is None and more == []


def test_session_files_move_with_their_names(repo: GitRepo) -> None:
    """Failure it guards against: a host's session file taken for its day's log (two files of one day
    written to one path). Each log keeps its name: ``memory/2026-02-10-0930.md`` becomes
    ``log/2026-02-10-0930.md`` beside ``log/2026-02-10.md``."""
    team(repo)
    workspace(repo, "ws/")
    session = "# Session: 2026-02-10 09:30:00 UTC\n\n- user: the Atlas spike starts\n"
    repo.write("ws/memory/2026-02-10-0930.md", session)
    code, out, err = migrate(repo, "ws")
    assert code == 0, err
    assert repo.read(f"{MEMORY_DIR}/log/2026-02-10-0930.md") == session
    assert repo.read(f"{MEMORY_DIR}/log/2026-02-10.md") == LOGS["memory/2026-02-10.md"]
    assert "3 daily logs" in repo.git("log", "-1", "--format=%s")
    code, out, err = cli(repo, "verify", "--now", NOW)
    assert code == 0, out + err

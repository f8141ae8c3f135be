"""Uses that the real OpenClaw stored, counted by ``track`` and ``maintain`` in its workspace.

The openclaw command comes from SQUADMEM_OPENCLAW (``.ci/run`` installs it
and sets it). In CI (``CI`` set) a missing command fails these tests;
elsewhere they are skipped with the reason. OpenClaw runs offline here,
with the test's own HOME: ``openclaw setup --baseline`` writes its config,
``openclaw config set`` points the main agent at the workspace, and
``openclaw doctor --session-sqlite import`` moves a session file into the
agent's own SQLite store (``openclaw-agent.sqlite``), as an upgrade from a
file-backed version does. No model is ever called.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import GitRepo, run_squadmem
from openclaw_host import openclaw_command
from openclaw_test import (
    NOW,
    SESSION,
    USED,
    assistant,
    jsonl,
    kept,
    memory_get_session,
    sessions_dir,
    store_path,
    text,
)

pytestmark = [pytest.mark.slow]


@pytest.fixture
def openclaw_cli() -> Path:
    return openclaw_command()


def openclaw(command: Path, *args: str) -> str:
    done = subprocess.run(
        [str(command), *args],
        cwd=os.environ["HOME"],
        text=True,
        capture_output=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def imported(command: Path, repo: GitRepo) -> dict[str, Any]:
    """OpenClaw set up with ``repo`` as the main agent's workspace, one session imported into SQLite."""
    openclaw(command, "setup", "--baseline")
    openclaw(command, "config", "set", "agents.entries.main.workspace", str(repo.root))
    long_answer = "The outboard, as noted under ## Rowboat outboard, " + "wants its mix. " * 80
    events = [*memory_get_session(repo.root), assistant(7, USED, text(long_answer))]
    (sessions_dir() / f"{SESSION}.jsonl").write_text(jsonl(events), encoding="utf-8")
    out = openclaw(command, "doctor", "--session-sqlite", "import", "--session-sqlite-all-agents", "--json")
    return dict(json.loads(out[out.index("{") :]))


def test_track_reads_the_events_openclaw_imported_into_its_store(openclaw_cli: Path, repo: GitRepo) -> None:
    kept(repo)
    report = imported(openclaw_cli, repo)
    assert report["totals"]["importedTranscriptEvents"] == 8
    assert not (sessions_dir() / f"{SESSION}.jsonl").exists()  # archived by the import: SQLite holds it
    with sqlite3.connect(f"{store_path().as_uri()}?mode=ro", uri=True) as connection:
        compressed = connection.execute("SELECT count(*) FROM transcript_events WHERE event_zstd IS NOT NULL")
        assert compressed.fetchone()[0] >= 1  # the long answer is a Zstd frame
    done = run_squadmem(repo.root, "track", "--dry-run", "--json", "--now", NOW)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["transcripts"] == [{"file": str(store_path()), "format": "openclaw-sqlite"}]
    assert {(u["id"], u["how"], u["when"]) for u in found["uses"]} == {
        ("main/ferry-timetable", "read", USED),
        ("main/rowboat-outboard", "heading", USED),
    }
    assert found["warnings"] == []


def test_maintain_keeps_hot_what_the_agent_used_in_openclaw(openclaw_cli: Path, repo: GitRepo) -> None:
    """Before, nothing an agent did in OpenClaw counted: maintain drained MEMORY.md by commit age alone."""
    kept(repo)
    imported(openclaw_cli, repo)
    done = run_squadmem(repo.root, "maintain", "--now", NOW, "--json", date=NOW)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["host_uses"]["recorded"] == [
        "main/ferry-timetable",
        "main/rowboat-outboard",
    ]
    hot = repo.read("MEMORY.md")
    assert "## Ferry timetable" in hot  # used 5 days ago: not stale
    assert "## Greenhouse vents" not in hot and "## Library card" not in hot  # unused 9 days: to cold
    assert "## Rowboat outboard" in repo.read("memory/tier2-recent.md")  # cited, but not within 24 h
    trailer = f"Squad-Memory-Used: main/ferry-timetable@{USED}, main/rowboat-outboard@{USED}"
    assert trailer in repo.git("log", "--format=%B")  # dated at the events, 5 days before the commit
    report = json.loads(run_squadmem(repo.root, "report", "--json", "--now", NOW).stdout)
    ferry = next(r for r in report["sections"] if r["id"] == "main/ferry-timetable")
    assert (ferry["last_use_kind"], ferry["last_used"]) == ("trailer", USED)
    verified = run_squadmem(repo.root, "verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr

"""What the real OpenClaw loads from a workspace squadmem keeps: MEMORY.md, squadmem's hot tier, and no more.

A sealed OpenClaw 2026.9.6 home (tests/openclaw_host.py) serves a memory-tiers
workspace kept by squadmem, with a :class:`~openclaw_host.Recorder` as its
model: a local endpoint that keeps each request and answers ``ok``, so the
test reads the system prompt the host really built, offline. In the main
session the host injects ``MEMORY.md`` byte for byte (squadmem's sections and
its Index); the sections squadmem moved to tier 2 and the daily logs are not
in the request. In a cron session, a sub-agent session and a group chat the
host leaves ``MEMORY.md`` out (``filterBootstrapFilesForSession`` in its
workspace module). The text is made up for these tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import GitRepo, hooked_commit, run_squadmem
from openclaw_host import OpenClawHost, Recorder, sealed_host

pytestmark = [pytest.mark.openclaw, pytest.mark.slow]

MEMORY = (
    "# MEMORY.md — Working Memory (Tier 1)\n<!-- tier: 1 — hot context -->\n"
    "\n## Kiln schedule\nBisque firing on Thursdays; glaze firing on Saturdays.\n"
    "\n## Clay suppliers\nRed earthenware from Hollins; porcelain from the Leeds depot.\n"
    "\n## Studio keys\nSpare keys in the blue tin above the slab roller.\n"
)
LOG = "# 2026-03-01\n\n- swept the kiln room and logged the cone packs\n"
D0 = "2026-03-01T10:00:00+00:00"
D10 = "2026-03-11T10:00:00+00:00"


@pytest.fixture
def kept(repo: GitRepo) -> GitRepo:
    """Kept by squadmem from day 0; the kiln section used on day 9; maintain on day 10 moves the other two."""
    repo.commit("workspace", {"MEMORY.md": MEMORY, "memory/2026-03-01.md": LOG}, date=D0)
    assert run_squadmem(repo.root, "init").returncode == 0
    repo.git("add", "-A")
    assert hooked_commit(repo, D0, "-m", "squadmem init").returncode == 0
    touched = run_squadmem(repo.root, "touch", "main/kiln-schedule", "--now", "2026-03-10T09:00:00+00:00")
    assert touched.returncode == 0, touched.stderr
    done = run_squadmem(repo.root, "maintain", "--now", D10, date=D10)
    assert done.returncode == 0, done.stderr
    assert "## Clay suppliers" in repo.read("memory/tier2-recent.md")
    return repo


@pytest.fixture
def host(kept: GitRepo, tmp_path: Path) -> OpenClawHost:
    return sealed_host(tmp_path, kept.root)


def request_text(recorder: Recorder) -> str:
    return str(recorder.requests[-1]["messages"])


def test_the_main_session_loads_memory_md_as_squadmem_keeps_it(kept: GitRepo, host: OpenClawHost) -> None:
    hot = kept.read("MEMORY.md")
    assert "## Kiln schedule" in hot and "## Clay suppliers" not in hot
    assert hot.rstrip("\n").split("\n## ")[-1].startswith("Index → Deeper Tiers")
    with Recorder().serving() as recorder:
        recorder.configure(host)
        envelope = recorder.turn(host, "What is on the kiln schedule?")
    assert envelope["payloads"][0]["text"] == Recorder.REPLY
    prompt = recorder.system_prompt()
    assert f"## {kept.root / 'MEMORY.md'}\n{hot}" in prompt  # the file, byte for byte, under its path
    everything = request_text(recorder)
    assert "Leeds depot" not in everything and "blue tin" not in everything  # tier 2 is not loaded
    assert "cone packs" not in everything  # nor the daily log, on an ordinary turn


@pytest.mark.parametrize(
    "session_key",
    [
        "agent:main:cron:nightly-report",
        "agent:main:subagent:kiln-check",
        "agent:main:telegram:group:studio-chat",
    ],
    ids=["cron", "sub-agent", "group"],
)
def test_cron_sub_agent_and_group_sessions_do_not_load_memory_md(
    host: OpenClawHost, session_key: str
) -> None:
    with Recorder().serving() as recorder:
        recorder.configure(host)
        recorder.turn(host, "Check the studio.", "--session-key", session_key)
    everything = request_text(recorder)
    assert "Thursdays" not in everything and "Index → Deeper Tiers" not in everything
    assert "AGENTS.md" in recorder.system_prompt()  # the bootstrap files these sessions do get

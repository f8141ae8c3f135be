"""Fifteen days of ``bench/openclaw_days.py``: OpenClaw transcripts keep what the agent uses in MEMORY.md.

The bench writes each day's session as OpenClaw 2026.9.6 writes one, under
the host's home, and runs ``squadmem maintain`` as a whole process that
evening. What must hold once ``maintain`` reads the host's transcripts: the
five sections in daily use never leave ``MEMORY.md``; the ten unused leave on
the day the 7-day rule says and stay out; ``MEMORY.md`` stays within its
budget and never shrinks to its Index alone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench import openclaw_days as days

DAYS = 15
STALE_DAY = 7  # day 0 at 09:00; maintain at 23:00: first past 7 days unused on day 7


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> list[days.Row]:
    return list(days.run(tmp_path_factory.mktemp("openclaw-days"), DAYS))


def test_the_sections_in_use_stay_in_memory_md_every_day(rows: list[days.Row]) -> None:
    assert [r.day for r in rows] == list(range(DAYS + 1))
    assert [(r.day, r.working_hot) for r in rows] == [(r.day, len(days.WORKING)) for r in rows]


def test_the_unused_sections_leave_on_schedule_and_stay_out(rows: list[days.Row]) -> None:
    unused = len(days.SECTIONS) - len(days.WORKING)
    expected = [(d, len(days.SECTIONS) if d < STALE_DAY else len(days.WORKING)) for d in range(DAYS + 1)]
    assert [(r.day, r.hot) for r in rows] == expected
    assert [(r.day, r.moves) for r in rows] == [(d, unused if d == STALE_DAY else 0) for d in range(DAYS + 1)]


def test_memory_md_stays_in_budget_and_never_only_its_index(rows: list[days.Row]) -> None:
    for row in rows:
        assert row.bytes <= days.HOT_MAX_BYTES and row.lines <= days.HOT_MAX_LINES, row
        assert row.hot > 0, row


def effective_calls(entries: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """Each tool call of a transcript as (tool, arguments), a ``tool_call`` of Tool Search unwrapped."""
    calls = []
    for e in entries:
        if e["type"] != "message" or e["message"]["role"] != "assistant":
            continue
        for block in e["message"]["content"]:
            if block["type"] == "toolCall" and block["name"] == "tool_call":
                calls.append((block["arguments"]["id"], block["arguments"]["args"]))
            elif block["type"] == "toolCall":
                calls.append((block["name"], block["arguments"]))
    return calls


@pytest.mark.parametrize("tool_search", [True, False])
def test_a_session_is_written_in_openclaws_transcript_format(tmp_path: Path, tool_search: bool) -> None:
    """The header and the message chain OpenClaw 2026.9.6 writes: version 4, parentId links, tool calls."""
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    (root / "MEMORY.md").write_text(days.memory_md(), "utf-8")
    entries = [json.loads(line) for line in days.session(root, 3, tool_search).jsonl().splitlines()]
    header, *messages = entries
    assert header["type"] == "session" and header["version"] == 4 and header["cwd"] == str(root)
    parents = [None] + [m["id"] for m in messages[:-1]]
    assert [m["parentId"] for m in messages] == parents
    assert all(m["type"] == "message" for m in messages)
    calls = effective_calls(entries)
    assert {name for name, _ in calls} == {"memory_get", "memory_search", "read"}
    outer = [
        b["name"]
        for m in messages
        if m["message"]["role"] == "assistant"
        for b in m["message"]["content"]
        if b["type"] == "toolCall"
    ]
    assert ("tool_call" in outer) is tool_search and ("memory_get" in outer) is not tool_search
    results = [m["message"] for m in messages if m["message"]["role"] == "toolResult"]
    assert len(results) == len(calls) and not any(r["isError"] for r in results)
    for name, arguments in calls:
        if name == "memory_get":
            lines = (root / arguments["path"]).read_text("utf-8").splitlines()
            heading = lines[arguments["from"] - 1]
            assert heading.startswith("## ") and heading[3:] in days.WORKING
    reply = messages[-1]["message"]
    assert reply["role"] == "assistant" and any(f"“{t}”" in reply["content"][0]["text"] for t in days.WORKING)

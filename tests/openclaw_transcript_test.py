"""The transcripts ``bench/openclaw_days.py`` writes have the shape of those the real OpenClaw stores.

A sealed OpenClaw 2026.9.6 (tests/openclaw_host.py) serves the bench's
workspace; a :class:`~openclaw_host.Recorder` stands as its model and makes,
one turn after another, the very tool calls the bench's agent makes
(``memory_search``, ``memory_get`` of a line range of ``MEMORY.md``, ``read``
with ``offset`` and ``limit``), then answers ``ok``. The host runs its real
tools and stores the session; the test reads the events it stored and holds
the bench's events to the same shape: the header, the entries and their
chain, the tool calls, their results and, with Tool Search (the host's
default), the ``tool_call`` wrapper and its ``openclaw.nested-tool.v1`` record.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from openclaw_host import Recorder, sealed_host, transcript

from bench import openclaw_days as days

pytestmark = [pytest.mark.openclaw, pytest.mark.slow]
ENTRY_KEYS = {"type", "id", "parentId", "timestamp", "message"}
RESULT_KEYS = {"role", "toolCallId", "toolName", "content", "isError"}


def messages(events: list[dict[str, Any]], role: str) -> list[dict[str, Any]]:
    return [e["message"] for e in events if e.get("type") == "message" and e["message"]["role"] == role]


def tool_calls(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [b for m in messages(events, "assistant") for b in m["content"] if b.get("type") == "toolCall"]


def first_of_each(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The first call of each tool (a ``tool_call`` counted by the tool it names), in order."""
    seen: dict[str, dict[str, Any]] = {}
    for call in calls:
        seen.setdefault(call["arguments"]["id"] if call["name"] == "tool_call" else call["name"], call)
    return list(seen.values())


def unwrapped(result: dict[str, Any]) -> dict[str, Any]:
    """A ``tool_call`` result's inner result (content and details); any other result as it is."""
    if result["toolName"] != "tool_call":
        return result
    inner: dict[str, Any] = json.loads(result["content"][0]["text"])["result"]
    return inner


@pytest.mark.parametrize("tool_search", [True, False], ids=["tool-search", "direct-tools"])
def test_the_bench_writes_what_openclaw_stores(tmp_path: Path, tool_search: bool) -> None:
    ws = days.create(tmp_path / "bench")
    ours = days.session(ws.root, 1, tool_search).entries
    script = first_of_each(tool_calls(ours))
    assert len(script) == 3

    host = sealed_host(tmp_path, ws.root)
    if not tool_search:
        host.run("config", "set", "--batch-json", json.dumps([{"path": "tools.toolSearch", "value": False}]))
    with Recorder([(call["name"], call["arguments"]) for call in script]).serving() as recorder:
        recorder.configure(host)
        recorder.turn(host, "Plan today's studio work.")
    theirs = transcript(host)
    (tmp_path / "theirs.json").write_text(json.dumps(theirs, indent=1), "utf-8")  # to read when this fails

    header = next(e for e in theirs if e["type"] == "session")
    assert set(header) == set(ours[0]) and header["version"] == ours[0]["version"] == 4
    assert all(set(e) >= ENTRY_KEYS for e in theirs if e["type"] == "message")
    assert all(set(e) == ENTRY_KEYS for e in ours[1:])
    ids = {e["id"] for e in theirs if e["type"] != "session"}
    assert all(e["parentId"] in ids for e in theirs if e["type"] == "message")  # one chain

    real_calls = tool_calls(theirs)
    assert [(c["name"], c["arguments"]) for c in real_calls] == [(c["name"], c["arguments"]) for c in script]
    assert all(set(c) == {"type", "id", "name", "arguments"} for c in real_calls + tool_calls(ours))
    real_results = {r["toolCallId"]: r for r in messages(theirs, "toolResult")}
    our_results = {r["toolCallId"]: r for r in messages(ours, "toolResult")}
    for real_call, our_call in zip(real_calls, script, strict=True):
        real, mine = real_results[real_call["id"]], our_results[our_call["id"]]
        assert set(real) >= RESULT_KEYS and set(mine) >= RESULT_KEYS
        assert real["toolName"] == mine["toolName"] and real["isError"] is mine["isError"] is False, real
        real_inner, my_inner = unwrapped(real), unwrapped(mine)
        assert set(my_inner.get("details", {})) <= set(real_inner.get("details", {})), (real_inner, my_inner)
        assert real_inner["content"][0]["type"] == my_inner["content"][0]["type"] == "text"
        if real_call["name"] == "read":  # the same lines, and the same note on what follows
            assert real_inner["content"][0]["text"] == my_inner["content"][0]["text"]
        elif "text" in my_inner.get("details", {}):  # memory_get: the host's excerpt holds the bench's
            assert my_inner["details"]["text"] in real_inner["details"]["text"]
        else:  # memory_search: the same file and first line
            real_hit, my_hit = real_inner["details"]["results"][0], my_inner["details"]["results"][0]
            assert (real_hit["path"], real_hit["startLine"]) == (my_hit["path"], my_hit["startLine"])

    nested = messages(theirs, "custom")
    my_nested = messages(ours, "custom")
    assert len(nested) == (2 if tool_search else 0) and bool(my_nested) is tool_search
    for real, mine in zip(nested, my_nested, strict=False):
        assert {k: real[k] for k in ("customType", "display", "excludeFromContext", "content")} == {
            k: mine[k] for k in ("customType", "display", "excludeFromContext", "content")
        }
        assert {"parentToolCallId", "toolCallId", "toolName", "input", "result"} <= set(real["details"])
        assert set(mine["details"]) <= set(real["details"])

"""bench/spawn_study.py: fill orders scored offline on dumped spawns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import spawn_study as study


def _section(
    key: str, title: str, body: str, file: str = ".squad/memory/cold/parker.md", **kw: object
) -> dict:
    return {
        "key": key,
        "title": title,
        "text": f"## {title}\n{body}\n",
        "file": file,
        "pinned": False,
        "born": 0,
    } | kw


def _dump(folder: Path) -> Path:
    sections = [
        _section("c", "Core Context", "Owns the indexer.", ".squad/memory/hot/parker.md", pinned=True),
        _section("a", "Indexer logging", "Stack traces leaked; see #302. " + "x" * 600, born=1),
        _section("b", "Embeddings", "Small fix for #299.", born=2),
        _section("h", "Lunch", "Unrelated " + "y" * 200, ".squad/memory/hot/parker.md", born=3),
    ]
    record = {"agent": "parker", "task": "Fix the indexer logging (#302)", "relevant": {"a": True, "b": True}}
    folder.mkdir()
    (folder / "team.jsonl").write_text(json.dumps(record | {"sections": sections}) + "\n")
    return folder


def test_orders_fill_the_room_the_pinned_sections_leave(tmp_path: Path) -> None:
    (spawn,) = study.spawns(_dump(tmp_path / "d"))
    assert [s.key for s in spawn.candidates] == ["a", "b", "h"] and [s.key for s in spawn.hot] == ["h"]
    room = spawn.room(4096)
    assert room < 4096 - spawn.sections[0].bytes
    assert next(s.key for s in study.ranked(spawn)) == "a"  # #302 and "indexer", "logging"
    assert [s.key for s in study.newest(spawn)] == ["h", "b", "a"]
    assert [s.key for s in study.oracle(spawn)] == ["b", "a"]  # the relevant ones, smallest first
    small = spawn.sections[2].bytes + 10
    assert study.fill(study.oracle(spawn), small) == {"b"}
    assert study.fill(study.ORDERS["squadmem: the task's matches, then hot"](spawn), room) == {"a", "b", "h"}


def test_the_table_has_a_row_per_order(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study.main([str(_dump(tmp_path / "d")), "--budget", "700", "4096"])
    out = capsys.readouterr().out
    assert out.startswith("1 spawns of 1 repositories, 2 relevant entries (2 / 0)")
    rows = [line for line in out.splitlines() if line.startswith("| ") and "%" in line]
    assert len(rows) == len(study.ORDERS)
    assert "| the relevant ones, smallest first (the bound) | 50.0% (50.0% / 0.0%) | 100.0%" in out


def test_pointers_name_the_further_matches_in_the_room_left(tmp_path: Path) -> None:
    (spawn,) = study.spawns(_dump(tmp_path / "d"))
    room = spawn.room(4096)
    assert study.pointed(spawn, 4096, 0) == ({"a", "b", "h"}, set())  # everything fits whole
    big = spawn.sections[1].bytes
    held, named = study.pointed(spawn, 4096, room - big + 1)  # the indexer learning no longer fits
    assert "a" not in held and named == {"a"}
    assert study.pointer_bytes(spawn.sections[1]) == len("- parker/indexer-logging (cold, 2026-01-01)\n")


def test_the_pointer_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study.main([str(_dump(tmp_path / "d")), "--budget", "700", "--pointers", "0", "1000"])
    out = capsys.readouterr().out
    assert "| 0 B | 50.0% + 50.0% = 100.0% |" in out  # the small one held, the large one named
    assert "| 1,000 B | 0.0% + 100.0% = 100.0% |" in out  # no room for any whole section: both named

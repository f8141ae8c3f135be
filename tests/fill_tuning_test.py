"""``bench/fill_tuning.py``: the fill order scored offline on dumped pools, beside the yardsticks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import fill_tuning

HOUR = 3600.0
T0 = 1_780_000_000.0


def _candidate(title: str, score: float, seen: float, size: int, hot: bool = False) -> dict[str, object]:
    tier = "hot" if hot else "cold"
    return {"title": title, "score": score, "stated": None, "seen": seen, "tier": tier, "position": 0,
            "bytes": size, "hot": hot, "line": 40}  # fmt: skip


def _record() -> dict[str, object]:
    """One spawn, 1,000 B of room: an old strong match, the team's newest section (no match) and an
    old section matching a word in passing; the work named the newest one (written an hour before)."""
    return {
        "agent": "picard",
        "task": "rotate the keys",
        "rooms": {str(b): 1000 for b in fill_tuning.BUDGETS},
        "candidates": [
            _candidate("old match", 4.0, T0, 600),
            _candidate("newest", 0.0, T0 + 48 * HOUR, 500),
            _candidate("passing", 0.4, T0, 300),
        ],
        "holders": [[1]],
        "ages_h": [1.0],
    }


def test_the_order_and_the_yardsticks_hold_what_their_rooms_take() -> None:
    record = _record()
    # newest first takes the newest (500 B), then the passing one (300 B); the 600 B match no more fits
    assert fill_tuning.yardstick(record, 4096, "newest") == {1, 2}
    assert fill_tuning.yardstick(record, 4096, "bm25") == {0, 2}
    # the order: the match (1.0) first, the newest (0.25) next but it no longer fits beside it, then
    # the passing match (0.1) does
    assert fill_tuning.held(record, 4096, 0.25, 3.0) == {0, 2}
    # a weight above the best match's score puts the newest first
    assert fill_tuning.held(record, 4096, 1.5, 3.0) == {1, 2}
    # the spawn came an hour after the team's newest section
    assert fill_tuning.quiet_hours(record) == pytest.approx(1.0)


def test_main_prints_the_yardsticks_the_settings_and_the_slices(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dump = tmp_path / "team.pools.jsonl"
    dump.write_text(json.dumps(_record()) + "\n", encoding="utf-8")
    fill_tuning.main([str(dump), "--slices"])
    out = capsys.readouterr().out
    assert out.startswith("1 spawns\n")
    assert "| newest | 100.0% / 0.0% | 100.0% / 0.0% | 100.0% / 0.0% |  |" in out
    assert "| bm25 | 0.0% / 0.0% |" in out
    assert "| weight 0.25, 3 h | 0.0% / 0.0% |" in out and "| weight 1, 3 h | 100.0% / 0.0% |" in out
    assert "| 0.5–2 h | 1 | 1 | 100.0% / 100.0% / 100.0% | 0.0% / 0.0% / 0.0% |" in out


def test_the_fill_has_the_room_the_index_keeps() -> None:
    """A pool that records the room its Index keeps is filled in what is left; --index-lines models it."""
    record = _record()
    record["reserves"] = {str(b): 200 for b in fill_tuning.BUDGETS}
    record["index_least"] = 60
    record["index_lines"] = [70, 80, 90, 100]
    assert fill_tuning.kept(record, 4096) == 200
    assert fill_tuning.kept(record, 4096, 0) == 60
    assert fill_tuning.kept(record, 4096, 2) == 60 + 70 + 80
    assert fill_tuning.kept(record, 1000, 4) == 100  # at most a tenth of the budget
    # 800 B of room: the 600 B match, then the passing one (300 B) no more fits
    assert fill_tuning.held(record, 4096, 0.25, 3.0) == {0}
    # one line kept (130 B): 870 B, still not both
    assert fill_tuning.held(record, 4096, 0.25, 3.0, index_lines=1) == {0}
    assert fill_tuning.held(record, 4096, 0.25, 3.0, index_lines=0) == {0, 2}
    del record["index_least"]
    assert fill_tuning.kept(record, 4096, 1) == 0  # an older pool records none


def test_index_lines_prints_a_row_for_each_room(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = _record()
    record.update(index_least=60, index_lines=[70, 80, 90, 100])
    dump = tmp_path / "team.pools.jsonl"
    dump.write_text(json.dumps(record) + "\n", encoding="utf-8")
    fill_tuning.main([str(dump), "--index-lines"])
    out = capsys.readouterr().out
    assert "| room for 0 Index line(s) | 0.0% / 0.0% |" in out
    assert out.count("| room for ") == len(fill_tuning.INDEX_LINES)

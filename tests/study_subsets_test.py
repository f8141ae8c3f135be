"""``bench/study_subsets.py``: the study's margins on draws of train teams, beside a held-out set's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench import study_subsets


def _tally(ours: int, newest: int, recall: int, bm25: int) -> dict[str, Any]:
    held = {name: {b: 0 for b in study_subsets.BUDGETS} for name in ("squadmem", *study_subsets.YARDSTICKS)}
    held["squadmem"] = {b: ours for b in study_subsets.BUDGETS}
    held["newest"] = {b: newest for b in study_subsets.BUDGETS}
    return {"relevant": 10, "held": held, "recall_found": recall, "bm25_beyond": bm25}


def _row(split: str, repo: str, ours: int, newest: int, recall: int, bm25: int) -> dict[str, object]:
    return {"repo": repo, "split": split, "tally": _tally(ours, newest, recall, bm25)}


def _cache(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    for n, row in enumerate(rows):
        (tmp_path / f"team{n}.json").write_text(json.dumps(row), encoding="utf-8")
    (tmp_path / "skipped.json").write_text(json.dumps({"repo": "x/y", "split": "train", "failed": "no"}))
    return tmp_path


def test_margins_are_points_of_the_teams_relevant_entries() -> None:
    teams = [_tally(5, 3, 4, 2), _tally(1, 3, 2, 2)]
    assert study_subsets.fill_margin("4096", "newest")(teams) == pytest.approx(0.0)  # 6 against 6 of 20
    assert study_subsets.fill_margin("4096", None)(teams[:1]) == pytest.approx(20.0)  # best: newest, 3
    assert study_subsets.count_margin("recall_found", "bm25_beyond")(teams) == pytest.approx(10.0)  # 6 to 4
    assert study_subsets.count_margin("one_away", "one_away_bm25")(teams) == pytest.approx(0.0)  # none


def test_a_held_out_set_outside_every_draw_is_shown_beside_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [_row("train", f"t/{n}", 6, 3, 4, 4) for n in range(5)]
    rows.append(_row("held-out", "h/1", 2, 6, 4, 4))
    study_subsets.main(["--cache", str(_cache(tmp_path, rows)), "--draws", "50"])
    out = capsys.readouterr().out
    assert "**held-out**: 1 teams; 50 draws of 1 of the 5 train teams" in out
    # every draw of a train team: squadmem 30 points ahead of newest first; the held-out team: 40 behind
    assert "| fill 4 KB − newest first | +30.0 | 0.0% | +30.0 | +30.0 | +30.0 | +30.0 | **-40.0** |" in out


def test_no_held_out_rows_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as stop:
        study_subsets.main(["--cache", str(_cache(tmp_path, [_row("train", "t/1", 1, 1, 1, 1)]))])
    assert stop.value.code == 2

"""bench/chaos.py's two flows run end to end: merge, settle, push; a clone without the driver.

What they measure (verify's verdict, the push, sections lost) is reported, not pinned: it is what
squadmem does now. The test holds that each flow runs once in a real repository and is tallied.
"""

from __future__ import annotations

import random
from pathlib import Path


def _run(tmp_path: Path, name: str) -> object:
    from bench import chaos

    random.seed(1)
    template = tmp_path / "template"
    template.mkdir()
    chaos.seed(template)
    expected = chaos.tree_sections(template, "HEAD")
    root = tmp_path / "0-0"
    chaos.shutil.copytree(template, root)
    tally = chaos.Tally()
    chaos.CASES[name](root, tally, 0.0)
    tally.check(root, expected)
    return tally


def test_merge_settle_push_pushes_or_says_why(tmp_path: Path) -> None:
    tally = _run(tmp_path, "merge, settle (maintain, doctor --fix), verify, push")
    assert tally.runs == 1 and tally.pushes == 1  # type: ignore[attr-defined]
    refused = tally.pushes - tally.pushed  # type: ignore[attr-defined]
    assert refused == tally.notes["push refused"]  # type: ignore[attr-defined]
    assert tally.forged_passed == 0  # type: ignore[attr-defined]


def test_a_clone_without_the_driver_is_merged_and_judged(tmp_path: Path) -> None:
    tally = _run(tmp_path, "clone without the merge driver, then a merge")
    assert tally.runs == 1  # type: ignore[attr-defined]
    notes = tally.notes  # type: ignore[attr-defined]
    assert notes["no merge driver in the clone"] + notes["merge driver set up in the clone"] == 1
    assert tally.verify_missed == 0  # type: ignore[attr-defined]

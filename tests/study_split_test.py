"""The spawn study's split is the one its hash fixed: the committed hash is the listing's."""

from __future__ import annotations

import hashlib
from pathlib import Path

from bench import study_split


def test_committed_hash_is_the_listings() -> None:
    listing = study_split.listing()
    assert hashlib.sha256(listing.encode("utf-8")).hexdigest() == study_split.HASH_FILE.read_text().strip()


def test_the_sets_are_apart_and_held_out_is_not_empty() -> None:
    rows = [line.split("\t") for line in study_split.listing().splitlines()]
    by_split: dict[str, set[str]] = {}
    for split, repo, commit in rows:
        assert len(commit) == 40
        by_split.setdefault(split, set()).add(repo)
    assert set(by_split) == {"train", "held-out", "new"}
    assert len(by_split["new"]) >= 3 and len(by_split["held-out"]) >= 3
    assert not by_split["new"] & (by_split["train"] | by_split["held-out"])
    assert not by_split["train"] & by_split["held-out"]


def test_a_moved_team_changes_the_hash(tmp_path: Path) -> None:
    copies = []
    for path in study_split.FILES:
        copy = tmp_path / path.name
        copy.write_text(path.read_text(encoding="utf-8").replace("\theld-out\t", "\ttrain\t", 1))
        copies.append(copy)
    assert study_split.digest(copies) != study_split.digest()

from __future__ import annotations

import datetime as dt
import json

from conftest import GitRepo
from conftest import squadmem as cli

from squadmem.model import uses
from squadmem.model.layout import MEMORY_DIR

HOT = f"{MEMORY_DIR}/hot/picard.md"
COLD = f"{MEMORY_DIR}/cold/picard.md"


def test_parse_dated_reads_plain_and_dated_ids() -> None:
    message = (
        "x\n\nSquad-Memory-Used: a/x, b/y@2026-01-02T03:04:05Z\n"
        "Squad-Memory-Used: c/z@not-a-time a/x@2026-01-01T00:00:00+02:00\n"
    )
    assert uses.parse_dated(message) == [
        ("a/x", None),
        ("b/y", dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)),
        ("c/z@not-a-time", None),
        ("a/x", dt.datetime(2025, 12, 31, 22, 0, tzinfo=dt.UTC)),
    ]
    assert uses.parse_used(message) == ["a/x", "b/y", "c/z@not-a-time"]
    assert (
        uses.dated("a/x", dt.datetime(2026, 1, 2, 3, 4, 5, 999, tzinfo=dt.UTC)) == "a/x@2026-01-02T03:04:05Z"
    )


def test_a_dated_use_counts_at_its_time_and_never_after_its_commit(repo: GitRepo) -> None:
    repo.commit("memory", {COLD: "# Cold\n\n## Old\nx\n\n## Later\ny\n"}, date="2026-01-01T00:00:00+00:00")
    repo.commit(
        "uses\n\nSquad-Memory-Used: picard/old@2026-01-10T00:00:00Z\n"
        "Squad-Memory-Used: picard/later@2027-01-01T00:00:00Z\n",
        date="2026-02-01T00:00:00+00:00",
    )
    code, out, _ = cli(repo, "report", "--json", "--now", "2026-02-02")
    assert code == 0
    last = {s["id"]: s["last_used"] for s in json.loads(out)["sections"]}
    assert last["picard/old"].startswith("2026-01-10T00:00:00")
    assert last["picard/later"].startswith("2026-02-01T00:00:00")  # clamped to its commit


def test_a_section_brought_in_with_a_dated_use_keeps_that_age(repo: GitRepo) -> None:
    """An import keeps the age the old tool recorded; the same use on a later commit does not."""
    repo.commit(
        "import\n\nSquad-Memory-Used: picard/a@2026-01-05T00:00:00Z\n",
        {HOT: "# Hot\n\n## A\nx\n"},
        date="2026-02-01T00:00:00+00:00",
    )
    repo.commit(
        "later\n\nSquad-Memory-Used: picard/b@2026-01-05T00:00:00Z\n",
        {HOT: "# Hot\n\n## A\nx\n\n## B\ny\n"},
        date="2026-02-02T00:00:00+00:00",
    )
    repo.commit("use\n\nSquad-Memory-Used: picard/b@2026-01-06T00:00:00Z\n", date="2026-02-03T00:00:00+00:00")
    _, out, _ = cli(repo, "report", "--json", "--now", "2026-02-04")
    last = {s["id"]: s["last_used"] for s in json.loads(out)["sections"]}
    assert last["picard/a"].startswith("2026-01-05T00:00:00")
    assert last["picard/b"].startswith("2026-02-02T00:00:00")  # its content is newer than any use

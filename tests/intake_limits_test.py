"""The intake refuses, before anything is written, a placement that would leave a tier file too large."""

from __future__ import annotations

import pytest
from conftest import GitRepo, assert_refused
from conftest import squadmem as cli

from squadmem.model.layout import MAX_FILE_BYTES, MEMORY_DIR

DAY0 = "2026-01-05T09:00:00+00:00"
LATER = "2026-03-01T09:00:00+00:00"  # the learning is 55 days old: it goes to the archive
PICARD = ".squad/agents/picard/history.md"
ARCHIVE = f"{MEMORY_DIR}/archive/picard.md"
HISTORY = "# Project Context\n\n## Core Context\n\nPicard leads.\n\n## Learnings\n\n### Topic\nan old fact\n"


@pytest.mark.parametrize("dry_run", [(), ("--dry-run",)])
def test_an_entry_that_would_put_a_tier_file_over_1_mib_is_refused(
    repo: GitRepo, dry_run: tuple[str, ...]
) -> None:
    """Planned in the planning's projection, the 1 MiB limit of a tier file is met when the entry is
    placed, so a dry run says so too (the writer used to meet it only when committing)."""
    big = "# Archive\n\n## Kept\n\n" + "x" * (MAX_FILE_BYTES - 40) + "\n"
    repo.commit("squad init", {PICARD: HISTORY}, date=DAY0)
    assert cli(repo, "init", "--no-hooks")[0] == 0
    repo.write(ARCHIVE, big)
    repo.git("add", "-A")
    repo.commit("squadmem init", date=DAY0)
    size = len(big.encode()) + len(b"## Topic\nan old fact\n") + 1  # and a line ending it may need
    assert_refused(
        repo,
        "intake",
        "--now",
        LATER,
        *dry_run,
        message=f"squadmem: {ARCHIVE} would be {size} bytes, over the 1 MiB limit for a tier file",
    )

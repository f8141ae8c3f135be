"""Work grows with the bytes of the tier files, not with their product by the number of moves.

No timings: the tests count the characters handed to the section scanner while a
plan is made and while it is replayed against HEAD.
"""

from __future__ import annotations

import datetime as dt

import pytest
from conftest import GitRepo

from squadmem.commands import maintain
from squadmem.engine import catalog
from squadmem.engine.history import lastuse
from squadmem.engine.planning import policy
from squadmem.engine.writing import writer
from squadmem.gitio.repo import Repo
from squadmem.model import sections, templates
from squadmem.model.layout import MEMORY_DIR
from squadmem.model.places import SQUAD_PLACES
from squadmem.model.settings import Settings

HOT = f"{MEMORY_DIR}/hot/picard.md"
NOW = dt.datetime(2026, 1, 3, tzinfo=dt.UTC)
SECTIONS = 600
BOUND = 12  # characters scanned per byte of tier files, whatever the number of moves


def _hot(count: int) -> str:
    return "# Hot memory: picard\n\n" + "".join(
        f"## Note {n}\n\nfact {n} about the work.\n\n" for n in range(count)
    )


@pytest.fixture
def scanned(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of every text the section scanner splits from now on."""
    found: list[int] = []
    real = sections.split

    def counting(text: str) -> sections.Document:
        found.append(len(text))
        return real(text)

    monkeypatch.setattr(sections, "split", counting)
    return found


def test_planning_a_budget_pass_scans_each_byte_a_bounded_number_of_times(scanned: list[int]) -> None:
    """Regression: each planned move split whole tier files again and the budget pass rebuilt the
    Index from every file per section it sent out (1,000 small hot sections: 139 s for a dry run;
    10,000: killed after 10 minutes, 626 MB)."""
    text = _hot(SECTIONS)
    memory = catalog.from_texts({HOT: text}, SQUAD_PLACES)
    uses = {e.id: lastuse.LastUse(NOW - dt.timedelta(days=2), "content", None) for e in memory.entries}
    scanned.clear()
    plan = policy.plan(memory, uses, Settings(), NOW)
    assert len(plan.moves) > SECTIONS - 50
    assert {m.rule for m in plan.moves} == {"budget"}
    assert sum(scanned) <= BOUND * len(text), sum(scanned) / len(text)


def test_replaying_a_plan_against_head_scans_each_byte_a_bounded_number_of_times(
    repo: GitRepo, scanned: list[int]
) -> None:
    """Regression: the executor re-split both whole tier files for every move it rehearsed, and
    kept every commit's whole files until the end (memory grew about 90 KB per move)."""
    text = _hot(SECTIONS)
    repo.commit("memory", {HOT: text}, date="2026-01-01T00:00:00+00:00")
    with Repo(repo.root) as gateway:
        plan = maintain.make_plan(gateway, Settings(), NOW)
        assert len(plan.moves) > SECTIONS - 50
        scanned.clear()
        with writer.session(gateway) as scribe:
            scribe.rehearse(plan, templates.headers(SQUAD_PLACES))
            steps = scribe.steps(plan, templates.headers(SQUAD_PLACES))
            first = next(steps)
            assert set(first[0]) == {HOT, f"{MEMORY_DIR}/cold/picard.md"}
    assert sum(scanned) <= BOUND * len(text), sum(scanned) / len(text)

"""Budgets hold through every path: the one budget rule, promotions, manual moves, cold advice."""

from __future__ import annotations

import json

import pytest
from conftest import GitRepo, run_squadmem
from conftest import squadmem as cli

from squadmem.model import budget
from squadmem.model.layout import MEMORY_DIR
from squadmem.model.settings import HotSettings

HOT = f"{MEMORY_DIR}/hot/picard.md"
COLD = f"{MEMORY_DIR}/cold/picard.md"
ARCHIVE = f"{MEMORY_DIR}/archive/picard.md"
SEEDED = "2026-02-01T10:00:00+00:00"
LEARNINGS = "## Learnings\n\n" + "".join(f"- learning {n}: keep the deploy key rotated\n" for n in range(450))


def _size(repo: GitRepo, rel: str) -> tuple[int, int]:
    return budget.measure(repo.git("show", f"HEAD:{rel}"))


def _at(when: str) -> dict[str, str]:
    """Commits made by a command dated ``when`` (as its ``--now``)."""
    return {"GIT_COMMITTER_DATE": when, "GIT_AUTHOR_DATE": when}


def _verified(repo: GitRepo) -> None:
    code, out, err = cli(repo, "verify")
    assert code == 0, out + err


# -- the rule --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("size", "rows", "expected"),
    [
        (4096, 100, None),
        (4097, 1, "4097 B > 4096 B"),
        (10, 101, "101 lines > 100 lines"),
        (5000, 200, "5000 B > 4096 B"),
    ],
)
def test_hot_over_bytes_before_lines(size: int, rows: int, expected: str | None) -> None:
    assert budget.hot_over(size, rows, HotSettings()) == expected


@pytest.mark.parametrize(
    ("days", "limit", "shown"),
    [
        (9.3, 7, "9"),
        (7.4, 7, "7.4"),
        (7.0035, 7, "7.003"),
        (7.4, None, "7.4"),
        (3.0, 7, "3.0"),
    ],
)
def test_days_text_never_shows_an_age_equal_to_the_limit_it_is_over(
    days: float, limit: float | None, shown: str
) -> None:
    assert budget.days_text(days, limit) == shown


def test_report_and_maintain_agree_on_an_age_just_over_the_limit(repo: GitRepo) -> None:
    """Regression: report rounded ages to 2 decimals (7.0035 d -> 7.0, not due) while maintain
    demoted the same section: one age rule now decides both, and the reason shows it over."""
    repo.commit("memory", {HOT: "## Auth\ntokens\n"}, date="2026-02-01T00:00:00+00:00")
    now = "2026-02-08T00:05:00+00:00"  # 7 days and 5 minutes
    _, out, _ = cli(repo, "report", "--json", "--now", now)
    (row,) = json.loads(out)["sections"]
    assert row["due"] == "demote"
    _, out, _ = cli(repo, "maintain", "--dry-run", "--json", "--now", now)
    (move,) = json.loads(out)["moves"]
    assert (move["id"], move["reason"]) == ("picard/auth", "stale 7.003d > 7d")


# -- promotions ------------------------------------------------------------------------------------
def test_a_recalled_section_too_big_for_hot_stays_in_cold_with_a_warning(repo: GitRepo) -> None:
    """Regression: one recall of an 18.7 KB section into a 4 KB hot file, then maintain made commits
    that its own verify refused and said "nothing to do"."""
    repo.commit("memory", {HOT: "# Hot\n\n## Small\ns\n", COLD: LEARNINGS}, date=SEEDED)
    assert len(LEARNINGS.encode()) > 18000
    assert cli(repo, "recall", "deploy key", "--now", "2026-02-20T10:00:00Z")[0] == 0
    code, out, _ = cli(repo, "maintain", "--now", "2026-02-20T12:00:00Z", env=_at("2026-02-20T12:00:00Z"))
    assert code == 0
    assert "warning: picard/learnings stays in cold: promoting it (" in out
    assert "over budget (" in out
    assert "nothing to do" not in out
    assert "## Learnings" not in repo.read(HOT)
    assert budget.hot_over(*_size(repo, HOT), HotSettings()) is None
    _verified(repo)
    code, out, _ = cli(repo, "maintain", "--now", "2026-02-20T13:00:00Z", env=_at("2026-02-20T13:00:00Z"))
    assert "nothing moved" in out and "stays in cold" in out


def test_a_promotion_makes_room_by_sending_out_the_least_recently_used(repo: GitRepo) -> None:
    """A used cold section comes back to hot; the hot sections used longest ago leave to make room."""
    old = "".join(f"## Note {n}\n" + "n" * 300 + "\n\n" for n in range(12))
    used = "## Runbook\n" + "r" * 900 + "\n"
    repo.commit("memory", {HOT: "# Hot\n\n" + old, COLD: used}, date=SEEDED)
    repo.commit("use\n\nSquad-Memory-Used: picard/runbook", date="2026-02-05T08:00:00+00:00")
    code, out, _ = cli(repo, "maintain", "--json", "--now", "2026-02-05T10:00:00Z")
    assert code == 0
    moves = [(m["id"], m["to"], m["rule"]) for m in json.loads(out)["moves"]]
    assert moves[0] == ("picard/runbook", "hot", "used")
    assert {rule for _, _, rule in moves[1:]} == {"budget"}
    assert [ident for ident, _, _ in moves[1:]] == [f"picard/note-{n}" for n in range(len(moves) - 1)]
    assert "Runbook" in repo.read(HOT)
    assert budget.hot_over(*_size(repo, HOT), HotSettings()) is None
    _verified(repo)
    assert "nothing to do" in cli(repo, "maintain", "--now", "2026-02-05T11:00:00Z")[1]


def test_a_manual_promote_that_cannot_fit_is_refused(repo: GitRepo) -> None:
    """A promote by hand of a section bigger than the whole hot budget: exit 2, nothing written."""
    repo.commit("memory", {HOT: "## Small\ns\n", COLD: LEARNINGS}, date=SEEDED)
    before = repo.snapshot()
    done = run_squadmem(repo.root, "promote", "picard/learnings")
    assert done.returncode == 2
    message, hint = done.stderr.splitlines()
    size = len(LEARNINGS.encode())
    assert message.startswith(f"squadmem: picard/learnings ({size} B) does not fit in {HOT}: it would be ")
    assert message.endswith(" B > 4096 B) even with every movable section out")
    assert hint.startswith("hint: raise hot.max_bytes")
    assert repo.snapshot() == before


def test_a_manual_promote_makes_room(repo: GitRepo) -> None:
    """A promote by hand into a full hot file sends out its least recently used sections, each a move."""
    old = "".join(f"## Note {n}\n" + "n" * 300 + "\n\n" for n in range(12))
    repo.commit("memory", {HOT: old, COLD: "## Runbook\n" + "r" * 900 + "\n"}, date=SEEDED)
    code, out, _ = cli(repo, "promote", "picard/runbook", "--now", "2026-02-05T10:00:00Z")
    assert code == 0, out
    assert "Runbook" in repo.read(HOT) and "## Note 0\n" in repo.read(COLD)
    assert budget.hot_over(*_size(repo, HOT), HotSettings()) is None
    _verified(repo)


# -- a manual demote holds -------------------------------------------------------------------------
def test_a_manual_demote_is_not_undone_by_the_next_maintain(repo: GitRepo) -> None:
    """Regression: a section used in the last 24 h and demoted by hand came straight back to hot at
    the next maintain, for 24 hours; the demote itself must not count as a use either."""
    repo.commit("memory", {HOT: "## Auth\ntokens\n\n## Other\no\n"}, date=SEEDED)
    repo.commit("use\n\nSquad-Memory-Used: picard/auth, picard/other", date="2026-02-20T08:00:00+00:00")
    assert cli(repo, "touch", "picard/auth", "--now", "2026-02-20T08:30:00Z")[0] == 0
    code, _, err = cli(repo, "demote", "picard/auth", env={"GIT_COMMITTER_DATE": "2026-02-20T09:00:00+00:00"})
    assert code == 0, err
    for later in ("2026-02-20T10:00:00Z", "2026-02-21T08:59:00Z"):
        code, out, _ = cli(repo, "maintain", "--dry-run", "--json", "--now", later)
        assert [m["id"] for m in json.loads(out)["moves"]] == [], out
    assert cli(repo, "touch", "picard/auth", "--now", "2026-02-20T11:00:00Z")[0] == 0
    code, out, _ = cli(repo, "maintain", "--json", "--now", "2026-02-20T12:00:00Z")
    assert [(m["id"], m["to"]) for m in json.loads(out)["moves"]] == [("picard/auth", "hot")]


# -- cold over budget ------------------------------------------------------------------------------
def _cold_notes(days: list[str]) -> dict[str, str]:
    return {day: f"## Note {day}\n" + "c" * 2500 + "\n" for day in days}


def test_a_cold_file_over_budget_gets_a_command_that_brings_it_under(repo: GitRepo) -> None:
    """Regression: report said "demote <oldest> --to archive", which left the file over budget;
    the command it names now is proved (by planning with it) to bring the file under."""
    notes = _cold_notes(["2026-01-10", "2026-01-12", "2026-01-14", "2026-01-16", "2026-01-18", "2026-01-20"])
    text = ""
    for day, note in notes.items():
        text += note
        repo.commit(f"note {day}", {COLD: text}, date=f"{day}T10:00:00+00:00")
    repo.commit("hot", {HOT: "## Small\ns\n"}, date="2026-01-20T10:00:00+00:00")
    now = "2026-02-05T00:00:00Z"
    _, out, _ = cli(repo, "report", "--json", "--now", now)
    data = json.loads(out)
    (cold,) = [f for f in data["files"] if f["file"] == COLD]
    assert cold["over_budget"] and cold["fix"]["ids"] == ["picard/note-2026-01-10", "picard/note-2026-01-12"]
    command = cold["fix"]["command"]
    assert command == "squadmem maintain --agent picard --cold-ttl-days 23"
    assert command in {r["command"] for r in data["recommendations"]}
    _, out, _ = cli(repo, "maintain", "--dry-run", "--now", now)
    assert f"B, over cold.max_bytes 12288 B; run: {command} (moves out" in out, out
    code, out, _ = cli(repo, *command.split()[1:], "--now", now)
    assert code == 0, out
    assert _size(repo, COLD)[0] <= 12288
    assert "Note 2026-01-10" in repo.read(ARCHIVE)
    _verified(repo)

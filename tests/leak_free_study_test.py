"""The leak-free spawn study sees nothing committed after a spawn's stated moment: a small Squad team
in a real git repository, an entry committed after the moment naming what the work touched, and the
study neither scores it as relevant nor shows it to any fill or recall."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from conftest import GitRepo

from bench import leak_free_study, squad_spawns, squad_study, study_rules

HISTORY = ".squad/agents/alice/history.md"
LOG = ".squad/orchestration-log/2026-05-10T12-00-00Z-alice.md"
BEFORE = "### 2026-05-01: parser\n\nThe `parse_orders.py` reader keeps the legacy header.\n"
AFTER = "### 2026-05-10: exporter\n\nThe `export_orders.py` writer drops empty rows.\n"


def history(*entries: str) -> str:
    return "# alice\n\n## Core Context\n\nAlice owns the orders pipeline.\n\n## Learnings\n\n" + "\n".join(
        entries
    )


def team(repo: GitRepo) -> str:
    """A team whose log states 12:00Z; the entry naming ``export_orders.py`` lands at 12:30Z, the log
    at 18:00Z."""
    repo.commit(
        "team",
        {
            ".squad/team.md": "# Team\n\n| Name | Role |\n|---|---|\n| alice | dev |\n",
            HISTORY: history(BEFORE),
        },
        date="2026-05-01T09:00:00+00:00",
    )
    repo.commit("alice learns", {HISTORY: history(BEFORE, AFTER)}, date="2026-05-10T12:30:00+00:00")
    log = (
        "# Orchestration Log\n\n- **Agent:** alice\n- **Task:** fix the orders export\n\n"
        "## What alice did\n\nChanged `parse_orders.py` and `export_orders.py`.\n"
    )
    return repo.commit("log", {LOG: log}, date="2026-05-10T18:00:00+00:00")


def test_stated_moment_is_the_earliest_reading_never_after_the_commit() -> None:
    added = dt.datetime(2026, 5, 10, 18, tzinfo=dt.timezone(dt.timedelta(hours=-7)))
    name = ".squad/orchestration-log/2026-05-10T1200-alice.md"
    assert study_rules.stated_moment(name, "", added) == dt.datetime(2026, 5, 10, 12, tzinfo=dt.UTC)
    east = added.replace(tzinfo=dt.timezone(dt.timedelta(hours=2)))
    assert study_rules.stated_moment(name, "", east) == dt.datetime(2026, 5, 10, 10, tzinfo=dt.UTC)
    body = "# Log\n\n**Timestamp:** 2026-05-09T08:00:00Z\n"
    assert study_rules.stated_moment(".squad/orchestration-log/alice.md", body, added) == dt.datetime(
        2026, 5, 9, 8, tzinfo=dt.UTC
    )
    assert study_rules.stated_moment(".squad/orchestration-log/alice.md", "# Log\n", added) is None
    early = dt.datetime(2026, 5, 1, tzinfo=dt.UTC)
    assert study_rules.stated_moment(name, "", early) == early


def test_the_spawn_is_read_before_its_stated_moment(repo: GitRepo, tmp_path: Path) -> None:
    team(repo)
    history_repo = tmp_path / "history"
    assert squad_study.export_at(repo.root, repo.head(), history_repo) is None
    commits = squad_study.first_parents(history_repo)
    spawns, unstated = leak_free_study.logged_spawns(history_repo, commits)
    assert unstated == 0 and len(spawns) == 1
    assert spawns[0].moment == dt.datetime(2026, 5, 10, 12, tzinfo=dt.UTC)
    assert spawns[0].state == 1  # the 12:30 commit is after the moment: not read


def test_an_entry_committed_after_the_moment_is_never_scored_nor_seen(repo: GitRepo, tmp_path: Path) -> None:
    commit = team(repo)
    dump = tmp_path / "pools.jsonl"
    work = tmp_path / "work"
    work.mkdir()
    row = leak_free_study.study_team(
        squad_study.Team("owner/team", commit, "new", "test"), repo.root, work, 20, dump
    )
    tally = leak_free_study.Tally(**row["tally"])
    assert tally.spawns == 1
    assert tally.relevant == 1  # the parser entry; the exporter one came after the moment
    assert tally.late == 0
    pools = [json.loads(line) for line in dump.read_text(encoding="utf-8").splitlines()]
    assert len(pools) == 1 and pools[0]["holders"] and all(pools[0]["holders"])
    assert all(a >= 6 for a in pools[0]["ages_h"])
    seen = json.dumps(pools)
    assert "parser" in seen
    assert "exporter" not in seen and "export_orders" not in seen
    # squadmem's history dates what the team wrote before the first state as the team's commits did
    when = {c["title"]: c["seen"] for c in pools[0]["candidates"]}
    assert when["2026-05-01: parser"] == dt.datetime(2026, 5, 1, 9, tzinfo=dt.UTC).timestamp()


def test_entries_committed_apart_between_spawns_keep_their_own_times(repo: GitRepo, tmp_path: Path) -> None:
    """Two entries committed hours apart between two spawns: squadmem's history dates each at its own
    commit, not both at the later spawn's state, and the entries' yardstick ages agree."""
    team(repo)
    first = "### 2026-05-11: ledger\n\nThe `ledger_sync.py` job retries twice.\n"
    second = "### 2026-05-11: invoices\n\nThe `invoice_pdf.py` renderer pins the font.\n"
    entries = (BEFORE, AFTER)
    repo.commit("ledger", {HISTORY: history(*entries, first)}, date="2026-05-11T09:00:00+00:00")
    repo.commit("invoices", {HISTORY: history(*entries, first, second)}, date="2026-05-11T15:00:00+00:00")
    log = (
        "# Orchestration Log\n\n- **Agent:** alice\n- **Task:** reconcile the ledger with invoices\n\n"
        "## What alice did\n\nChanged `ledger_sync.py` and `invoice_pdf.py`.\n"
    )
    late = ".squad/orchestration-log/2026-05-12T12-00-00Z-alice.md"
    commit = repo.commit("log", {late: log}, date="2026-05-12T13:00:00+00:00")
    dump = tmp_path / "pools.jsonl"
    work = tmp_path / "work"
    work.mkdir()
    row = leak_free_study.study_team(
        squad_study.Team("owner/team", commit, "new", "test"), repo.root, work, 20, dump
    )
    assert row["tally"]["spawns"] == 2 and row["tally"]["late"] == 0
    pools = [json.loads(line) for line in dump.read_text(encoding="utf-8").splitlines()]
    when = {c["title"]: c["seen"] for c in pools[-1]["candidates"]}
    assert when["2026-05-11: ledger"] == dt.datetime(2026, 5, 11, 9, tzinfo=dt.UTC).timestamp()
    assert when["2026-05-11: invoices"] == dt.datetime(2026, 5, 11, 15, tzinfo=dt.UTC).timestamp()
    assert sorted(pools[-1]["ages_h"]) == [21.0, 27.0]  # the yardsticks' clock: the same commits


def test_a_team_done_is_kept_in_the_cache_and_not_run_again(repo: GitRepo, tmp_path: Path) -> None:
    commit = team(repo)
    cache = tmp_path / "cache"
    cache.mkdir()
    job = (squad_study.Team("owner/team", commit, "new", "test"), repo.root, 20, None, cache)
    row = leak_free_study.run_cached(job)
    assert row["tally"]["spawns"] == 1
    assert json.loads((cache / "owner+team.json").read_text(encoding="utf-8")) == row
    assert (cache / "owner+team.pools.jsonl").read_text(encoding="utf-8").count("\n") == 1
    gone = (squad_study.Team("owner/team", commit, "new", "test"), tmp_path / "nowhere", 20, None, cache)
    assert leak_free_study.run_cached(gone) == row  # read back, not run


def test_squads_own_log_template_gives_the_task_and_the_agent() -> None:
    log = (
        "# Orchestration Log Entry\n\n> One file per agent spawn.\n\n---\n\n"
        "### 2026-05-07T17:17 — TUI visual enhancements: click spam fix + startup messages\n\n"
        "| Field | Value |\n|-------|-------|\n| **Agent routed** | Parker (Backend Dev) |\n"
        "| **Why chosen** | Owns PTY input handling |\n| **Outcome** | Pending |\n\n"
        "## Context\n\nTouches `packages/cli/src/index.ts`.\n"
    )
    path = ".squad/orchestration-log/2026-05-07T17-17-parker.md"
    parsed = squad_spawns.parse(path, log, ["parker", "lambert"])
    assert parsed is not None
    assert (parsed.agent, parsed.task) == (
        "parker",
        "TUI visual enhancements: click spam fix + startup messages",
    )
    assert "click spam" not in parsed.work and "Agent routed" not in parsed.work
    assert "`packages/cli/src/index.ts`" in parsed.work
    # a log of that template without a summary line names no task
    bare = log.replace(
        "### 2026-05-07T17:17 — TUI visual enhancements: click spam fix + startup messages\n", ""
    )
    assert squad_spawns.parse(path, bare, ["parker"]) is None

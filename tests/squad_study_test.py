"""bench/squad_study.py on a small Squad history: the corpus list, the export at a commit, and each
logged spawn scored on the state just before its log's time stamp."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from conftest import GitRepo

from bench import squad_study as study
from squadmem.model import squad

HISTORY = ".squad/agents/parker/history.md"
DECISIONS = ".squad/decisions.md"
EARLY = (
    "# Parker\n\n## Core Context\n\nOwns the indexer.\n\n## Learnings\n\n"
    "### Indexer logging (2026-03-01)\nStack traces leaked in `logger.exception` calls; see #302.\n\n"
    "### Unrelated (2026-03-01)\nNothing named here.\n"
)
# the spawn's own write-up, committed with its log: it names what the work named, but came after
WRITE_UP = EARLY + "\n### Indexer fix (2026-03-03)\nReplaced `logger.exception`; the TokenCache in #310.\n"
LOG = (
    "# Orchestration Log\n\n**Agent:** Parker (Backend Dev)\n"
    "**Task:** Fix the indexer logging (Issue #302)\n\n## Outcome\n\n"
    "- Replaced `logger.exception` calls\n- Touched TokenCache (#310), see Infra/DevOps\n"
)
LOG_PATH = ".squad/orchestration-log/2026-03-03T10-00-00Z-parker.md"


OWNERS = (
    "# Decisions\n\n## Active Decisions\n\n"
    "### 2026-03-01: Pipeline owners\n**By:** Parker\n**What:** Infra/DevOps owns it\n"
)


def _team(repo: GitRepo) -> str:
    repo.commit("squad", {HISTORY: EARLY, DECISIONS: OWNERS}, date="2026-03-01T09:00:00Z")
    repo.commit("other work", {"src/app.py": "print(1)\n"}, date="2026-03-02T09:00:00Z")
    return repo.commit("spawned", {LOG_PATH: LOG, HISTORY: WRITE_UP}, date="2026-03-03T12:00:00Z")


def test_read_corpus_and_locate_find_each_team_as_the_list_names_it(tmp_path: Path, repo: GitRepo) -> None:
    listed = tmp_path / "teams.tsv"
    listed.write_text(
        "# a comment\nrepo\tcommit\tbranch\tsplit\tlogs\twhy\n"
        "acme/parker\tabc\tmain\theld-out\t12\tfound elsewhere\nacme/gone\tdef\tmain\ttrain\t10\tpage\n",
        encoding="utf-8",
    )
    teams = study.read_corpus(listed)
    assert [(t.repo, t.split) for t in teams] == [("acme/parker", "held-out"), ("acme/gone", "train")]
    clones = tmp_path / "clones"
    (clones / "acme+parker").mkdir(parents=True)
    repo.root.rename(clones / "acme+parker" / "repo")
    assert study.locate(clones, "acme/parker") == clones / "acme+parker" / "repo"
    assert study.locate(clones, "acme/gone") is None


def test_export_at_keeps_only_squad_and_stops_at_the_listed_commit(tmp_path: Path, repo: GitRepo) -> None:
    last = _team(repo)
    repo.commit(
        "later", {DECISIONS: "# Decisions\n\n### 2026-03-04: later\nx\n"}, date="2026-03-04T09:00:00Z"
    )
    history = tmp_path / "history"
    assert study.export_at(repo.root, last, history) is None
    assert not (history / "src").exists()
    assert (history / HISTORY).read_text(encoding="utf-8") == WRITE_UP
    assert len(study.first_parents(history)) == 2  # the commit without .squad/ is left out
    assert study.export_at(repo.root, "0" * 40, tmp_path / "none") is not None


def test_a_spawn_is_scored_on_the_state_before_its_time_stamp(tmp_path: Path, repo: GitRepo) -> None:
    """The regression the study fixes: the spawn's own write-up, committed after it started, is not
    in the state it is scored on, so it is not relevant to it."""
    history = tmp_path / "history"
    study.export_at(repo.root, _team(repo), history)
    commits = study.first_parents(history)
    (spawn,) = study.logged_spawns(history, commits)
    assert spawn.moment == dt.datetime(2026, 3, 3, 10, tzinfo=dt.UTC)
    assert spawn.state == 1  # only the first commit precedes it
    born = study.births(history, len(commits))
    assert max(born.values()) == commits[1][1]  # the write-up was born with the log


def test_study_team_scores_every_fill_without_a_late_entry(tmp_path: Path, repo: GitRepo) -> None:
    last = _team(repo)
    team = study.Team("acme/parker", last, "held-out", "test")
    work = tmp_path / "work"
    work.mkdir()
    row = study.study_team(team, repo.root, work, max_spawns=5, warmup_days=1)
    assert "failed" not in row, row
    tally = study.Tally(**row["tally"])
    # relevant: the indexer learning (`logger.exception`); not the write-up, committed after the spawn
    # started, nor the decision that names only Infra/DevOps (the uncleaned proxy counts it)
    assert (tally.spawns, tally.relevant, tally.uncleaned, tally.late) == (1, 1, 2, 0)
    assert tally.held["bound"][4096] == tally.held["squad"][4096] == 1
    assert tally.held["squadmem"][4096] == 1 and tally.one_away == 1
    assert tally.spawn_bytes > 0 and tally.recalls == 0  # held: nothing to recall
    # the near hook replays the two issues the work names; the entry naming #302 is in hot (the spawn
    # holds it), so the hook adds nothing
    assert (tally.hook_events, tally.hook_entries, tally.hook_bytes, tally.held_or_hook) == (2, 0, 0, 1)


def test_a_log_merged_in_from_a_branch_is_a_spawn_too(tmp_path: Path, repo: GitRepo) -> None:
    """A log that reaches the default branch through a merge is found (a diff of the merge commit alone
    shows nothing), and its spawn is no later than the merge."""
    repo.commit("squad", {HISTORY: EARLY, DECISIONS: OWNERS}, date="2026-03-01T09:00:00Z")
    repo.git("checkout", "-q", "-b", "work")
    repo.commit("spawned", {LOG_PATH: LOG, HISTORY: WRITE_UP}, date="2026-03-02T09:00:00Z")
    repo.git("checkout", "-q", "main")
    repo.commit(
        "meanwhile", {DECISIONS: OWNERS + "\n### 2026-03-02: Later\nx\n"}, date="2026-03-02T10:00:00Z"
    )
    repo.git("merge", "-q", "--no-ff", "--no-gpg-sign", "-m", "merge", "work", date="2026-03-04T09:00:00Z")
    history = tmp_path / "history"
    study.export_at(repo.root, repo.head(), history)
    commits = study.first_parents(history)
    (spawn,) = study.logged_spawns(history, commits)
    assert (spawn.log.agent, spawn.moment, spawn.state) == (
        "parker",
        dt.datetime(2026, 3, 3, 10, tzinfo=dt.UTC),
        2,
    )


def test_a_recency_prior_puts_the_recently_dated_of_two_equal_matches_first() -> None:
    def entry(title: str, body: str) -> squad.Entry:
        text = f"## {title}\n\n{body}\n"
        return squad.Entry(".squad/decisions.md", "decisions", "decision", title, text, text)

    old = entry("2026-01-01: cache", "the token cache expires")
    new = entry("2026-06-01: cache", "the token cache expires")
    undated = entry("Cache", "the token cache expires")
    pool = [old, undated, new]
    room = len(new.text.encode("utf-8"))  # one entry's room
    orders = study.tried_orders("token cache", pool, dt.date(2026, 6, 3))
    held = study.held_by(pool, orders, {new.key, old.key}, room)
    priors = {f"prior_{w}_{h}_kept" for w, h in study.PRIORS}
    assert priors <= set(held)
    assert all(held[name] == {new.key} for name in priors)
    assert held["stated_newest_kept"] == {new.key}  # the latest stated date first
    plain = study.baseline_held("token cache", pool, {new.key, old.key}, {}, room)["bm25"]
    assert new.key not in plain  # plain BM25 takes the undated one, the shortest


def test_orders_taken_in_turns_keep_each_item_once() -> None:
    assert study._turns([1, 2, 3], [9, 1], 2) == [1, 2, 9, 3]
    assert study._turns([1, 2], [], 1) == [1, 2]
    assert study._turns([], [4, 5], 1) == [4, 5]

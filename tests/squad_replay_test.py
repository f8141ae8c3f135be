"""bench/squad_replay.py on a small Squad history: a logged spawn scored, and dumped for the study."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import GitRepo

from bench import spawn_study as study
from bench import squad_replay as replay

HISTORY = ".squad/agents/parker/history.md"
LEARNINGS = (
    "# Parker\n\n## Core Context\n\nOwns the indexer.\n\n## Learnings\n\n"
    "### Indexer logging (2026-03-01)\nStack traces leaked in `logger.exception` calls; see #302.\n\n"
    "### Unrelated (2026-03-01)\nNothing named here.\n"
)
LOG = (
    "# Orchestration Log — 2026-03-03T10:00:00Z\n\n**Agent:** Parker (Backend Dev)\n"
    "**Task:** Fix the indexer logging (Issue #302)\n\n## Outcome\n\n- Replaced `logger.exception` calls\n"
)


def test_a_logged_spawn_is_scored_on_each_load_and_dumped(repo: GitRepo, tmp_path: Path) -> None:
    repo.commit(
        "squad", {HISTORY: LEARNINGS, ".squad/decisions.md": "# Decisions\n"}, date="2026-03-01T09:00:00Z"
    )
    more = LEARNINGS + "\n### Cache keys (2026-03-02)\nTenant first.\n"
    repo.commit("learned", {HISTORY: more}, date="2026-03-02T09:00:00Z")
    repo.commit(
        "spawned", {".squad/orchestration-log/2026-03-03T1000-parker.md": LOG}, date="2026-03-03T09:00:00Z"
    )
    work, dump = tmp_path / "work", tmp_path / "dump"
    work.mkdir()
    dump.mkdir()
    row = replay.replay_one(repo.root, work, 1, None, dump=dump)
    assert "failed" not in row, row
    assert (row["verify"], row["lost"], row["twice"], row["rerun_new_commits"]) == ("ok", [], [], 0)
    logs = row["logs"]
    assert (logs["spawns"], logs["uses"]) == (1, 1)  # the indexer learning: `logger.exception`, #302
    assert (logs["squad"], logs["rule"], logs["task"], logs["named"]) == (1, 1, {4096: 1}, {4096: 0})
    assert logs["rule_bytes"] == logs["squad_bytes"]  # under Squad's gates: its rule keeps it all
    (record,) = (json.loads(line) for line in (dump / f"{row['repo']}.jsonl").read_text().splitlines())
    assert (record["agent"], record["task"]) == ("parker", "Fix the indexer logging (Issue #302)")
    (spawn,) = study.spawns(dump)
    taken = study.fill(study.ORDERS["squadmem: the task's matches, then hot"](spawn), spawn.room(4096))
    assert spawn.relevant <= taken

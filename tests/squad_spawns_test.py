"""bench/squad_spawns.py: reading a spawn from an orchestration log, and which earlier entries it needed."""

from __future__ import annotations

import datetime as dt

from bench import squad_spawns as spawns
from squadmem.model import squad

HISTORY = ".squad/agents/parker/history.md"
DECISIONS = ".squad/decisions.md"


def _entries() -> list[squad.Entry]:
    history = (
        "# Parker\n\n## Core Context\n\nOwns the indexer (#302 is ours).\n\n## Learnings\n\n"
        "### Indexer logging (2026-03-10)\nStack traces leaked in `logger.exception` calls; see #302.\n\n"
        "### Embeddings server (2026-03-11)\nThe fix for #299 moved `EmbeddingClient` into utils/e.py.\n\n"
        "### Unrelated (2026-03-12)\nNothing named here.\n"
    )
    decisions = (
        "# Decisions\n\n## Active Decisions\n\n### 2026-03-09: Logging convention\n"
        "**By:** Parker\n**What:** error plus debug with exc_info, never `logger.exception`\n"
    )
    return squad.entries(HISTORY, history) + squad.entries(DECISIONS, decisions)


LOG = (
    "# Orchestration Log — 2026-03-16T14:14:21Z\n\n## Spawn Manifest\n\n"
    "**Agent:** Parker (Backend Dev)  \n**Task:** Fix document-indexer logging security (Issue #302)  \n"
    "**Mode:** background\n\n## Outcome\n\n- Replaced `logger.exception` calls\n- PR #310 merged\n"
    "- Aligns with the EmbeddingClient fix (#299)\n- Appended to .squad/agents/parker/history.md\n"
)


def test_a_log_gives_its_agent_task_and_work_without_the_task_line() -> None:
    log = spawns.parse(".squad/orchestration-log/2026-03-16T1414-parker.md", LOG, ["parker", "ripley"])
    assert log is not None
    assert (log.agent, log.task) == ("parker", "Fix document-indexer logging security (Issue #302)")
    assert "#302" not in log.work and "#310" in log.work
    assert spawns.references(log.work) == {"logger.exception", "#310", "EmbeddingClient", "#299"}


def test_a_log_without_a_task_takes_its_title_and_a_log_of_two_agents_is_none() -> None:
    titled = "# Orchestration Log: Lucius (Backend Dev) — F148 Locale Fix (Phase 1)\n\n## Mission\nfix it\n"
    log = spawns.parse(".squad/orchestration-log/20260409-lucius.md", titled, ["lucius"])
    assert log is not None and log.task == "F148 Locale Fix (Phase 1)"
    both = "# Wave 1\n\n**Agent:** Wash and Kaylee\n**Task:** import rename\n"
    assert spawns.parse(".squad/orchestration-log/wave1.md", both, ["wash", "kaylee"]) is None
    assert spawns.parse(".squad/orchestration-log/x.md", "# Notes\n\nno agent\n", ["wash"]) is None


def test_relevant_entries_share_a_rare_reference_with_the_work_and_core_is_left_out() -> None:
    log = spawns.parse("x-parker.md", LOG, ["parker"])
    assert log is not None
    found = {e.title: beyond for e, beyond in spawns.relevant(log, _entries())}
    # #302 is named by the task and not by the work; the Core Context names it but is never counted
    assert found == {
        "Indexer logging (2026-03-10)": True,  # `logger.exception`, which the task does not name
        "Embeddings server (2026-03-11)": True,
        "2026-03-09: Logging convention": True,
    }


def test_a_reference_more_than_max_holders_entries_name_says_nothing() -> None:
    history = "# P\n\n## Learnings\n\n" + "".join(f"### L{n}\nabout #7 again\n\n" for n in range(4))
    entries = squad.entries(HISTORY, history)
    log = spawns.Log("x", "parker", "do it", "touched #7")
    assert spawns.MAX_HOLDERS == 3 and spawns.relevant(log, entries) == []
    assert [e.title for e, _ in spawns.relevant(log, entries[:3])] == ["L0", "L1", "L2"]


def test_score_counts_what_each_spawn_held() -> None:
    entries = _entries()
    log = spawns.parse("x-parker.md", LOG, ["parker"])
    assert log is not None
    squad_load = "".join(e.raw for e in entries if e.source == HISTORY)  # history.md, not the decisions
    indexer, embeddings = (next(e for e in entries if e.title.startswith(t)) for t in ("Indexer", "Embed"))
    tasked = {4096: indexer.text, 8192: indexer.text + embeddings.text}
    score = spawns.score(log, entries, squad_load, tasked, "## Unrelated\n")
    assert (score.spawns, score.uses, score.squad, score.plain) == (1, 3, 2, 0)
    assert score.task == {4096: 1, 8192: 2}
    assert score.unnamed == 3 and score.unnamed_task == {4096: 1, 8192: 2}
    total = spawns.Score()
    total.add(score)
    total.add(score)
    assert (total.uses, total.task, total.squad_bytes) == (6, {4096: 2, 8192: 4}, [len(squad_load)] * 2)


def test_squads_rule_keeps_core_and_the_newest_five_of_a_history_over_its_gate() -> None:
    learnings = "".join(f"### L{n} (2026-03-{n + 1:02d})\n{'x' * 2000}\n\n" for n in range(9))
    updates = "".join(f"📌 Team update (2026-03-{n + 1:02d}): U{n} decided.\n\n" for n in range(7))
    history = f"# P\n\n## Core Context\n\nOwns it.\n\n## Recent Updates\n\n{updates}"
    history += f"## Learnings\n\n{learnings}"
    assert len(history.encode()) >= spawns.HISTORY_GATE
    kept = spawns.squad_rule(history, "", dt.date(2026, 4, 1))
    entries = squad.entries(HISTORY, history)
    held = [e.raw.split("\n")[0] for e in entries if e.kind != "preamble" and e.raw in kept]
    assert held == [
        "## Core Context",
        *(f"📌 Team update (2026-03-{n + 1:02d}): U{n} decided." for n in range(2, 7)),
        *(f"### L{n} (2026-03-{n + 1:02d})" for n in range(4, 9)),
    ]
    small = history.replace("x" * 2000, "x")
    assert spawns.squad_rule(small, "", dt.date(2026, 4, 1)) == small  # under the gate: all of it


def test_squads_rule_drops_old_decisions_from_a_large_decisions_file() -> None:
    def decision(day: dt.date) -> str:
        return f"### {day}: D {day}\n**By:** P\n**What:** {'w' * 1500}\n\n"

    today = dt.date(2026, 4, 30)
    days = [today - dt.timedelta(days=n) for n in (60, 45, 20, 10, 3, 1)]
    undated = "### Undated rule\n" + "u" * 3000 + "\n\n"
    text = "# Decisions\n\n## Active Decisions\n\n" + undated + "".join(decision(d) for d in days) * 2
    assert spawns.DECISIONS_GATE <= len(text.encode()) < spawns.DECISIONS_HARD
    kept = spawns.squad_rule("", text, today)
    assert undated in kept and decision(days[2]) in kept and decision(days[1]) not in kept
    huge = text + "".join(decision(today - dt.timedelta(days=9)) for _ in range(30))
    assert len(huge.encode()) >= spawns.DECISIONS_HARD
    kept = spawns.squad_rule("", huge, today)
    assert decision(days[3]) not in kept and decision(days[4]) in kept and undated in kept

"""The spawn payload after months of work: `squadmem context` against what Squad loads today.

Simulates one agent's working days in a real repository. Each day the agent
opens a session block in hot, adds a note or two to hot, sometimes uses an
older section (a Squad-Memory-Used trailer), and ends the session: the raw
session goes to the day's log, a summary of about a tenth of it into cold
(every third day a decision, kind=decision). Then `squadmem maintain` runs
as of that evening. Squad today appends the raw session to the agent's
`history.md` and each decision to `decisions.md`, and loads both at every
spawn; squadmem's spawn loads `context --agent A` (hot only).

    python -m bench.context_bench [--days 180]

Prints a table; asserts nothing. Target: the payload stays within
4 KB every day and is at least 10 times smaller than Squad's at day 180.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import tempfile
from pathlib import Path

from bench.harness import commit, options, scratch_repo, table
from squadmem.commands import context, maintain
from squadmem.engine import catalog
from squadmem.gitio.repo import Repo

AGENT = "picard"
TOPICS = [
    "auth",
    "billing",
    "ledger",
    "search",
    "deploys",
    "caching",
    "webhooks",
    "exports",
    "quotas",
    "alerts",
]
VERBS = ["reviewed", "fixed", "measured", "rewrote", "documented", "benchmarked", "split", "retired"]
START = dt.datetime(2026, 1, 5, tzinfo=dt.UTC)


def session_text(rng: random.Random, day: int, topic: str) -> tuple[str, str, str | None]:
    """(raw session block, its summary, a decision or None) for one day."""
    actions = [
        f"- {rng.choice(VERBS)} the {topic} {rng.choice(['module', 'runbook', 'tests', 'dashboards'])}"
    ]
    actions += [
        f"- {rng.choice(VERBS)} {rng.choice(TOPICS)} follow-up #{day * 7 + i}"
        for i in range(rng.randint(3, 5))
    ]
    decision = None
    if day % 3 == 0:
        decision = (
            f"{topic}: keep {rng.choice(['retries at 3', 'the v2 schema', 'one writer', 'UTC timestamps'])}"
        )
    raw = (
        f"## Session\n- **Task:** {topic} work, day {day}\n### Active decisions\n"
        f"- {decision or 'none'}\n### Last actions\n" + "\n".join(actions) + "\n### Blockers\n"
        f"- waiting on {rng.choice(TOPICS)} review from worf\n### Talking to\n- worf, data\n"
        + "".join(
            f"- learned: {rng.choice(TOPICS)} {rng.choice(VERBS)} cleanly after step {i}\n" for i in range(6)
        )
    )
    summary = f"{topic} work: {actions[0][2:]}; {len(actions)} actions" + (
        f"; decided {decision}" if decision else ""
    )
    return raw, summary, decision


def day_files(
    root: Path, rng: random.Random, day: int, squad: dict[str, str]
) -> tuple[dict[str, str], list[str]]:
    """Write one day's memory; return Squad's files as they would be, and ids used today."""
    topic = TOPICS[day % len(TOPICS)]
    raw, summary, decision = session_text(rng, day, topic)
    when = START + dt.timedelta(days=day)
    hot_path = root / ".squad/memory/hot" / f"{AGENT}.md"
    cold_path = root / ".squad/memory/cold" / f"{AGENT}.md"
    log_path = root / ".squad/memory/log" / f"{when.date().isoformat()}.md"
    hot = hot_path.read_text()
    note = f"## {topic.title()} notes, day {day}\n" + "".join(
        f"- {rng.choice(VERBS)} {topic} item {i}: {rng.choice(TOPICS)} depends on it\n" for i in range(4)
    )
    index_at = hot.find("## Index → Deeper Tiers")
    hot = hot + note if index_at < 0 else hot[:index_at] + note + hot[index_at:]
    hot_path.write_text(hot)
    flags = f"<!-- squadmem: kind=decision topic={topic} -->\n" if decision else ""
    with cold_path.open("a") as cold:
        cold.write(f"## {when.date().isoformat()}: {topic}\n{flags}{summary}\n")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log_path.write_text(f"# Daily log {when.date().isoformat()}\n\n" + raw)
    squad["history.md"] += f"\n## {when.date().isoformat()}\n" + raw.split("\n", 1)[1]
    if decision:
        squad["decisions.md"] += (
            f"\n### {when.date().isoformat()}: {decision}\n**By:** {AGENT}\n**Why:** {summary}\n"
        )
    used = []
    if day >= 12 and day % 5 == 0:
        used.append(f"{AGENT}/{TOPICS[(day - 10) % len(TOPICS)]}-notes-day-{day - 10}")
    return squad, used


def simulate(days: int) -> list[tuple[int, int, int, int]]:
    rng = random.Random(180)
    rows = []
    with tempfile.TemporaryDirectory(prefix="squadmem-context-") as tmp:
        root = scratch_repo(Path(tmp))
        (root / ".squad/memory/hot").mkdir(parents=True)
        (root / ".squad/memory/cold").mkdir(parents=True)
        (root / ".squad/memory/hot" / f"{AGENT}.md").write_text(f"# Hot memory: {AGENT}\n")
        (root / ".squad/memory/cold" / f"{AGENT}.md").write_text(f"# Cold memory: {AGENT}\n")
        squad = {"history.md": f"# {AGENT} history\n", "decisions.md": "# Decisions\n"}
        for day in range(1, days + 1):
            evening = START + dt.timedelta(days=day, hours=18)
            squad, used = day_files(root, rng, day, squad)
            message = f"{AGENT}: session day {day}"
            with Repo(root) as repo:
                known = {e.id for e in catalog.load(repo.layout).entries}
            used = [u for u in used if u in known]
            if used:
                message += "\n\nSquad-Memory-Used: " + ", ".join(used)
            commit(root, {}, message, evening.isoformat())
            os.environ["GIT_AUTHOR_DATE"] = os.environ["GIT_COMMITTER_DATE"] = evening.isoformat()
            with Repo(root) as repo:
                maintain.maintain(repo, now=evening + dt.timedelta(minutes=5))
                text, _, _ = context.build(catalog.load(repo.layout), AGENT)
                hot = (root / ".squad/memory/hot" / f"{AGENT}.md").stat().st_size
            squad_bytes = sum(len(v.encode()) for v in squad.values())
            rows.append((day, hot, len(text.encode()), squad_bytes))
    return rows


def main() -> None:
    args = options(__doc__, days=180).parse_args()
    rows = simulate(args.days)
    print(f"spawn payload over {args.days} simulated days (one agent, maintain every evening)\n")
    head = ("day", "hot file B", "`context` payload B", "Squad today: history.md + decisions.md B")
    shown = [r for r in rows if r[0] in (1, 7, 30, 60, 90, 120, 150) or r[0] == args.days]
    table((*head, "smaller by"), [(*r, f"{r[3] / r[2]:.1f}×") for r in shown], right=5)
    worst = max(rows, key=lambda r: r[2])
    last = rows[-1]
    verdict = "ok" if worst[2] <= 4096 else "MISSED"
    print(f"\nlargest payload on any day: {worst[2]} B (day {worst[0]}); target ≤ 4096 B: {verdict}")
    ratio = last[3] / last[2]
    verdict = "ok" if ratio >= 10 else "MISSED"
    print(f"day {last[0]}: {ratio:.1f}× smaller than Squad's load; target ≥ 10×: {verdict}")


if __name__ == "__main__":
    main()

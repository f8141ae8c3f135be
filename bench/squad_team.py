"""A Squad team's memory files, grown day by day the way Squad's agents and Scribe write them.

Deterministic for a given seed. Each simulated day is a few dated commits
(GIT_AUTHOR_DATE / GIT_COMMITTER_DATE):

- 10:00, per working agent: one or two ``### Topic (YYYY-MM-DD)`` learnings
  appended under ``## Learnings`` of ``.squad/agents/<agent>/history.md``,
  now and then a decision dropped in ``.squad/decisions/inbox/<agent>-<slug>.md``
  (committed, ``git add -f``: Squad's ``.gitignore`` lists the inbox), and
  once in a while a line added to the agent's ``## Core Context``;
- 17:00, the Scribe: every inbox drop of an earlier day merged verbatim into
  ``## Active Decisions`` of ``.squad/decisions.md`` as a
  ``### YYYY-MM-DD: Title`` entry (``**By:** / **What:** / **Why:**``) and
  its file deleted, one ``📌 Team update (…): … — decided by …`` paragraph
  under ``## Recent Updates`` of each affected agent, then Squad's hard gates:
  decisions.md at 20 KB archives entries older than 30 days (at 50 KB, older
  than 7) to ``decisions-archive.md``; a history.md at 15 KB or more keeps its
  five newest learnings and updates, moves the rest to ``history-archive.md``
  and opens ``## Learnings`` with a summary entry;
- every seventh day, 17:30, ``squad nap``: a history.md over 15 KB keeps
  ``## Core Context`` and its last five entries (the rest to
  ``history-archive.md``), decisions.md over 20 KB archives decisions older
  than 30 days, else its oldest dated ones until it is under 20 KB.

Squad's 0.10.0 ``nap`` counts ``##`` sections as its entries, so on the
three-container history.md above it keeps everything; this generator applies
the documented intent at the level of ``###`` / ``📌`` entries, which makes
Squad's own load smaller, never larger.

    python -m bench.squad_team DIR [--agents 8] [--days 180] [--seed 8]

``SquadTeam`` is the library entry point (tests, ``squad_bench.py``).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import random
import re
from collections.abc import Sequence
from pathlib import Path

from bench.gitrun import git
from bench.harness import options, scratch_repo

AGENTS = ("picard", "riker", "data", "worf", "troi", "crusher", "laforge", "obrien")
TOPICS = (
    "auth tokens",
    "billing retries",
    "search index",
    "deploy pipeline",
    "cache keys",
    "webhook delivery",
    "export jobs",
    "rate limits",
    "alert routing",
    "schema migrations",
    "feature flags",
    "audit log",
)
VERBS = ("measured", "fixed", "rewrote", "documented", "split", "retired", "reviewed", "traced")
DETAILS = (
    "the retry budget is three attempts with jitter",
    "timeouts above 30 s hide the real failure",
    "the fixture must run against a real database",
    "keys carry the tenant id first",
    "the nightly job needs the lock released on error",
    "the dashboard lags the logs by two minutes",
    "rollbacks keep the previous schema for a week",
    "one writer per queue avoids reordering",
)
HISTORY_GATE = 15 * 1024  # the Scribe's summarization gate (bytes)
DECISIONS_GATE = 20 * 1024  # decisions.md archival, tier 1 (entries older than 30 days)
DECISIONS_HARD = 50 * 1024  # tier 2 (entries older than 7 days)
KEEP = 5  # entries kept by summarization and nap
START = dt.date(2026, 1, 5)
LEARNINGS = "## Learnings"
UPDATES = "## Recent Updates"
ACTIVE = "## Active Decisions"
_DATED = re.compile(r"^### (\d{4}-\d{2}-\d{2})")


@dataclasses.dataclass(frozen=True)
class Written:
    """One entry the team wrote: its heading text (as squadmem titles it), whose, what, when."""

    title: str
    owner: str  # agent, or "decisions"
    kind: str  # "learning" | "decision" | "update" | "summary"
    topic: str
    day: int
    mark: str  # text only this entry holds, in Squad's file and in its tier section alike


@dataclasses.dataclass
class Day:
    day: int
    date: dt.date
    written: list[Written]
    summarized: list[str]  # agents whose history.md the Scribe summarized
    napped: bool
    archived_decisions: int


def history_header(agent: str, project: str, created: dt.date) -> str:
    """A fresh history.md, shaped like the ones ``squad init`` writes."""
    return (
        f"# Project Context\n\n- **Project:** {project}\n- **Created:** {created.isoformat()}\n\n"
        f"## Core Context\n\n{agent.title()} owns {TOPICS[sum(map(ord, agent)) % len(TOPICS)]}; "
        "reviews go through the lead.\n\n"
        f"{UPDATES}\n\n📌 Team initialized on {created.isoformat()}\n\n"
        f"{LEARNINGS}\n\nInitial setup complete.\n"
    )


DECISIONS_HEADER = (
    "# Squad Decisions\n\n## Active Decisions\n\nNo decisions recorded yet.\n\n"
    "## Governance\n\n- All meaningful changes require team consensus\n"
)


class SquadTeam:
    """Grows ``root`` (a git repository) as a Squad team of ``agents`` would, one day at a time."""

    def __init__(
        self,
        root: Path,
        agents: Sequence[str] = AGENTS,
        *,
        seed: int = 8,
        start: dt.date = START,
        project: str = "demo",
        decision_rate: float = 0.5,
        learning_lines: tuple[int, int] = (3, 6),
        decision_lines: int = 0,
    ) -> None:
        self.root = root
        self.agents = tuple(agents)
        self.rng = random.Random(seed)
        self.start = start
        self.project = project
        self.decision_rate = decision_rate
        self.learning_lines = learning_lines  # bullets per learning (real teams': about 1.1 KB, 11-21)
        self.decision_lines = decision_lines  # extra lines of reasoning per decision (real: about 4)
        self.written: list[Written] = []
        self.inbox: list[tuple[int, str, Written]] = []  # (day dropped, path, decision)
        self.serial = 0

    # -- files -------------------------------------------------------------------------------------

    def history(self, agent: str) -> str:
        return f".squad/agents/{agent}/history.md"

    def read(self, rel: str) -> str:
        path = self.root / rel
        return path.read_bytes().decode("utf-8") if path.is_file() else ""

    def write(self, rel: str, text: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))

    def date(self, day: int) -> dt.date:
        return self.start + dt.timedelta(days=day)

    def when(self, day: int, hour: int, minute: int = 0) -> dt.datetime:
        return dt.datetime.combine(self.date(day), dt.time(hour, minute), tzinfo=dt.UTC)

    def commit(self, message: str, paths: Sequence[str], when: dt.datetime) -> None:
        env = dict(os.environ, GIT_AUTHOR_DATE=when.isoformat(), GIT_COMMITTER_DATE=when.isoformat())
        present = [rel for rel in dict.fromkeys(paths) if (self.root / rel).exists()]
        gone = [rel for rel in dict.fromkeys(paths) if not (self.root / rel).exists()]
        if present:
            git(self.root, "add", "-f", "--", *present, env=env)
        if gone:
            git(self.root, "rm", "-q", "--cached", "--ignore-unmatch", "--", *gone, env=env)
        git(self.root, "commit", "-q", "--no-gpg-sign", "--allow-empty", "-m", message, env=env)

    # -- day 0 -------------------------------------------------------------------------------------

    def found(self) -> None:
        """Day 0: each agent's history.md and decisions.md (kept as ``squad init`` wrote them, if any)."""
        paths = []
        for agent in self.agents:
            rel = self.history(agent)
            if not (self.root / rel).exists():
                self.write(rel, history_header(agent, self.project, self.date(0)))
            paths.append(rel)
        if not (self.root / ".squad/decisions.md").exists():
            self.write(".squad/decisions.md", DECISIONS_HEADER)
        paths.append(".squad/decisions.md")
        self.commit("squad: team cast", paths, self.when(0, 9))

    # -- one day -----------------------------------------------------------------------------------

    def grow(self, day: int) -> Day:
        """Day ``day`` (1, 2, …): the agents' appends, the Scribe's merge and gates, nap every 7th day."""
        rng = self.rng
        written: list[Written] = []
        working = rng.sample(self.agents, k=min(len(self.agents), rng.randint(2, 4)))
        for n, agent in enumerate(sorted(working, key=self.agents.index)):
            paths = [self.history(agent)]
            for _ in range(rng.choice((1, 1, 2))):
                written.append(self._learn(agent, day))
            if rng.random() < self.decision_rate / max(1, len(working)) * 2:
                rel, decision = self._drop(agent, day)
                paths.append(rel)
                written.append(decision)
            if rng.random() < 0.02:
                self._core(agent, day)
            self.commit(f"{agent}: learnings, day {day}", paths, self.when(day, 10, n))
        updates, archived, summarized = self._scribe(day)
        written += updates
        napped = False
        if day % 7 == 0:
            napped = True
            archived += self._nap(day)
        self.written += written
        return Day(day, self.date(day), written, summarized, napped, archived)

    def _learn(self, agent: str, day: int) -> Written:
        rng = self.rng
        self.serial += 1
        topic = rng.choice(TOPICS)
        title = f"{topic.capitalize()} #{self.serial} ({self.date(day).isoformat()})"
        body = "".join(
            f"- {rng.choice(VERBS)} {topic}: {rng.choice(DETAILS)}\n"
            for _ in range(rng.randint(*self.learning_lines))
        )
        rel = self.history(agent)
        self.write(rel, _append_to(self.read(rel), LEARNINGS, f"### {title}\n{body}"))
        return Written(title, agent, "learning", topic, day, title)

    def _drop(self, agent: str, day: int) -> tuple[str, Written]:
        rng = self.rng
        self.serial += 1
        topic = rng.choice(TOPICS)
        what = f"{topic}: {rng.choice(DETAILS)}"
        title = f"{self.date(day).isoformat()}: {topic.capitalize()} rule #{self.serial}"
        text = (
            f"### {title}\n**By:** {agent.title()}\n**What:** {what}\n"
            f"**Why:** {rng.choice(DETAILS)}; {rng.choice(VERBS)} in review\n"
        ) + "".join(
            f"- {rng.choice(VERBS)} {topic}: {rng.choice(DETAILS)}\n" for _ in range(self.decision_lines)
        )
        rel = f".squad/decisions/inbox/{agent}-{self.serial}.md"
        self.write(rel, text)
        decision = Written(title, "decisions", "decision", topic, day, title)
        self.inbox.append((day, rel, decision))
        return rel, decision

    def _core(self, agent: str, day: int) -> None:
        rel = self.history(agent)
        text = self.read(rel)
        line = f"Since {self.date(day).isoformat()}: also covers {self.rng.choice(TOPICS)}.\n"
        self.write(rel, _append_to(text, "## Core Context", line))

    # -- the Scribe --------------------------------------------------------------------------------

    def _scribe(self, day: int) -> tuple[list[Written], int, list[str]]:
        due = [(d, rel, w) for d, rel, w in self.inbox if d < day]
        self.inbox = [item for item in self.inbox if item[0] >= day]
        paths: list[str] = []
        updates: list[Written] = []
        decisions = self.read(".squad/decisions.md")
        for _, rel, decision in due:
            text = self.read(rel)
            decisions = decisions.replace("No decisions recorded yet.\n\n", "", 1)
            decisions = _append_to(decisions, ACTIVE, text)
            (self.root / rel).unlink()
            paths.append(rel)
            author = text.split("**By:** ", 1)[1].split("\n", 1)[0]
            affected = self.rng.sample(self.agents, k=min(len(self.agents), self.rng.randint(1, 3)))
            for agent in sorted(affected, key=self.agents.index):
                stamp = self.when(day, 17).strftime("%Y-%m-%dT%H:%M:%SZ")
                title = f"📌 Team update ({stamp})"
                summary = decision.title.split(": ", 1)[1]
                paragraph = f"{title}: {summary} — decided by {author}\n"
                rel_h = self.history(agent)
                self.write(rel_h, _append_to(self.read(rel_h), UPDATES, paragraph))
                paths.append(rel_h)
                updates.append(Written(title, agent, "update", decision.topic, day, paragraph.rstrip("\n")))
        archived = 0
        if due:
            decisions, archive, archived = _archive_decisions(decisions, self.date(day), scribe=True)
            self.write(".squad/decisions.md", decisions)
            paths.append(".squad/decisions.md")
            if archive:
                rel = ".squad/decisions-archive.md"
                self.write(rel, (self.read(rel) or "# Decisions Archive\n\n") + archive)
                paths.append(rel)
        summarized = []
        for agent in self.agents:
            rel = self.history(agent)
            if len(self.read(rel).encode("utf-8")) >= HISTORY_GATE:
                summarized.append(agent)
                updates.append(self._summarize(agent, day))
                paths += [rel, rel.replace("history.md", "history-archive.md")]
        if paths:
            self.commit(f"scribe: merge {len(due)} decisions, day {day}", paths, self.when(day, 17))
        return updates, archived, summarized

    def _summarize(self, agent: str, day: int) -> Written:
        """The 15 KB gate: keep the five newest learnings and updates, the rest to the archive, a summary."""
        rel = self.history(agent)
        text, moved = _keep_last(self.read(rel), KEEP)
        learnings = [t for t in moved if t.startswith("### ")]
        topics = sorted({_topic_of(t) for t in learnings} - {""})
        title = f"Summary of {len(learnings)} archived learnings ({self.date(day).isoformat()})"
        body = (
            f"Moved to history-archive.md on {self.date(day).isoformat()}: {len(learnings)} learnings "
            f"and {len(moved) - len(learnings)} team updates. Topics: {', '.join(topics) or 'none'}.\n"
        )
        text = _prepend_to(text, LEARNINGS, f"### {title}\n{body}")
        self.write(rel, text)
        self._archive_history(agent, day, moved)
        return Written(title, agent, "summary", "", day, title)

    def _archive_history(self, agent: str, day: int, moved: Sequence[str]) -> None:
        if not moved:
            return
        rel = f".squad/agents/{agent}/history-archive.md"
        old = self.read(rel) or f"# {agent.title()} history archive\n"
        learned = [t for t in moved if t.startswith("### ")]
        updated = [t for t in moved if not t.startswith("### ")]
        stamp = self.date(day).isoformat()
        block = ""
        if updated:
            block += f"\n## Recent Updates (archived {stamp})\n\n" + "".join(_para(t) for t in updated)
        if learned:
            block += f"\n## Learnings (archived {stamp})\n\n" + "".join(learned)
        self.write(rel, old + block)

    # -- squad nap ---------------------------------------------------------------------------------

    def _nap(self, day: int) -> int:
        paths = []
        for agent in self.agents:
            rel = self.history(agent)
            text = self.read(rel)
            if len(text.encode("utf-8")) > HISTORY_GATE:
                kept, moved = _keep_last(text, KEEP)
                self.write(rel, kept)
                self._archive_history(agent, day, moved)
                paths += [rel, rel.replace("history.md", "history-archive.md")]
        decisions, archive, archived = _archive_decisions(
            self.read(".squad/decisions.md"), self.date(day), scribe=False
        )
        if archive:
            self.write(".squad/decisions.md", decisions)
            rel = ".squad/decisions-archive.md"
            self.write(rel, (self.read(rel) or "# Decisions Archive\n\n") + archive)
            paths += [".squad/decisions.md", rel]
        self.commit(f"squad nap, day {day}", paths, self.when(day, 17, 30))
        return archived

    # -- what a spawn reads ------------------------------------------------------------------------

    def squad_load(self, agent: str) -> str:
        """What Squad's spawn of ``agent`` reads: its history.md and decisions.md as they stand."""
        return self.read(self.history(agent)) + self.read(".squad/decisions.md")


# -- text helpers (pure) ---------------------------------------------------------------------------


def _span(text: str, heading: str) -> tuple[int, int]:
    """(start of the body, end) of the ``##`` section ``heading`` in ``text``."""
    at = text.index(heading + "\n")
    body = at + len(heading) + 1
    nxt = text.find("\n## ", body)
    return body, (len(text) if nxt < 0 else nxt + 1)


def _append_to(text: str, heading: str, entry: str) -> str:
    """``entry`` at the end of section ``heading``, a blank line before it and after it."""
    _, end = _span(text, heading)
    before = text[:end].rstrip("\n") + "\n\n"
    after = text[end:]
    return before + entry.rstrip("\n") + "\n" + ("\n" + after if after else "")


def _prepend_to(text: str, heading: str, entry: str) -> str:
    body, _ = _span(text, heading)
    rest = text[body:].lstrip("\n")
    return text[:body] + "\n" + entry.rstrip("\n") + "\n\n" + rest


def _blocks(body: str, starts: str) -> tuple[str, list[str]]:
    """A container's body: its preamble and its entries (each from a line starting ``starts``)."""
    rows = body.splitlines(keepends=True)
    cut = [n for n, r in enumerate(rows) if r.startswith(starts)]
    if not cut:
        return body, []
    pre = "".join(rows[: cut[0]])
    ends = [*cut[1:], len(rows)]
    return pre, ["".join(rows[a:b]) for a, b in zip(cut, ends, strict=True)]


def _keep_last(text: str, keep: int) -> tuple[str, list[str]]:
    """History ``text`` with only its last ``keep`` updates and learnings; the entries moved out."""
    moved: list[str] = []
    for heading, starts in ((UPDATES, "📌"), (LEARNINGS, "### ")):
        body, end = _span(text, heading)
        pre, entries = _blocks(text[body:end], starts)
        if len(entries) <= keep:
            continue
        moved += entries[:-keep]
        text = text[:body] + pre + "".join(entries[-keep:]) + text[end:]
    return text, moved


def _para(text: str) -> str:
    return text if text.endswith("\n\n") else text.rstrip("\n") + "\n\n"


def _topic_of(entry: str) -> str:
    first = entry.split("\n", 1)[0].removeprefix("### ")
    return first.split(" #", 1)[0].lower() if " #" in first else ""


def _archive_decisions(text: str, today: dt.date, *, scribe: bool) -> tuple[str, str, int]:
    """decisions.md over its gate: (kept text, archived text, how many archived), as Squad does it.

    Over 20 KB, decisions dated more than 30 days back leave; the Scribe's
    second tier (50 KB) then takes those older than 7 days; ``squad nap``
    instead archives the oldest dated decisions until the file is under 20 KB
    when none is old enough.
    """
    size = len(text.encode("utf-8"))
    if size < DECISIONS_GATE:
        return text, "", 0
    body, end = _span(text, ACTIVE)
    pre, entries = _blocks(text[body:end], "### ")

    def age(entry: str) -> int | None:
        m = _DATED.match(entry)
        return None if m is None else (today - dt.date.fromisoformat(m.group(1))).days

    old = [e for e in entries if (age(e) or 0) > 30]
    if scribe and size - sum(len(e.encode()) for e in old) >= DECISIONS_HARD:
        old = [e for e in entries if (age(e) or 0) > 7]
    if not old and not scribe:
        over = size - DECISIONS_GATE
        for e in entries:
            if over <= 0:
                break
            if age(e) is not None:
                old.append(e)
                over -= len(e.encode())
    if not old:
        return text, "", 0
    kept = [e for e in entries if e not in old]
    archive = "".join(_para(e) for e in old)
    return text[:body] + pre + "".join(kept) + text[end:], archive, len(old)


def main() -> None:
    parser = options(__doc__, seed=8, days=180, agents=8)
    parser.add_argument("dir", type=Path)
    args = parser.parse_args()
    if not (args.dir / ".git").exists():
        scratch_repo(args.dir)
    team = SquadTeam(args.dir, AGENTS[: args.agents], seed=args.seed)
    team.found()
    for day in range(1, args.days + 1):
        team.grow(day)
    print(f"{args.dir}: {len(team.written)} entries over {args.days} days")


if __name__ == "__main__":
    main()

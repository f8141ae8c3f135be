"""Real spawns, read from a Squad team's orchestration logs: what each spawn's memory held of what
its work turned out to touch.

Squad's coordinator writes a log per spawn under ``.squad/orchestration-log/``:
the agent, the task it was given (``**Task:**``, or the log's title, or the
``### {timestamp} — {task summary}`` line of Squad's own log template) and what
the agent did (files, issues, pull requests, decisions it names). Nobody logs
which memory entries an agent read, so this takes a proxy for them, fixed
before any spawn is looked at: an earlier entry is **relevant** to a spawn
when it names something specific that the log's account of the work names too
(an issue or pull request number, a code span, a file path, a CamelCase name,
an ID such as ``FR-022``), and at most :data:`MAX_HOLDERS` of the agent's
entries (its own and the team's decisions; Core Context left out: both
spawns carry it) name that thing. A relevant entry is a *hit* for a spawn
when the spawn's memory holds it whole:

- Squad's own: ``history.md`` and ``decisions.md`` as they stood (its gates
  applied, or not, by the team's real Scribe);
- Squad's own rule: the same two files with the limits Squad 0.10.0 sets
  applied that day (:func:`squad_rule`): a ``history.md`` of 15 KB or more
  keeps its Core Context, its other sections and the newest five learnings and
  five updates; a ``decisions.md`` of 20 KB or more drops the decisions dated
  more than 30 days back (at 50 KB, more than 7);
- squadmem's: ``squadmem context --agent A --task "<the logged task>"``, the
  line the Squad skill puts in the spawn template, within ``hot.max_bytes``;
- squadmem's without the task: ``squadmem context --agent A``.

The references the log's task names itself are counted apart
(``named``): an entry found through them is found because the task says so;
the others are what the work touched beyond its task.

``squad_replay.py`` calls :func:`score` at each step for the logs the
next step adds, on the state just before them.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Iterable, Sequence

from squadmem.model import sections, squad

LOG_DIR = ".squad/orchestration-log/"
MAX_HOLDERS = 3  # a reference more entries than this name says little about which one the work needed
HISTORY_GATE = 15 * 1024  # the Scribe's summarization gate, and squad nap's (bytes)
DECISIONS_GATE = 20 * 1024  # decisions.md archival: entries older than 30 days
DECISIONS_HARD = 50 * 1024  # then older than 7 days
KEEP = 5  # the newest learnings and updates summarization and nap keep
_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_REFS = re.compile(
    r"(?<![\w#])#\d+\b"  # issue or pull request
    r"|`[^`\n]{4,80}`"  # code span
    r"|\b[\w.-]+/[\w./-]*\w"  # a path
    r"|\b[\w-]+\.(?:py|ts|tsx|js|jsx|cs|csproj|razor|md|json|ya?ml|toml|go|rs|java|kt|sql|sh|ps1|css|html)\b"
    r"|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+\b"  # CamelCase
    r"|\b[A-Z]{1,5}-?\d{2,}\b"  # an ID: FR-022, F148
)
_FIELD = re.compile(r"^[-* \t]*\*\*(agent(?: id)?|task):?\*\*:?[ \t]*(.+?)\s*$", re.IGNORECASE | re.MULTILINE)
# Squad's own log template: ``### {timestamp} — {task summary}`` over a table whose rows are
# ``| **Agent routed** | {Name} ({Role}) |``, ``| **Why chosen** | ... |`` ...
_ROW = re.compile(
    r"^\|[ \t]*\*\*(agent routed|agent|task)\*\*[ \t]*\|[ \t]*(.+?)[ \t]*\|[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
_SUMMARY = re.compile(r"^###[ \t]+\d{4}-\d{2}-\d{2}[T \d:.\-Z]*[ \t]+[—–-][ \t]+(.+?)[ \t]*$", re.MULTILINE)


@dataclasses.dataclass(frozen=True)
class Log:
    path: str
    agent: str
    task: str
    work: str  # the log without its title and task lines: what the agent did


def parse(path: str, text: str, agents: Iterable[str]) -> Log | None:
    """The spawn a log records, or None when it names no single known agent or no task."""
    known = {a.casefold() for a in agents}
    fields: dict[str, str] = {}
    for match in [*_FIELD.finditer(text), *_ROW.finditer(text)]:
        fields.setdefault(match.group(1).casefold().split()[0], match.group(2).strip())
    lines = text.splitlines()
    title = next((line.lstrip("#").strip() for line in lines if line.startswith("# ")), "")
    summary = _SUMMARY.search(text)

    def named(source: str) -> list[str]:
        words = {w.casefold() for w in re.findall(r"[A-Za-z][\w-]*", source)}
        return sorted(known & words)

    candidates = [named(source) for source in (fields.get("agent", ""), path.rsplit("/", 1)[-1], title)]
    found = next((names for names in candidates if names), [])
    if len(found) != 1:  # no known agent, or a log of several spawns
        return None
    agent = found[0]
    task = fields.get("task") or _task_of(title, agent) or (summary and _task_of(summary.group(1), agent))
    if not task:
        return None
    work = "\n".join(
        line
        for line in lines
        if not line.startswith("# ")
        and not _FIELD.fullmatch(line)
        and not _ROW.fullmatch(line)
        and not (summary is not None and line == summary.group(0))
    )
    return Log(path, agent, task, work)


def _task_of(title: str, agent: str) -> str:
    """A title as the task: without "Orchestration Log", the agent's name, role and time stamps."""
    text = re.sub(r"orchestration( log)?(:| —| -)?", " ", title, flags=re.IGNORECASE)
    text = re.sub(rf"\b{re.escape(agent)}\b(\s*\([^)]*\))?", " ", text, flags=re.IGNORECASE)
    text = re.sub(r"\d{4}-?\d{2}-?\d{2}[T\d:.\-Z]*", " ", text)
    text = re.sub(r"^[\s—:\-–|]+|[\s—:\-–|]+$", "", re.sub(r"\s+", " ", text))
    return text if len(re.findall(r"[A-Za-z]{3,}", text)) >= 2 else ""


def references(text: str) -> set[str]:
    """The specific things a text names (see the module's docstring), code spans without backticks;
    not Squad's own files (a log names the history it appended to)."""
    found = {ref.strip("`") for ref in _REFS.findall(text)}
    return {ref for ref in found if "squad/" not in ref}


def _names(text: str, ref: str) -> bool:
    if ref.startswith("#"):
        return re.search(rf"(?<![\w#]){re.escape(ref)}\b", text) is not None
    return ref in text


@dataclasses.dataclass
class Score:
    spawns: int = 0
    uses: int = 0  # (spawn, relevant entry) pairs
    squad: int = 0
    rule: int = 0  # held by Squad's load with its own limits applied (squad_rule)
    plain: int = 0
    task: dict[int, int] = dataclasses.field(default_factory=dict)  # budget -> hits of context --task
    named: dict[int, int] = dataclasses.field(default_factory=dict)  # budget -> not held, named in a line
    unnamed: int = 0  # uses found through references the task does not name
    unnamed_squad: int = 0
    unnamed_rule: int = 0
    unnamed_plain: int = 0
    unnamed_task: dict[int, int] = dataclasses.field(default_factory=dict)
    squad_bytes: list[int] = dataclasses.field(default_factory=list)
    rule_bytes: list[int] = dataclasses.field(default_factory=list)
    task_bytes: dict[int, list[int]] = dataclasses.field(default_factory=dict)

    def add(self, other: Score) -> None:
        for field in dataclasses.fields(self):
            mine, theirs = getattr(self, field.name), getattr(other, field.name)
            if isinstance(mine, dict):
                for budget, value in theirs.items():
                    mine[int(budget)] = mine.get(int(budget), 0 if isinstance(value, int) else []) + value
            else:
                setattr(self, field.name, mine + theirs)


def relevant(log: Log, entries: Sequence[squad.Entry]) -> list[tuple[squad.Entry, bool]]:
    """The entries relevant to ``log`` among those its agent sees, each with whether a reference the task
    does not name makes it relevant."""
    seen = [e for e in entries if (e.owner == log.agent or e.decision) and e.kind != "core"]
    named_by_task = references(log.task)
    found: dict[bytes, tuple[squad.Entry, bool]] = {}
    for ref in references(log.work):
        holders = [e for e in seen if _names(e.raw, ref)]
        if not 0 < len(holders) <= MAX_HOLDERS:
            continue
        beyond = ref not in named_by_task
        for entry in holders:
            earlier = found.get(entry.key)
            found[entry.key] = (entry, beyond or (earlier is not None and earlier[1]))
    return list(found.values())


def squad_rule(history: str, decisions: str, today: dt.date) -> str:
    """What Squad loads from ``history.md`` and ``decisions.md`` once its own limits are applied on
    ``today`` (see the module's docstring): the entries it keeps, each as its exact bytes.

    Generous to Squad where its rule is loose: sections that are neither learnings nor updates stay, and
    an undated decision never leaves."""
    kept = _history_rule(history) if len(history.encode()) >= HISTORY_GATE else history
    return kept + _decisions_rule(decisions, today)


def _history_rule(text: str) -> str:
    found = squad.entries(".squad/agents/rule/history.md", text)
    last: dict[str, list[int]] = {}
    for n, entry in enumerate(found):
        if entry.kind in ("learning", "update"):
            last.setdefault(entry.kind, []).append(n)
    dropped = {n for ns in last.values() for n in ns[:-KEEP]}
    return "".join(e.raw for n, e in enumerate(found) if n not in dropped)


def _decisions_rule(text: str, today: dt.date) -> str:
    size = len(text.encode())
    if size < DECISIONS_GATE:
        return text
    found = squad.entries(squad.DECISIONS, text)

    def age(entry: squad.Entry) -> int:
        m = _DATE.search(entry.raw.split("\n", 1)[0])
        try:
            return 0 if m is None else (today - dt.date(*map(int, m.groups()))).days
        except ValueError:
            return 0

    ages = [age(e) if e.kind == "decision" else 0 for e in found]
    gone = {n for n, a in enumerate(ages) if a > 30}
    if size - sum(len(found[n].raw.encode()) for n in gone) >= DECISIONS_HARD:
        gone = {n for n, a in enumerate(ages) if a > 7}
    return "".join(e.raw for n, e in enumerate(found) if n not in gone)


def holds(payload: str, text: str) -> bool:
    """Whether a spawn's text holds an entry's bytes (line endings normalized)."""
    return sections.normalize(text) in sections.normalize(payload)


def score(
    log: Log,
    entries: Sequence[squad.Entry],
    squad_load: str,
    with_task: dict[int, str],
    without_task: str,
    rule_load: str = "",
    named: dict[int, str] | None = None,
) -> Score:
    """One spawn: its relevant entries, and which of them each spawn's memory held (``with_task``: the
    ``context --task`` text at each budget; ``rule_load``: Squad's load under its own limits;
    ``named``: at each budget, the sections ``context --task`` named in a line each, their texts)."""
    named = named or {}
    out = Score(
        spawns=1,
        squad_bytes=[len(squad_load.encode())],
        rule_bytes=[len(rule_load.encode())],
        task_bytes={b: [len(t.encode())] for b, t in with_task.items()},
        task=dict.fromkeys(with_task, 0),
        named=dict.fromkeys(named, 0),
        unnamed_task=dict.fromkeys(with_task, 0),
    )
    for entry, beyond in relevant(log, entries):
        squad_hit, plain_hit = holds(squad_load, entry.raw), holds(without_task, entry.text)
        rule_hit = holds(rule_load, entry.raw)
        task_hits = {b: holds(t, entry.text) for b, t in with_task.items()}
        out.uses += 1
        out.squad += squad_hit
        out.rule += rule_hit
        out.plain += plain_hit
        out.unnamed += beyond
        out.unnamed_squad += beyond and squad_hit
        out.unnamed_rule += beyond and rule_hit
        out.unnamed_plain += beyond and plain_hit
        for budget, text in named.items():
            out.named[budget] += not task_hits.get(budget, False) and holds(text, entry.text)
        for budget, hit in task_hits.items():
            out.task[budget] += hit
            out.unnamed_task[budget] += beyond and hit
    return out

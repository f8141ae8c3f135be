"""What real spawns needed, from a committed corpus of Squad teams: squadmem beside BM25, newest
first, the bound and Squad's own load, and what one recall finds.

The corpus list (``bench/corpus/squad-teams.tsv``) names each team's repository, the exact commit
measured, its split (``train``, ``held-out``, or ``out`` with why) and why. The repositories come
from ``--clones DIR``, a folder of local clones or bare git directories, each named as the list
names it (``owner+name``, ``owner+name/repo`` or ``owner/name``); nothing is fetched, and a missing
one is named. For each team the history of ``.squad/`` up to its commit is exported into a
temporary repository (``squad_corpus.export_squad_history``), and each spawn its orchestration logs
record (``squad_spawns.parse``; the last ``--max-spawns``) is scored on the team's state just
before the log's time stamp (``study_rules.spawn_moment``, ``study_rules.state_before``): that
state is committed into a replay repository with squadmem's hooks installed (after
``--warmup-days`` of daily states), ``squadmem maintain`` runs (intake first), and then:

- **relevant**: the earlier entries the logged work names, by ``squad_spawns``' proxy with the
  generic references removed (``study_rules.counts``, rules fixed before scoring);
- **squadmem**: ``squadmem context --agent A --task "<the logged task>"`` with ``hot.max_bytes``
  at each budget (4, 8, 16, 32, 64 and 128 KB), the real command;
- **BM25**: the entries the agent sees (its own but Core Context, and the decisions), ranked by
  ``study_rules.BM25`` on the task text, taken whole while they fit in the room the spawn has
  after its Core Context and frame; **BM25, then newest**: the rest of the room newest first;
  **BM25 over every entry written**: the same over what squadmem holds, the entries above and the
  ones the team wrote before the spawn that Squad's files no longer hold (``kept``: Squad's
  ``nap`` and hand edits cut them; squadmem keeps every entry it took in, so its ranking sees
  them too; relevance is still judged on the entries Squad's files hold);
  **newest first**: by the time each entry first appeared on the default branch; **the bound**:
  the relevant entries themselves, smallest first;
- **Squad's load** (``history.md`` + ``decisions.md`` as they stood) and **Squad's rule** (the same
  with Squad's own limits applied that day, ``squad_spawns.squad_rule``);
- **one recall away**: for each reference that makes an entry relevant and whose entries the 4 KB
  spawn does not all hold, the real ``squadmem recall QUERY --agent A --limit 5 --no-record
  --json`` (``study_rules.query_for``); an entry is found when the spawn holds it or one such
  recall lists its section. Bytes per relevant entry found: the spawn's bytes plus the recalls'
  output bytes, over the entries found; Squad's: its load's bytes over the entries it holds.
- **the near hook**: the files and issues the logged work names (``study_rules.touched``), in order,
  each replayed as the tool event an agent's runtime reports (a ``Read`` of the file, a ``Bash``
  command naming the issue) through the real ``squadmem near --from-hook --agent A``, one session
  per spawn; counted: the bytes it adds, the entries it adds whole, those relevant that the 4 KB
  spawn does not hold, and those not relevant at all (the proxy and the hook use related signals:
  the second count is what keeps the first honest).
- **orders tried on train** (:func:`tried_orders`, over the same pool as "BM25 over every entry
  written"): BM25 with a recency prior, the newest first by stated date, BM25 then that, and the
  two in turns. They are kept in the ``--json`` rows (``prior_W_H_kept``, ``stated_newest_kept``,
  ``turns_1_1_kept`` ...), not in the tables: none was adopted (docs/performance.md says why).

    python -m bench.squad_study --clones DIR [--corpus bench/corpus/squad-teams.tsv]
        [--split held-out|train|all] [--max-spawns 20] [--warmup-days 7] [--jobs 1] [--json]
    python -m bench.squad_study --clones DIR --rows ROWS.json [--split ...]   # the tables again

Prints a row per team and the table per split. Asserts nothing; exit 0.
"""

from __future__ import annotations

import concurrent.futures
import csv
import dataclasses
import datetime as dt
import itertools
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from bench import harness, squad_replay, squad_spawns, study_rules
from bench.gitrun import git, squadmem
from bench.harness import scratch_repo
from bench.squad_corpus import committed, identity, squad_entries
from squadmem.commands import intake
from squadmem.commands.context import TASK_HEADING
from squadmem.engine import catalog
from squadmem.engine.search import ranking
from squadmem.gitio import catfile
from squadmem.gitio.repo import Repo
from squadmem.model import sections, squad, templates
from squadmem.model.layout import MEMORY_DIR

BUDGETS = (4096, 8192, 16384, 32768, 65536, 131072)
ORDERS = (
    "squadmem",
    "bm25",
    "bm25_newest",
    "bm25_kept",
    "bm25_newest_kept",
    "newest",
    "bound",
    "squad",
    "rule",
)
DEFAULT_CORPUS = Path(__file__).resolve().parent / "corpus" / "squad-teams.tsv"


@dataclasses.dataclass(frozen=True)
class Team:
    repo: str
    commit: str
    split: str
    why: str


def read_corpus(path: Path) -> list[Team]:
    with path.open(encoding="utf-8", newline="") as rows:
        found = csv.DictReader((line for line in rows if not line.startswith("#")), delimiter="\t")
        return [Team(r["repo"], r["commit"], r["split"], r["why"]) for r in found]


def locate(clones: Path, repo: str) -> Path | None:
    """The git directory for ``owner/name`` under ``clones``, or None."""
    owner, name = repo.split("/", 1)
    for where in (clones / f"{owner}+{name}" / "repo", clones / f"{owner}+{name}", clones / owner / name):
        if where.is_dir() and git(where, "rev-parse", "--git-dir", check=False).out.strip():
            return where
    return None


# -- the team's history of .squad/, and when each spawn started ------------------------------------


def _renamed(stream: bytes, commit: str, ref: bytes) -> bytes:
    """A fast-export stream of ``commit`` with its commands naming ``ref`` instead of the bare hash."""
    out, n, own = [], 0, commit.encode()
    while n < len(stream):
        end = stream.index(b"\n", n) + 1
        line = stream[n:end]
        if line.startswith(b"data ") and not line.startswith(b"data <<"):
            end += int(line[5:])
        elif line in (b"commit " + own + b"\n", b"reset " + own + b"\n"):
            line = line.split(b" ", 1)[0] + b" " + ref + b"\n"
            out.append(line)
            n = end
            continue
        out.append(stream[n:end])
        n = end
    return b"".join(out)


def export_at(source: Path, commit: str, root: Path) -> str | None:
    """The history of ``.squad/`` up to ``commit`` into a new repository at ``root``; None, or why not."""
    if git(source, "cat-file", "-t", commit, check=False).out.strip() != "commit":
        return f"commit {commit[:12]} is not in the clone"
    scratch_repo(root)
    export = ["fast-export", "--signed-tags=strip", "--tag-of-filtered-object=drop", commit]
    stream = _renamed(git(source, *export, "--", "--", ".squad").stdout, commit, b"refs/heads/main")
    git(root, "fast-import", "--quiet", input=stream)
    if not git(root, "rev-parse", "--verify", "-q", "main", check=False).out.strip():
        return ".squad/ is in none of its commits"
    git(root, "reset", "-q", "--hard", "main")
    return None


def first_parents(history: Path) -> list[tuple[str, dt.datetime]]:
    rows = git(history, "log", "--first-parent", "--reverse", "--format=%H %cI").out.split("\n")
    return [(r.split(" ")[0], dt.datetime.fromisoformat(r.split(" ", 1)[1])) for r in rows if r]


@dataclasses.dataclass(frozen=True)
class Logged:
    log: squad_spawns.Log
    moment: dt.datetime  # when the spawn started
    state: int  # how many first-parent commits precede it


@dataclasses.dataclass(frozen=True)
class Step:
    """A first-parent commit of the exported history: when, and the files it added, changed or removed."""

    sha: str
    when: dt.datetime  # committed
    zone: dt.tzinfo | None  # its author's
    changed: tuple[tuple[str, str, str], ...]  # (status, path, blob)


def walk(history: Path) -> Iterator[Step]:
    """The first-parent line, oldest first, in one ``git log --raw`` (a merge against its first parent)."""
    out = git(
        history,
        *("-c", "core.quotePath=false", "log", "--first-parent", "--reverse", "--raw", "--no-renames"),
        *("--no-abbrev", "--format=@@ %H %cI %aI"),
    ).out
    head: list[str] = []
    changed: list[tuple[str, str, str]] = []
    for line in [*out.split("\n"), "@@ end"]:
        if line.startswith("@@ ") and head:
            when, authored = (dt.datetime.fromisoformat(v) for v in head[1:3])
            yield Step(head[0], when, authored.tzinfo, tuple(changed))
        if line.startswith("@@ "):
            head, changed = line[3:].split(" "), []
        elif line.startswith(":"):
            fields, path = line[1:].split("\t", 1)
            _, _, _, blob, status = fields.split()
            changed.append((status[0], path, blob))


def added_logs(history: Path) -> Iterator[tuple[Step, str, str, squad_spawns.Log]]:
    """Each orchestration log a first-parent commit adds that names a known agent, oldest first:
    (its step, its path, its text, the spawn it records)."""
    files: set[str] = set()
    with catfile.CatFile(dict(os.environ), cwd=history) as objects:
        for step in walk(history):
            files.update(path for status, path, _ in step.changed if status != "D")
            files.difference_update(path for status, path, _ in step.changed if status == "D")
            agents = sorted(
                {p.split("/")[2] for p in files if p.startswith(".squad/agents/") and p.count("/") > 2}
            )
            for status, rel, blob in step.changed:
                if status == "A" and rel.startswith(squad_spawns.LOG_DIR) and rel.endswith(".md"):
                    text = (objects.read(blob) or b"").decode("utf-8", "replace")
                    log = squad_spawns.parse(rel, text, agents)
                    if log is not None:
                        yield step, rel, text, log


def logged_spawns(history: Path, commits: Sequence[tuple[str, dt.datetime]]) -> list[Logged]:
    """Every spawn a log added on the first-parent line records, oldest first."""
    moments = [m for _, m in commits]
    found = []
    for step, rel, _, log in added_logs(history):
        moment = study_rules.spawn_moment(rel, step.when.astimezone(step.zone))
        found.append(Logged(log, moment, study_rules.state_before(moments, moment)))
    return sorted(found, key=lambda s: (s.moment, s.log.path))


def written(history: Path, last: int) -> dict[bytes, tuple[dt.datetime, squad.Entry]]:
    """Every entry (by content key) that ever stood in a Squad file over the first ``last`` commits of
    the first-parent line: when it first did, and its first version."""
    found: dict[bytes, tuple[dt.datetime, squad.Entry]] = {}
    with catfile.CatFile(dict(os.environ), cwd=history) as objects:
        for _, step in zip(range(last), walk(history), strict=False):
            for status, rel, blob in step.changed:
                if status != "D" and squad.is_source(rel):
                    text = (objects.read(blob) or b"").decode("utf-8", "replace")
                    for entry in squad.entries(rel, text):
                        found.setdefault(entry.key, (step.when, entry))
    return found


def births(history: Path, last: int) -> dict[bytes, dt.datetime]:
    """When each entry (by content key) first stood in a Squad file, over the first ``last`` commits of
    the first-parent line."""
    return {key: when for key, (when, _) in written(history, last).items()}


# -- one spawn, scored ------------------------------------------------------------------------------


def frame_bytes() -> int:
    frame = templates.read("spawn.md").format(hot="", cold="", wiki="", sections=f"\n{TASK_HEADING}\n\n")
    return len(frame.encode("utf-8"))


def relevant(log: squad_spawns.Log, seen: Sequence[squad.Entry]) -> dict[bytes, list[str]]:
    """The relevant entries' keys, each with the references that make it relevant (the cleaned proxy)."""
    found: dict[bytes, list[str]] = {}
    for ref in sorted(study_rules.clean(squad_spawns.references(log.work))):
        holders = [e for e in seen if squad_spawns._names(e.raw, ref)]
        if 0 < len(holders) <= squad_spawns.MAX_HOLDERS:
            for entry in holders:
                found.setdefault(entry.key, []).append(ref)
    return found


def baseline_held(
    task: str, seen: Sequence[squad.Entry], wanted: set[bytes], born: dict[bytes, dt.datetime], room: int
) -> dict[str, set[bytes]]:
    """The relevant entries each offline fill holds in ``room`` bytes."""
    sizes = [len(e.text.encode("utf-8")) for e in seen]
    oldest = dt.datetime.min.replace(tzinfo=dt.UTC)
    newest = sorted(range(len(seen)), key=lambda n: (born.get(seen[n].key, oldest), n), reverse=True)
    matches = study_rules.BM25([e.text for e in seen]).ranked(task)
    bound = sorted((n for n, e in enumerate(seen) if e.key in wanted), key=lambda n: (sizes[n], n))
    orders = {"bm25": matches, "bm25_newest": matches + newest, "newest": newest, "bound": bound}
    return {
        name: {seen[n].key for n in study_rules.fill(sizes, order, room)} & wanted
        for name, order in orders.items()
    }


# BM25 with a prior for entries whose first line states a recent date: score x (1 + w / (1 + age / h)),
# age in days before the spawn (an undated entry: no prior). Tried on squadmem's pool, train only.
PRIORS = ((0.5, 7), (0.5, 30), (1.0, 7), (1.0, 30), (2.0, 7), (2.0, 30))


def tried_orders(task: str, seen: Sequence[squad.Entry], today: dt.date) -> dict[str, list[int]]:
    """The orders tried on train, by name, each a list of indexes into ``seen``: BM25 with each
    recency prior (:data:`PRIORS`); the newest first by the date each entry's first line states
    (what ``--task`` can know: the undated after, the later in its file first); BM25 then that; and
    the two taken in turn (one match, one newest; two matches, one newest). Made once a spawn."""
    bm25 = study_rules.BM25([e.text for e in seen])
    scores = [(bm25.score(task, n), n) for n in range(len(seen))]
    ages = [_age(e.text, today) for e in seen]
    orders: dict[str, list[int]] = {}
    for weight, half in PRIORS:
        boosted = [(s * (1 + _prior(ages[n], weight, half)), n) for s, n in scores if s > 0]
        orders[f"prior_{weight}_{half}_kept"] = [n for _, n in sorted(boosted, key=lambda p: (-p[0], p[1]))]
    matches = [n for s, n in sorted(scores, key=lambda p: (-p[0], p[1])) if s > 0]
    dated = [(ranking.stated_date(e.text) or "", n) for n, e in enumerate(seen)]
    newest = [n for _, n in sorted(dated, reverse=True)]
    orders["stated_newest_kept"] = newest
    orders["bm25_stated_newest_kept"] = matches + newest
    orders["turns_1_1_kept"] = _turns(matches, newest, 1)
    orders["turns_2_1_kept"] = _turns(matches, newest, 2)
    return orders


def held_by(
    seen: Sequence[squad.Entry], orders: dict[str, list[int]], wanted: set[bytes], room: int
) -> dict[str, set[bytes]]:
    """The relevant entries each order holds in ``room`` bytes, whole entries while they fit."""
    sizes = [len(e.text.encode("utf-8")) for e in seen]
    return {
        name: {seen[n].key for n in study_rules.fill(sizes, order, room)} & wanted
        for name, order in orders.items()
    }


def _turns(first: Sequence[int], second: Sequence[int], run: int) -> list[int]:
    """``run`` of ``first``, then one of ``second``, in turn, each item once."""
    out: list[int] = []
    a, b = iter(first), iter(second)
    while True:
        taken = [n for n in itertools.islice(a, run)]
        taken += [n for n in itertools.islice(b, 1)]
        if not taken:
            return list(dict.fromkeys(out))
        out += taken


def _prior(age: float | None, weight: float, half: float) -> float:
    return 0.0 if age is None else weight / (1 + age / half)


def _age(text: str, today: dt.date) -> float | None:
    stated = ranking.stated_date(text)
    try:
        return max(0, (today - dt.date.fromisoformat(stated)).days) if stated else None
    except ValueError:
        return None


def set_budget(root: Path, budget: int) -> None:
    path = root / MEMORY_DIR / "tiers.toml"
    text = path.read_text(encoding="utf-8")
    head, tail = text.split("[hot]", 1)
    lines = tail.split("\n")
    lines = [f"max_bytes = {budget}" if line.startswith("max_bytes") else line for line in lines]
    if not any(line.startswith("max_bytes") for line in tail.split("\n")[:8]):
        lines.insert(1, f"max_bytes = {budget}")
    path.write_text(head + "[hot]" + "\n".join(lines), encoding="utf-8")


def squadmem_spawns(
    root: Path, agent: str, task: str, when: str, budgets: Sequence[int] = BUDGETS
) -> dict[int, tuple[str, int]]:
    """``context --agent A --task T`` at each budget: (text, bytes), or nothing where it fails."""
    out: dict[int, tuple[str, int]] = {}
    env = identity(when)
    for budget in budgets:
        set_budget(root, budget)
        done = squadmem(
            root,
            "context",
            "--agent",
            agent,
            "--task",
            task,
            "--json",
            "--no-record",
            "--now",
            when,
            env=env,
            check=False,
        )
        if done.returncode == 0:
            spawn = json.loads(done.out)
            out[budget] = (spawn["text"], spawn["bytes"])
    git(root, "checkout", "-q", "--", f"{MEMORY_DIR}/tiers.toml")
    return out


def recall_args(agent: str, query: str, limit: int, when: str) -> tuple[str, ...]:
    """A recall of the agent's memory (``squadmem recall --agent {name} "..."``; the spawn block now
    asks with ``--beyond-spawn`` and the task's words, as ``leak_free_study.py`` recalls), its first
    ``limit`` sections as JSON, no use recorded."""
    return ("recall", "--agent", agent, query, "--limit", str(limit), "--no-record", "--json", "--now", when)


def recall_found(
    root: Path, agent: str, queries: dict[str, list[bytes]], when: str, spawn: tuple[str, str] = ("", "")
) -> tuple[set[bytes], int, int]:
    """(the relevant keys the recalls list, the recalls' output bytes, how many recalls ran); ``spawn``
    (the logged task and the 4 KB spawn's text) only goes into ``--dump-recalls``' lines."""
    with Repo(root) as repo:
        by_id = catalog.load(repo.layout).by_id()
    found: set[bytes] = set()
    spent = 0
    for query, keys in queries.items():
        done = squadmem(root, *recall_args(agent, query, 5, when), env=identity(when), check=False)
        spent += len(done.out.encode("utf-8"))
        if done.returncode:
            continue
        listed = {
            sections.content_key(by_id[h["id"]].text)
            for h in json.loads(done.out)["sections"]
            if h["id"] in by_id
        }
        found |= listed & set(keys)
        if os.environ.get(DUMP):
            _dump_candidates(root, agent, query, keys, by_id, when, spawn)
    return found, spent, len(queries)


DUMP = "SQUADMEM_STUDY_RECALLS"  # a file: each recall's best 100 and what it should find, a JSON line each


def _dump_candidates(
    root: Path,
    agent: str,
    query: str,
    keys: list[bytes],
    by_id: dict[str, catalog.Entry],
    when: str,
    spawn: tuple[str, str],
) -> None:
    """Append the recall's best 100 (ids, content keys, texts, in recall's order, and whether the 4 KB
    spawn holds each), the relevant keys and the logged task: what an offline look at the ranking
    needs (``--dump-recalls``)."""
    done = squadmem(root, *recall_args(agent, query, 100, when), env=identity(when), check=False)
    if done.returncode:
        return
    hits = [h["id"] for h in json.loads(done.out)["sections"] if h["id"] in by_id]
    line = {
        "query": query,
        "agent": agent,
        "wanted": sorted({k.hex() for k in keys}),
        "task": spawn[0],
        "candidates": [[i, sections.content_key(by_id[i].text).hex(), by_id[i].text] for i in hits],
        "held": [squad_spawns.holds(spawn[1], by_id[i].text) for i in hits],
    }
    with open(os.environ[DUMP], "a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")


class Counts:
    """A study's tally of counts: ``add`` sums another's field by field (a dict of order -> budget ->
    hits summed cell by cell, budgets as numbers again, read back from JSON or not)."""

    def add(self, other: Counts) -> None:
        for field in dataclasses.fields(self):  # type: ignore[arg-type]
            mine, theirs = getattr(self, field.name), getattr(other, field.name)
            if isinstance(mine, dict):
                for order, budgets in theirs.items():
                    row = mine.setdefault(order, {})
                    for budget, hits in budgets.items():
                        row[int(budget)] = row.get(int(budget), 0) + hits
            else:
                setattr(self, field.name, mine + theirs)


@dataclasses.dataclass
class Tally(Counts):
    spawns: int = 0
    relevant: int = 0
    uncleaned: int = 0  # relevant by the proxy before its generic references were removed
    late: int = 0  # relevant entries first committed at or after the spawn started (0 by construction)
    held: dict[str, dict[int, int]] = dataclasses.field(default_factory=dict)  # order -> budget -> hits
    spawn_bytes: int = 0  # squadmem's 4 KB spawns
    recall_bytes: int = 0
    recalls: int = 0
    one_away: int = 0  # held at 4 KB, or found by one recall
    squad_bytes: int = 0
    squad_held: int = 0
    hook_events: int = 0  # tool events replayed through `squadmem near --from-hook`
    hook_bytes: int = 0  # what the hook added to the conversation
    hook_entries: int = 0  # entries it added whole
    hook_useless: int = 0  # of those, not relevant
    hook_found: int = 0  # relevant entries it added that the 4 KB spawn does not hold
    held_or_hook: int = 0  # relevant entries held at 4 KB or added by the hook


def squad_loads(root: Path, agent: str, today: dt.date) -> tuple[str, str]:
    """What Squad loads for ``agent``'s spawn: its history and the decisions as they stand, and the same
    with Squad's own limits applied on ``today``."""
    files = [
        committed(root, rel) if git(root, "ls-files", "--", rel).out.strip() else ""
        for rel in (f".squad/agents/{agent}/history.md", squad.DECISIONS)
    ]
    return "".join(files), squad_spawns.squad_rule(files[0], files[1], today)


def recall_queries(wanted: dict[bytes, list[str]], held: set[bytes]) -> dict[str, list[bytes]]:
    """The one recall per reference an agent would type, for the references whose entries the spawn
    does not all hold, each with the relevant entries it should find."""
    queries: dict[str, list[bytes]] = {}
    for key, refs in wanted.items():
        for ref in refs:
            queries.setdefault(study_rules.query_for(ref), []).append(key)
    return {q: keys for q, keys in queries.items() if not set(keys) <= held}


_ADDED = re.compile(r"^<!-- (\S+) \((?:hot|cold|wiki|archive)\) -->$", re.MULTILINE)


def hook_brought(root: Path, spawn: Logged, when: str) -> tuple[list[str], int, int]:
    """(the ids of the entries ``squadmem near --from-hook`` added whole, the bytes it added, how many
    tool events ran) when the agent touches what its logged work names, in one session."""
    session = f"study-{spawn.log.agent}-{spawn.moment.isoformat()}"
    added: list[str] = []
    spent = 0
    things = study_rules.touched(spawn.log.work)
    for thing in things:
        event = json.dumps(study_rules.tool_event(session, thing))
        done = squadmem(
            root,
            "near",
            "--from-hook",
            "--agent",
            spawn.log.agent,
            env=identity(when),
            check=False,
            input=event.encode(),
        )
        if done.returncode or not done.out.strip():
            continue
        text = json.loads(done.out)["hookSpecificOutput"]["additionalContext"]
        spent += len(text.encode("utf-8"))
        added += _ADDED.findall(text)
    return added, spent, len(things)


def kept(
    ever: dict[bytes, tuple[dt.datetime, squad.Entry]], seen: Sequence[squad.Entry], spawn: Logged
) -> list[squad.Entry]:
    """The entries the agent sees that its team wrote before the spawn but Squad's files no longer hold
    (squadmem keeps them: these are what its memory holds beyond Squad's files)."""
    now = {e.key for e in seen}
    gone = [e for k, (w, e) in ever.items() if w < spawn.moment and k not in now]
    usable, _ = intake.usable(gone)
    return [e for e in usable if (e.owner == spawn.log.agent or e.decision) and e.kind != "core"]


def score_spawn(
    root: Path, spawn: Logged, ever: dict[bytes, tuple[dt.datetime, squad.Entry]], when: str
) -> Tally | None:
    """One logged spawn on the replay's state (``root``), or None when squadmem has no spawn for it."""
    log = spawn.log
    born = {key: first for key, (first, _) in ever.items()}
    entries, _ = intake.usable(squad_entries(root))
    seen = [e for e in entries if (e.owner == log.agent or e.decision) and e.kind != "core"]
    every = [*seen, *kept(ever, entries, spawn)]
    wanted = relevant(log, seen)
    ours = squadmem_spawns(root, log.agent, log.task, when)
    if BUDGETS[0] not in ours:
        return None
    tally = Tally(spawns=1, relevant=len(wanted), uncleaned=len(squad_spawns.relevant(log, entries)))
    tally.late = sum(born.get(k, spawn.moment) >= spawn.moment for k in wanted)
    by_key = {e.key: e for e in seen}
    core = sum(len(e.text.encode("utf-8")) for e in entries if _core_of(e, log.agent))
    tried = tried_orders(log.task, every, spawn.moment.date())
    for budget in BUDGETS:
        text = ours.get(budget, ("", 0))[0]
        tally.held.setdefault("squadmem", {})[budget] = sum(
            squad_spawns.holds(text, by_key[k].text) for k in wanted
        )
        offline = baseline_held(log.task, seen, set(wanted), born, budget - frame_bytes() - core)
        for name, hits in offline.items():
            tally.held.setdefault(name, {})[budget] = len(hits)
        offline = baseline_held(log.task, every, set(wanted), born, budget - frame_bytes() - core)
        for name in ("bm25", "bm25_newest"):
            tally.held.setdefault(f"{name}_kept", {})[budget] = len(offline[name])
        for name, hits in held_by(every, tried, set(wanted), budget - frame_bytes() - core).items():
            tally.held.setdefault(name, {})[budget] = len(hits)
    load, rule = squad_loads(root, log.agent, spawn.moment.date())
    tally.squad_held = sum(squad_spawns.holds(load, by_key[k].raw) for k in wanted)
    rule_held = sum(squad_spawns.holds(rule, by_key[k].raw) for k in wanted)
    tally.held["squad"], tally.held["rule"] = (
        dict.fromkeys(BUDGETS, tally.squad_held),
        dict.fromkeys(BUDGETS, rule_held),
    )
    small, tally.spawn_bytes = ours[BUDGETS[0]]
    held = {k for k in wanted if squad_spawns.holds(small, by_key[k].text)}
    asked = recall_queries(wanted, held)
    found, tally.recall_bytes, tally.recalls = (
        recall_found(root, log.agent, asked, when, (log.task, small)) if asked else (set(), 0, 0)
    )
    tally.one_away = len(held | found)
    tally.squad_bytes = len(load.encode("utf-8"))
    _score_hook(root, spawn, when, tally, set(wanted), held)
    return tally


def _score_hook(
    root: Path, spawn: Logged, when: str, tally: Tally, wanted: set[bytes], held: set[bytes]
) -> None:
    """What the ``near`` hook adds for the spawn's tool events: bytes, entries, the relevant ones the
    4 KB spawn does not hold (``held``), and the ones that are not relevant."""
    with Repo(root) as repo:
        by_id = catalog.load(repo.layout).by_id()
    ids, tally.hook_bytes, tally.hook_events = hook_brought(root, spawn, when)
    keys = [sections.content_key(by_id[i].text) for i in ids if i in by_id]
    tally.hook_entries = len(ids)
    tally.hook_found = len(set(keys) & (wanted - held))
    tally.hook_useless = sum(k not in wanted for k in keys)
    tally.held_or_hook = len(held) + tally.hook_found


def _core_of(entry: squad.Entry, agent: str) -> bool:
    """Whether ``entry`` is a Core Context of ``agent``'s history (what its spawn pins)."""
    return entry.owner == agent and entry.kind == "core" and entry.source.endswith("/history.md")


# -- one team, replayed at the moments its spawns started -------------------------------------------


def steps_for(
    commits: Sequence[tuple[str, dt.datetime]], chosen: Sequence[Logged], warmup_days: int
) -> list[tuple[int, dt.datetime, list[Logged]]]:
    """(state: how many first-parent commits, the moment to commit it, the spawns scored on it)."""
    by_state: dict[int, list[Logged]] = {}
    for spawn in chosen:
        by_state.setdefault(spawn.state, []).append(spawn)
    first = min(by_state) if by_state else 0
    start = min(s.moment for s in chosen) - dt.timedelta(days=warmup_days) if chosen else None
    days: dict[dt.date, int] = {}
    for n, (_, when) in enumerate(commits[: max(0, first - 1)], start=1):
        if start is not None and when >= start:
            days[when.astimezone(dt.UTC).date()] = n
    steps: list[tuple[int, dt.datetime, list[Logged]]] = [
        (n, commits[n - 1][1] + dt.timedelta(minutes=1), []) for n in sorted(days.values())
    ]
    for state, spawns in sorted(by_state.items()):
        steps.append((state, min(s.moment for s in spawns) - dt.timedelta(minutes=1), spawns))
    out: list[tuple[int, dt.datetime, list[Logged]]] = []
    for state, moment, spawns in steps:  # keep the replay's clock moving forward
        if out and moment <= out[-1][1]:
            moment = out[-1][1] + dt.timedelta(seconds=1)
        out.append((state, moment, spawns))
    return out


def scorable(history: Path, commits: Sequence[tuple[str, dt.datetime]]) -> tuple[list[Logged], str]:
    """The logged spawns that have a state before them, and why there are none when so."""
    parsed = logged_spawns(history, commits)
    every = [s for s in parsed if s.state > 0]
    why = "every logged spawn predates its first commit of .squad/" if parsed else "no log names one agent"
    return every, f"{why} ({len(parsed)} spawns of one known agent with a task)"


def commit_state(root: Path, history: Path, sha: str, when: str, first: bool) -> str | None:
    """The team's ``.squad/`` at ``sha`` committed into the replay at ``when`` (squadmem set up in the
    first: ``squad_replay.commit_state``), then ``maintain``; None, or why it failed."""
    failed = squad_replay.commit_state(root, history, sha, dt.datetime.fromisoformat(when), first)
    if failed is not None:
        return failed
    env = identity(when)
    done = squadmem(root, "maintain", "--now", when, env=env, check=False)
    return f"maintain before {when}: {(done.err or done.out).strip()[:160]}" if done.returncode else None


def study_team(team: Team, source: Path, work: Path, max_spawns: int, warmup_days: int) -> dict[str, Any]:
    """One team's row: its logged spawns, the last ``max_spawns`` scored (``tally``), or ``failed``."""
    row: dict[str, Any] = {"repo": team.repo, "split": team.split, "commit": team.commit}
    history = work / "history"
    why = export_at(source, team.commit, history)
    if why is not None:
        return {**row, "failed": why}
    commits = first_parents(history)
    every, why_none = scorable(history, commits)
    row["logged"], chosen = len(every), every[-max_spawns:]
    if not chosen:
        return {**row, "failed": why_none}
    ever = written(history, max(s.state for s in chosen))
    root = work / "replay"
    scratch_repo(root)
    git(root, "fetch", "-q", str(history), "main")
    total, skipped = Tally(), 0
    for number, (state, moment, spawns) in enumerate(steps_for(commits, chosen, warmup_days)):
        failed = commit_state(root, history, commits[state - 1][0], moment.isoformat(), number == 0)
        if failed is not None:
            return {**row, "failed": failed}
        for spawn in spawns:
            later = max(spawn.moment - dt.timedelta(seconds=30), moment).isoformat()
            scored = score_spawn(root, spawn, ever, later)
            skipped += scored is None
            total.add(scored or Tally())
        print(f"  {team.repo}: state {number + 1} ({moment.isoformat()[:16]})", file=sys.stderr)
    return {**row, "skipped": skipped, "tally": dataclasses.asdict(total)}


# -- the table ---------------------------------------------------------------------------------------


def share(hits: int, total: int) -> str:
    return f"{100 * hits / total:.1f}%" if total else "-"


NAMES = {
    "squadmem": "squadmem `context --task`",
    "bm25": "BM25 on the task (k1 1.2, b 0.75)",
    "bm25_newest": "BM25, then newest",
    "bm25_kept": "BM25 over every entry written (what squadmem keeps)",
    "bm25_newest_kept": "the same, then newest",
    "newest": "newest first",
    "bound": "the bound: relevant entries, smallest first",
    "squad": "Squad's load (history.md + decisions.md)",
    "rule": "Squad's rule (its own limits applied)",
}


def _team_cells(r: dict[str, Any]) -> tuple[object, ...]:
    """A team's row: what it logged and held at 4 KB, or why it was not scored."""
    named = (r["repo"], r["split"], r["commit"][:12])
    if "tally" not in r:
        return (*named, f"**not scored:** {r['failed']}", "", "", "", "", "")
    t = Tally()
    t.add(Tally(**r["tally"]))  # budgets as numbers again, read back from JSON or not
    cells = [
        share(t.held.get(order, {}).get(BUDGETS[0], 0), t.relevant) for order in ("squadmem", "bm25", "squad")
    ]
    return (*named, r["logged"], t.spawns, t.relevant, *cells)


def report(rows: Sequence[dict[str, Any]], split: str) -> None:
    ok = [r for r in rows if "tally" in r]
    head = ("team", "split", "commit", "logged spawns", "scored", "relevant")
    harness.table((*head, "squadmem 4 KB", "BM25 4 KB", "Squad"), [_team_cells(r) for r in rows], right=6)
    splits = ["train", "held-out"] if split == "all" else [split]
    for name in splits:
        total = Tally()
        teams = [r for r in ok if r["split"] == name]
        for r in teams:
            total.add(Tally(**r["tally"]))
        table(name, len(teams), total)


def table(name: str, teams: int, t: Tally) -> None:
    print(
        f"\n**{name}**: {teams} teams, {t.spawns} spawns, {t.relevant} relevant entries "
        f"({t.uncleaned} before the generic references were removed; "
        f"{t.late} first committed at or after their spawn)\n"
    )
    rows = []
    for order in ORDERS:
        cells = [share(t.held.get(order, {}).get(b, 0), t.relevant) for b in BUDGETS]
        if order in ("squad", "rule"):
            cells = [cells[0]] + [""] * (len(BUDGETS) - 1)
        rows.append((NAMES[order], *cells))
    harness.table(("relevant entries held", *(f"{b // 1024} KB" for b in BUDGETS)), rows, len(BUDGETS))
    found = max(1, t.one_away)
    print(
        f"\nheld at 4 KB or in the top 5 of one recall: {share(t.one_away, t.relevant)} "
        f"({t.recalls} recalls); bytes per relevant entry found: squadmem "
        f"{(t.spawn_bytes + t.recall_bytes) / found:,.0f} B (spawns {t.spawn_bytes:,} B + recalls "
        f"{t.recall_bytes:,} B), Squad's load {t.squad_bytes / max(1, t.squad_held):,.0f} B "
        f"({share(t.squad_held, t.relevant)} held, {t.squad_bytes:,} B)"
    )
    print(
        f"\nthe near hook ({t.hook_events} tool events, {t.hook_bytes:,} B added, "
        f"{t.hook_bytes / max(1, t.hook_events):,.0f} B an event): held at 4 KB or added by the hook "
        f"{share(t.held_or_hook, t.relevant)}; it added {t.hook_entries} entries whole, "
        f"{t.hook_found} of them relevant and not held, {t.hook_useless} not relevant; "
        f"{t.hook_bytes / max(1, t.hook_found):,.0f} B per relevant entry it brought"
    )


def run_team(args: tuple[Team, Path, int, int]) -> dict[str, Any]:
    team, source, max_spawns, warmup = args
    return in_scratch(team, "squad-study-", lambda work: study_team(team, source, work, max_spawns, warmup))


def in_scratch(team: Team, prefix: str, study: Callable[[Path], dict[str, Any]]) -> dict[str, Any]:
    """``study`` of ``team`` in a scratch folder removed after; a failure is the team's row."""
    work = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        return study(work)
    except Exception as exc:  # a bench reports and goes on
        return {
            "repo": team.repo,
            "split": team.split,
            "commit": team.commit,
            "failed": f"{type(exc).__name__}: {exc}"[:200],
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


def jobs_for(
    teams: Sequence[Team], clones: Path, max_spawns: int, warmup: int
) -> Iterator[tuple[Team, Path, int, int]]:
    for team in teams:
        source = locate(clones, team.repo)
        if source is not None:
            yield team, source, max_spawns, warmup


def main(argv: Sequence[str] | None = None) -> None:
    parser = harness.options(__doc__, json=True)
    parser.add_argument(
        "--clones", type=Path, required=True, help="folder of the corpus' clones or bare git dirs"
    )
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="the corpus list (TSV)")
    parser.add_argument("--split", choices=("held-out", "train", "all"), default="held-out")
    parser.add_argument(
        "--max-spawns", type=int, default=20, help="score each team's last N logged spawns (20)"
    )
    parser.add_argument("--warmup-days", type=int, default=7, help="daily states replayed before them (7)")
    parser.add_argument("--jobs", type=int, default=1, help="teams replayed at once (1)")
    parser.add_argument("--rows", type=Path, help="print the tables of rows an earlier --json run wrote")
    parser.add_argument(
        "--dump-recalls",
        type=Path,
        help="append each recall's best 100 and its relevant entries (JSON lines)",
    )
    args = parser.parse_args(argv)
    if args.dump_recalls is not None:
        os.environ[DUMP] = str(args.dump_recalls.resolve())
    if args.rows is not None:
        report(json.loads(args.rows.read_text(encoding="utf-8")), args.split)
        return
    teams = [t for t in read_corpus(args.corpus) if t.split != "out" and args.split in ("all", t.split)]
    missing = [t.repo for t in teams if locate(args.clones, t.repo) is None]
    if missing:
        print(f"missing from {args.clones} ({len(missing)}): " + ", ".join(missing), file=sys.stderr)
    work = list(jobs_for(teams, args.clones, args.max_spawns, args.warmup_days))
    with concurrent.futures.ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        rows = list(pool.map(run_team, work))
    rows += [
        {"repo": r, "split": t.split, "commit": t.commit, "failed": "missing"}
        for t in teams
        for r in [t.repo]
        if r in missing
    ]
    rows.sort(key=lambda r: (r["split"], r["repo"]))
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        report(rows, args.split)


if __name__ == "__main__":
    main()

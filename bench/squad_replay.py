"""A real Squad team's history replayed with squadmem installed from its first day.

``squad_corpus.py`` takes a repository in at its last commit. This replays it:
a new repository gets, step by step (``--step-days``, 1 by default), the state
of ``.squad/`` that the team's default branch had at the end of that step,
committed at that time with squadmem's hooks installed (as Squad's agents and
Scribe would commit it); after each commit ``squadmem maintain`` runs (intake
first) and every agent is spawned with ``squadmem context``.

What it checks, with real Squad evolution (the Scribe's summaries, ``squad
nap`` moving entries to the archives, inbox drops merged, Core Context
rewritten): every entry any step's Squad files held is in the tiers exactly
once at the end, none twice; ``verify`` passes over every commit; a second
``intake`` takes nothing; each day's payloads stay within ``hot.max_bytes``
unless the Core Context squadmem pins for the agent (every one its
``history.md`` held last: some agents keep two) leaves no room, and carry the
Core Context.

With orchestration logs (``.squad/orchestration-log/``), each spawn a log
records is scored on the state just before it (``squad_spawns.py``): of the
earlier entries its work names, the share Squad's own load held, the share
its load would hold with Squad's own limits applied that day
(``squad_spawns.squad_rule``), and squadmem's spawn without and with the
logged task (``--task-budgets``). ``--dump DIR`` writes each logged spawn's
sections and relevant entries for ``spawn_study.py``, which scores other
fills of the spawn on them.

    python -m bench.squad_replay REPO [REPO ...] [--step-days 1] [--max-steps N] [--task-budgets B ...]
        [--dump DIR]

Prints one row per repository and a summary, then the logged spawns' table.
Asserts nothing; exit 0.
"""

from __future__ import annotations

import collections
import dataclasses
import datetime as dt
import json
import statistics
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench import squad_spawns
from bench.gitrun import git, squadmem
from bench.harness import Stopwatch, options, scratch_repo, table
from bench.squad_corpus import (
    BUDGET,
    carries,
    committed,
    exported,
    failure,
    first_line,
    identity,
    run_all,
    squad_entries,
    tier_sections,
)
from squadmem.commands import context, intake
from squadmem.engine import catalog
from squadmem.engine.search import ranking
from squadmem.gitio.repo import Repo
from squadmem.model import sections, squad
from squadmem.model.layout import MEMORY_DIR
from squadmem.model.places import SQUAD_PLACES


def snapshots(root: Path, step_days: int) -> list[tuple[str, dt.datetime]]:
    """The last first-parent commit of each step, with its commit time, oldest first."""
    rows = git(root, "log", "--first-parent", "--reverse", "--format=%H %cI").out.split("\n")
    picked: dict[int, tuple[str, dt.datetime]] = {}
    start: dt.date | None = None
    for row in filter(None, rows):
        sha, when = row.split(" ", 1)
        moment = dt.datetime.fromisoformat(when)
        day = moment.astimezone(dt.UTC).date()
        start = start or day
        picked[(day - start).days // step_days] = (sha, moment)
    ordered = [picked[k] for k in sorted(picked)]
    # the committer clock of a rebased branch may step back: keep time moving forward
    out: list[tuple[str, dt.datetime]] = []
    for sha, moment in ordered:
        if out and moment <= out[-1][1]:
            moment = out[-1][1] + dt.timedelta(minutes=1)
        out.append((sha, moment))
    return out


@dataclasses.dataclass
class Payloads:
    """The nightly plain spawns of a replay (``context --agent A``): their sizes, and their Core Context."""

    spawns: int = 0
    payload_max: int = 0
    over: int = 0
    over_by_core: int = 0
    core_missing: int = 0
    odd: list[str] = dataclasses.field(default_factory=list)

    def add(
        self, day: dt.date, agent: str, spawn: dict[str, Any], core: list[squad.Entry], memory: catalog.Memory
    ) -> None:
        self.spawns += 1
        self.payload_max = max(self.payload_max, spawn["bytes"])
        missing = not all(carries(spawn["text"], e) for e in core)
        # what squadmem pins for the agent: every Core Context its history.md held last (some hold
        # two), or its archive's newest; together larger than the room, they make the spawn larger
        files = (SQUAD_PLACES.tier_rel("hot", agent), SQUAD_PLACES.tier_rel("cold", agent))
        pinned = [e.bytes for rel in files for e in memory.in_file(rel) if e.pinned]
        by_core = sum(pinned) > BUDGET - 512
        if spawn["bytes"] > BUDGET:
            self.over += 1
            self.over_by_core += by_core
        self.core_missing += missing
        if missing or (spawn["bytes"] > BUDGET and not by_core):
            self.odd.append(
                f"{day} {agent}: {spawn['bytes']} B, Core Context missing: {missing}, pinned {pinned} B"
            )


def replay_one(
    source: Path,
    work: Path,
    step_days: int,
    max_steps: int | None,
    budgets: Sequence[int] = (BUDGET,),
    show: bool = False,
    dump: Path | None = None,
) -> dict[str, Any]:
    history = work / "history"
    row = exported(source, history)
    if "failed" in row:
        return row
    steps = snapshots(history, step_days)
    if max_steps is not None:
        steps = steps[-max_steps:]
    root = work / "clone"
    scratch_repo(root)
    git(root, "fetch", "-q", str(history), "HEAD")
    ever: dict[tuple[str, bytes], squad.Entry] = {}
    payloads = Payloads()
    spawned = squad_spawns.Score()  # the orchestration logs' spawns (squad_spawns.py)
    entries: list[squad.Entry] = []
    plain: dict[str, str] = {}  # each agent's last spawn without a task
    memory: catalog.Memory | None = None
    clock = Stopwatch()  # how long the replay took, to report
    for number, (sha, moment) in enumerate(steps):
        day = moment.date()
        if memory is not None:  # the tiers as the last step's maintain left them
            born = {k: n for n, (_, k) in enumerate(ever)} if dump else {}  # content key -> first seen
            logs = dump and dump / f"{row['repo']}.jsonl"
            previous = steps[number - 1][0]
            spawned.add(
                score_logs(
                    history, previous, sha, day, root, memory, entries, plain, budgets, show, born, logs
                )
            )
        failed = commit_state(root, history, sha, moment, number == 0)
        if failed:
            row["failed"] = failed
            return row
        entries, _ = intake.usable(squad_entries(root))
        for e in entries:
            ever.setdefault((e.owner, e.key), e)
        night = (moment + dt.timedelta(minutes=30)).isoformat()
        done = squadmem(root, "maintain", "--now", night, env=identity(night), check=False)
        if done.returncode:
            row["failed"] = f"maintain on {day} (exit {done.returncode}): {failure(done)}"
            return row
        memory = night_spawns(root, night, day, entries, payloads, plain)
        print(f"  {row['repo']}: step {number + 1}/{len(steps)} ({day})", file=sys.stderr)
    row["steps"] = len(steps)
    row["days"] = (steps[-1][1] - steps[0][1]).days + 1
    row["seconds"] = round(clock.seconds(), 1)
    settle(row, root, (steps[-1][1] + dt.timedelta(hours=1)).isoformat(), ever)
    row.update(dataclasses.asdict(payloads))
    row["logs"] = dataclasses.asdict(spawned)
    return row


def commit_state(root: Path, history: Path, sha: str, moment: dt.datetime, first: bool) -> str | None:
    """The team's ``.squad/`` at ``sha`` committed into the replay (squadmem set up after the first);
    None, or why it failed."""
    env = identity(moment.isoformat())
    git(root, "rm", "-r", "-q", "--ignore-unmatch", "--", ".squad", f":(exclude){MEMORY_DIR}", env=env)
    if git(history, "ls-tree", sha, ".squad").out.strip():
        git(root, "checkout", sha, "--", ".squad", env=env)
    git(root, "commit", "-q", "--allow-empty", "-m", f"squad state of {moment.date()}", env=env)
    if first:
        done = squadmem(root, "init", env=env, check=False)
        if done.returncode:
            return f"init (exit {done.returncode}): {failure(done)}"
        git(root, "add", "-A", env=env)
        git(root, "commit", "-q", "-m", "squadmem init", env=env)
    return None


def night_spawns(
    root: Path,
    night: str,
    day: dt.date,
    entries: list[squad.Entry],
    payloads: Payloads,
    plain: dict[str, str],
) -> catalog.Memory:
    """Each agent's plain spawn after the night's ``maintain``, into ``payloads`` and ``plain``; the tiers
    as it left them."""
    cores: dict[str, list[squad.Entry]] = collections.defaultdict(list)  # some agents keep two
    for e in entries:
        if e.kind == "core" and e.source.endswith("/history.md"):
            cores[e.owner].append(e)
    with Repo(root) as repo:
        memory = catalog.load(repo.layout)
    for agent in sorted({e.owner for e in entries if e.owner != "decisions"}):
        done = squadmem(root, "context", "--agent", agent, "--json", env=identity(night), check=False)
        if done.returncode:
            continue  # an agent with no tier file yet (nothing of it taken in)
        spawn = json.loads(done.out)
        plain[agent] = spawn["text"]
        payloads.add(day, agent, spawn, cores.get(agent, []), memory)
    return memory


def settle(row: dict[str, Any], root: Path, end: str, ever: dict[tuple[str, bytes], squad.Entry]) -> None:
    """The end of a replay, into ``row``: squadmem's commits, ``verify`` over them (from the replay's
    first commit, the team's first state), a last ``intake`` (it must find nothing new), and which
    entries ever seen the tiers lost or hold twice."""
    first = git(root, "rev-list", "--max-parents=0", "HEAD").out.split()[0]
    row["squadmem_commits"] = int(
        git(root, "rev-list", "--count", "HEAD", "--grep=^Squad-Memory-").out.strip()
    )
    done = squadmem(root, "verify", f"{first}..HEAD", "--now", end, env=identity(end), check=False)
    row["verify"] = (
        "ok" if done.returncode == 0 else f"exit {done.returncode}: {first_line(done.out + done.err)}"
    )
    before = git(root, "rev-parse", "HEAD").out.strip()
    squadmem(root, "intake", "--now", end, env=identity(end), check=False)
    row["rerun_new_commits"] = int(git(root, "rev-list", "--count", f"{before}..HEAD").out.strip())
    tiers = tier_sections(root)
    counts = collections.Counter((owner, key) for owner, key, _ in tiers)
    row["entries_ever"] = len(ever)
    row["entries_last"] = len({(e.owner, e.key) for e in intake.usable(squad_entries(root))[0]})
    row["sections_end"] = len(tiers)
    row["lost"] = sorted(
        f"{e.source}: {e.title}" for e in ever.values() if not any(counts[(e.owner, k)] for k in e.keys)
    )
    row["twice"] = sorted({f"{o}: {t}" for o, k, t in tiers if counts[(o, k)] > 1})


def score_logs(
    history: Path,
    before: str,
    sha: str,
    today: dt.date,
    root: Path,
    memory: catalog.Memory,
    entries: Sequence[squad.Entry],
    plain: dict[str, str],
    budgets: Sequence[int],
    show: bool = False,
    born: dict[bytes, int] | None = None,
    dump: Path | None = None,
) -> squad_spawns.Score:
    """The spawns whose orchestration logs ``sha`` adds, scored on the state before them (``before``'s
    Squad files, ``entries``, and the tiers squadmem made of them, ``memory``)."""
    total = squad_spawns.Score()
    added = git(
        history, "diff", "--name-only", "--diff-filter=A", before, sha, "--", squad_spawns.LOG_DIR
    ).out
    agents = {e.owner for e in entries if not e.decision}
    for rel in filter(None, added.split("\n")):
        text = git(history, "show", f"{sha}:{rel}").out
        log = squad_spawns.parse(rel, text, agents)
        if log is None or log.agent not in plain:
            continue
        if log.agent not in memory.agents():
            continue
        with warnings.catch_warnings():  # a Core Context over the budget: counted by the replay already
            warnings.simplefilter("ignore")
            built = {b: context.build_for_task(memory, log.agent, log.task, b) for b in budgets}
        tasked = {b: text for b, (text, _, _) in built.items()}
        by_id = memory.by_id()
        named = {b: "".join(by_id[i].text for i in done.named) for b, (_, _, done) in built.items()}
        files = [
            committed(root, rel) if git(root, "ls-files", "--", rel).out.strip() else ""
            for rel in (f".squad/agents/{log.agent}/history.md", ".squad/decisions.md")
        ]
        load, rule = "".join(files), squad_spawns.squad_rule(files[0], files[1], today)
        if dump is not None:
            dump_spawn(dump, log, memory, entries, born or {})
        total.add(squad_spawns.score(log, entries, load, tasked, plain[log.agent], rule, named))
        if show:
            _show(log, entries, load, tasked, memory)
    return total


def dump_spawn(
    path: Path,
    log: squad_spawns.Log,
    memory: catalog.Memory,
    entries: Sequence[squad.Entry],
    born: dict[bytes, int],
) -> None:
    """One JSON line for ``log``'s spawn: what the agent's tiers held (each section's text, file, whether
    pinned, when first seen) and which entries are relevant, to study fill orders without a replay."""
    relevant = {
        sections.content_key(e.text).hex(): beyond for e, beyond in squad_spawns.relevant(log, entries)
    }
    seen = [
        {
            "key": sections.content_key(e.text).hex(),
            "title": e.title,
            "text": e.text,
            "file": e.file,
            "pinned": e.pinned,
            "born": born.get(sections.content_key(e.text), -1),
        }
        for e in memory.visible_to(log.agent)
        if e.name == log.agent or not e.pinned
    ]
    record = {"agent": log.agent, "task": log.task, "relevant": relevant, "sections": seen}
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(record) + "\n")


def _show(
    log: squad_spawns.Log,
    entries: Sequence[squad.Entry],
    load: str,
    tasked: dict[int, str],
    memory: catalog.Memory,
) -> None:
    """One logged spawn on standard error: its task, the words it ranked by, each relevant entry and
    which spawns held it (S: Squad's load; then each budget of --task)."""
    terms = ranking.task_terms(log.task, [e for e in memory.visible_to(log.agent) if not e.pinned])
    print(f"\n{log.path}\n  {log.agent}: {log.task!r} words {terms}", file=sys.stderr)
    for entry, beyond in squad_spawns.relevant(log, entries):
        held = "S" if squad_spawns.holds(load, entry.raw) else "-"
        held += "".join("T" if squad_spawns.holds(t, entry.text) else "-" for t in tasked.values())
        print(f"  {held} {'' if beyond else '(named) '}{entry.title[:90]}", file=sys.stderr)


def _cells(r: dict[str, Any]) -> tuple[object, ...]:
    if "failed" in r:
        return (r["repo"], f"**failed:** {r['failed']}", *[""] * 12)
    return (
        *(r["repo"], r["days"], r["steps"], f"{r['entries_ever']} ({r['entries_last']})"),
        *(r["squadmem_commits"],),
        *(r["verify"], r["rerun_new_commits"], len(r["lost"]), len(r["twice"]), r["spawns"]),
        *(f"{r['payload_max']} B", f"{r['over']} ({r['over_by_core']})", r["core_missing"], r["seconds"]),
    )


def report(rows: Sequence[dict[str, Any]]) -> None:
    head = (
        *("repository", "days", "steps", "entries ever (at the end)", "squadmem commits", "verify"),
        *("re-run", "lost", "twice", "spawns", "payload max", "over 4 KB (by Core Context)"),
        *("Core missing", "seconds"),
    )
    table(head, [_cells(r) for r in rows])
    ok = [r for r in rows if "failed" not in r]
    print()
    print(
        f"{len(rows)} repositories, {len(rows) - len(ok)} not replayed; of the rest: verify ok "
        f"{sum(r['verify'] == 'ok' for r in ok)}, nothing lost {sum(not r['lost'] for r in ok)}, "
        f"nothing twice {sum(not r['twice'] for r in ok)}, re-run adds nothing "
        f"{sum(r['rerun_new_commits'] == 0 for r in ok)}; {sum(r['spawns'] for r in ok)} spawns, "
        f"{sum(r['over'] for r in ok)} over 4 KB ({sum(r['over_by_core'] for r in ok)} by the pinned Core "
        f"Context leaving no room), {sum(r['core_missing'] for r in ok)} without their Core Context."
    )
    for r in ok:
        details = r["lost"][:3] + r["twice"][:3] + r["odd"][:3]
        if details:
            print(f"- {r['repo']}: " + "; ".join(details))
    logged = [r for r in ok if r["logs"]["spawns"]]
    if logged:
        report_logs(logged)


def _share(hits: int, uses: int) -> str:
    return f"{100 * hits / uses:.0f}%" if uses else "-"


def _median(values: Sequence[int]) -> str:
    return f"{statistics.median(values):,.0f} B" if values else "-"


def report_logs(rows: Sequence[dict[str, Any]]) -> None:
    """The orchestration logs' spawns (squad_spawns.py): relevant entries each spawn's memory held."""
    budgets = sorted({int(b) for r in rows for b in r["logs"]["task"]})  # JSON keys are strings
    print(
        "\nspawns from the orchestration logs: of the earlier entries the logged work names (relevant), "
        "the share each spawn's memory held; in brackets, of those only references the task does not "
        "name make relevant; + named: not held, but named in a line under the spawn's "
        '"More matching the task"\n'
    )
    head = (
        *("repository", "spawns", "relevant (beyond the task)", "Squad", "Squad's rule", "squadmem"),
        *(f"squadmem --task in {int(b):,} B" for b in budgets),
        *("bytes: Squad", "Squad's rule", "squadmem --task"),
    )
    total = squad_spawns.Score()
    cells = []
    for r in rows:
        one = squad_spawns.Score()
        one.add(squad_spawns.Score(**r["logs"]))  # keys as numbers again
        total.add(one)
        cells.append(_log_cells(r["repo"], one, budgets))
    table(head, [*cells, _log_cells("**all**", total, budgets)])


def _log_cells(name: str, s: squad_spawns.Score, budgets: Sequence[Any]) -> tuple[object, ...]:
    def both(hits: int, beyond: int) -> str:
        return f"{_share(hits, s.uses)} ({_share(beyond, s.unnamed)})"

    tasks = [  # none: no spawn scored
        f"{both(s.task.get(b, 0), s.unnamed_task.get(b, 0))} + {_share(s.named.get(b, 0), s.uses)} named"
        for b in budgets
    ]
    first = s.task_bytes.get(budgets[0], [])
    return (
        *(name, s.spawns, f"{s.uses} ({s.unnamed})", both(s.squad, s.unnamed_squad)),
        *(both(s.rule, s.unnamed_rule), both(s.plain, s.unnamed_plain), *tasks),
        *(_median(s.squad_bytes), _median(s.rule_bytes), _median(first)),
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = options(__doc__, json=True)
    parser.add_argument("repos", nargs="+", type=Path, help="git repositories with a Squad team's .squad/")
    parser.add_argument("--step-days", type=int, default=1, help="days between two replayed states (1)")
    parser.add_argument("--max-steps", type=int, help="replay only the last N steps")
    parser.add_argument("--keep", type=Path, help="keep each replayed repository under this folder")
    parser.add_argument(
        "--task-budgets",
        type=int,
        nargs="+",
        default=[BUDGET, 2 * BUDGET, 4 * BUDGET],
        metavar="BYTES",
        help="budgets of the logged spawns' context --task (4096 8192 16384)",
    )
    parser.add_argument(
        "--show-logs", action="store_true", help="each logged spawn's task and relevant entries, on stderr"
    )
    parser.add_argument(
        "--dump", type=Path, metavar="DIR", help="write each logged spawn's sections to DIR/<repo>.jsonl"
    )
    args = parser.parse_args(argv)
    if args.dump:
        args.dump.mkdir(parents=True, exist_ok=True)
    run_all(
        args.repos,
        lambda source, work: replay_one(
            source, work, args.step_days, args.max_steps, args.task_budgets, args.show_logs, args.dump
        ),
        args.json,
        report,
        keep=args.keep,
    )


if __name__ == "__main__":
    main()

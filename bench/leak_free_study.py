"""What real spawns needed, with nothing after the spawn visible: squadmem's ``context --task`` beside
newest first, BM25 and BM25 then newest, and what one recall of the task finds.

The teams are those of ``bench/corpus/squad-teams.tsv`` (``train``, ``held-out``) and of
``bench/corpus/squad-teams-new.tsv`` (``new``), fixed by ``bench/corpus/split.sha256``
(``bench/study_split.py``); the repositories come from ``--clones DIR`` as in ``squad_study.py``.
For each team, each spawn its orchestration logs record (the last ``--max-spawns``) is scored:

- **the moment** is the log's own stated time (``study_rules.stated_moment``: the earliest moment its
  name, title or ``Timestamp:`` line states, a stamp without a zone read in UTC and in its commit's
  zone, whichever is earlier; never later than the commit adding it). A log that states none is
  not scored;
- **the team** is read at the last first-parent commit before the moment (``study_rules.state_before``)
  and replayed with squadmem's hooks from there back (``squad_study.steps_for``), the replay
  starting on the team's own commits before its first state; after it, each team commit that
  touches a memory file (and each scored state) is committed with its own author and committer
  dates (:func:`replay_commit`), so squadmem's history dates every entry as the team's history
  does; ``maintain`` runs just before each scored state's first moment: every entry, decision and
  word any rule sees was committed before the moment; no use is recorded;
- **relevant**: the entries of that state the logged work names (``squad_study.relevant``); each
  stood on the default branch before the moment (checked: ``late`` counts any that did not, and
  stays 0), and its age is the moment less when it first did; ``≥ 6 h`` is the slice of entries
  at least six hours old, which the spawn's own work cannot have written;
- **fills** at 4, 8 and 16 KB, all from one pool in one room: squadmem's real
  ``context --agent A --task T``; **newest first** (by when history first holds each section, the
  fill's own clock: ``spawn_fill.newest``), **BM25** on the task (``study_rules.BM25``) and **BM25,
  then newest**, each over squadmem's pool (:func:`pool`: the sections the agent sees but the ones
  its spawn pins, so also the versions Squad's files later cut or rewrote) in the room the pinned
  ones leave; a relevant entry is held when a section taken holds its text;
- **one recall of the task**: ``squadmem recall --agent A --beyond-spawn "<the task>" --limit 5``
  (:func:`recall_top`, the one place the study ranks a recall; what the spawn block tells the
  agent to type): the agent has its task, its charter and its payload at spawn, and the task is
  the words it would type; ``--beyond-spawn`` leaves out what the 4 KB spawn for the task holds
  (the team's ``hot.max_bytes``, 4 KB, after the budgets are scored); found: held at 4 KB or in
  those 5. Bytes per relevant entry found: the 4 KB spawns and every recall's output as the agent
  reads it (the table and lines it prints, warnings included; not ``--json``), over the entries
  found. Beside it, the yardstick: BM25's top 5 (``study_rules.BM25``) of every section ``recall``
  searches (the agent's and the wiki's) past those whose text the 4 KB spawn holds, and, not
  past it, of the same pool and of every section recall searches (the ones its spawn pins too).

``--dump FILE`` writes each spawn's squadmem pool (JSON lines: each candidate's BM25 score on the
task, stated date, tier, place, bytes, hot or not; the room; which candidates hold which relevant
entry, and each one's age), what ``bench/fill_tuning.py`` tunes the fill order on.

    python -m bench.leak_free_study --clones DIR [--split train|held-out|new|all] [--team OWNER/NAME]
        [--max-spawns 20] [--jobs 1] [--json] [--dump FILE] [--cache DIR]
    python -m bench.leak_free_study --cache DIR [--split ...] [--plot PNG]   # the tables of the teams done
    python -m bench.leak_free_study --rows ROWS.json [--split ...]     # the tables again

With ``--cache DIR`` each team's row goes to ``DIR/OWNER+NAME.json`` once it is done and its pools to
``DIR/OWNER+NAME.pools.jsonl``; a team already there is not run again, so a long run can be split by
``--team`` over several processes and resumed.

Prints a row per team and a table per split. Asserts nothing; exit 0.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import datetime as dt
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench import squad_spawns, squad_study, study_rules, study_split
from bench.gitrun import git, squadmem
from bench.harness import options, table
from bench.squad_corpus import identity, squad_entries
from squadmem.commands import context as context_command
from squadmem.commands import intake
from squadmem.engine import catalog
from squadmem.engine.search import ranking, spawn_fill
from squadmem.gitio.repo import Repo
from squadmem.model import squad
from squadmem.model.layout import MEMORY_DIR
from squadmem.model.places import SQUAD_PLACES
from squadmem.model.settings import HotSettings

BUDGETS = (4096, 8192, 16384)
ORDERS = ("squadmem", "newest", "bm25", "bm25_newest")
AGED = dt.timedelta(hours=6)
SPLITS = ("train", "held-out", "new")
INDEX_CAP = HotSettings().index_max_entries


@dataclasses.dataclass(frozen=True)
class Logged:
    log: squad_spawns.Log
    moment: dt.datetime  # the log's own stated time
    state: int  # first-parent commits before it


def logged_spawns(history: Path, commits: Sequence[tuple[str, dt.datetime]]) -> tuple[list[Logged], int]:
    """Every spawn a log added on the first-parent line records that states its moment, oldest first,
    and how many logs of one known agent stated none."""
    moments = [m for _, m in commits]
    found: list[Logged] = []
    unstated = 0
    for step, rel, text, log in squad_study.added_logs(history):
        moment = study_rules.stated_moment(rel, text, step.when.astimezone(step.zone))
        if moment is None:
            unstated += 1
            continue
        found.append(Logged(log, moment, study_rules.state_before(moments, moment)))
    return sorted(found, key=lambda s: (s.moment, s.log.path)), unstated


# -- the one recall ---------------------------------------------------------------------------------


def recall_args(agent: str, query: str, limit: int, when: str) -> tuple[str, ...]:
    """The recall the spawn block tells the agent to type (``spawnblock.MEMORY_LINES``), no use recorded."""
    return (
        "recall",
        "--agent",
        agent,
        query,
        "--beyond-spawn",
        "--limit",
        str(limit),
        "--no-record",
        "--now",
        when,
    )


def recall_top(root: Path, agent: str, query: str, when: str, limit: int = 5) -> tuple[list[str], int]:
    """(the ids ``squadmem recall`` lists first for ``query``, the bytes it prints for the agent to
    read): recall's own ranking, whatever it is, through the command the spawn block tells an agent
    to type (``recall --agent A --beyond-spawn "<task>"``: past what its spawn holds); the ids from
    the same command with ``--json``, which an agent does not read."""
    args = recall_args(agent, query, limit, when)
    shown = squadmem(root, *args, env=identity(when), check=False)
    spent = len((shown.out + shown.err).encode("utf-8"))
    done = squadmem(root, *args, "--json", env=identity(when), check=False)
    if done.returncode:
        return [], spent
    return [h["id"] for h in json.loads(done.out)["sections"]], spent


# -- one spawn ----------------------------------------------------------------------------------------


@dataclasses.dataclass
class Tally(squad_study.Counts):
    spawns: int = 0
    relevant: int = 0
    aged: int = 0  # relevant entries at least AGED old at the moment
    late: int = 0  # relevant entries first on the default branch at or after the moment (stays 0)
    held: dict[str, dict[int, int]] = dataclasses.field(default_factory=dict)  # order -> budget -> hits
    held_aged: dict[str, dict[int, int]] = dataclasses.field(default_factory=dict)
    recalls: int = 0
    recall_bytes: int = 0
    spawn_bytes: int = 0  # the 4 KB spawns
    recall_found: int = 0  # relevant entries in the top 5 of the task's recall, past what the spawn holds
    bm25_found: int = 0  # relevant entries in BM25's top 5 of the pool, the same query
    bm25_searched: int = 0  # relevant entries in BM25's top 5 of every section recall searches
    bm25_beyond: int = 0  # the same, of those the 4 KB spawn does not hold (recall's exclusion)
    one_away_bm25: int = 0  # held at 4 KB or in that top 5
    one_away: int = 0  # held at 4 KB or in the top 5 of the task's recall
    one_away_aged: int = 0


def yardsticks(
    task: str, texts: Sequence[str], cands: Sequence[spawn_fill.Candidate], room: int
) -> dict[str, set[int]]:
    """The candidates (of squadmem's pool) each yardstick takes whole into ``room`` bytes: newest
    first by when history first holds each (``spawn_fill.newest``, the fill's own clock), BM25 on the
    task, and BM25 then newest."""
    sizes = [c.size for c in cands]
    newest = spawn_fill.newest(cands)
    matches = study_rules.BM25(texts).ranked(task)
    orders = {"newest": newest, "bm25": matches, "bm25_newest": matches + newest}
    return {name: study_rules.fill(sizes, order, room) for name, order in orders.items()}


def pool(
    root: Path, agent: str, task: str, wanted: dict[bytes, squad.Entry]
) -> tuple[dict[str, Any], list[str]]:
    """squadmem's pool for ``task`` (what ``--dump`` writes): each candidate, the room at each budget
    the pinned sections leave, and which candidates hold which relevant entry; and the candidates'
    texts. Every order scored draws from this pool."""
    with Repo(root) as repo:
        memory = catalog.load(repo.layout)
        seen = context_command.first_seen(repo, memory)
    carried = context_command.pinned_in_cold(memory, agent, None)
    hot = carried + list(memory.in_file(SQUAD_PLACES.tier_rel("hot", agent)))
    candidates = [
        e for e in memory.visible_to(agent) if not e.pinned or (e.tier != "hot" and e not in carried)
    ]
    scores = {id(e): s for e, s in ranking.bm25(candidates, ranking.query_tokens(task))}
    pinned = {e.id for e in hot if e.pinned}
    own = [e for e in hot if not e.is_index]  # the payload carries its own Index, not hot's
    rooms, reserves = {}, {}
    for budget in BUDGETS:
        payload = context_command._Payload(agent, hot, budget)
        rooms[budget] = budget - payload.size(pinned, [])
        index = context_command._Index(memory, agent, [*own, *candidates], INDEX_CAP, budget)
        reserves[budget] = index.reserve
    newest = index  # its lines and least are the same at every budget
    record = {
        "agent": agent,
        "task": task,
        "rooms": rooms,
        "reserves": reserves,
        "index_least": newest.least,
        "index_lines": [len(x.render().encode("utf-8")) + 1 for x in newest.lines(pinned)[:INDEX_CAP]],
        "candidates": [
            {
                "title": e.title,
                "score": scores.get(id(e), 0.0),
                "stated": ranking.stated_date(e.text),
                "seen": seen.get(e.id),
                "tier": e.tier,
                "position": e.position,
                "bytes": len(context_command._body([e]).encode("utf-8")),
                "hot": e.tier == "hot" and e.file == SQUAD_PLACES.tier_rel("hot", agent),
                "line": len(context_command._lines([e]).encode("utf-8")),
            }
            for e in candidates
        ],
        "holders": [
            [n for n, e in enumerate(candidates) if squad_spawns.holds(e.text, entry.text)]
            for entry in wanted.values()
        ],
    }
    return record, [e.text for e in candidates]


def as_candidates(record: dict[str, Any]) -> list[spawn_fill.Candidate]:
    """The pool's candidates as the fill order reads them."""
    return [
        spawn_fill.Candidate(
            c["score"], c["stated"], ranking.DEPTH.get(c["tier"], 4), c["position"], c["seen"], c["bytes"]
        )
        for c in record["candidates"]
    ]


def score_spawn(
    root: Path,
    spawn: Logged,
    ever: dict[bytes, tuple[dt.datetime, squad.Entry]],
    when: str,
    dump: Path | None,
) -> Tally | None:
    log = spawn.log
    born = {key: first for key, (first, _) in ever.items()}
    entries, _ = intake.usable(squad_entries(root))
    seen = [e for e in entries if (e.owner == log.agent or e.decision) and e.kind != "core"]
    wanted = squad_study.relevant(log, seen)
    ours = squad_study.squadmem_spawns(root, log.agent, log.task, when, BUDGETS)
    if BUDGETS[0] not in ours:
        return None
    by_key = {e.key: e for e in seen}
    tally = Tally(spawns=1, relevant=len(wanted))
    tally.late = sum(born.get(k, spawn.moment) >= spawn.moment for k in wanted)
    aged = {k for k in wanted if spawn.moment - born.get(k, spawn.moment) >= AGED}
    tally.aged = len(aged)
    record, texts = pool(root, log.agent, log.task, {k: by_key[k] for k in wanted})
    cands = as_candidates(record)
    holders = dict(zip(wanted, (set(h) for h in record["holders"]), strict=True))
    for budget in BUDGETS:
        text = ours.get(budget, ("", 0))[0]
        taken = {
            name: {k for k in wanted if holders[k] & chosen}
            for name, chosen in yardsticks(log.task, texts, cands, record["rooms"][budget]).items()
        }
        taken["squadmem"] = {k for k in wanted if squad_spawns.holds(text, by_key[k].text)}
        for name, keys in taken.items():
            tally.held.setdefault(name, {})[budget] = len(keys)
            tally.held_aged.setdefault(name, {})[budget] = len(keys & aged)
    small, tally.spawn_bytes = ours[BUDGETS[0]]
    held = {k for k in wanted if squad_spawns.holds(small, by_key[k].text)}
    ids, tally.recall_bytes = recall_top(root, log.agent, log.task, when)
    tally.recalls = 1
    with Repo(root) as repo:
        memory = catalog.load(repo.layout)
    by_id = memory.by_id()
    listed = [by_id[i].text for i in ids if i in by_id]
    found = {k for k in wanted if any(squad_spawns.holds(t, by_key[k].text) for t in listed)}
    tally.recall_found = len(found)
    top = set(study_rules.BM25(texts).ranked(log.task)[:5])
    tally.bm25_found = sum(bool(holders[k] & top) for k in wanted)
    searched = [e.text for e in memory.visible_to(log.agent)]
    ranked = [searched[n] for n in study_rules.BM25(searched).ranked(log.task)]
    tally.bm25_searched = sum(any(squad_spawns.holds(t, by_key[k].text) for t in ranked[:5]) for k in wanted)
    past = [t for t in ranked if not squad_spawns.holds(small, t)][:5]
    beyond = {k for k in wanted if any(squad_spawns.holds(t, by_key[k].text) for t in past)}
    tally.bm25_beyond = len(beyond)
    tally.one_away_bm25 = len(held | beyond)
    tally.one_away = len(held | found)
    tally.one_away_aged = len((held | found) & aged)
    if dump is not None:
        record["ages_h"] = [(spawn.moment - born.get(k, spawn.moment)).total_seconds() / 3600 for k in wanted]
        record["newest_stated"] = max((c["stated"] or "" for c in record["candidates"]), default="")
        with dump.open("a", encoding="utf-8") as out:
            out.write(json.dumps(record) + "\n")
    return tally


# -- the replay ----------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Dates:
    of: dict[str, tuple[str, str]]  # commit -> (author date, committer date), as the team made it
    touches: set[int]  # the first-parent commits (1-based) that add, change or remove a memory file


def own_dates(history: Path) -> Dates:
    """Each first-parent commit's own dates, and which of them touch Squad's memory files."""
    out = git(history, "log", "--first-parent", "--reverse", "--format=%H %aI %cI").out.split("\n")
    of = {sha: (authored, committed) for sha, authored, committed in (r.split(" ") for r in out if r)}
    touches = {
        n
        for n, step in enumerate(squad_study.walk(history), start=1)
        if any(squad.is_source(path) for _, path, _ in step.changed)
    }
    return Dates(of, touches)


def replay_commit(root: Path, sha: str, authored: str, committed: str) -> None:
    """The team's ``.squad/`` at ``sha`` committed into the replay with that commit's own author and
    committer dates (squadmem's own files kept)."""
    env = {**identity(committed), "GIT_AUTHOR_DATE": authored}
    git(root, "rm", "-r", "-q", "--ignore-unmatch", "--", ".squad", f":(exclude){MEMORY_DIR}", env=env)
    if git(root, "ls-tree", sha, ".squad").out.strip():
        git(root, "checkout", sha, "--", ".squad", env=env)
    git(root, "commit", "-q", "--allow-empty", "-m", f"squad at {sha[:12]}", env=env)


# -- one team -------------------------------------------------------------------------------------------


def study_team(
    team: squad_study.Team, source: Path, work: Path, max_spawns: int, dump: Path | None
) -> dict[str, Any]:
    row: dict[str, Any] = {"repo": team.repo, "split": team.split, "commit": team.commit}
    history = work / "history"
    why = squad_study.export_at(source, team.commit, history)
    if why is not None:
        return {**row, "failed": why}
    commits = squad_study.first_parents(history)
    parsed, row["unstated"] = logged_spawns(history, commits)
    every = [s for s in parsed if s.state > 0]
    row["logged"], chosen = len(every), every[-max_spawns:]
    if not chosen:
        return {**row, "failed": f"no logged spawn with a state before it ({len(parsed)} stated a moment)"}
    ever = squad_study.written(history, max(s.state for s in chosen))
    root = work / "replay"
    git(work, "init", "-q", "-b", "main", str(root))
    git(root, "fetch", "-q", str(history), "main")
    total, skipped = Tally(), 0
    steps = squad_study.steps_for(commits, chosen, warmup_days=0)  # type: ignore[arg-type]
    dates = own_dates(history)
    # the replay starts on the team's own commits before its first state (each before every moment
    # scored), so squadmem's history dates what was written then as the team's history does
    git(root, "reset", "-q", "--hard", commits[steps[0][0] - 1][0])
    done = steps[0][0]
    for number, (state, moment, spawns) in enumerate(steps):
        # each commit since the last state that touches a memory file (and the state's own), at its
        # own dates: squadmem's history dates every entry as the team's history does
        for n in range(done + 1, state + 1):
            if n == state or n in dates.touches:
                replay_commit(root, commits[n - 1][0], *dates.of[commits[n - 1][0]])
        done = state
        failed = squad_study.commit_state(
            root, history, commits[state - 1][0], moment.isoformat(), number == 0
        )
        if failed is not None:
            return {**row, "failed": failed}
        for spawn in spawns:
            later = max(spawn.moment - dt.timedelta(seconds=30), moment).isoformat()
            scored = score_spawn(root, spawn, ever, later, dump)  # type: ignore[arg-type]
            skipped += scored is None
            total.add(scored or Tally())
        print(f"  {team.repo}: state {number + 1}/{len(steps)}", file=sys.stderr)
    return {**row, "skipped": skipped, "tally": dataclasses.asdict(total)}


def run_team(args: tuple[squad_study.Team, Path, int, Path | None]) -> dict[str, Any]:
    team, source, max_spawns, dump = args
    return squad_study.in_scratch(
        team, "leak-free-study-", lambda work: study_team(team, source, work, max_spawns, dump)
    )


# -- the tables ---------------------------------------------------------------------------------------------

NAMES = {
    "squadmem": "squadmem `context --task`",
    "newest": "newest first",
    "bm25": "BM25 on the task",
    "bm25_newest": "BM25, then newest",
}


def share(hits: int, total: int) -> str:
    return f"{100 * hits / total:.1f}%" if total else "-"


def totals(rows: Sequence[dict[str, Any]], split: str) -> tuple[int, Tally]:
    total = Tally()
    teams = [r for r in rows if "tally" in r and r["split"] == split]
    for r in teams:
        total.add(Tally(**r["tally"]))
    return len(teams), total


def report(rows: Sequence[dict[str, Any]], splits: Sequence[str]) -> None:
    def team(r: dict[str, Any]) -> list[object]:
        if "tally" not in r:
            return [r["repo"], r["split"], r["commit"][:12], f"**not scored:** {r['failed']}", "", "", ""]
        t = r["tally"]
        return [r["repo"], r["split"], r["commit"][:12], r["logged"], t["spawns"], t["relevant"], t["aged"]]

    head = ["team", "split", "commit", "spawns stating a moment", "scored", "relevant", "≥ 6 h old"]
    table(head, (team(r) for r in rows), right=4)
    for split in splits:
        teams, t = totals(rows, split)
        print(
            f"\n**{split}**: {teams} teams, {t.spawns} spawns, {t.relevant} relevant entries, "
            f"{t.aged} of them ≥ 6 h old ({t.late} first committed at or after their spawn)\n"
        )
        held = [
            [
                NAMES[order],
                *(
                    f"{share(t.held.get(order, {}).get(b, 0), t.relevant)} / "
                    f"{share(t.held_aged.get(order, {}).get(b, 0), t.aged)}"
                    for b in BUDGETS
                ),
            ]
            for order in ORDERS
        ]
        table(["relevant entries held (all / ≥ 6 h)", *(f"{b // 1024} KB" for b in BUDGETS)], held, right=3)
        found = max(1, t.one_away)
        print(
            f"\none recall of the task past what the 4 KB spawn holds ({t.recalls} recalls): its top 5 "
            f"hold {share(t.recall_found, t.relevant)} (BM25's top 5 of what recall searches, past the "
            f"same spawn, the same query: {share(t.bm25_beyond, t.relevant)}; not past it: of the pool "
            f"{share(t.bm25_found, t.relevant)}, of all recall searches "
            f"{share(t.bm25_searched, t.relevant)}); held at 4 KB or in them "
            f"{share(t.one_away, t.relevant)} (≥ 6 h: {share(t.one_away_aged, t.aged)}; with BM25's "
            f"five past the spawn: {share(t.one_away_bm25, t.relevant)}); "
            f"{(t.spawn_bytes + t.recall_bytes) / found:,.0f} B per relevant entry found "
            f"(spawns {t.spawn_bytes:,} B + every recall {t.recall_bytes:,} B)"
        )


def plot(rows: Sequence[dict[str, Any]], splits: Sequence[str], out: Path) -> None:
    """The share of relevant entries each order holds at each budget, a panel per split that has a
    team scored: all of them (solid) and those at least 6 h old (dashed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    splits = [s for s in splits if totals(rows, s)[0]] or list(splits)
    fig, axes = plt.subplots(1, len(splits), figsize=(5.2 * len(splits), 4), sharey=True, squeeze=False)
    kb = [b // 1024 for b in BUDGETS]
    for ax, split in zip(axes[0], splits, strict=True):
        teams, t = totals(rows, split)
        for order in ORDERS:
            line = ax.plot(
                kb, [100 * t.held.get(order, {}).get(b, 0) / max(1, t.relevant) for b in BUDGETS], marker="o"
            )[0]
            line.set_label(NAMES[order].replace("`", ""))
            ax.plot(
                kb,
                [100 * t.held_aged.get(order, {}).get(b, 0) / max(1, t.aged) for b in BUDGETS],
                linestyle="--",
                marker=".",
                color=line.get_color(),
            )
        ax.set_title(f"{split}: {teams} teams, {t.spawns} spawns, {t.relevant} relevant ({t.aged} ≥ 6 h)")
        ax.set_xticks(kb, [f"{k} KB" for k in kb])
        ax.set_xlabel("budget (hot.max_bytes)")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("relevant entries held, % (dashed: ≥ 6 h old)")
    axes[0][0].legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def cached(cache: Path | None, repo: str) -> Path | None:
    return None if cache is None else cache / (repo.replace("/", "+") + ".json")


def run_cached(args: tuple[squad_study.Team, Path, int, Path | None, Path | None]) -> dict[str, Any]:
    """One team's row, from ``--cache`` when an earlier run wrote it, else run and written there."""
    team, source, max_spawns, dump, cache = args
    path = cached(cache, team.repo)
    if path is not None and path.exists():
        return dict(json.loads(path.read_text(encoding="utf-8")))
    pools = dump if cache is None else cache / (team.repo.replace("/", "+") + ".pools.jsonl")
    if pools is not None and pools.exists() and cache is not None:
        pools.unlink()  # an earlier run stopped partway: its pools go with it
    row = json.loads(json.dumps(run_team((team, source, max_spawns, pools))))  # as read back later
    if path is not None:
        path.write_text(json.dumps(row, indent=2), encoding="utf-8")
    return dict(row)


def read_teams() -> list[squad_study.Team]:
    return [t for path in study_split.FILES for t in squad_study.read_corpus(path) if t.split != "out"]


def main(argv: Sequence[str] | None = None) -> None:
    parser = options(__doc__, json=True)
    parser.add_argument("--clones", type=Path, help="folder of the teams' clones or bare git dirs")
    parser.add_argument("--split", choices=(*SPLITS, "all"), default="held-out")
    parser.add_argument("--team", action="append", default=[], help="only this team (owner/name; repeatable)")
    parser.add_argument(
        "--max-spawns", type=int, default=20, help="score each team's last N logged spawns (20)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="teams replayed at once (1)")
    parser.add_argument("--rows", type=Path, help="print the tables of rows an earlier --json run wrote")
    parser.add_argument("--dump", type=Path, help="append each spawn's squadmem pool (JSON lines)")
    parser.add_argument("--plot", type=Path, help="also draw the tables' shares into this PNG (matplotlib)")
    parser.add_argument(
        "--cache",
        type=Path,
        help="a folder keeping each team's row (and, with it, its pools) once done: a team found there is "
        "not run again, so runs may stop, resume and share the teams out",
    )
    args = parser.parse_args(argv)
    splits = SPLITS if args.split == "all" else (args.split,)
    teams = [t for t in read_teams() if t.split in splits and (not args.team or t.repo in args.team)]
    if args.rows is not None:
        rows = json.loads(args.rows.read_text(encoding="utf-8"))
        report(rows, splits)
        if args.plot is not None:
            plot(rows, splits, args.plot)
        return
    cache = args.cache.resolve() if args.cache is not None else None
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
    if args.clones is None:
        if cache is None:
            parser.error("--clones is required without --rows or --cache")
        rows = [
            json.loads(p.read_text(encoding="utf-8"))
            for t in teams
            if (p := cached(cache, t.repo)) and p.exists()
        ]
    else:
        dump = args.dump.resolve() if args.dump is not None else None
        work = [
            (t, source, args.max_spawns, dump, cache)
            for t in teams
            if (source := squad_study.locate(args.clones, t.repo)) is not None
        ]
        with concurrent.futures.ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool_:
            rows = list(pool_.map(run_cached, work))
        done = {r["repo"] for r in rows}
        rows += [
            {"repo": t.repo, "split": t.split, "commit": t.commit, "failed": "missing"}
            for t in teams
            if t.repo not in done
        ]
    rows.sort(key=lambda r: (SPLITS.index(r["split"]), r["repo"]))
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        report(rows, splits)
    if args.plot is not None:
        plot(rows, splits, args.plot)


if __name__ == "__main__":
    main()

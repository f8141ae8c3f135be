"""``squadmem review``: a range's memory changes as a pull-request comment.

Built on :mod:`squadmem.engine.verify.verifier`'s pass over the range: the moves (section,
from → to, reason, verified ✓/✗), the size of every hot and cold file at the
range's base and at its tip against its budget, the bytes appended to each
daily log, and the violations. The base is the merge base of the tip and the
range's first excluded commit (the whole history when it excludes none).

Every commit of the range that changes a memory file is listed with its kind
(``move``, ``restore``, ``index``, ``intake``, ``migrate``, ``session``,
``wiki``, ``squash``, else ``edit``) and the bytes it adds to each tier (hot,
cold, archive, wiki, and the daily logs; negative where a tier shrinks; a
merge is measured against its first parent).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Sequence
from typing import Any

from squadmem.engine.verify.verifier import (
    INDEX,
    INTAKE,
    MOVE,
    RESTORE,
    Commit,
    Result,
    Store,
    Verifier,
    commits,
    default_range,
    resolve,
)
from squadmem.gitio import commits as log
from squadmem.gitio.repo import Repo
from squadmem.model import budget as budget_rule
from squadmem.model import logs, render, settings
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import classify
from squadmem.model.places import Places

FORMATS = ("markdown", "json")
KINDS = ("move", "restore", "index", "intake", "migrate", "session", "wiki", "squash", "edit")
COLUMNS = ("hot", "cold", "archive", "wiki", "log")
_MIGRATE = re.compile(r"memory(\([^)]*\))?: migrate\b")
_SESSION = re.compile(r"memory\([^)]*\): session (start|end)\b")


@dataclasses.dataclass(frozen=True)
class MemoryCommit:
    """One commit of the range that changed memory: its kind and the bytes it added to each tier."""

    commit: str  # short sha
    kind: str
    subject: str
    added: dict[str, int]  # tier (or "log") -> bytes added, negative where it shrank


def kind_of(commit: Commit) -> str:
    """What made the commit: its squadmem trailer, else the subject squadmem's writers give it."""
    trailers = commit.trailers
    if commit.squash:
        return "squash"
    if trailers.get(MOVE):
        return "restore" if trailers.get(RESTORE) else "move"
    if trailers.get(INDEX):
        return "index"
    if _MIGRATE.match(commit.subject):
        return "migrate"
    if trailers.get(INTAKE):
        return "intake"
    if _SESSION.match(commit.subject):
        return "session"
    if commit.subject.startswith("memory(wiki:"):
        return "wiki"
    return "edit"


def _column(path: str, places: Places) -> str | None:
    """The tier ``path`` is a file of in ``places`` (a commit's layout), ``log``, or None."""
    tf = classify(path, places)
    if tf is not None:
        return tf.tier
    return "log" if logs.log_day(path, places) else None


def memory_commits(repo: Repo, store: Store, revs: Sequence[str]) -> list[MemoryCommit]:
    """The range's commits that change a memory file, oldest first, with the bytes added per tier."""
    found = []
    for commit in commits(repo, revs):
        added: dict[str, int] = {}
        places = store.places_of(commit.tree)
        for change in commit.changes:
            old_path = change.source or change.path
            old = store.maybe(change.olds[0] if change.olds else None)
            new = store.maybe(change.new)
            for path, size in ((old_path, -len(old or b"")), (change.path, len(new or b""))):
                column = _column(path, places)
                if column is not None and size:
                    added[column] = added.get(column, 0) + size
        touched = any(_column(c.path, places) or _column(c.source or "", places) for c in commit.changes)
        if touched:
            found.append(MemoryCommit(commit.short, kind_of(commit), commit.subject, added))
    return found[::-1]


@dataclasses.dataclass(frozen=True)
class Budget:
    file: str
    tier: str
    before: int | None  # bytes at the base, None where the file did not exist
    after: int | None
    budget: int  # max bytes
    lines_before: int | None = None
    lines_after: int | None = None
    max_lines: int | None = None  # hot files only

    @property
    def over(self) -> bool:
        """The one budget rule (:mod:`squadmem.model.budget`): bytes and, for hot files, lines."""
        limit = budget_rule.Limits(self.budget, self.max_lines)
        return budget_rule.over(self.after or 0, self.lines_after or 0, limit) is not None


@dataclasses.dataclass(frozen=True)
class Review:
    result: Result
    budgets: list[Budget]
    commits: list[MemoryCommit] = dataclasses.field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        data = self.result.as_dict()
        data["summary"] = self.result.summary()
        data["budgets"] = [dict(dataclasses.asdict(b), over=b.over) for b in self.budgets]
        data["memory_commits"] = [dataclasses.asdict(c) for c in self.commits]
        return data


def sizes(store: Store, commit: str | None) -> dict[str, tuple[int, int]]:
    """Bytes and lines of every tier file of ``commit``."""
    if commit is None:
        return {}
    files = store.tier_files(store.tree_of(commit))
    found = {}
    for rel, sha in files.items():
        raw = store.read(sha)
        found[rel] = (len(raw), budget_rule.count_lines(raw.decode("utf-8", "replace")))
    return found


def base_of(repo: Repo, tip: str, bases: Sequence[str]) -> str | None:
    if not bases:
        return None
    try:
        return log.merge_base(repo, tip, bases[0]) or None
    except SquadmemError:
        return None


def budgets(
    repo: Repo, store: Store, conf: settings.Settings, tip: str, bases: Sequence[str]
) -> list[Budget]:
    base = base_of(repo, tip, bases)
    before, after = sizes(store, base), sizes(store, tip)
    layouts = [store.places_of(store.tree_of(c)) for c in (tip, base) if c is not None]
    found = []
    for rel in sorted(set(before) | set(after)):
        tf = next((t for p in layouts if (t := classify(rel, p)) is not None), None)
        if tf is None or tf.tier not in ("hot", "cold") or before.get(rel) == after.get(rel):
            continue
        limit = budget_rule.limits(tf.tier, conf)
        assert limit.max_bytes is not None
        old, new = before.get(rel), after.get(rel)
        found.append(
            Budget(
                rel,
                tf.tier,
                old[0] if old else None,
                new[0] if new else None,
                limit.max_bytes,
                old[1] if old else None,
                new[1] if new else None,
                limit.max_lines,
            )
        )
    return found


def review(repo: Repo, revs: Sequence[str] | None, now: dt.datetime) -> Review:
    revs = list(revs) if revs else default_range(repo)
    conf = repo.layout.settings
    verifier = Verifier(repo, conf, now)
    result = verifier.run(revs)
    tips, bases = resolve(repo, revs)
    changes = [b for tip in tips[:1] for b in budgets(repo, verifier.store, conf, tip, bases)]
    return Review(result, changes, memory_commits(repo, verifier.store, revs))


# -- renderings ---------------------------------------------------------------------------------------
def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _size(n: int | None) -> str:
    return "—" if n is None else f"{n} B"


def _delta(b: Budget) -> str:
    change = (b.after or 0) - (b.before or 0)
    return f"{_size(b.before)} → {_size(b.after)} ({change:+d})"


def markdown(rev: Review) -> str:
    result = rev.result
    mark = "✓" if result.ok else "✗"
    out = [f"## squadmem review: `{' '.join(result.revs)}`", "", f"**{mark} {result.summary()}**", ""]
    out += ["### Moves", ""]
    if result.moves:
        out += ["| section | from → to | reason | verified |", "|---|---|---|---|"]
        for m in result.moves:
            what = f"`{m.id}` {m.title}".strip()
            verified = "✓" if m.verified else "✗"
            out.append(f"| {_cell(what)} | {m.source} → {m.destination} | {_cell(m.reason)} | {verified} |")
    else:
        out.append("No tier moves.")
    out += ["", "### Memory commits", ""]
    if rev.commits:
        out += [
            "| commit | kind | subject | " + " | ".join(COLUMNS) + " |",
            "|---|---|---|" + "---:|" * len(COLUMNS),
        ]
        for c in rev.commits:
            cells = " | ".join(f"{c.added[t]:+d} B" if t in c.added else "" for t in COLUMNS)
            out.append(f"| `{c.commit}` | {c.kind} | {_cell(c.subject)} | {cells} |")
    else:
        out.append("No commit changed memory.")
    out += ["", "### Budgets", ""]
    if rev.budgets:
        out += ["| file | bytes before → after | budget |", "|---|---|---|"]
        for b in rev.budgets:
            verdict = "✗ over" if b.over else "✓"
            lines = f", {b.lines_after} / {b.max_lines} lines" if b.max_lines is not None else ""
            out.append(f"| `{b.file}` | {_delta(b)} | {b.budget} B{lines} {verdict} |")
    else:
        out.append("No hot or cold file changed size.")
    out += ["", "### Daily logs appended", ""]
    if result.appended:
        out += ["| log | bytes appended |", "|---|---|"]
        out += [f"| `{path}` | {n} |" for path, n in sorted(result.appended.items())]
    else:
        out.append("No daily log grew.")
    out += ["", "### Violations", ""]
    out += [f"- `{v.commit}` `{v.file}`: {v.why}" for v in result.violations] or ["None."]
    return "\n".join(out) + "\n"


def as_json(rev: Review) -> str:
    return render.to_json(rev.as_dict())


def check_format(value: str) -> str:
    if value not in FORMATS:
        raise SquadmemError(f"--format {value!r}: unknown format", hint=f"use one of: {', '.join(FORMATS)}")
    return value

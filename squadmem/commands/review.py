"""``squadmem review``: a range's memory changes as a pull-request comment.

Built on :mod:`squadmem.engine.verify`'s pass over the range: the moves (section,
from → to, reason, verified ✓/✗), the size of every hot and cold file at the
range's base and at its tip against its budget, the bytes appended to each
daily log, and the violations. The base is the merge base of the tip and the
range's first excluded commit (the whole history when it excludes none).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Sequence
from typing import Any

from squadmem.engine.verify import Result, Store, Verifier, default_range, resolve
from squadmem.gitio.repo import Repo
from squadmem.model import budget as budget_rule
from squadmem.model import render, settings
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import classify

FORMATS = ("markdown", "json")


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

    def as_dict(self) -> dict[str, Any]:
        data = self.result.as_dict()
        data["summary"] = self.result.summary()
        data["budgets"] = [dict(dataclasses.asdict(b), over=b.over) for b in self.budgets]
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
        return repo.run("merge-base", tip, bases[0]).strip() or None
    except SquadmemError:
        return None


def budgets(
    repo: Repo, store: Store, conf: settings.Settings, tip: str, bases: Sequence[str]
) -> list[Budget]:
    before = sizes(store, base_of(repo, tip, bases))
    after = sizes(store, tip)
    found = []
    for rel in sorted(set(before) | set(after)):
        tf = classify(rel)
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
    return Review(result, changes)


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

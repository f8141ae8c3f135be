"""What ``maintain``, ``promote``, ``demote`` and ``restore`` planned and made, as text or JSON."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from squadmem.engine import index
from squadmem.engine.planning import policy
from squadmem.engine.writing import writer
from squadmem.model import render

if TYPE_CHECKING:
    from squadmem.engine.hosts import uses as track
    from squadmem.engine.intake import take as intake


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What a command planned and made."""

    plan: policy.Plan | None
    made: tuple[writer.Made, ...] = ()
    dry_run: bool = False
    recovered: str | None = None
    note: str | None = None  # "nothing to do" and why
    intake: intake.Result | None = None  # what maintain took in from Squad's files first
    spawn_note: str | None = None  # Squad's spawn lines lost their block and could not get it back
    settled: tuple[str, ...] = ()  # what a merge left, settled first (squadmem.engine.writing.settle)
    host: track.Result | None = None  # the uses a workspace's host left, read first (squadmem track)
    unjudged: str | None = None  # tier files with uncommitted changes, which the rules left alone

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"dry_run": self.dry_run}
        if self.intake is not None:
            data["intake"] = self.intake.as_dict()
        if self.host is not None:
            data["host_uses"] = self.host.as_dict()
        if self.plan is not None:
            data.update(self.plan.as_dict())
        data["commits"] = [m.as_dict() for m in self.made]
        if self.settled:
            data["settled"] = list(self.settled)
        if self.recovered:
            data["recovered"] = self.recovered
        if self.note:
            data["note"] = self.note
        if self.spawn_note:
            data["spawn_note"] = self.spawn_note
        if self.unjudged:
            data["unjudged"] = self.unjudged
        return data

    def text(self) -> str:
        out = [f"squadmem: {self.recovered}"] if self.recovered else []
        out.extend(self.settled)
        if self.host is not None and self.host.uses:
            out.append(self.host.text().splitlines()[-1])
        if self.intake is not None and (self.intake.placed or self.intake.warnings):
            out.append(self.intake.text())
        if self.note:
            out.append(self.note)
        if self.plan is not None:
            out.extend(_plan_lines(self.plan))
            out.extend(_result_lines(self))
        if self.spawn_note:
            out.append(f"warning: {self.spawn_note}")
        if self.unjudged:
            out.append(self.unjudged)
        return "\n".join(out)


def _plan_lines(plan: policy.Plan) -> Iterator[str]:
    if plan.moves:
        rows = [(m.id, f"{m.source_label} → {m.target_label}", m.reason) for m in plan.moves]
        yield render.table(("section", "from → to", "reason"), rows)
    for refresh in plan.indexes:
        if not refresh.text:
            yield f"index: take the Index out of {refresh.file} (even one line would put it over its budget)"
            continue
        yield f"index: rewrite the Index of {refresh.file} ({index.listed(refresh.text)} line(s))"
    for warning in plan.warnings:
        yield f"warning: {warning}"
    for waiting in plan.waiting:
        yield f"waits: {waiting}"


def _result_lines(outcome: Outcome) -> Iterator[str]:
    plan = outcome.plan
    assert plan is not None
    if plan.empty and not outcome.made:
        if plan.warnings:
            yield "nothing moved: what the rules want cannot be done (see the warnings above)"
        else:
            yield "nothing to do: every section is where the rules want it"
        return
    refreshes = _count(len(plan.indexes), "Index refresh", "Index refreshes")
    counts = f"{_count(len(plan.moves), 'move')} and {refreshes}"
    if outcome.dry_run:
        yield f"dry run: {counts} planned; nothing changed"
        return
    yield f"made {_count(len(outcome.made), 'commit')} ({counts}):"
    for made in outcome.made:
        yield f"  {made.sha[:7]} {made.subject}"


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"

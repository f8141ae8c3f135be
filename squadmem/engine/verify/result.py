"""What ``verify`` found: the violations, the moves it proved, the counts of a range."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Violation:
    commit: str  # short sha
    file: str
    why: str

    def line(self) -> str:
        return f"{self.commit} {self.file}: {self.why}"


@dataclasses.dataclass(frozen=True)
class Move:
    commit: str
    id: str
    title: str
    source: str
    destination: str
    reason: str
    verified: bool
    restore: str | None = None


@dataclasses.dataclass
class Result:
    revs: list[str]
    tips: list[str] = dataclasses.field(default_factory=list)
    commits: int = 0
    moves: list[Move] = dataclasses.field(default_factory=list)
    index_refreshes: int = 0
    intakes: int = 0
    squashes: int = 0
    log_changes: int = 0
    appended: dict[str, int] = dataclasses.field(default_factory=dict)  # log path -> bytes appended
    violations: list[Violation] = dataclasses.field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.violations

    def summary(self) -> str:
        moves, logs_ = len(self.moves), self.log_changes
        counts = f"{moves} moves, {self.index_refreshes} index refreshes, {logs_} log changes"
        if self.intakes:
            counts += f", {self.intakes} intake{'s' if self.intakes != 1 else ''}"
        if self.squashes:
            counts += f", {self.squashes} squash{'es' if self.squashes != 1 else ''}"
        n_bad = len(self.violations)
        verdict = "no violations" if self.ok else f"{n_bad} violation{'s' if n_bad != 1 else ''}"
        return f"verified {self.commits} commit{'s' if self.commits != 1 else ''} ({counts}): {verdict}"

    def as_dict(self) -> dict[str, object]:
        return {
            "range": self.revs,
            "tips": self.tips,
            "commits": self.commits,
            "ok": self.ok,
            "moves": [dataclasses.asdict(m) for m in self.moves],
            "index_refreshes": self.index_refreshes,
            "intakes": self.intakes,
            "squashes": self.squashes,
            "log_changes": self.log_changes,
            "logs_appended": self.appended,
            "violations": [dataclasses.asdict(v) for v in self.violations],
        }

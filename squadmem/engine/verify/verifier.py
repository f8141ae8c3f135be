"""``squadmem verify``: prove a range of commits kept memory's rules.

For every commit of the range, from one streamed ``git log --raw`` pass and
blobs through the gateway's one ``cat-file`` process:

- daily logs, by ``squadmem.model.logs.judge`` (the pre-commit hook's rules), so a
  commit made with ``--no-verify`` is caught: each commit judged by its
  effective date (its committer date, or its parents' when they are later), its
  author date (a replayed append) and its first parent's ``tiers.toml``; a
  merge against every parent's version of every log (not only the paths
  ``git log -c`` lists); a past log that no parent has against the versions it
  had in history (a re-creation is no backfill);
- a commit carrying ``Squad-Memory-Move`` is a pure move: the named section
  left its source tier file and arrived, with the same content, in its
  destination (in a hot file just before its Index section, else at the end),
  every other section and both headers unchanged, no other file changed;
  a restore (``history -> <tier>`` with ``Squad-Memory-Restore: <rev>``) added
  exactly the section's text at ``<rev>``;
- a commit carrying ``Squad-Memory-Index`` changes only the
  ``Index → Deeper Tiers`` section of ``hot/<agent>.md``;
- a commit that changes one of Squad's spawn files while its spawn record is on
  keeps squadmem's block there (``spawn``);
- at the range's tip, hot files are within their budget (only reported with ``budget.mode = "warn"``);
- conservation (``squadmem.engine.verify.conservation``): every other commit that changes
  tier files, and every merge, loses no section and duplicates none; a merge's
  duplicate (the merge driver's interim state) only when the range's tip still
  holds it, since ``doctor --fix`` settles it in a commit after the merge.

Section content is compared with trailing blank lines and line endings trimmed.
Each rule has its module: the range and its commits (``verify_range``), the
log rules (``verify_logs``), moves and index refreshes (``verify_moves``),
intake commits (``verify_intake``), conservation (``verify_conservation``);
the ``Verifier`` here sends each commit to the check its trailers call for.
"""

from __future__ import annotations

import datetime as dt
import warnings
from collections.abc import Sequence

from squadmem.engine.verify.intake import IntakeCheck
from squadmem.engine.verify.logs import LogCheck
from squadmem.engine.verify.moves import check_index, check_move
from squadmem.engine.verify.range import (
    INDEX,
    INTAKE,
    MOVE,
    REGULAR,
    RESTORE,
    Commit,
    Store,
    commits,
    default_range,
    resolve,
)
from squadmem.engine.verify.range_conservation import ConservationCheck
from squadmem.engine.verify.result import Move, Result, Violation
from squadmem.engine.verify.spawn import check_spawn
from squadmem.gitio.repo import Repo
from squadmem.model import constants, logs, settings
from squadmem.model.budget import hot_blob_over
from squadmem.model.errors import Exit, SquadmemError, SquadmemWarning
from squadmem.model.layout import classify
from squadmem.model.readable import unreadable

__all__ = [
    "INDEX",
    "INTAKE",
    "MOVE",
    "RESTORE",
    "Commit",
    "Move",
    "Result",
    "Store",
    "Verifier",
    "Violation",
    "commits",
    "default_range",
    "resolve",
]

ODD_MODES = {"120000": "a symlink", "160000": "a submodule"}
WARN_MODE = 'budget.mode = "warn" in tiers.toml: reported, not refused'
CLOCK_SKEW = dt.timedelta(hours=1)


class Verifier:
    """One range's commits, each sent to the check its trailers call for."""

    def __init__(self, repo: Repo, conf: settings.Settings, now: dt.datetime) -> None:
        self.store = Store(repo)
        self.repo = repo
        self.conf = conf
        self.now = now
        self.logs = LogCheck(
            repo, self.store, logs.Rules(conf.tz, conf.log.grace_minutes, repo.layout.places)
        )
        self.conservation = ConservationCheck(repo, self.store)

    def run(self, revs: list[str]) -> Result:
        tips, bases = resolve(self.repo, revs)
        result = Result(revs, tips=tips)
        self.logs.begin(revs, bases)
        boundary = self.repo.shallow_boundary()
        for commit in commits(self.repo, revs):
            if commit.sha in boundary:
                raise past_boundary(revs, commit)
            result.commits += 1
            self.commit(commit, result)
        self.conservation.unsettled(tips, result)
        for tip in tips:
            self.budgets(tip, result)
        return result

    def commit(self, commit: Commit, result: Result) -> None:
        bad = result.violations.append
        if not commit.dated:
            bad(
                Violation(
                    commit.short, "-", "no committer date git can read (none, or negative): a forged date?"
                )
            )
        if commit.when > self.now + CLOCK_SKEW:
            bad(
                Violation(
                    commit.short,
                    "-",
                    f"committed {commit.when:%Y-%m-%d %H:%M} UTC, after now: a forged date?",
                )
            )
        self.logs.check(commit, result)
        self.modes(commit, result)
        for file, why in check_spawn(self.store, commit):
            bad(Violation(commit.short, file, why))
        moves, index = commit.trailers.get(MOVE, []), commit.trailers.get(INDEX, [])
        if commit.squash:
            result.squashes += 1  # each squashed move is gone: judged like any commit, by conservation
            self.conservation.conserve(commit, result)
        elif len(moves) + len(index) > 1:
            bad(
                Violation(
                    commit.short,
                    "-",
                    f"carries more than one {constants.MOVE_TRAILER}/-Index trailer: one per commit",
                )
            )
        elif moves:
            result.moves.append(check_move(self.store, commit, moves[0], result))
        elif index:
            result.index_refreshes += 1
            for file, why in check_index(self.store, commit, index[0]):
                bad(Violation(commit.short, file, why))
        elif commit.trailers.get(INTAKE):
            result.intakes += 1
            for file, why in IntakeCheck(self.store).run(commit):
                bad(Violation(commit.short, file, why))
        else:
            self.conservation.conserve(commit, result)

    def modes(self, commit: Commit, result: Result) -> None:
        """A daily log or tier file the commit makes anything but a regular file (a symlink, a
        submodule): git would keep its bytes elsewhere, and a log's mode alone changed is a change."""
        layouts = self.logs.layouts(commit)
        for change in commit.changes:
            if change.new is None or change.mode in REGULAR:
                continue
            if any(logs.log_day(change.path, p) or classify(change.path, p) for p in layouts):
                kind = ODD_MODES.get(change.mode, f"mode {change.mode}")
                why = f"{kind}, not a regular file: a daily log or tier file is committed as the file itself"
                result.violations.append(Violation(commit.short, change.path, why))

    def budgets(self, tip: str, result: Result) -> None:
        """Budgets at the tip, and tier files squadmem can read (the hook's file check, for --no-verify)."""
        tree = self.store.tree_of(tip)
        for rel, sha in self.store.tier_files(tree).items():
            why = unreadable(rel, self.store.read(sha), self.store.places_of(tree))
            if why is not None:
                result.violations.append(Violation(tip[:7], rel, why))
            tf = self.store.tier_file(tree, rel)
            if tf is not None and tf.tier == "hot":
                for why in hot_blob_over(self.store.read(sha), self.conf.hot):
                    if self.conf.budget.mode == "warn":  # as the pre-commit budget check: reported only
                        warnings.warn(SquadmemWarning(f"{rel}: {why}", hint=WARN_MODE), stacklevel=1)
                    else:
                        result.violations.append(Violation(tip[:7], rel, why))


def verify(repo: Repo, revs: Sequence[str] | None, now: dt.datetime) -> Result:
    revs = list(revs) if revs else default_range(repo)
    conf = repo.layout.settings
    return Verifier(repo, conf, now).run(revs)


def text(result: Result) -> str:
    return "\n".join([v.line() for v in result.violations] + [result.summary()])


def exit_code(result: Result) -> Exit:
    return Exit.OK if result.ok else Exit.VIOLATIONS


def past_boundary(revs: Sequence[str], commit: Commit) -> SquadmemError:
    """The refusal of a range that reaches a shallow clone's boundary: git shows the boundary
    commit without its parents, so every rule that compares it with them would judge wrongly."""
    return SquadmemError(
        f"range {' '.join(revs)!r} reaches past this shallow clone's boundary at {commit.short},"
        " whose parents it lacks: unshallow with `git fetch --unshallow`",
        hint="then verify again, or verify a range inside the clone, such as origin/main..HEAD",
    )

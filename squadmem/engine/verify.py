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
- at the range's tip, hot files are within their budget (only reported with ``budget.mode = "warn"``);
- conservation (``squadmem.engine.conservation``): every other commit that changes
  tier files, and every merge, loses no section and duplicates none; a merge's
  duplicate (the merge driver's interim state) only when the range's tip still
  holds it, since ``doctor --fix`` settles it in a commit after the merge.

Section content is compared with trailing blank lines and line endings trimmed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import functools
import re
import warnings
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

from squadmem.engine import catalog, conservation
from squadmem.gitio import formats
from squadmem.gitio.repo import Repo
from squadmem.model import logs, sections, settings, squad, templates
from squadmem.model import places as where
from squadmem.model.budget import hot_blob_over
from squadmem.model.errors import Exit, SquadmemError, SquadmemWarning
from squadmem.model.layout import AGENT_TIERS, check_name, classify, tier_rel
from squadmem.model.readable import unreadable
from squadmem.model.sections import trimmed

WARN_MODE = 'budget.mode = "warn" in tiers.toml: reported, not refused'
MOVE = "squad-memory-move"
INDEX = "squad-memory-index"
INTAKE = "squad-memory-intake"
RESTORE = "squad-memory-restore"
REASON = "squad-memory-reason"
CLOCK_SKEW = dt.timedelta(hours=1)
LINE_MERGE_HINT = (
    "; a merge that lost it merged tier files line by line, without squadmem's merge driver (as in a"
    " clone where it was not set up): bring it back with squadmem restore {id} --at {at}, and run"
    " squadmem init in the clone that merged"
)
SETTLE_HINT = "a merge left it in two places and nothing settled it since (run: squadmem doctor --fix)"
_FIELDS = ("%H", "%T", "%ct", "%P", "%s", "%(trailers:only,unfold)", "%b")
_FORMAT = formats.log_format(*_FIELDS)
_SQUASHED = re.compile(r"^[ \t>*-]*Squad-Memory-(?:Move|Index|Intake):", re.IGNORECASE | re.MULTILINE)
_FULL_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_MOVE_VALUE = re.compile(r"(\S+)\s+(\S+)\s+->\s+(\S+)")


READABLE_WALK = 256  # how far back verify looks for a readable state across unreadable tier files
_DELETE_LINE = re.compile(rb"^squad-memory-delete:[ \t]*(.*)$", re.IGNORECASE | re.MULTILINE)


class Unreadable(Exception):
    """No readable state to judge a commit's conservation from."""

    def __init__(self, file: str, why: str) -> None:
        super().__init__(why)
        self.file = file
        self.why = why


def _stamp(epoch: str) -> dt.datetime:
    return dt.datetime.fromtimestamp(int(epoch), dt.UTC)


def _delete_values(raw: bytes) -> list[str]:
    """The Squad-Memory-Delete values of a raw commit object's message."""
    message = raw.split(b"\n\n", 1)[1] if b"\n\n" in raw else b""
    return [m.decode("utf-8", "replace").strip() for m in _DELETE_LINE.findall(message)]


# -- what the log pass gives ---------------------------------------------------------------------
FileChange = formats.Change  # one path a commit changed; a merge's change lists one old blob per parent


@dataclasses.dataclass(frozen=True)
class Commit:
    sha: str
    tree: str
    parents: tuple[str, ...]
    when: dt.datetime
    subject: str
    trailers: dict[str, list[str]]
    changes: tuple[FileChange, ...]
    squadmem_marks: int = 0  # Squad-Memory-Move/-Index/-Intake lines anywhere in the message

    @property
    def squash(self) -> bool:
        """Several of squadmem's commits squashed into one: their trailers in the body, not its own."""
        own = sum(len(self.trailers.get(key, [])) for key in (MOVE, INDEX, INTAKE))
        return self.squadmem_marks > 1 and self.squadmem_marks > own

    @property
    def short(self) -> str:
        return self.sha[:7]


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


# -- reading the range -------------------------------------------------------------------------------
def default_range(repo: Repo) -> list[str]:
    """The commits not on the upstream branch (``@{upstream}..HEAD``), else all of HEAD's history."""
    if repo.head() is None:
        raise SquadmemError(
            "HEAD has no commits yet: nothing to verify", hint="commit first, or name a range"
        )
    try:
        upstream = repo.run("rev-parse", "--verify", "-q", "--symbolic-full-name", "@{upstream}").strip()
    except SquadmemError:
        upstream = ""
    return [f"{upstream}..HEAD"] if upstream else ["HEAD"]


def resolve(repo: Repo, revs: Sequence[str]) -> tuple[list[str], list[str]]:
    """The range's tips (commits it includes the history of) and its bases (commits it excludes)."""
    for rev in revs:
        if (
            rev.startswith("-")
            and rev != "--not"
            and not rev.startswith(("--remotes", "--branches", "--all"))
        ):
            raise SquadmemError(
                f"range {rev!r}: not a revision", hint="give a range such as origin/main..HEAD"
            )
    try:
        out = repo.run("rev-parse", "--revs-only", *revs, "--")
    except SquadmemError:
        shown = " ".join(revs)
        raise SquadmemError(
            f"range {shown!r}: git does not know it",
            hint="give a range such as origin/main..HEAD, or a branch",
        ) from None
    tips, bases, negate = [], [], False
    for word in out.split():
        if word == "--not":
            negate = not negate
        elif word.startswith("^") != negate:
            bases.append(word.lstrip("^"))
        else:
            tips.append(word)
    return tips, bases


def commits(repo: Repo, revs: Sequence[str]) -> Iterator[Commit]:
    """Every commit of the range with its trailers and raw changes, from one ``git log`` process."""
    args = ["log", "-z", "--raw", "-c", "-M", "--no-abbrev", "--no-color", "--no-ext-diff", _FORMAT]
    for entry in formats.parse_log(repo.stream(*args, *revs, "--"), len(_FIELDS)):
        yield _commit(entry)


def _commit(entry: formats.LogEntry) -> Commit:
    sha, tree, stamp, parents, subject, trailer_text, body = (
        f.decode("utf-8", "surrogateescape") for f in entry.fields
    )
    trailers: dict[str, list[str]] = {}
    for line in trailer_text.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            trailers.setdefault(key.strip().lower(), []).append(value.strip())
    when = dt.datetime.fromtimestamp(int(stamp), dt.UTC)
    marks = len(_SQUASHED.findall(body))
    return Commit(sha, tree, tuple(parents.split()), when, subject, trailers, entry.changes, marks)


# -- blobs and trees -----------------------------------------------------------------------------------
class Store:
    """Blobs and trees through the gateway's one cat-file process, each read once."""

    def __init__(self, repo: Repo) -> None:
        self.repo = repo
        self.read = functools.lru_cache(maxsize=4096)(self._read)

    def _read(self, sha: str) -> bytes:
        return self.repo.blob(sha)

    def maybe(self, sha: str | None) -> bytes | None:
        return None if sha is None else self.read(sha)

    def tree_of(self, commit: str) -> str:
        first = self.read(commit).split(b"\n", 1)[0]
        if not first.startswith(b"tree "):
            raise SquadmemError(f"{commit[:12]} is not a commit", hint="name a commit")
        return first.split(b" ")[1].decode("ascii")

    def entries(self, tree: str) -> dict[str, tuple[str, str]]:
        """name -> (mode, sha) of a tree object."""
        return {
            e.name.decode("utf-8", "surrogateescape"): (e.mode.decode("ascii"), e.sha)
            for e in formats.parse_tree(self.read(tree), len(tree) // 2)
        }

    def walk(self, tree: str, rel: str) -> tuple[str, str] | None:
        """(mode, sha) of the entry at ``rel`` in a tree ("" is the tree itself), None if absent."""
        found: tuple[str, str] | None = ("40000", tree)
        for part in rel.split("/") if rel else ():
            found = self.entries(found[1]).get(part) if found and found[0] == "40000" else None
        return found

    def folder(self, tree: str, rel: str) -> str | None:
        """The tree object at ``rel`` in a tree, None if there is no folder there."""
        found = self.walk(tree, rel)
        return found[1] if found and found[0] == "40000" else None

    def tier_files(self, tree: str) -> dict[str, str]:
        """Every tier file of a tree: repository path -> blob sha."""
        found: dict[str, str] = {}
        for folder_rel in where.current().tier_folders:
            node = self.folder(tree, folder_rel)
            for name, (file_mode, blob) in self.entries(node).items() if node else ():
                rel = f"{folder_rel}/{name}" if folder_rel else name
                if file_mode.startswith("100") and classify(rel):
                    found[rel] = blob
        return found

    def texts(self, tree: str, owner: str | None = None) -> dict[str, str]:
        """Tier files of a tree as text, only those of ``owner`` when given (ids are per owner)."""
        found = {}
        for rel, sha in self.tier_files(tree).items():
            tf = classify(rel)
            if tf is not None and (owner is None or tf.owner == owner):
                found[rel] = self.read(sha).decode("utf-8", "surrogateescape")
        return found


# -- comparing sections --------------------------------------------------------------------------------
def same_sections(a: Sequence[catalog.Entry], b: Sequence[catalog.Entry]) -> bool:
    return [trimmed(e.text) for e in a] == [trimmed(e.text) for e in b]


def template_header(tier: str, name: str) -> str:
    return templates.tier_header(tier, name)


# -- the checks ------------------------------------------------------------------------------------------
class Verifier:
    def __init__(self, repo: Repo, conf: settings.Settings, now: dt.datetime) -> None:
        self.store = Store(repo)
        self.repo = repo
        self.conf = conf
        self.now = now
        self.rules = logs.Rules(conf.tz, conf.log.grace_minutes)
        self.snapshots = conservation.Snapshots(self.store.tier_files, self.store.read)
        self.dates: dict[str, tuple[dt.datetime, dt.datetime]] = {}  # sha -> (effective, authored)
        self.rules_by_blob: dict[str | None, logs.Rules] = {}
        self.bases: list[str] = []
        self.merged_twice: list[tuple[str, conservation.Duplicate]] = []

    def run(self, revs: list[str]) -> Result:
        tips, self.bases = resolve(self.repo, revs)
        result = Result(revs, tips=tips)
        self.dates = self.effective_dates(revs)
        for commit in commits(self.repo, revs):
            result.commits += 1
            self.commit(commit, result)
        self.unsettled(tips, result)
        for tip in tips:
            self.budgets(tip, result)
        return result

    def commit(self, commit: Commit, result: Result) -> None:
        bad = result.violations.append
        if commit.when > self.now + CLOCK_SKEW:
            bad(
                Violation(
                    commit.short,
                    "-",
                    f"committed {commit.when:%Y-%m-%d %H:%M} UTC, after now: a forged date?",
                )
            )
        self.check_logs(commit, result)
        moves, index = commit.trailers.get(MOVE, []), commit.trailers.get(INDEX, [])
        if commit.squash:
            result.squashes += 1  # each squashed move is gone: judged like any commit, by conservation
            self.conserve(commit, result)
        elif len(moves) + len(index) > 1:
            bad(
                Violation(
                    commit.short,
                    "-",
                    "carries more than one Squad-Memory-Move/-Index trailer: one per commit",
                )
            )
        elif moves:
            result.moves.append(self.move(commit, moves[0], result))
        elif index:
            result.index_refreshes += 1
            for file, why in self.index(commit, index[0]):
                bad(Violation(commit.short, file, why))
        elif commit.trailers.get(INTAKE):
            result.intakes += 1
            for file, why in IntakeCheck(self.store).run(commit):
                bad(Violation(commit.short, file, why))
        else:
            self.conserve(commit, result)

    # conservation: no section lost or duplicated by any other commit (squadmem.engine.conservation)
    def conserve(self, commit: Commit, result: Result) -> None:
        if not commit.parents:
            return
        paths = [p for c in commit.changes for p in (c.path, c.source) if p]
        if len(commit.parents) == 1 and not conservation.touches_memory(paths):
            return
        deleted = conservation.deleted_ids(commit.trailers)
        try:
            after = self.snapshots.of(commit.tree)
            if after is None:
                return  # judged by the next readable commit, from the last readable state (or at the tip)
            parents = [self.readable(p, deleted) for p in commit.parents]
            base = self.merge_base(commit.parents) if len(commit.parents) > 1 else None
        except SquadmemError:
            return  # a parent outside a shallow clone: nothing to compare with
        except Unreadable as exc:
            result.violations.append(Violation(commit.short, exc.file, exc.why))
            return
        judged = parents
        for file, why, sid, parent in conservation.lost(after, judged, base, deleted):
            if len(judged) > 1:
                why += LINE_MERGE_HINT.format(id=sid, at=f"{commit.short}^{parent}")
            result.violations.append(Violation(commit.short, file, why))
        for found in conservation.duplicated(after, judged):
            if len(judged) > 1:
                self.merged_twice.append((commit.short, found))  # judged at the tip: settled since?
            else:
                result.violations.append(Violation(commit.short, found.file, found.why))

    def unsettled(self, tips: Sequence[str], result: Result) -> None:
        """A merge's duplicates that a tip of the range still holds (nothing settled them since)."""
        held = [s for s in (self.snapshots.of(self.store.tree_of(t)) for t in tips) if s is not None]
        for short, found in self.merged_twice:
            if any(found.holds(snapshot) for snapshot in held):
                why = f"{found.why}: {SETTLE_HINT}"
                result.violations.append(Violation(short, found.file, why))

    def readable(self, sha: str, deleted: set[str]) -> conservation.Snapshot:
        """The snapshot of ``sha``, or, when one of its tier files cannot be read, of its nearest
        first-parent ancestor that can (a loss is never let through by an unreadable commit between);
        the ids deleted by trailer on the way are added to ``deleted``."""
        tree = self.store.tree_of(sha)
        found = self.snapshots.of(tree)
        if found is not None:
            return found
        chain = self.repo.run("rev-list", "--first-parent", f"--max-count={READABLE_WALK}", sha).split()
        for ancestor in chain:
            found = self.snapshots.of(self.store.tree_of(ancestor))
            if found is not None:
                return found
            values = _delete_values(self.store.read(ancestor))
            deleted |= conservation.deleted_ids({conservation.DELETE: values})
        file = self.snapshots.unreadable.get(tree, "-")
        raise Unreadable(
            file,
            f"cannot be read in {sha[:7]} nor in the {len(chain) - 1} commits before it, so what this "
            "commit lost cannot be told: make the file readable again (UTF-8, no NUL byte) and commit",
        )

    def merge_base(self, parents: Sequence[str]) -> conservation.Snapshot | None:
        try:
            base = self.repo.run("merge-base", "--octopus", *parents).strip()
        except SquadmemError:
            return None  # unrelated histories: every side's sections are expected
        return self.snapshots.of(self.store.tree_of(base)) if base else None

    # daily logs
    def effective_dates(self, revs: Sequence[str]) -> dict[str, tuple[dt.datetime, dt.datetime]]:
        """Each commit of the range: its effective date (its committer date, or its latest parent's
        effective date when that is later) and its author date, parents first (one ``git log``)."""
        out = self.repo.run("log", "--topo-order", "--reverse", "--format=%H %ct %at %P", *revs, "--")
        dates: dict[str, tuple[dt.datetime, dt.datetime]] = {}
        for line in out.splitlines():
            sha, committed, authored, *parents = line.split()
            own = dt.datetime.fromtimestamp(int(committed), dt.UTC)
            earlier = [self.parent_date(p, dates) for p in parents]
            dates[sha] = (logs.effective(own, earlier), dt.datetime.fromtimestamp(int(authored), dt.UTC))
        return dates

    def parent_date(self, sha: str, dates: dict[str, tuple[dt.datetime, dt.datetime]]) -> dt.datetime:
        """A parent's effective date: from the range, else its own committer date."""
        if sha in dates:
            return dates[sha][0]
        try:
            committed = logs.signature_times(self.store.read(sha))[1]
        except SquadmemError:  # beyond a shallow clone's boundary
            committed = None
        return committed or dt.datetime.fromtimestamp(0, dt.UTC)

    def parent_rules(self, commit: Commit) -> logs.Rules:
        """The log settings of the commit's first parent (its own for a root commit): settings staged
        with an edit do not judge it. A parent whose tiers.toml does not parse: the work tree's."""
        tree = self.store.tree_of(commit.parents[0]) if commit.parents else commit.tree
        blob = self.settings_blob(tree)
        if blob not in self.rules_by_blob:
            self.rules_by_blob[blob] = self.read_rules(blob)
        return self.rules_by_blob[blob]

    def read_rules(self, blob: str | None) -> logs.Rules:
        if blob is None:
            conf = settings.Settings()
        else:
            try:
                conf = settings.parse(self.store.read(blob).decode("utf-8"), Path(where.current().settings))
            except (SquadmemError, UnicodeDecodeError):
                return self.rules
        return logs.Rules(conf.tz, conf.log.grace_minutes)

    def settings_blob(self, tree: str) -> str | None:
        entry = self.store.walk(tree, where.current().settings)
        return entry[1] if entry and entry[0].startswith("100") else None

    def log_tree(self, tree: str) -> str | None:
        """The tree object of a tree's log folder, None if it has none."""
        return self.store.folder(tree, where.current().log_prefix.rstrip("/"))

    def log_files(self, node: str | None) -> dict[str, str]:
        """Every file in a log folder's tree: repository path -> blob sha."""
        if node is None:
            return {}
        return {
            f"{where.current().log_prefix}{name}": sha
            for name, (mode, sha) in self.store.entries(node).items()
            if mode.startswith("100")
        }

    def check_logs(self, commit: Commit, result: Result) -> None:
        now, authored = self.dates.get(commit.sha, (commit.when, commit.when))
        rules = self.parent_rules(commit)
        if len(commit.parents) > 1:
            found = self.merge_changes(commit)
        else:
            found = [
                (c, lc)
                for c in commit.changes
                if logs.log_day(c.path) or logs.log_day(c.source or "")
                for lc in self.log_changes(c)
            ]
        counted: set[int] = set()
        for change, log_change in found:
            if id(change) not in counted:
                counted.add(id(change))
                result.log_changes += 1
            if (commit.parents or self.bases) and logs.needs_history(log_change, now, rules):
                log_change.history = tuple(self.history(commit, log_change.path))
            self.count_append(log_change, result)
            found_why = logs.judge(log_change, now, rules, authored)
            if found_why and self.published_append(commit, log_change):
                found_why = []  # a squash or cherry-pick of lines a pushed branch holds
            for why in found_why:
                result.violations.append(Violation(commit.short, log_change.path, why))

    def merge_changes(self, commit: Commit) -> list[tuple[object, logs.Change]]:
        """A merge's logs against every parent: each path whose blob differs from some parent's,
        including a result equal to one parent (which ``git log -c`` does not list)."""
        folders = [self.log_tree(self.store.tree_of(p)) for p in commit.parents]
        folder = self.log_tree(commit.tree)
        if all(f == folder for f in folders):
            return []  # the log folder is the same in the result and every parent
        after, before = self.log_files(folder), [self.log_files(f) for f in folders]
        found: list[tuple[object, logs.Change]] = []
        for path in sorted(set(after).union(*before)):
            if not logs.log_day(path) or all(b.get(path) == after.get(path) for b in before):
                continue
            olds = [self.store.maybe(b.get(path)) for b in before]
            change = logs.Change(path, olds[0], self.store.maybe(after.get(path)), others=tuple(olds[1:]))
            found.append((change, change))
        return found

    def published_append(self, commit: Commit, change: logs.Change) -> bool:
        """Whether a late append only brings lines that a remote-tracking branch holds, in a commit that
        is neither this one nor after it (a squash merge of a pushed branch, a cherry-pick of it), and
        every commit of that branch that changed the log kept the log rules by its own dates."""
        if change.others or change.old is None or change.new is None:
            return False
        if not change.new.startswith(change.old):
            return False
        fields = formats.log_format("%H", "%ct", "%at")
        args = ["log", "--full-history", "-c", "--raw", "-z", "--no-abbrev", fields]
        out = self.repo.run_bytes(*args, "--remotes", f"^{commit.sha}", "--", change.path)
        if not out.strip():
            return False
        later = set(self.repo.run("rev-list", "--ancestry-path", "--remotes", f"^{commit.sha}").split())
        steps = []
        for entry in formats.parse_log([out], 3):
            sha, committed, authored = (f.decode("ascii") for f in entry.fields)
            if sha in later:
                continue
            dates = (_stamp(committed), _stamp(authored))
            steps += [(c, *dates) for raw in entry.changes for c in self.log_changes(raw)]
        return logs.published_append(change.old, change.new, steps, self.parent_rules(commit))

    def history(self, commit: Commit, path: str) -> list[bytes]:
        """Every version ``path`` had in the commit's ancestry and the range's bases' (what was pushed
        before: a rebase that dropped a log's creation cannot pass a forged one as a backfill, nor can
        a root commit of an orphan branch merged into the range)."""
        args = ["log", "--full-history", "-c", "--raw", "-z", "--no-abbrev", "--format="]
        out = self.repo.run_bytes(*args, *commit.parents, *self.bases, "--", path)
        return [self.store.read(sha) for sha in formats.raw_blobs(out)]

    def log_changes(self, change: FileChange) -> list[logs.Change]:
        read = self.store.maybe
        old, new = read(change.olds[0]), read(change.new)
        others = tuple(read(sha) for sha in change.olds[1:])
        if change.source is None:
            return [logs.Change(change.path, old, new, others=others)]
        return [
            logs.Change(change.source, old, None, renamed_to=change.path),
            logs.Change(change.path, None, new),
        ]

    @staticmethod
    def count_append(change: logs.Change, result: Result) -> None:
        if change.new is not None and not change.others and change.new.startswith(change.old or b""):
            added = len(change.new) - len(change.old or b"")
            result.appended[change.path] = result.appended.get(change.path, 0) + added

    # budgets at the tip (and tier files squadmem can read: the hook's file check, for --no-verify)
    def budgets(self, tip: str, result: Result) -> None:
        for rel, sha in self.store.tier_files(self.store.tree_of(tip)).items():
            why = unreadable(rel, self.store.read(sha))
            if why is not None:
                result.violations.append(Violation(tip[:7], rel, why))
            tf = classify(rel)
            if tf is not None and tf.tier == "hot":
                for why in hot_blob_over(self.store.read(sha), self.conf.hot):
                    if self.conf.budget.mode == "warn":  # as the pre-commit budget check: reported only
                        warnings.warn(SquadmemWarning(f"{rel}: {why}", hint=WARN_MODE), stacklevel=1)
                    else:
                        result.violations.append(Violation(tip[:7], rel, why))

    # moves
    def move(self, commit: Commit, value: str, result: Result) -> Move:
        restore = next(iter(commit.trailers.get(RESTORE, [])), None)
        reason = next(iter(commit.trailers.get(REASON, [])), "")
        match = _MOVE_VALUE.fullmatch(value.strip())
        if not match:
            problems = [("-", f"Squad-Memory-Move {value!r}: not '<id> <from> -> <to>'")]
            record = Move(commit.short, value, "", "?", "?", reason, False, restore)
        else:
            sid, source, destination = match.groups()
            title, problems = MoveCheck(self, commit, sid, source, destination, restore).run()
            record = Move(commit.short, sid, title, source, destination, reason, not problems, restore)
        for file, why in problems:
            result.violations.append(Violation(commit.short, file, why))
        return record

    # index refreshes
    def index(self, commit: Commit, agent: str) -> list[tuple[str, str]]:
        rel = tier_rel("hot", agent)
        problems = [
            (c.path, "changed by an index commit, which may change only " + rel)
            for c in commit.changes
            if c.path != rel
        ]
        if not commit.parents:
            return [*problems, (rel, "an index commit needs a parent")]
        before = self.hot_entries(self.store.tree_of(commit.parents[0]), rel)
        after = self.hot_entries(commit.tree, rel)
        if before is None or after is None:
            return [*problems, (rel, "not a readable hot file before and after the index commit")]
        (head_a, entries_a), (head_b, entries_b) = before, after
        kept_a = [e for e in entries_a if not e.is_index]
        kept_b = [e for e in entries_b if not e.is_index]
        if trimmed(head_a) != trimmed(head_b) or not same_sections(kept_a, kept_b):
            problems.append((rel, "an index commit changed more than the Index → Deeper Tiers section"))
        if any(e.is_index for e in entries_b[:-1]):
            problems.append((rel, "the Index → Deeper Tiers section must be the file's last section"))
        return problems

    def hot_entries(self, tree: str, rel: str) -> tuple[str, list[catalog.Entry]] | None:
        sha = self.store.tier_files(tree).get(rel)
        if sha is None:
            return "", []
        try:
            memory = catalog.from_blobs({rel: self.store.read(sha)})
        except SquadmemError:
            return None
        return memory.files[rel].document.header, memory.in_file(rel)


class MoveCheck:
    """One move commit against the contract."""

    def __init__(
        self, verifier: Verifier, commit: Commit, sid: str, source: str, destination: str, restore: str | None
    ) -> None:
        self.v = verifier
        self.commit = commit
        self.sid = sid
        self.owner, _, _ = sid.rpartition("/")
        self.source = source
        self.destination = destination
        self.restore = restore
        self.problems: list[tuple[str, str]] = []

    def fail(self, file: str, why: str) -> None:
        self.problems.append((file, why))

    def tier_path(self, spec: str) -> str | None:
        tier, _, topic = spec.partition(":")
        if tier in AGENT_TIERS and not topic and not self.owner.startswith("wiki:"):
            name = self.owner
        elif tier == "wiki":
            name = topic or (self.owner.removeprefix("wiki:") if self.owner.startswith("wiki:") else "")
        else:
            return None
        try:
            return tier_rel(tier, check_name(name))
        except SquadmemError:
            return None

    def run(self) -> tuple[str, list[tuple[str, str]]]:
        if not self.commit.parents:
            return "", [("-", "a move commit needs a parent")]
        dst = self.tier_path(self.destination)
        src = None if self.source == "history" else self.tier_path(self.source)
        if dst is None or (src is None and self.source != "history"):
            return "", [
                ("-", f"Squad-Memory-Move {self.sid} {self.source} -> {self.destination}: unknown tier or id")
            ]
        if src == dst:
            return "", [(dst, "moves a section to its own tier")]
        allowed = " and ".join(p for p in (src, dst) if p)
        for change in self.commit.changes:
            if change.path not in (src, dst):
                self.fail(change.path, f"changed by a move commit, which may change only {allowed}")
        try:
            title = self.check_files(src, dst)
        except SquadmemError as exc:
            return "", [*self.problems, ("-", exc.message)]
        return title, self.problems

    def memory(self, tree: str, rel: str) -> catalog.Memory:
        tf = classify(rel)
        assert tf is not None
        return catalog.from_texts(self.v.store.texts(tree, tf.owner))

    def check_files(self, src: str | None, dst: str) -> str:
        parent_tree = self.v.store.tree_of(self.commit.parents[0])
        before, after = self.memory(parent_tree, dst), self.memory(self.commit.tree, dst)
        arrived = self.arrival(dst, before, after)
        if src is None:
            if arrived is not None:
                self.check_restored(arrived)
            return arrived.title if arrived else ""
        moved = self.departure(parent_tree, src)
        if moved is not None and arrived is not None and trimmed(arrived.text) != trimmed(moved.text):
            self.fail(dst, f"{self.sid} arrived with content different from what left {src}")
        return moved.title if moved else ""

    def departure(self, parent_tree: str, src: str) -> catalog.Entry | None:
        """The section that left ``src``, after checking nothing else there changed."""
        before, after = self.memory(parent_tree, src), self.memory(self.commit.tree, src)
        found = [e for e in before.in_file(src) if e.id == self.sid]
        if not found:
            self.fail(src, f"names {self.sid}, which this file does not hold before the move")
            return None
        rest = [e for e in before.in_file(src) if e.id != self.sid]
        head_a = before.files[src].document.header
        head_b = after.files[src].document.header if src in after.files else ""
        if not same_sections(rest, after.in_file(src)) or trimmed(head_a) != trimmed(head_b):
            self.fail(src, f"changed more than the removal of {self.sid}")
        return found[0]

    def arrival(self, dst: str, before: catalog.Memory, after: catalog.Memory) -> catalog.Entry | None:
        """The one section that arrived in ``dst`` where the contract puts it; everything else unchanged."""
        tf = classify(dst)
        assert tf is not None
        old, new = before.in_file(dst), after.in_file(dst)
        at = next((n for n, e in enumerate(old) if e.is_index), len(old))
        if dst not in after.files or len(new) != len(old) + 1:
            self.fail(dst, f"does not receive exactly one section ({self.sid})")
            return None
        if not same_sections(old, new[:at] + new[at + 1 :]):
            self.fail(dst, f"changed more than the arrival of {self.sid}")
        head_b = after.files[dst].document.header
        head_a = (
            before.files[dst].document.header if dst in before.files else template_header(tf.tier, tf.name)
        )
        if trimmed(head_a) != trimmed(head_b):
            self.fail(dst, "its header changed in a move commit")
        arrived = new[at]
        if tf.tier != "wiki" and arrived.id != self.sid:
            self.fail(dst, f"the section that arrived has the id {arrived.id}, not {self.sid}")
        return arrived

    def check_restored(self, arrived: catalog.Entry) -> None:
        if not self.restore:
            self.fail(arrived.file, "a move from history needs a Squad-Memory-Restore: <rev> trailer")
            return
        try:
            texts = self.v.store.texts(self.v.store.tree_of(self.restore_sha())).values()
        except SquadmemError:
            if self.v.repo.is_shallow():  # beyond the boundary: not provable here, not disproved either
                warnings.warn(
                    SquadmemWarning(
                        f"{arrived.file}: the restore of {self.sid} was not checked: {self.restore[:12]}"
                        " is beyond this shallow clone's boundary",
                        hint="git fetch --unshallow, then verify again, proves it",
                    ),
                    stacklevel=2,
                )
                return
            self.fail(arrived.file, f"Squad-Memory-Restore names {self.restore}, which this repository lacks")
            return
        wanted = trimmed(arrived.text)
        if not any(trimmed(s.text) == wanted for text in texts for s in sections.split(text).sections):
            self.fail(arrived.file, f"the restored section is not a section's text at {self.restore[:12]}")

    def restore_sha(self) -> str:
        """The restore's commit: a full sha is read as it is; anything else costs one rev-parse."""
        assert self.restore is not None
        if _FULL_SHA.fullmatch(self.restore):
            return self.restore
        return self.v.repo.run("rev-parse", "--verify", "-q", f"{self.restore}^{{commit}}").strip()


class IntakeCheck:
    """An intake commit only adds sections, and each one it adds is an entry of Squad's files there."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def run(self, commit: Commit) -> list[tuple[str, str]]:
        problems = [
            (c.path, "changed by an intake commit, which may change only tier files and the intake ledger")
            for c in commit.changes
            if classify(c.path) is None and c.path != where.current().ledger
        ]
        if not commit.parents:
            return [*problems, ("-", "an intake commit needs a parent")]
        before = self.sections(self.store.tree_of(commit.parents[0]))
        after = self.sections(commit.tree)
        entries = self.entries(commit.tree)
        for (owner, key), count in (before - after).items():
            problems.append((owner, f"an intake commit removed {count} section(s) ({key.hex()[:12]})"))
        for (owner, key), _ in (after - before).items():
            if (owner, key) not in entries:
                problems.append(
                    (owner, f"added a section ({key.hex()[:12]}) that is no entry of Squad's files here")
                )
        return problems

    def sections(self, tree: str) -> Counter[tuple[str, bytes]]:
        """(owner, content key) of every section but the Index, counted: owner is the agent or "decisions"."""
        found: Counter[tuple[str, bytes]] = Counter()
        for rel, sha in self.store.tier_files(tree).items():
            tf = classify(rel)
            if tf is None:
                continue
            owner = "decisions" if tf.tier == "wiki" else tf.name
            text = self.store.read(sha).decode("utf-8", "surrogateescape")
            try:
                doc = sections.split(text)
            except sections.FlagError:
                continue
            found.update((owner, sections.content_key(s.text)) for s in doc.sections if not index_section(s))
        return found

    def entries(self, tree: str) -> set[tuple[str, bytes]]:
        """(owner, key) of every entry of the Squad files in ``tree``."""
        found: set[tuple[str, bytes]] = set()
        for rel, sha in self.squad_files(tree):
            text = self.store.read(sha).decode("utf-8", "replace")
            with contextlib.suppress(sections.FlagError):
                found.update((e.owner, key) for e in squad.entries(rel, text) for key in e.keys)
        return found

    def squad_files(self, tree: str) -> Iterator[tuple[str, str]]:
        """(path, blob) of Squad's memory files in ``tree``."""
        top = self.subtree(tree, ".squad")
        if top is None:
            return
        listing = self.store.entries(top)
        for name, (mode, sha) in listing.items():
            if mode.startswith("100") and squad.is_source(f".squad/{name}"):
                yield f".squad/{name}", sha
        agents = listing.get("agents")
        if agents and agents[0] == "40000":
            for agent, (mode, sha) in self.store.entries(agents[1]).items():
                if mode != "40000":
                    continue
                for name, (file_mode, blob) in self.store.entries(sha).items():
                    rel = f".squad/agents/{agent}/{name}"
                    if file_mode.startswith("100") and squad.is_source(rel):
                        yield rel, blob
        inbox = self.subtree(tree, squad.INBOX_DIR)
        if inbox is not None:
            for name, (mode, sha) in self.store.entries(inbox).items():
                rel = f"{squad.INBOX_DIR}/{name}"
                if mode.startswith("100") and squad.is_source(rel):
                    yield rel, sha

    def subtree(self, tree: str, path: str) -> str | None:
        node: str | None = tree
        for part in path.split("/"):
            entry = self.store.entries(node).get(part) if node else None
            node = entry[1] if entry and entry[0] == "40000" else None
        return node


def index_section(section: sections.Section) -> bool:
    return section.raw_heading.strip() == catalog.INDEX_TITLE


def verify(repo: Repo, revs: Sequence[str] | None, now: dt.datetime) -> Result:
    revs = list(revs) if revs else default_range(repo)
    conf = repo.layout.settings
    return Verifier(repo, conf, now).run(revs)


def text(result: Result) -> str:
    return "\n".join([v.line() for v in result.violations] + [result.summary()])


def exit_code(result: Result) -> Exit:
    return Exit.OK if result.ok else Exit.VIOLATIONS

"""``verify``'s daily-log rules: every commit's log changes judged as the pre-commit hook judges them.

Each commit by its effective date (its committer date, or its parents' when
they are later), its author date (a replayed append) and its first parent's
``tiers.toml``, in the layout of each of its parents and its own (a commit that
changes the layout is judged in both: the logs the parent kept stay kept); a
merge against every parent's version of every log (not only the paths ``git
log -c`` lists); a past log that no parent has against the versions it had in
history (a re-creation is no backfill); a late append that only brings lines a
pushed branch holds is a squash or cherry-pick of them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path

from squadmem.engine.verify.range import Commit, FileChange, Store
from squadmem.engine.verify.result import Result, Violation
from squadmem.gitio import commits as log
from squadmem.gitio.repo import Repo
from squadmem.model import clock, logs, settings
from squadmem.model import places as where
from squadmem.model.errors import SquadmemError

Dates = tuple[dt.datetime, dt.datetime]  # a commit's effective date and its author date


def _stamp(epoch: int) -> dt.datetime:
    return clock.from_epoch(epoch)


class LogCheck:
    """The log rules over one range: its commits' dates, the settings each is judged by."""

    def __init__(self, repo: Repo, store: Store, rules: logs.Rules) -> None:
        self.repo = repo
        self.store = store
        self.rules = rules  # the work tree's: for a parent whose tiers.toml does not parse
        self.dates: dict[str, Dates] = {}  # sha -> (effective, authored)
        self.rules_by_blob: dict[tuple[str | None, where.Places], logs.Rules] = {}
        self.bases: list[str] = []

    def begin(self, revs: Sequence[str], bases: list[str]) -> None:
        self.bases = bases
        self.dates = self.effective_dates(revs)

    # dates and settings
    def effective_dates(self, revs: Sequence[str]) -> dict[str, Dates]:
        """Each commit of the range: its effective date (its committer date, or its latest parent's
        effective date when that is later) and its author date, parents first (one ``git log``)."""
        dates: dict[str, Dates] = {}
        for sha, committed, authored, parents in log.range_dates(self.repo, revs):
            earlier = [self.parent_date(p, dates) for p in parents]
            dates[sha] = (logs.effective(_stamp(committed), earlier), _stamp(authored))
        return dates

    def parent_date(self, sha: str, dates: dict[str, Dates]) -> dt.datetime:
        """A parent's effective date: from the range, else its own committer date."""
        if sha in dates:
            return dates[sha][0]
        try:
            committed = logs.signature_times(self.store.read(sha))[1]
        except SquadmemError:  # beyond a shallow clone's boundary
            committed = None
        return committed or dt.datetime.fromtimestamp(0, dt.UTC)

    def layouts(self, commit: Commit) -> list[where.Places]:
        """The layouts a commit is judged in: its parents' and its own, each once."""
        trees = [*(self.store.tree_of(p) for p in commit.parents), commit.tree]
        return list(dict.fromkeys(self.store.places_of(t) for t in trees))

    def parent_rules(self, commit: Commit, places: where.Places) -> logs.Rules:
        """The log settings of the commit's first parent (its own for a root commit), in its layout:
        settings staged with an edit do not judge it; the logs judged are those of ``places``. A
        parent whose tiers.toml does not parse: the work tree's."""
        tree = self.store.tree_of(commit.parents[0]) if commit.parents else commit.tree
        settings_path = self.store.places_of(tree).settings
        blob = self.settings_blob(tree, settings_path)
        if (blob, places) not in self.rules_by_blob:
            self.rules_by_blob[(blob, places)] = self.read_rules(blob, settings_path, places)
        return self.rules_by_blob[(blob, places)]

    def read_rules(self, blob: str | None, path: str, places: where.Places) -> logs.Rules:
        if blob is None:
            conf = settings.Settings()
        else:
            try:
                conf = settings.parse(self.store.read(blob).decode("utf-8"), Path(path))
            except (SquadmemError, UnicodeDecodeError):
                return logs.Rules(self.rules.tz, self.rules.grace_minutes, places)
        return logs.Rules(conf.tz, conf.log.grace_minutes, places)

    def settings_blob(self, tree: str, path: str) -> str | None:
        entry = self.store.walk(tree, path)
        return entry[1] if entry and entry[0].startswith("100") else None

    # the log files of a tree
    def log_tree(self, tree: str, places: where.Places) -> str | None:
        """The tree object of a tree's log folder in ``places``, None if it has none."""
        return self.store.folder(tree, places.log_prefix.rstrip("/"))

    def log_files(self, node: str | None, places: where.Places) -> dict[str, str]:
        """Every file in a log folder's tree: repository path -> blob sha."""
        if node is None:
            return {}
        return {
            f"{places.log_prefix}{name}": sha
            for name, (mode, sha) in self.store.entries(node).items()
            if mode.startswith("100")
        }

    # the check
    def check(self, commit: Commit, result: Result) -> None:
        for places in self.layouts(commit):
            self.check_in(commit, self.parent_rules(commit, places), result)
        self.carried(commit, result)

    def carried(self, commit: Commit, result: Result) -> None:
        """A commit that changes the layout carries every log of its first parent's layout into its
        own: left behind, it would be no log any more, free to change."""
        if not commit.parents:
            return
        parent_tree = self.store.tree_of(commit.parents[0])
        before, after = self.store.places_of(parent_tree), self.store.places_of(commit.tree)
        if before.log_prefix == after.log_prefix:
            return
        olds = self.log_files(self.log_tree(parent_tree, before), before)
        news = self.log_files(self.log_tree(commit.tree, after), after)
        for path, sha in sorted(olds.items()):
            if isinstance(logs.log_day(path, before), dt.date):
                to = after.log_prefix + path[len(before.log_prefix) :]
                why = logs.carried(self.store.read(sha), self.store.maybe(news.get(to)), to)
                if why:
                    result.violations.append(Violation(commit.short, path, why))

    def check_in(self, commit: Commit, rules: logs.Rules, result: Result) -> None:
        """The commit's changes of the logs of one layout (``rules.places``)."""
        now, authored = self.dates.get(commit.sha, (commit.when, commit.when))
        counted: set[int] = set()
        for change, log_change in self.changes(commit, rules.places):
            if id(change) not in counted:
                counted.add(id(change))
                result.log_changes += 1
            if (commit.parents or self.bases) and logs.needs_history(log_change, now, rules):
                log_change.history = tuple(self.history(commit, log_change.path))
            count_append(log_change, result)
            found_why = logs.judge(log_change, now, rules, authored)
            if found_why and self.published_append(commit, log_change, rules):
                found_why = []  # a squash or cherry-pick of lines a pushed branch holds
            for why in found_why:
                result.violations.append(Violation(commit.short, log_change.path, why))

    def changes(self, commit: Commit, places: where.Places) -> list[tuple[object, logs.Change]]:
        """(the raw change, a log change it makes) for every daily log of ``places`` the commit changes."""
        if len(commit.parents) > 1:
            return self.merge_changes(commit, places)
        return [
            (c, lc)
            for c in commit.changes
            if logs.log_day(c.path, places) or logs.log_day(c.source or "", places)
            for lc in self.log_changes(c)
        ]

    def merge_changes(self, commit: Commit, places: where.Places) -> list[tuple[object, logs.Change]]:
        """A merge's logs against every parent: each path whose blob differs from some parent's,
        including a result equal to one parent (which ``git log -c`` does not list)."""
        folders = [self.log_tree(self.store.tree_of(p), places) for p in commit.parents]
        folder = self.log_tree(commit.tree, places)
        if all(f == folder for f in folders):
            return []  # the log folder is the same in the result and every parent
        after, before = self.log_files(folder, places), [self.log_files(f, places) for f in folders]
        found: list[tuple[object, logs.Change]] = []
        for path in sorted(set(after).union(*before)):
            if not logs.log_day(path, places) or all(b.get(path) == after.get(path) for b in before):
                continue
            olds = [self.store.maybe(b.get(path)) for b in before]
            change = logs.Change(path, olds[0], self.store.maybe(after.get(path)), others=tuple(olds[1:]))
            found.append((change, change))
        return found

    def published_append(self, commit: Commit, change: logs.Change, rules: logs.Rules) -> bool:
        """Whether a late append only brings lines that a remote-tracking branch holds, in a commit that
        is neither this one nor after it (a squash merge of a pushed branch, a cherry-pick of it), and
        every commit of that branch that changed the log kept the log rules by its own dates."""
        if change.others or change.old is None or change.new is None:
            return False
        if not change.new.startswith(change.old):
            return False
        pushed = log.remote_changes(self.repo, commit.sha, change.path)
        if not pushed:
            return False
        later = log.remote_descendants(self.repo, commit.sha)
        steps = []
        for sha, committed, authored, raw_changes in pushed:
            if sha in later:
                continue
            dates = (_stamp(committed), _stamp(authored))
            steps += [(c, *dates) for raw in raw_changes for c in self.log_changes(raw)]
        return logs.published_append(change.old, change.new, steps, rules)

    def history(self, commit: Commit, path: str) -> list[bytes]:
        """Every version ``path`` had in the commit's ancestry and the range's bases' (what was pushed
        before: a rebase that dropped a log's creation cannot pass a forged one as a backfill, nor can
        a root commit of an orphan branch merged into the range)."""
        versions = log.path_versions(self.repo, [*commit.parents, *self.bases], path)
        return [self.store.read(sha) for sha in versions]

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


def count_append(change: logs.Change, result: Result) -> None:
    if change.new is not None and not change.others and change.new.startswith(change.old or b""):
        added = len(change.new) - len(change.old or b"")
        result.appended[change.path] = result.appended.get(change.path, 0) + added

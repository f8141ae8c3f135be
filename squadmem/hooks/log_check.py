"""pre-commit and pre-merge-commit hook: staged daily logs follow the log rules (``logs.judge``).

"Now" is the commit's effective date: the date it will carry (``GIT_COMMITTER_DATE``
when set, else the clock), or HEAD's (and a merge's other parent's) when that is
later, as ``verify`` judges it. The time zone and grace period come from HEAD's
``tiers.toml`` (the parent's settings), so settings staged with an edit do not
judge it; the staged ``tiers.toml`` must still parse. Prints ``path: why`` per
offence on stderr and exits 1. File names, when given, limit the check to
those logs. Standard library only.

The index is compared with HEAD and, during a merge, with the other parent too
(``MERGE_HEAD``; in the ``pre-merge-commit`` hook, the merge's arguments): a
merge result must keep every parent's lines in order (``logs.combines``). A
past log that no parent has is checked against the versions it had in history,
HEAD's and the remote-tracking branches' (``git log --full-history``), so
deleting it and creating it again is no backfill. With ``git commit --amend``
the check compares the index with HEAD, the commit being replaced: what changes
now is judged by the date the commit will carry. The hook never takes an author
date as a replay (``verify`` does, within ``logs.REPLAY_WINDOW``).
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Sequence

from squadmem.gitio import formats, gitdir, questions
from squadmem.hooks import staged
from squadmem.model import clock, logs
from squadmem.model import places as where
from squadmem.model.errors import SquadmemError


def merge_head(env: dict[str, str], environ: dict[str, str] | None = None) -> str | None:
    """The other parent of the merge being committed, None when it is no merge.

    ``MERGE_HEAD`` when a merge is being concluded (read from the git directory, no process); in
    the ``pre-merge-commit`` hook of a merge that git commits itself it is not written yet, so the
    merge's arguments are read from ``GIT_REFLOG_ACTION`` (``merge <commit>``), or ``FETCH_HEAD``
    for a ``git pull`` that merges.
    """
    found = gitdir.merge_head_file()
    if found:
        return found
    action = (os.environ if environ is None else environ).get("GIT_REFLOG_ACTION", "")
    if action.startswith("merge "):
        names = [word for word in action.split()[1:] if not word.startswith("-")]
    elif action.startswith("pull") and "rebase" not in action:
        names = ["FETCH_HEAD"]
    else:
        return None
    for name in names:
        found = questions.commit(env, name)
        if found:
            return found
    return None


def _paths(
    env: dict[str, str], merging: str | None, places: where.Places
) -> tuple[list[formats.Staged], set[str]]:
    """The staged changes against HEAD (renames kept) and every log path of ``places`` that differs
    from a parent."""
    prefix = places.log_prefix

    def is_log(path: str | None) -> bool:
        return bool(path) and logs.log_day(path or "", places) is not None

    entries = [e for e in staged.staged(prefix, env) if is_log(e.path) or is_log(e.source)]
    paths = {p for e in entries for p in (e.path, e.source) if p and is_log(p)}
    if merging:
        paths |= {e.path for e in staged.staged(prefix, env, against=merging) if is_log(e.path)}
    return entries, paths


def changes(
    entries: Sequence[formats.Staged],
    paths: set[str],
    blobs: dict[str, bytes | None],
    merging: str | None,
    places: where.Places,
) -> list[logs.Change]:
    """The log changes the commit makes: a rename split into the old path's removal and the new path's
    arrival; during a merge, every path that differs from a parent, with the other parent's version."""

    def others(path: str) -> tuple[bytes | None, ...]:
        return (blobs.get(f"{merging}:{path}"),) if merging else ()

    found, seen = [], set()
    for item in entries:
        if item.source is not None and logs.log_day(item.source, places):
            old = blobs.get(f"HEAD:{item.source}")
            found.append(
                logs.Change(item.source, old, None, renamed_to=item.path, others=others(item.source))
            )
            seen.add(item.source)
    for path in sorted(paths - seen):
        found.append(logs.Change(path, blobs.get(f"HEAD:{path}"), blobs.get(f":{path}"), others=others(path)))
    return found


def _settings(
    blobs: dict[str, bytes | None], layouts: Sequence[where.Places], head: where.Places, places: where.Places
) -> logs.Rules:
    """The parent's settings (HEAD's tiers.toml in HEAD's layout; the staged one for a first commit),
    after checking that the staged tiers.toml parses, to judge the logs of ``places``."""
    path, head_path = layouts[-1].settings, head.settings
    staged_conf = staged.read_settings(blobs, f":{path}", path)
    same = blobs.get(f"HEAD:{head_path}") == blobs.get(f":{path}")  # as in most commits: parsed once
    if same or not blobs.get("HEAD"):
        conf = staged_conf
    else:
        conf = staged.read_settings(blobs, f"HEAD:{head_path}", head_path)
    return logs.Rules(conf.tz, conf.log.grace_minutes, places)


def effective_now(blobs: dict[str, bytes | None], merging: str | None) -> dt.datetime:
    """The commit's effective date: the date it will carry, or its parents' when later."""
    parents = []
    for spec in ("HEAD", merging or "HEAD"):
        raw = blobs.get(spec)
        committed = logs.signature_times(raw)[1] if raw else None
        if committed is not None:
            parents.append(committed)
    return logs.effective(logs.commit_now(), parents)


def history(path: str, env: dict[str, str], merging: str | None, born: bool = True) -> list[bytes]:
    """Every version ``path`` had in the history of HEAD (and MERGE_HEAD) and of the remote-tracking
    branches (what was pushed: a log whose creation a rebase dropped is still known there). A root
    commit (HEAD not ``born``: an orphan branch) is judged against every branch's history, so that
    it cannot bring in, as a backfill, another text of a log that a branch it may be merged into has."""
    if not born:
        revs = ["--branches", "--remotes"]
    else:
        revs = ["HEAD", merging, "--remotes"] if merging else ["HEAD", "--remotes"]
    try:
        shas = questions.history_blobs(env, revs, path)
    except SquadmemError:
        return []  # the first commit of a repository: no branch has any history yet
    return [b for b in staged.blobs(shas, env).values() if b is not None]  # the commit's one reader


def _published_append(change: logs.Change, env: dict[str, str], rules: logs.Rules) -> bool:
    """Whether a late append brings only lines a remote-tracking branch beyond HEAD already holds (the
    branch a ``git merge --squash`` or ``git cherry-pick`` takes them from), and each commit of that
    branch that changed the log kept the log rules by its own dates (``logs.published_append``)."""
    if change.others or change.old is None or change.new is None or not change.new.startswith(change.old):
        return False
    found = questions.history_log(env, ["--remotes", "^HEAD"], change.path, ("%ct", "%at"))
    shas = [sha for e in found for c in e.changes for sha in (*c.olds, c.new) if sha is not None]
    blobs = staged.blobs(shas, env)
    steps = []
    for entry in found:
        committed, authored = (_stamp(f) for f in entry.fields)
        for raw in entry.changes:
            olds = [blobs.get(sha) if sha else None for sha in raw.olds]
            step = logs.Change(
                change.path, olds[0], blobs.get(raw.new) if raw.new else None, others=tuple(olds[1:])
            )
            steps.append((step, committed, authored))
    return logs.published_append(change.old, change.new, steps, rules)


def _stamp(epoch: bytes) -> dt.datetime:
    return clock.from_epoch(clock.git_epoch(epoch))


def check(env: dict[str, str], names: Sequence[str] = ()) -> list[str]:
    """``path: why`` for every offence in the staged logs (only the named ones, when names are given),
    in HEAD's layout and the index's (a commit that changes the layout is judged in both)."""
    merging = merge_head(env)
    layouts = staged.layouts(env)
    return [line for places in layouts for line in _check_in(env, names, merging, layouts, places)]


def _check_in(
    env: dict[str, str],
    names: Sequence[str],
    merging: str | None,
    layouts: Sequence[where.Places],
    places: where.Places,
) -> list[str]:
    """The offences among the staged logs of ``places``."""
    entries, paths = _paths(env, merging, places)
    if names:
        wanted = set(names)
        entries = [e for e in entries if e.path in wanted or e.source in wanted]
        paths &= wanted | {e.source for e in entries if e.source}
    if not paths:
        return []
    settings_paths = dict.fromkeys(p.settings for p in layouts)
    specs = ["HEAD", *([merging] if merging else [])]
    specs += [f"{w}:{p}" for p in settings_paths for w in ("", "HEAD")]
    for path in paths:
        specs += [f"HEAD:{path}", f":{path}"] + ([f"{merging}:{path}"] if merging else [])
    blobs = staged.blobs(specs, env)
    rules = _settings(blobs, layouts, staged.head_places(env), places)
    now = effective_now(blobs, merging)
    offences = []
    for change in changes(entries, paths, blobs, merging, places):
        if logs.needs_history(change, now, rules):
            change.history = tuple(history(change.path, env, merging, born=bool(blobs.get("HEAD"))))
        found = logs.judge(change, now, rules)
        if found and blobs.get("HEAD") and _published_append(change, env, rules):
            found = []  # a squash or cherry-pick of lines a pushed branch holds
        offences += [f"{change.path}: {why}" for why in found]
    return offences


PROG = "squadmem-log-check"
ABOUT = "Refuse a staged change to a past day's log, a rename or deletion, a bad or future name."
NAMES = (
    "limit the check to these logs' staged changes (it always judges the index: "
    "a deletion is among no file names)"
)


def main(argv: Sequence[str] | None = None) -> int:
    return staged.run_check(check, argv, PROG, ABOUT, files=NAMES)


if __name__ == "__main__":
    raise SystemExit(main())

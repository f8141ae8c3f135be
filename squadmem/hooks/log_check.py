"""pre-commit hook: staged daily logs follow the log rules (``squadmem.logs.judge``).

"Now" is the time the commit will carry: ``GIT_COMMITTER_DATE`` when set, else
the clock. The time zone and grace period come from the staged ``tiers.toml``.
Prints ``path: why`` per offence on stderr and exits 1. Standard library only.

During a merge (``MERGE_HEAD`` exists) a log that equals the other parent's
version, or combines both sides' lines as ``merge=union`` does, is not a new change.
"""

from __future__ import annotations

from collections.abc import Sequence

from squadmem import logs
from squadmem.errors import SquadmemError
from squadmem.hooks import staged


def _specs(entries: Sequence[staged.Staged]) -> list[str]:
    specs = [f":{staged.SETTINGS_PATH}", "MERGE_HEAD"]
    for item in entries:
        specs += [sha for sha in (item.old_sha, item.new_sha) if sha]
        specs += [f"MERGE_HEAD:{path}" for path in (item.path, item.source) if path]
    return specs


def changes(entries: Sequence[staged.Staged], blobs: dict[str, bytes | None]) -> list[logs.Change]:
    """The staged log changes, a rename split into the old path's removal and the new path's arrival."""
    merging = blobs.get("MERGE_HEAD") is not None

    def others(path: str) -> tuple[bytes | None, ...]:
        return (blobs.get(f"MERGE_HEAD:{path}"),) if merging else ()

    found = []
    for item in entries:
        old = blobs.get(item.old_sha) if item.old_sha else None
        new = blobs.get(item.new_sha) if item.new_sha else None
        if item.source is not None:
            found.append(
                logs.Change(item.source, old, None, renamed_to=item.path, others=others(item.source))
            )
            if item.status == "R":
                old = None
        found.append(logs.Change(item.path, old, new, others=others(item.path)))
    return found


def check(env: dict[str, str]) -> list[str]:
    """``path: why`` for every offence in the staged logs."""
    entries = [
        e for e in staged.staged(logs.LOG_PREFIX, env) if logs.log_day(e.path) or logs.log_day(e.source or "")
    ]
    if not entries:
        return []
    blobs = staged.cat_files(_specs(entries), env)
    conf = staged.read_settings(blobs)
    rules = logs.Rules(conf.tz, conf.log.grace_minutes)
    now = logs.commit_now()
    return [
        f"{change.path}: {why}"
        for change in changes(entries, blobs)
        for why in logs.judge(change, now, rules)
    ]


def main(argv: Sequence[str] | None = None) -> int:
    try:
        offences = check(staged.git_env())
    except SquadmemError as exc:
        staged.report([], exc)
        return int(exc.code)
    staged.report(offences)
    return 1 if offences else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""pre-push hook: ``squadmem verify`` on the commits a push sends.

Called by the plain shim as ``main([remote, url])`` with git's ref lines on
stdin (``<local ref> <local sha> <remote ref> <remote sha>``), or by the
pre-commit framework, which passes the range in ``PRE_COMMIT_FROM_REF`` /
``PRE_COMMIT_TO_REF``. A ref the remote already has is checked from there; a
new branch from what no ref of that remote holds. The verify itself runs as
``python -m squadmem verify`` in a child process, so this module stays
standard library only. Exit 1 (a violation) stops the push.

Verifying the new commits does not see history rewritten under the ref (a
rebase that drops the commit creating a past log, then a forged one: ``git
push -f``). So the daily logs at the ref's old tip are compared with the new
tip's (``logs.kept``): every line the old tip's log held must still be there,
in order; what the push adds is judged by ``verify``, whose range starts at the
old tip (so a past log the old tip held cannot come back as a "backfill" with
other text). A push, forced or not, may add lines to a log that the old tip
holds and that is frozen now (``GIT_COMMITTER_DATE`` or the clock; the old
tip's settings) only if the remote's default branch (``<remote>/HEAD``) holds
them already, as when a branch is rebased onto it: neither an amended commit
under a kept author date nor a backdated fork merged later can slip new lines
into a pushed past log, whatever the commits' dates. A forced push over a tip this
repository does not have cannot be compared and is refused: fetch first.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from squadmem.gitio import formats, questions, runner
from squadmem.hooks import staged
from squadmem.model import logs
from squadmem.model import places as where
from squadmem.model.errors import SquadmemError

ZERO = frozenset("0")


class Update:
    """One pushed ref: the rev-list arguments to verify, and the old tip the logs must be kept from."""

    __slots__ = ("new", "old", "ref", "remote", "revs")

    def __init__(
        self, revs: list[str], ref: str = "", old: str | None = None, new: str = "", remote: str = ""
    ) -> None:
        self.revs = revs
        self.ref = ref
        self.old = old
        self.new = new
        self.remote = remote


def ranges_from_stdin(text: str, remote: str, env: dict[str, str]) -> list[Update]:
    """One update per pushed ref (deletions are skipped)."""
    found = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) != 4 or set(parts[1]) == ZERO:
            continue
        local, remote_ref, remote_sha = parts[1], parts[2], parts[3]
        if set(remote_sha) == ZERO:
            found.append(Update([local, "--not", f"--remotes={remote}"], remote_ref, None, local, remote))
        elif questions.has_commit(env, remote_sha):
            found.append(Update([f"{remote_sha}..{local}"], remote_ref, remote_sha, local, remote))
        else:
            raise SquadmemError(
                f"{remote_ref}: the remote's tip {remote_sha[:12]} is not in this repository, so its "
                "daily logs cannot be compared with what this push puts there",
                hint=f"git fetch {remote}, then push again",
            )
    return found


def ranges_from_framework(environ: dict[str, str]) -> list[Update] | None:
    """The range the pre-commit framework gives in its environment, None when it gives none."""
    to_ref = environ.get("PRE_COMMIT_TO_REF")
    if not to_ref:
        return None
    from_ref = environ.get("PRE_COMMIT_FROM_REF")
    ref = environ.get("PRE_COMMIT_REMOTE_BRANCH", "")
    remote = environ.get("PRE_COMMIT_REMOTE_NAME", "")
    if from_ref:
        return [Update([f"{from_ref}..{to_ref}"], ref, from_ref, to_ref, remote)]
    return [Update([to_ref], ref, None, to_ref)]


def places_at(commit: str, env: dict[str, str]) -> where.Places:
    """The layout ``commit`` holds (:func:`squadmem.model.places.decide`), not the work tree's."""
    settings, squad = f"{commit}:{where.WORKSPACE_SETTINGS}", f"{commit}:{where.SQUAD_DIR}"
    found = formats.cat_files([settings, squad], env)
    return where.decide(found[settings], found[squad] is not None)


def _log_blobs(commit: str, env: dict[str, str], places: where.Places) -> dict[str, str]:
    """Daily log path of ``places`` -> blob sha at ``commit``."""
    files = questions.tree_blobs(env, commit, [places.log_prefix])
    return {path: sha for path, sha in files.items() if logs.log_day(path, places)}


def kept_logs(update: Update, env: dict[str, str]) -> list[str]:
    """``path: why`` for each daily log at the old tip (in its layout) that the new tip does not keep
    (in its own layout: a change of layout carries each log to the new layout's log of its day)."""
    if update.old is None:
        return []
    places, now_at = places_at(update.old, env), places_at(update.new, env)
    before = _log_blobs(update.old, env, places)
    carried = _log_blobs(update.new, env, now_at)
    after = {places.log_prefix + p[len(now_at.log_prefix) :]: sha for p, sha in carried.items()}
    changed = [p for p, sha in before.items() if after.get(p) != sha]
    if not changed:
        return []
    settings_spec = f"{update.old}:{places.settings}"
    specs = [settings_spec, *(before[p] for p in changed), *(after[p] for p in changed if p in after)]
    blobs = formats.cat_files(specs, env)
    conf = staged.read_settings(blobs, settings_spec, places.settings)
    rules, now = logs.Rules(conf.tz, conf.log.grace_minutes, places), logs.commit_now()
    found = []
    for path in changed:
        old = blobs.get(before[path]) or b""
        new = blobs.get(after[path]) if path in after else None
        why = logs.kept(path, old, new, places)
        if (
            not why
            and new is not None
            and logs.is_frozen(path, now, rules)
            and logs.unpublished(old, new, _published(path, update.remote, env))
        ):
            why = (
                "the remote holds this log and its day has ended: a push may not add to it, whatever its "
                "commits' dates (add the lines to today's log instead)"
            )
        if why:
            found.append(f"{path}: {why} ({update.ref or 'the remote'} at {update.old[:7]})")
    return found


def _published(path: str, remote: str, env: dict[str, str]) -> list[bytes]:
    """Every version of ``path`` in the history of the remote's default branch (``<remote>/HEAD``,
    what ``git clone`` records): the record the remote keeps, which a branch rebased onto it may take
    lines from. None without it: the remote's other branches may hold anything."""
    head = f"refs/remotes/{remote}/HEAD"
    if not remote or not questions.commit(env, head):
        return []
    shas = questions.history_blobs(env, [head], path)
    return [b for b in formats.cat_files(shas, env).values() if b is not None]


def verify(revs: Sequence[str], env: dict[str, str]) -> int:
    """``squadmem verify -- REVS`` in a child process (the full squadmem, not only the standard
    library); its exit status."""
    argv = [sys.executable, "-m", "squadmem", "verify", "--", *revs]
    if sys.flags.no_site:  # the shim's Python: the child finds squadmem where this one did
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        start = "import sys; sys.path.append(sys.argv.pop(1)); from squadmem.cli.app import run; run()"
        argv = [sys.executable, "-c", start, root, "verify", "--", *revs]
    pid = os.posix_spawn(sys.executable, argv, env)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


PROG = "squadmem-verify-push"
ABOUT = "Run squadmem verify on the commits a push sends; git gives the refs on standard input."


def main(argv: Sequence[str] | None = None) -> int:
    parser = staged.parser(PROG, ABOUT, files=None)
    parser.add_argument(
        "remote", nargs="?", default="origin", help="the remote's name (git's first argument)"
    )
    parser.add_argument("url", nargs="?", help="the remote's URL (git's second argument; unused)")
    args = parser.parse_args(argv)
    env = runner.git_env(keep_index=False)
    try:
        staged.top(env)
        updates = ranges_from_framework(dict(os.environ))
        if updates is None:
            updates = ranges_from_stdin(sys.stdin.read(), args.remote, env)
        offences = [line for update in updates for line in kept_logs(update, env)]
    except SquadmemError as exc:
        if exc.message == staged.NOT_A_REPO:
            print(f"{PROG}: {staged.NOT_A_REPO}", file=sys.stderr)
            return 2
        staged.report([], exc)
        return int(exc.code)
    staged.report(offences)
    status = 1 if offences else 0
    for update in updates:
        status = max(status, verify(update.revs, env))
    return status


if __name__ == "__main__":
    raise SystemExit(main())

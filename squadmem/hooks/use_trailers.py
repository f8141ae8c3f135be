"""prepare-commit-msg and commit-msg: write pending uses into the message as a ``Squad-Memory-Used``
trailer, and the sections the commit removes from the tier files as a ``Squad-Memory-Delete`` one.

git calls it as ``prepare-commit-msg MESSAGE_FILE [SOURCE [SHA]]`` and
``commit-msg MESSAGE_FILE``. When ``.git/squadmem/pending-uses.json`` lists
uses, the ids that the message does not name yet are added as one trailer
line, placed by ``git interpret-trailers`` (after any other trailers, before
git's comment and scissors lines). Every kind of commit gets it, merges and
amends included: each is a commit reachable from HEAD like any other.

A message that is empty as git judges it (nothing but comments, blank lines
and ``Signed-off-by:`` lines: ``-m ""``, an editor closed without writing, a
``git commit -s`` left as it was) gets no trailer, so git aborts the commit as
usual; the trailer is added once the message is written (``commit-msg``, after
the editor). A message of trailers only (``Squad-Memory-Used:`` and sign-offs)
is refused as empty: ``Aborting commit due to empty commit message``, exit 1.

The hook never clears the pending file: a commit that then fails (an empty
message, a commit-msg hook that refuses) loses nothing. A pending use is
dropped once a commit made at or after it carries it; the hook checks that
first (the commits since the oldest pending use), so the next commit does
not carry the same use again. ``git commit --amend`` replaces HEAD: the uses
HEAD carried go into the new message (its trailer lines, kept as they were)
unless it names them already. ``git commit --no-verify`` skips ``commit-msg``:
an editor session then carries nothing and the uses stay pending.

A section the commit takes out of every tier file (an agent or a person
removed it by hand: not moved, edited or renamed; :mod:`squadmem.hooks.deletions`)
is named in a ``Squad-Memory-Delete`` trailer unless the message names it
already, so ``verify`` and the pre-push hook accept the removal as recorded
and ``recall --history`` finds it. The pre-commit hook leaves a note in
``.git/squadmem/`` when the commit removes a section: the message shims
start Python only then (a file test); a message still empty when
prepare-commit-msg runs (an editor follows) gets the trailer at commit-msg,
the note kept until it is named.

Otherwise the hook never stops a commit: a problem is reported on stderr and
the uses stay pending. Standard library only.
"""

from __future__ import annotations

import datetime as dt
import os
import sys
from collections.abc import Mapping, Sequence

from squadmem.gitio import gitdir
from squadmem.model import constants
from squadmem.model.errors import Exit, SquadmemError

TYPE_CHECKING = False  # not typing's: the message hooks run on every commit
if TYPE_CHECKING:
    from pathlib import Path

# the gateway (subprocess) and the command line (argparse) are imported only when needed: with
# nothing pending, git's two message hooks return after a file test (see :func:`quick`)

PROG = "squadmem-use-trailers"
ABOUT = f"Add a {constants.TRAILER} trailer for the pending uses of memory sections to a commit message."
SIGN_OFF = f"{constants.SIGN_OFF_TRAILER.lower()}:"
SCISSORS = "------------------------ >8 ------------------------"
EMPTY = "Aborting commit due to empty commit message."
TRAILER = constants.TRAILER
DELETE = constants.DELETE_TRAILER
REMOVALS_NOTE = "removals-unnamed"  # in .git/squadmem/: read by the commit-msg shim
PENDING = (constants.STATE_DIR, constants.PENDING_USES)


def state_dir(env: Mapping[str, str]) -> Path:
    from pathlib import Path

    found = gitdir.common_dir()  # at the top of the work tree, where git runs hooks: no process
    if found is None:
        from squadmem.gitio import questions

        found = questions.common_dir(env)
    return Path(found) / "squadmem"


def carried_since(since: dt.datetime, env: Mapping[str, str], start: str = "HEAD") -> dict[str, dt.datetime]:
    """Id -> time of the latest commit (from ``start``, made since ``since``) whose trailer names it."""
    from squadmem.gitio import questions
    from squadmem.model import uses

    try:
        commits = questions.messages(env, (since - dt.timedelta(days=1)).isoformat(), [start])
    except SquadmemError:
        return {}  # no commit yet
    found: dict[str, dt.datetime] = {}
    for when, body in commits:
        if uses.TRAILER.lower() not in body.lower():
            continue
        moment = dt.datetime.fromtimestamp(when, dt.UTC)
        for ident in uses.parse_used(body):
            if ident not in found or found[ident] < moment:
                found[ident] = moment
    return found


def _is_trailer(line: str) -> bool:
    return line.lower().startswith(TRAILER.lower()) and line[len(TRAILER) :].lstrip(" \t")[:1] == ":"


def comment_string(env: Mapping[str, str]) -> str:
    """git's comment prefix (``core.commentChar``; ``#`` by default and for ``auto``)."""
    from squadmem.gitio import questions

    return questions.comment_char(env)


def content(text: str, comment: str = "#") -> tuple[bool, bool]:
    """Whether the message says anything as git judges it (comments, blank lines and sign-offs are
    nothing), and whether it says anything besides ``Squad-Memory-Used`` trailers."""
    said = beyond = False
    after_trailer = False
    for line in text.split("\n"):
        if line.startswith(comment):
            if line[len(comment) :].strip() == SCISSORS:
                break
            continue
        stripped = line.strip()
        if not stripped or stripped.lower().startswith(SIGN_OFF):
            after_trailer = False
            continue
        said = True
        if _is_trailer(line) or (after_trailer and line[:1] in " \t"):
            after_trailer = True
            continue
        after_trailer = False
        beyond = True
    return said, beyond


def trailer_lines(message: str) -> list[str]:
    """A message's ``Squad-Memory-Used`` trailers as written, each on one line (an indented
    continuation joined to its line)."""
    found: list[str] = []
    taking = False
    for line in message.split("\n"):
        if _is_trailer(line):
            found.append(line.strip())
            taking = True
        elif taking and line[:1] in " \t" and line.strip():
            found[-1] += " " + line.strip()
        else:
            taking = False
    return found


def _ancestry(pid: int, depth: int = 4) -> list[list[str]]:
    """The command lines of ``pid`` and its parents (Linux's /proc; empty where there is none)."""
    found = []
    for _ in range(depth):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                args = handle.read().decode("utf-8", "replace").split("\0")
            with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as handle:
                stat = handle.read()
            pid = int(stat.rsplit(")", 1)[-1].split()[1])
        except (OSError, ValueError, IndexError):
            break
        found.append(args)
        if pid <= 1:
            break
    return found


def amending(environ: Mapping[str, str]) -> bool:
    """Whether the commit being made replaces HEAD: ``git commit --amend`` (the git process's own
    arguments, read from /proc) or a reflog action that says so."""
    if "amend" in environ.get("GIT_REFLOG_ACTION", ""):
        return True
    for args in _ancestry(os.getppid()):
        if args and os.path.basename(args[0]) == "git" and "commit" in args[1:] and "--amend" in args:
            return True
    return False


def add_trailer(message_file: Path, source: str = "", environ: Mapping[str, str] | None = None) -> list[str]:
    """Add the pending ids the message lacks; return them (empty when nothing was added).

    Raises SquadmemError (exit 1) for a message of trailers only: git would commit it."""
    from squadmem.gitio import questions, runner
    from squadmem.model import uses

    environ = os.environ if environ is None else environ
    env = runner.git_env(environ)
    text = message_file.read_bytes().decode("utf-8", "surrogateescape")
    said, beyond = content(text, comment_string(env))
    if said and not beyond:
        raise SquadmemError(EMPTY, code=Exit.VIOLATIONS)
    state = state_dir(env)
    if not said:  # git aborts the empty commit (the uses stay pending), or an editor writes it next
        note_removals(state, bool(removals_unnamed(text, env, amending(environ))))
        return []
    note_removals(state, False)
    pending = uses.pending(state)
    kept: list[str] = []
    amend = amending(environ)
    if amend:
        head = questions.message(env, "HEAD") if questions.commit(env, "HEAD") else ""
        named = set(uses.parse_used(text))
        kept = [line for line in trailer_lines(head) if not set(uses.parse_used(line)) <= named]
    gone = removals_unnamed(text, env, amend)
    if not pending and not kept:
        return _add_lines(message_file, text, env, [deletion_line(gone)] if gone else [])
    if pending:
        start = "HEAD^" if amend else "HEAD"  # an amend replaces HEAD: its trailer does not count
        for ident in uses.settle(state, carried_since(min(pending.values()), env, start)):
            pending.pop(ident, None)
    named = set(uses.parse_used(text)) | {i for line in kept for i in uses.parse_used(line)}
    ids = [i for i in sorted(pending) if i not in named]
    used: list[str] = []
    if ids:
        from squadmem.model import logs

        used.append(uses.trailer_line(uses.carried(pending, ids, logs.commit_now(environ))))
    lines = [*kept, *used, *([deletion_line(gone)] if gone else [])]
    _add_lines(message_file, text, env, lines)
    return [*(i for line in kept for i in uses.parse_used(line)), *ids, *gone]


def _add_lines(message_file: Path, text: str, env: Mapping[str, str], lines: Sequence[str]) -> list[str]:
    """The message with ``lines`` added as trailers (written only when there are some); the ids of a
    deletion trailer among them."""
    if not lines:
        return []
    from squadmem.gitio import questions

    out = questions.add_trailers(env, text, lines)
    message_file.write_bytes(out.encode("utf-8", "surrogateescape"))
    return [i for line in lines if line.startswith(DELETE + ":") for i in _ids(line.split(":", 1)[1])]


def deletion_line(ids: Sequence[str]) -> str:
    return f"{DELETE}: {', '.join(ids)}"


def _ids(value: str) -> list[str]:
    return [i for i in value.replace(",", " ").split() if i]


def named_deletions(text: str) -> set[str]:
    """The ids a message's ``Squad-Memory-Delete`` lines name already (any case, as verify reads them)."""
    found: set[str] = set()
    for line in text.split("\n"):
        key, colon, value = line.partition(":")
        if colon and key.strip().lower() == DELETE.lower():
            found.update(_ids(value))
    return found


def note_removals(state: Path, unnamed: bool) -> None:
    """Leave (or clear) the note that tells the commit-msg shim a removal waits to be named once the
    message is written (prepare-commit-msg saw it empty)."""
    from squadmem.hooks import deletions

    deletions.note(str(state), unnamed)


def removals_unnamed(text: str, env: Mapping[str, str], amend: bool) -> list[str]:
    """The sections the commit removes from the tier files that the message does not name yet."""
    from squadmem.hooks import deletions

    named = named_deletions(text)
    return [i for i in deletions.removed(env, amend) if i not in named]


def nothing_to_do(environ: Mapping[str, str]) -> bool:
    """No pending use and no amend (read without starting git, at the top of the work tree): the
    message is left as it is, only an empty-but-for-trailers one is still refused."""
    where = gitdir.git_dir()
    if where is None:
        return False
    try:
        with open(os.path.join(where, "commondir"), encoding="utf-8") as handle:
            common = handle.read().strip()
    except OSError:
        common = ""
    state = os.path.join(where, common) if common else where
    return not os.path.exists(os.path.join(state, *PENDING)) and not amending(environ)


def quick(message_file: str) -> int | None:
    """The hook's status when there is nothing to add (no use pending, no amend, no tier file
    changed): 1 for a message of trailers only, else 0; None when the full hook must run."""
    if not nothing_to_do(os.environ):
        return None
    try:
        with open(message_file, "rb") as handle:
            text = handle.read().decode("utf-8", "surrogateescape")
    except OSError:
        return None
    said = content(text)
    if said == (True, False):
        print(EMPTY, file=sys.stderr)
        return 1
    return None if edits_staged() else 0


def edits_staged() -> bool:
    """Whether the commit changes a tier file that held sections (one ``git diff``): a removal
    there is for the message to name."""
    from squadmem.gitio import runner
    from squadmem.hooks import deletions

    env = runner.git_env()
    try:
        if any(e.status in deletions.OLD_SIDE for e in deletions.changes(env, False)):
            return True
        deletions.note(deletions.state_dir(env), False)  # a note an aborted commit left behind
        return False
    except SquadmemError:
        return True  # the full hook then says what is wrong


def main(argv: Sequence[str] | None = None) -> int:
    from pathlib import Path

    from squadmem.gitio import runner
    from squadmem.hooks import staged

    parser = staged.parser(PROG, ABOUT, files=None)
    parser.add_argument("message_file", nargs="?", type=Path, help="the commit message file git gives")
    parser.add_argument("source", nargs="?", default="", help="prepare-commit-msg's source (unused)")
    parser.add_argument("sha", nargs="?", default="", help="prepare-commit-msg's commit (unused)")
    args = parser.parse_args(argv)
    if args.message_file is None:
        print(f"{PROG}: no commit message file given; nothing done", file=sys.stderr)
        return 0
    try:
        staged.top(runner.git_env())
    except SquadmemError:
        print(f"{PROG}: {staged.NOT_A_REPO}", file=sys.stderr)
        return 2
    try:
        status = quick(str(args.message_file))
        if status is not None:
            return status
        add_trailer(args.message_file, args.source)
    except SquadmemError as exc:
        if exc.message == EMPTY:
            print(EMPTY, file=sys.stderr)
            return 1
        print(
            f"{PROG}: {args.message_file}: no trailer added ({exc.message}); uses stay pending",
            file=sys.stderr,
        )
    except (OSError, ValueError) as exc:
        print(f"{PROG}: {args.message_file}: no trailer added ({exc}); uses stay pending", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""prepare-commit-msg: write pending uses into the commit message as a ``Squad-Memory-Used`` trailer.

git calls it as ``prepare-commit-msg MESSAGE_FILE [SOURCE [SHA]]``. When
``.git/squadmem/pending-uses.json`` lists uses, the ids that the message
does not name yet are added as one trailer line, placed by
``git interpret-trailers`` (after any other trailers, before git's comment
and scissors lines). Every kind of commit gets it, merges and amends
included: each is a commit reachable from HEAD like any other.

The hook never clears the pending file: a commit that then fails (an empty
message, a commit-msg hook that refuses) loses nothing. A pending use is
dropped once a commit made at or after it carries it; the hook checks that
first (the commits since the oldest pending use), so the next commit does
not carry the same use again. An empty ``-m ""`` message is left empty so
git aborts as usual; an editor session starts with the trailer below a
blank first line, as ``git commit -s`` does with its sign-off.

The hook never stops a commit: a problem is reported on stderr and the uses
stay pending. Standard library only.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from squadmem.model import uses


def _git(*args: str, input: str | None = None) -> str:
    proc = subprocess.run(
        ["git", *args],
        input=None if input is None else input.encode("utf-8", "surrogateescape"),
        capture_output=True,
        check=False,
    )
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RuntimeError(f"git {args[0]} failed: {err[-1] if err else proc.returncode}")
    return proc.stdout.decode("utf-8", "surrogateescape")


def state_dir() -> Path:
    return Path(_git("rev-parse", "--path-format=absolute", "--git-common-dir").strip()) / "squadmem"


def carried_since(since: dt.datetime) -> dict[str, dt.datetime]:
    """Id -> time of the latest commit (from HEAD, made since ``since``) whose trailer names it."""
    try:
        out = _git(
            "log", "-z", f"--since={(since - dt.timedelta(days=1)).isoformat()}", "--format=%ct%x00%B", "HEAD"
        )
    except RuntimeError:
        return {}  # no commit yet
    found: dict[str, dt.datetime] = {}
    fields = out.split("\0")
    for when, body in zip(fields[0::2], fields[1::2], strict=False):
        if uses.TRAILER.lower() not in body.lower():
            continue
        moment = dt.datetime.fromtimestamp(int(when.strip()), dt.UTC)
        for ident in uses.parse_used(body):
            if ident not in found or found[ident] < moment:
                found[ident] = moment
    return found


def add_trailer(message_file: Path, source: str = "") -> list[str]:
    """Add the pending ids the message lacks; return them (empty when nothing was added)."""
    state = state_dir()
    pending = uses.pending(state)
    if not pending:
        return []
    for ident in uses.settle(state, carried_since(min(pending.values()))):
        pending.pop(ident, None)
    text = message_file.read_bytes().decode("utf-8", "surrogateescape")
    named = set(uses.parse_used(text))
    ids = [i for i in sorted(pending) if i not in named]
    if not ids:
        return []
    line = uses.trailer_line(ids)
    out = _git("interpret-trailers", "--where", "end", "--if-exists", "add", "--trailer", line, input=text)
    if out.startswith("\n" + line):  # no message written yet
        if source == "message":
            return []  # -m "": git aborts the empty commit; the uses stay pending
        out = "\n" + out
    message_file.write_bytes(out.encode("utf-8", "surrogateescape"))
    return ids


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print("squadmem-use-trailers: no commit message file given; nothing done", file=sys.stderr)
        return 0
    message_file = Path(args[0])
    try:
        # the pre-commit framework passes only the file; it gives the source in its environment
        source = args[1] if len(args) > 1 else os.environ.get("PRE_COMMIT_COMMIT_MSG_SOURCE", "")
        add_trailer(message_file, source)
    except Exception as exc:
        print(
            f"squadmem-use-trailers: {message_file}: no trailer added ({exc}); uses stay pending",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

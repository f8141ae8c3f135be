"""git's ``fast-import`` stream, written: commits with their files inline, in one process.

Standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping

DONE = b"done\n"
ARGS = ("fast-import", "--quiet", "--done")


def data(payload: bytes) -> bytes:
    """A ``data`` command: the byte count, then the bytes."""
    return f"data {len(payload)}\n".encode() + payload + b"\n"


def commit(ref: str, mark: int, ident: str, message: str, files: Mapping[str, str]) -> bytes:
    """One commit on ``ref`` (author and committer ``ident``: ``Name <email> <seconds> <zone>``),
    on the commit of the mark before it (none for mark 1), with ``files`` (path -> text) inline."""
    out = [f"commit {ref}\nmark :{mark}\nauthor {ident}\ncommitter {ident}\n".encode()]
    out.append(data(message.encode()))
    if mark > 1:
        out.append(f"from :{mark - 1}\n".encode())
    for path in sorted(files):
        out.append(f"M 100644 inline {path}\n".encode() + data(files[path].encode()))
    return b"".join(out)

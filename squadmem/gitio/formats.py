"""git's output formats, parsed: raw diffs, ``log --raw`` blob lists, ``cat-file --batch``.

Standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from squadmem.gitio.runner import git


class Staged:
    """One path the index changes against HEAD: status A, M, D, T or R (``source`` is a rename's origin)."""

    __slots__ = ("new_sha", "old_sha", "path", "source", "status")

    def __init__(
        self, status: str, path: str, old_sha: str | None, new_sha: str | None, source: str | None = None
    ) -> None:
        self.status = status
        self.path = path
        self.old_sha = old_sha
        self.new_sha = new_sha
        self.source = source


def parse_raw(out: bytes) -> list[Staged]:
    """``git diff --raw -z`` output, renames included."""
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    found: list[Staged] = []
    at = 0
    while at < len(fields) and fields[at].startswith(":"):
        meta = fields[at][1:].split(" ")
        status = meta[4][0]
        old, new = (None if set(sha) == {"0"} else sha for sha in meta[2:4])
        if status in "RC":
            found.append(Staged(status, fields[at + 2], old, new, fields[at + 1]))
            at += 3
        else:
            found.append(Staged(status, fields[at + 1], old, new))
            at += 2
    return found


def raw_blobs(out: bytes) -> list[str]:
    """Every blob named in ``git log --raw -z`` output (``-c`` merges too), in order, each once."""
    found: dict[str, None] = {}
    for field in out.decode("utf-8", "surrogateescape").split("\0"):
        if field.startswith(":"):
            words = field.lstrip(":").split(" ")
            for sha in words[len(words) // 2 : -1]:
                if set(sha) != {"0"}:
                    found[sha] = None
    return list(found)


def cat_files(specs: Sequence[str], env: Mapping[str, str]) -> dict[str, bytes | None]:
    """Objects by spec (a sha, ``:path`` for the index, ``REV:path``) from one ``cat-file --batch``."""
    if not specs:
        return {}
    out = git(["cat-file", "--batch"], env, input="".join(f"{s}\n" for s in specs).encode("utf-8"))
    found: dict[str, bytes | None] = {}
    at = 0
    for spec in specs:
        end = out.index(b"\n", at)
        head = out[at:end].split(b" ")
        if len(head) != 3 or head[-1] in (b"missing", b"ambiguous"):
            found[spec] = None
            at = end + 1
            continue
        size = int(head[2])
        found[spec] = out[end + 1 : end + 1 + size]
        at = end + 1 + size + 1
    return found

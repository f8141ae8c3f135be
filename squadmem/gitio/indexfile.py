"""git's index file, refreshed in-process for a few paths, as ``git update-index --add`` would.

The index (``.git/index``, format "DIRC" version 2 or 3) holds one entry per
tracked path, sorted by path: stat data, mode, object name, flags, the path;
then extensions; then a checksum of all of it. A commit squadmem makes
changes a few tier files: their entries get the new object name and the stat
data of the file just written; a path new to the index is inserted in order.
The cache-tree extension (``TREE``) is kept with the folders above those
paths marked invalid, as git marks them; the other optional extensions
(upper-case names: untracked cache, fsmonitor, offset tables) are dropped,
which git allows and makes up for at its next refresh.

Anything else (version 4, a split or sparse index, an entry with extended
flags, a conflict or a folder where a path goes) is left to git:
:func:`refresh` then answers None and the caller runs ``git update-index``.
Standard library only.

Why not always ``git update-index``: a ``demote`` then a ``promote`` (four
commits), whole processes, paired, medians of 15, against the same commands
made to refresh the index with ``git update-index`` on a scratch copy: 0.90×
the CPU time (0.60 s against 0.66 s: about 14 ms saved a commit, git's start)
in a repository of 7 tracked files; 1.02× (0.77 s against 0.75 s, 11 pairs)
and 7 MiB more peak memory with 20,007 tracked files, where both read and
write the whole index (docs/performance.md).
"""

from __future__ import annotations

import hashlib
import os
import stat
import struct

TYPE_CHECKING = False  # typing is not imported at run time: hooks import this module
if TYPE_CHECKING:
    from collections.abc import Mapping

_HEADER = struct.Struct(">4sII")
_STAT = struct.Struct(">10I")
_MASK = 0xFFFFFFFF
_NAME_MAX = 0xFFF
_EXTENDED = 0x4000
_STAGE = 0x3000


class Entry:
    """Where one entry lies in the index bytes, and its path."""

    __slots__ = ("end", "path", "start")

    def __init__(self, start: int, end: int, path: bytes) -> None:
        self.start = start
        self.end = end
        self.path = path


def entries(data: bytes, width: int) -> tuple[list[Entry], int] | None:
    """The entries of a version 2 or 3 index and where its extensions start; None for anything else."""
    if len(data) < _HEADER.size + width:
        return None
    signature, version, count = _HEADER.unpack_from(data)
    if signature != b"DIRC" or version not in (2, 3):
        return None
    found = []
    at = _HEADER.size
    fixed = _STAT.size + width
    for _ in range(count):
        (flags,) = struct.unpack_from(">H", data, at + fixed)
        if flags & (_EXTENDED | _STAGE) or (flags & _NAME_MAX) == _NAME_MAX:
            return None  # skip-worktree, intent-to-add, a conflict or a long path: git's to handle
        name = at + fixed + 2
        length = flags & _NAME_MAX
        end = at + ((fixed + 2 + length + 8) & ~7)
        found.append(Entry(at, end, data[name : name + length]))
        at = end
    return found, at


def entry_bytes(path: bytes, sha: str, mode: int, facts: os.stat_result) -> bytes:
    """One index entry: the stat data git keeps (seconds and nanoseconds, 32 bits each), mode, name."""
    numbers = (
        int(facts.st_ctime) & _MASK,
        facts.st_ctime_ns % 1_000_000_000,
        int(facts.st_mtime) & _MASK,
        facts.st_mtime_ns % 1_000_000_000,
        facts.st_dev & _MASK,
        facts.st_ino & _MASK,
        mode,
        facts.st_uid & _MASK,
        facts.st_gid & _MASK,
        facts.st_size & _MASK,
    )
    head = _STAT.pack(*numbers) + bytes.fromhex(sha) + struct.pack(">H", len(path))
    size = (len(head) + len(path) + 8) & ~7
    return head + path + b"\0" * (size - len(head) - len(path))


def mode_of(facts: os.stat_result, old: int | None, filemode: bool) -> int:
    """The entry's mode: git's 100755 or 100644 from the file (``core.filemode``), else as it was."""
    if not filemode and old is not None:
        return old
    return 0o100755 if facts.st_mode & stat.S_IXUSR else 0o100644


def refresh(
    data: bytes, files: Mapping[str, tuple[str, os.stat_result]], algorithm: str, filemode: bool = True
) -> bytes | None:
    """The index ``data`` with ``files`` (path -> (blob, the file's stat)) entered; None: ask git."""
    width = hashlib.new(algorithm).digest_size
    found = entries(data, width)
    if found is None or not all(stat.S_ISREG(facts.st_mode) for _, facts in files.values()):
        return None
    listed, ext_start = found
    new = {path.encode("utf-8", "surrogateescape"): item for path, item in files.items()}
    if _in_the_way(listed, set(new)):
        return None
    extensions = _extensions(data[ext_start : len(data) - width], set(new), width)
    if extensions is None:
        return None
    parts: list[bytes] = []
    pending = sorted(new)
    for entry in listed:
        while pending and pending[0] < entry.path:
            path = pending.pop(0)
            parts.append(_entry(path, new[path], None, filemode))
        if pending and pending[0] == entry.path:
            path = pending.pop(0)
            old = struct.unpack_from(">I", data, entry.start + 24)[0]
            parts.append(_entry(path, new[path], old, filemode))
        else:
            parts.append(data[entry.start : entry.end])
    parts += [_entry(path, new[path], None, filemode) for path in pending]
    body = _HEADER.pack(b"DIRC", struct.unpack_from(">I", data, 4)[0], len(listed) + _added(listed, new))
    out = b"".join([body, *parts, extensions])
    skip_hash = data[len(data) - width :] == b"\0" * width  # index.skipHash
    return out + (b"\0" * width if skip_hash else hashlib.new(algorithm, out).digest())


def _entry(path: bytes, item: tuple[str, os.stat_result], old: int | None, filemode: bool) -> bytes:
    sha, facts = item
    return entry_bytes(path, sha, mode_of(facts, old, filemode), facts)


def _added(listed: list[Entry], new: Mapping[bytes, object]) -> int:
    have = {entry.path for entry in listed if entry.path in new}
    return len(new) - len(have)


def _in_the_way(listed: list[Entry], paths: set[bytes]) -> bool:
    """Whether a path would be a folder of an entry, or an entry a folder of a path (git's D/F rule)."""
    folders = _folders(paths)
    return any(
        entry.path in folders or any(entry.path.startswith(p + b"/") for p in paths) for entry in listed
    )


def _extensions(data: bytes, paths: set[bytes], width: int) -> bytes | None:
    """The extensions to keep: TREE with the folders of ``paths`` invalid, REUC as it is; None when
    one git requires be understood (a lower-case name: a split or sparse index) is there."""
    kept = []
    at = 0
    while at + 8 <= len(data):
        name, size = struct.unpack_from(">4sI", data, at)
        body = data[at + 8 : at + 8 + size]
        at += 8 + size
        if name[:1].islower():
            return None
        if name == b"TREE":
            tree = _invalidate(body, {b"", *_folders(paths)}, width)
            if tree is None:
                return None
            kept.append(struct.pack(">4sI", name, len(tree)) + tree)
        elif name == b"REUC":
            kept.append(data[at - 8 - size : at])
    return b"".join(kept) if at == len(data) else None


def _folders(paths: set[bytes]) -> set[bytes]:
    """Every folder above ``paths`` (``a/b/c`` -> ``a``, ``a/b``)."""
    return {p[:i] for p in paths for i in range(len(p)) if p[i] == ord("/")}


def _invalidate(tree: bytes, folders: set[bytes], width: int) -> bytes | None:
    """The cache-tree with ``folders`` (b"" the root) marked invalid: entry count -1, no object name."""
    out: list[bytes] = []
    at = 0
    stack: list[tuple[bytes, int]] = []  # (folder, subtrees still to come)
    try:
        while at < len(tree):
            nul = tree.index(b"\0", at)
            line = tree.index(b"\n", nul)
            name = tree[at:nul]
            count, subtrees = tree[nul + 1 : line].split(b" ")
            at = line + 1
            while stack and stack[-1][1] == 0:
                stack.pop()
            parent = stack[-1][0] if stack else None
            if stack:
                stack[-1] = (parent or b"", stack[-1][1] - 1)
            path = name if not parent else parent + b"/" + name
            sha = b""
            if int(count) >= 0:
                sha, at = tree[at : at + width], at + width
            if path in folders:
                count, sha = b"-1", b""
            out.append(name + b"\0" + count + b" " + subtrees + b"\n" + sha)
            stack.append((path, int(subtrees)))
    except ValueError:
        return None
    return b"".join(out)

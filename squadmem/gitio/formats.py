"""git's output formats, parsed: raw diffs, ``log --raw -z`` (``-c`` merges too), tree objects.

One parser per format, each typed; object names of either width (SHA-1's
40 hex digits, SHA-256's 64). Standard library only: the hooks use it too.
Nothing here stands in for a git command: each parser reads what a git
command printed (``diff --raw``, ``log``, ``ls-tree``, ``ls-files``, a tree
object from ``cat-file``), and none writes anything git reads.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator, Mapping, Sequence

from squadmem.gitio.catfile import CatFile
from squadmem.model.values import Value


def _sha(word: str) -> str | None:
    """An object name from a raw diff; None for the all-zero name (no such side)."""
    return None if word and not word.strip("0") else word


# -- raw diffs ----------------------------------------------------------------------------------
class Staged:
    """One path the index changes against HEAD: status A, M, D, T or R (``source`` is a rename's origin)."""

    __slots__ = ("mode", "new_sha", "old_sha", "path", "source", "status")

    def __init__(
        self,
        status: str,
        path: str,
        old_sha: str | None,
        new_sha: str | None,
        source: str | None = None,
        mode: str = "100644",
    ) -> None:
        self.status = status
        self.path = path
        self.old_sha = old_sha
        self.new_sha = new_sha
        self.source = source
        self.mode = mode  # the new side's git mode: 100644, 100755, 120000 (a symlink), 160000...


class Change:
    """One path of a raw diff: a merge's combined diff (``-c``) has one old side per parent.

    ``status`` is git's letter(s) (one per parent in a combined diff, a score
    after a rename's R); ``olds`` and ``new`` are None where that side has no
    object; ``source`` is a rename's or copy's origin.
    """

    __slots__ = ("mode", "new", "olds", "path", "source", "status")

    def __init__(
        self,
        status: str,
        path: str,
        olds: tuple[str | None, ...],
        new: str | None,
        source: str | None,
        mode: str = "100644",
    ) -> None:
        self.status = status
        self.path = path
        self.olds = olds
        self.new = new
        self.source = source
        self.mode = mode  # the new side's git mode

    @property
    def old(self) -> str | None:
        """The first parent's side."""
        return self.olds[0]

    def __repr__(self) -> str:
        return f"Change({self.status!r}, {self.path!r}, {self.olds!r}, {self.new!r}, {self.source!r})"


def raw_changes(fields: Sequence[str], at: int = 0) -> tuple[list[Change], int]:
    """The raw diff entries in NUL-separated ``fields`` from ``at`` on, and where they stop.

    An entry is ``:modes shas status`` (one more colon, mode and name per
    merge parent under ``-c``), then its path; a rename or copy (``R``/``C``,
    two-way only) gives the origin first, then the path.
    """
    found: list[Change] = []
    while at < len(fields) and fields[at].lstrip("\n").startswith(":"):
        change, at = _entry(fields, at)
        found.append(change)
    return found, at


def _entry(fields: Sequence[str], at: int) -> tuple[Change, int]:
    """The raw diff entry at ``fields[at]`` (its meta, then its path or paths), and where the next starts."""
    meta = fields[at].lstrip("\n")
    colons = len(meta) - len(meta.lstrip(":"))
    words = meta[colons:].split(" ")
    shas = [_sha(w) for w in words[colons + 1 : 2 * colons + 2]]
    status = words[-1]
    mode = words[colons] if colons < len(words) else ""
    if colons == 1 and status[:1] in ("R", "C"):
        return Change(status, fields[at + 2], (shas[0],), shas[1], fields[at + 1], mode), at + 3
    return Change(status, fields[at + 1], tuple(shas[:-1]), shas[-1], None, mode), at + 2


def parse_raw(out: bytes) -> list[Staged]:
    """``git diff --raw -z`` output, renames included."""
    changes, _ = raw_changes(out.decode("utf-8", "surrogateescape").split("\0"))
    return [Staged(c.status[0], c.path, c.old, c.new, c.source, c.mode) for c in changes]


def raw_blobs(out: bytes) -> list[str]:
    """Every blob named in ``git log --raw -z`` output (``-c`` merges too), in order, each once."""
    found: dict[str, None] = {}
    for field in out.decode("utf-8", "surrogateescape").split("\0"):
        if field.lstrip("\n").startswith(":"):
            words = field.lstrip("\n:").split(" ")
            for sha in words[len(words) // 2 : -1]:
                if set(sha) != {"0"}:
                    found[sha] = None
    return list(found)


# -- log --raw -z --------------------------------------------------------------------------------
MARK = "%x01"  # what starts each commit's record in a log format made by :func:`log_format`


def log_format(*placeholders: str) -> str:
    """A ``--format`` for :func:`parse_log`: the placeholders NUL-separated behind a record mark."""
    return "--format=" + MARK + "%x00".join(placeholders)


class LogEntry(Value):
    """One commit of ``git log -z --raw``: its format's fields (bytes), and its raw changes."""

    __slots__ = ("changes", "fields")

    def __init__(self, fields: tuple[bytes, ...], changes: tuple[Change, ...]) -> None:
        self.fields = fields
        self.changes = changes


def parse_log(chunks: Iterable[bytes], count: int) -> Iterator[LogEntry]:
    """Commits from the output of ``git log -z --raw [-c] --format=…`` made by :func:`log_format`
    with ``count`` placeholders, as it streams in.

    With ``-z`` every field, path and record ends in NUL, and git refuses NUL in
    a commit message, so the stream cuts into tokens at NUL: a record's first
    token starts with U+0001, ``count`` fields in all, then its raw entries
    (each led by a newline and a colon, or, a merge's combined diff, by an
    empty token and colons). Each chunk is cut at once; a record is given
    when the token after it has come (or the stream has ended).
    """
    tokens: list[bytes] = []
    rest = b""
    for chunk in chunks:
        parts = (rest + chunk).split(b"\0")
        rest = parts.pop()
        tokens += parts
        used = yield from _records(tokens, count, final=False)
        del tokens[:used]
    if rest:
        tokens.append(rest)
    yield from _records(tokens, count, final=True)


def _records(tokens: list[bytes], count: int, final: bool) -> Generator[LogEntry, None, int]:
    """The whole records in ``tokens``; returns how many tokens they took (every one when ``final``:
    the stream has ended, and a record cut short is given as it is)."""
    size = len(tokens)
    at = 0
    while True:
        while at < size and not tokens[at]:
            at += 1
        if at >= size:
            return size
        start, token = at, tokens[at]
        if not token.startswith(b"\x01"):
            raise ValueError(f"git log: unexpected output {token[:40]!r}")
        if start + count > size and not final:
            return start
        fields = (token[1:], *tokens[start + 1 : start + count], *(b"",) * (start + count - size))
        at = start + count
        while at < size and not tokens[at]:  # a merge's combined diff comes after an empty token
            at += 1
        raw: list[str] = []
        while at < size and tokens[at].lstrip(b"\n").startswith(b":"):
            meta = tokens[at].decode("ascii")
            paths = 2 if meta.count(":") == 1 and meta.rsplit(" ", 1)[-1][:1] in ("R", "C") else 1
            if at + paths >= size and not final:
                return start
            raw += (meta, *(_path(tokens, n) for n in range(at + 1, at + 1 + paths)))
            at += 1 + paths
        if at == size and not final:
            return start  # more raw entries may come
        yield LogEntry(fields, tuple(raw_changes(raw)[0]) if raw else ())


def _path(tokens: list[bytes], at: int) -> str:
    return tokens[at].decode("utf-8", "surrogateescape") if at < len(tokens) else ""


def parse_trailers(text: str) -> dict[str, list[str]]:
    """``%(trailers:only,unfold)`` output: each key, lowercase, with its values in order."""
    trailers: dict[str, list[str]] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            trailers.setdefault(key.strip().lower(), []).append(value.strip())
    return trailers


# -- trees ---------------------------------------------------------------------------------------
class TreeEntry(Value):
    """One entry of a tree object: its mode, its name and the object it names."""

    __slots__ = ("mode", "name", "sha")

    def __init__(self, mode: bytes, name: bytes, sha: str) -> None:
        self.mode = mode
        self.name = name
        self.sha = sha

    @property
    def is_tree(self) -> bool:
        return self.mode == b"40000"


def parse_tree(data: bytes, width: int = 20) -> list[TreeEntry]:
    """A tree object's entries; ``width``: the object name's length in bytes (20 SHA-1, 32 SHA-256)."""
    entries = []
    pos = 0
    while pos < len(data):
        space = data.index(b" ", pos)
        nul = data.index(b"\0", space)
        end = nul + 1 + width
        entries.append(TreeEntry(data[pos:space], data[space + 1 : nul], data[nul + 1 : end].hex()))
        pos = end
    return entries


def parse_ls_tree(out: bytes) -> dict[str, str]:
    """Path -> blob of ``git ls-tree -z`` output (trees and submodules left out)."""
    found = {}
    for item in out.split(b"\0"):
        meta, _, path = item.partition(b"\t")
        words = meta.split()
        if words[1:2] == [b"blob"]:
            found[path.decode("utf-8", "surrogateescape")] = words[2].decode("ascii")
    return found


def parse_ls_files(out: bytes) -> dict[str, str]:
    """Path -> blob of ``git ls-files -s -z`` output (regular files only, stage 0)."""
    found = {}
    for item in out.split(b"\0"):
        meta, _, path = item.partition(b"\t")
        words = meta.split()
        if len(words) == 3 and words[0] in (b"100644", b"100755") and words[2] == b"0":
            found[path.decode("utf-8", "surrogateescape")] = words[1].decode("ascii")
    return found


# -- cat-file --batch ----------------------------------------------------------------------------
def cat_files(specs: Sequence[str], env: Mapping[str, str]) -> dict[str, bytes | None]:
    """Objects by spec (a sha, ``:path`` for the index, ``REV:path``) from one ``cat-file --batch``;
    None for a spec that names no object. Asked one by one of one process: a hook asks for a few,
    and this way needs no temporary file (nor ``tempfile``'s imports on every commit)."""
    if not specs:
        return {}
    with CatFile(env) as reader:
        return {spec: reader.read(spec) for spec in specs}

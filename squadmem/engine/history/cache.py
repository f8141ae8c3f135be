"""The caches history reads are kept in: one versioned, keyed file helper, and the section-history cache.

Every cache is a file in ``.git/squadmem/`` that :class:`Cache` reads,
writes and drops the same way: a JSON header holding the cache's format
version and its key (what it was made under: the format, the scanner's
source, the shallow boundary, the object format, which paths are tier
files, and whatever else the cache names), then, for a binary cache, its
payload, whose digest the header holds. Nothing in a cache is
authoritative: a missing, unreadable, truncated, corrupt or old-format
cache, or one made under another key, is read as none, and rebuilt.

The section-history cache (``history-cache``, :func:`load_cache`,
:func:`save_cache`): the facts history gave, with the HEAD they were read
for, as fixed-size content records, the trailer uses and the departures.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import struct
from pathlib import Path

from squadmem.engine.history.facts import Departure, Facts
from squadmem.gitio.repo import Repo
from squadmem.model import jsontext, sections, writes

TYPE_CHECKING = False  # typing is not imported at run time: a task's context reads this cache
if TYPE_CHECKING:
    from typing import Any

CACHE_FILE = "history-cache"
# 2: Squad's history.md and decisions.md date migrated sections; 3: and their entries; 4: dated uses,
# departures; 5: each id's use before its last (second-use promotion); 6: Squad entries also by their
# former key (setext headings written ##, open blocks closed)
FORMAT = 6
STALE = "cache from another squadmem version or clone depth"


def _digest(payload: bytes) -> str:
    return hashlib.blake2b(payload, digest_size=16).hexdigest()


@dataclasses.dataclass(frozen=True)
class Cache:
    """One cache file: ``name`` in ``.git/squadmem/``, its ``format`` version; ``binary``: a JSON
    header line, then a payload (else one compact JSON document, the header alone)."""

    name: str
    format: int
    binary: bool = False

    def path(self, repo: Repo) -> Path:
        return repo.state_dir / self.name

    def key(self, repo: Repo, *depends: bytes) -> str:
        """What a cache must have been made under: its format, what every history cache depends on
        (scanner source, shallow boundary, object names, tier paths), and ``depends``."""
        digest = hashlib.blake2b(digest_size=12)
        with contextlib.suppress(OSError):
            digest.update(b"".join(source.read_bytes() for source in sections.SOURCES))
        digest.update(b"\0" + "\n".join(sorted(repo.shallow_boundary())).encode())
        if repo.object_format != "sha1":  # a SHA-1 repository's key is the one earlier versions made
            digest.update(b"\0" + repo.object_format.encode())
        places = repo.layout.places
        if places.kind != "squad":  # which paths are tier files (a Squad layout's key is the one it was)
            digest.update(f"\0{places.kind}:{places.agent}".encode())
        for more in depends:
            digest.update(b"\0" + more)
        return f"{self.format}:{digest.hexdigest()}"

    def read(self, path: Path, key: str) -> tuple[dict[str, Any] | None, bytes, str]:
        """The header and payload of the cache at ``path`` made under ``key``, or None and why not."""
        try:
            raw = writes.read_state(path)
        except FileNotFoundError:
            return None, b"", "no cache yet"
        except OSError as exc:
            return None, b"", f"cache unreadable ({exc.strerror})"
        try:
            if self.binary:
                head, payload = raw.split(b"\n", 1)
            else:
                head, payload = raw, b""
            meta = jsontext.loads(head)
            if not isinstance(meta, dict):
                raise TypeError("header")
            if meta.get("format") != self.format or meta.get("key") != key:
                return None, b"", STALE
            if self.binary and _digest(payload) != meta["digest"]:
                return None, b"", "cache corrupt or truncated"
            return meta, payload, "cache read"
        except (ValueError, KeyError, TypeError) as exc:
            return None, b"", f"cache unreadable ({type(exc).__name__})"

    def write(self, path: Path, key: str, fields: dict[str, Any], payload: bytes = b"") -> None:
        """Write the cache whole or not at all: its format, ``key``, ``fields`` (and ``payload``)."""
        meta: dict[str, Any] = {"format": self.format, "key": key, **fields}
        if self.binary:
            meta["digest"] = _digest(payload)
            writes.atomic(path, json.dumps(meta).encode() + b"\n" + payload)
        else:
            writes.atomic(path, json.dumps(meta, separators=(",", ":")).encode())

    @staticmethod
    def drop(path: Path) -> None:
        """Forget the cache at ``path`` (the next read rebuilds it)."""
        with contextlib.suppress(OSError):
            path.unlink()


HISTORY = Cache(CACHE_FILE, FORMAT, binary=True)


def _record(width: int) -> struct.Struct:
    """A content record: content hash, commit time, commit (20 bytes SHA-1, 32 SHA-256), at a boundary."""
    return struct.Struct(f"<16sq{width}sB")


def cache_key(repo: Repo) -> str:
    """The section-history cache's key (:meth:`Cache.key`)."""
    return HISTORY.key(repo)


def load_cache(path: Path, key: str, width: int = 20) -> tuple[Facts | None, str]:
    """The cached facts, or None and why not; ``width``: bytes in an object name (32 for SHA-256)."""
    meta, payload, why = HISTORY.read(path, key)
    if meta is None:
        return None, why
    record = _record(width)
    try:
        size = meta["contents"] * record.size
        first = {k: (t, bool(b), c) for k, t, c, b in record.iter_unpack(payload[:size])}
        middle = size + meta["trailers"]
        used = {
            str(k): (int(v[0]), str(v[1]), int(v[2]), int(v[3]))
            for k, v in jsontext.loads_own(payload[size:middle]).items()
        }
        gone = {str(k): _departure(v) for k, v in jsontext.loads_own(payload[middle:]).items()}
        tip = meta["tip"]
        if not isinstance(tip, str):
            raise TypeError("tip")
        return Facts(tip, first, used, gone), why
    except (ValueError, KeyError, TypeError, IndexError, struct.error) as exc:
        return None, f"cache unreadable ({type(exc).__name__})"


def _departure(value: list[Any]) -> Departure:
    time, commit, parent, sure, blob, path, start, end = value
    return (int(time), str(commit), str(parent), str(sure), str(blob), str(path), int(start), int(end))


def save_cache(path: Path, key: str, facts: Facts, width: int = 20) -> None:
    record = _record(width)
    records = b"".join(record.pack(k, t, c, b) for k, (t, b, c) in facts.first.items())
    trailers = json.dumps({k: list(v) for k, v in facts.used.items()}, separators=(",", ":")).encode()
    gone = json.dumps({k: list(v) for k, v in facts.gone.items()}, separators=(",", ":")).encode()
    fields = {"tip": facts.tip, "contents": len(facts.first), "trailers": len(trailers)}
    HISTORY.write(path, key, fields, records + trailers + gone)

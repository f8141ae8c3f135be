"""The history cache: the facts history gave, with the HEAD they were read for.

Kept in ``.git/squadmem/history-cache``: a JSON header line, then fixed-size
content records, the trailer uses and the departures. Nothing in it is
authoritative: an unreadable, truncated or old-format cache is rebuilt.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import struct
from pathlib import Path
from typing import Any

from squadmem.engine.facts import Departure, Facts
from squadmem.gitio.repo import Repo
from squadmem.model import sections, writes

CACHE_FILE = "history-cache"
# 2: Squad's history.md and decisions.md date migrated sections; 3: and their entries; 4: dated uses,
# departures; 5: each id's use before its last (second-use promotion); 6: Squad entries also by their
# former key (setext headings written ##, open blocks closed)
FORMAT = 6


def _record(width: int) -> struct.Struct:
    """A content record: content hash, commit time, commit (20 bytes SHA-1, 32 SHA-256), at a boundary."""
    return struct.Struct(f"<16sq{width}sB")


def cache_key(repo: Repo) -> str:
    """What a cache must have been made under: format, scanner source, shallow boundary, object names."""
    digest = hashlib.blake2b(digest_size=12)
    with contextlib.suppress(OSError):
        digest.update(b"".join(source.read_bytes() for source in sections.SOURCES))
    digest.update(b"\0" + "\n".join(sorted(repo.shallow_boundary())).encode())
    if repo.object_format != "sha1":  # a SHA-1 repository's key is the one earlier versions made
        digest.update(b"\0" + repo.object_format.encode())
    places = repo.layout.places
    if places.kind != "squad":  # which paths are tier files (a Squad layout's key is the one it was)
        digest.update(f"\0{places.kind}:{places.agent}".encode())
    return f"{FORMAT}:{digest.hexdigest()}"


def load_cache(path: Path, key: str, width: int = 20) -> tuple[Facts | None, str]:
    """The cached facts, or None and why not; ``width``: bytes in an object name (32 for SHA-256)."""
    record = _record(width)
    try:
        raw = writes.read_state(path)
    except FileNotFoundError:
        return None, "no cache yet"
    except OSError as exc:
        return None, f"cache unreadable ({exc.strerror})"
    try:
        head, payload = raw.split(b"\n", 1)
        meta = json.loads(head)
        if meta.get("format") != FORMAT or meta.get("key") != key:
            return None, "cache from another squadmem version or clone depth"
        if hashlib.blake2b(payload, digest_size=16).hexdigest() != meta["digest"]:
            return None, "cache corrupt or truncated"
        size = meta["contents"] * record.size
        first = {k: (t, bool(b), c) for k, t, c, b in record.iter_unpack(payload[:size])}
        middle = size + meta["trailers"]
        used = {
            str(k): (int(v[0]), str(v[1]), int(v[2]), int(v[3]))
            for k, v in json.loads(payload[size:middle]).items()
        }
        gone = {str(k): _departure(v) for k, v in json.loads(payload[middle:]).items()}
        tip = meta["tip"]
        if not isinstance(tip, str):
            raise TypeError("tip")
        return Facts(tip, first, used, gone), "cache read"
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
    payload = records + trailers + gone
    meta = {
        "format": FORMAT,
        "key": key,
        "tip": facts.tip,
        "contents": len(facts.first),
        "trailers": len(trailers),
        "digest": hashlib.blake2b(payload, digest_size=16).hexdigest(),
    }
    writes.atomic(path, json.dumps(meta).encode() + b"\n" + payload)

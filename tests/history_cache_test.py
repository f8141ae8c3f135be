"""The one cache helper every history cache is kept through: versioned, keyed, disposable."""

from __future__ import annotations

import json

from conftest import GitRepo

from squadmem.engine.history import cache as history_cache
from squadmem.engine.history.cache import Cache
from squadmem.engine.history.graph import GRAPH
from squadmem.engine.history.walk import WALKS
from squadmem.gitio.repo import Repo

DATE = "2026-03-01T10:00:00+00:00"


def test_a_key_names_the_format_and_what_the_cache_depends_on(repo: GitRepo) -> None:
    repo.commit("seed", {"a": "1\n"}, date=DATE)
    with Repo(repo.root) as opened:
        one, two = Cache("one", 1), Cache("one", 2)
        assert one.key(opened).startswith("1:") and two.key(opened).startswith("2:")
        assert one.key(opened).split(":", 1)[1] == two.key(opened).split(":", 1)[1]
        assert one.key(opened, b"code") != one.key(opened)
        assert history_cache.cache_key(opened) == history_cache.HISTORY.key(opened)


def test_a_json_cache_is_read_back_only_under_its_key_and_format(repo: GitRepo) -> None:
    repo.commit("seed", {"a": "1\n"}, date=DATE)
    with Repo(repo.root) as opened:
        cache = Cache("some-cache", 3)
        path, key = cache.path(opened), cache.key(opened)
        assert cache.read(path, key) == (None, b"", "no cache yet")
        cache.write(path, key, {"tip": "abc", "rows": [1, 2]})
        assert json.loads(path.read_bytes()) == {"format": 3, "key": key, "tip": "abc", "rows": [1, 2]}
        meta, _, why = cache.read(path, key)
        assert meta is not None and meta["rows"] == [1, 2] and why == "cache read"
        assert cache.read(path, key + "x")[0] is None
        assert Cache("some-cache", 4).read(path, key)[0] is None
        path.write_bytes(b"{not json")
        assert cache.read(path, key)[0] is None
        cache.drop(path)
        assert not path.exists()
        cache.drop(path)  # dropping what is not there is no error


def test_a_binary_cache_holds_its_payload_digest(repo: GitRepo) -> None:
    repo.commit("seed", {"a": "1\n"}, date=DATE)
    with Repo(repo.root) as opened:
        cache = Cache("binary-cache", 1, binary=True)
        path, key = cache.path(opened), cache.key(opened)
        cache.write(path, key, {"count": 2}, b"\x00\x01payload\n\xff")
        meta, payload, _ = cache.read(path, key)
        assert meta is not None and meta["count"] == 2 and payload == b"\x00\x01payload\n\xff"
        path.write_bytes(path.read_bytes()[:-1] + b"\xfe")
        assert cache.read(path, key) == (None, b"", "cache corrupt or truncated")
        path.write_bytes(path.read_bytes().split(b"\n", 1)[0])
        assert cache.read(path, key)[0] is None


def test_every_history_cache_is_kept_through_the_helper() -> None:
    names = {history_cache.HISTORY.name, GRAPH.name, WALKS.name}
    assert names == {"history-cache", "timeline-cache", "timeline-walks"}
    assert all(isinstance(c, Cache) for c in (history_cache.HISTORY, GRAPH, WALKS))

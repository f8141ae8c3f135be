from __future__ import annotations

import datetime as dt
import json
import multiprocessing
from pathlib import Path

import pytest

from squadmem.model import uses

T1 = dt.datetime(2026, 3, 1, 10, 0, 0, tzinfo=dt.UTC)
T2 = dt.datetime(2026, 3, 2, 10, 0, 0, tzinfo=dt.UTC)


def test_record_then_pending_gives_aware_utc_times(tmp_path: Path) -> None:
    uses.record(
        tmp_path,
        ["picard/a", "wiki:security/b"],
        dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.timezone(dt.timedelta(hours=2))),
    )
    assert uses.pending(tmp_path) == {"picard/a": T1, "wiki:security/b": T1}


def test_record_keeps_the_latest_use_per_id(tmp_path: Path) -> None:
    uses.record(tmp_path, ["picard/a"], T2)
    uses.record(tmp_path, ["picard/a", "picard/b"], T1)
    assert uses.pending(tmp_path) == {"picard/a": T2, "picard/b": T1}


def test_record_keeps_whole_seconds_as_commit_times_do(tmp_path: Path) -> None:
    uses.record(tmp_path, ["picard/a"], T1.replace(microsecond=999_999))
    assert uses.pending(tmp_path)["picard/a"] == T1


def test_record_leaves_no_temporary_file(tmp_path: Path) -> None:
    uses.record(tmp_path, ["picard/a"], T1)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([uses.LOCK, uses.FILE])


def test_pending_is_empty_without_a_file(tmp_path: Path) -> None:
    assert uses.pending(tmp_path / "missing") == {}
    assert uses.pending_ids(tmp_path / "missing") == ()


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"{",
        b"[]",
        b'{"version": 99, "uses": {"a/b": "2026-03-01T00:00:00+00:00"}}',
        b'{"version": 1, "uses": {"a/b": "soon"}}',
    ],
    ids=["empty", "truncated", "not-an-object", "other-version", "bad-date"],
)
def test_pending_reads_an_unreadable_file_as_none_and_record_rewrites_it(
    tmp_path: Path, content: bytes
) -> None:
    (tmp_path / uses.FILE).write_bytes(content)
    assert uses.pending(tmp_path) == {}
    uses.record(tmp_path, ["picard/a"], T1)
    assert json.loads((tmp_path / uses.FILE).read_text()) == {
        "version": 1,
        "uses": {"picard/a": "2026-03-01T10:00:00+00:00"},
    }


def test_pending_ids_are_sorted(tmp_path: Path) -> None:
    uses.record(tmp_path, ["wiki:security/b", "picard/a"], T1)
    assert uses.pending_ids(tmp_path) == ("picard/a", "wiki:security/b")


def test_consume_drops_only_the_given_ids(tmp_path: Path) -> None:
    uses.record(tmp_path, ["picard/a", "picard/b"], T1)
    uses.consume(tmp_path, ["picard/a", "picard/unknown"])
    assert uses.pending(tmp_path) == {"picard/b": T1}
    uses.consume(tmp_path, ["picard/b"])
    assert uses.pending(tmp_path) == {}
    assert not (tmp_path / uses.FILE).exists()


def test_consume_without_a_file_does_nothing(tmp_path: Path) -> None:
    uses.consume(tmp_path, ["picard/a"])
    assert list(tmp_path.iterdir()) == []


def test_settle_drops_uses_a_later_commit_carries(tmp_path: Path) -> None:
    uses.record(tmp_path, ["picard/a", "picard/b", "picard/c"], T1)
    uses.record(tmp_path, ["picard/b"], T2)
    done = uses.settle(tmp_path, {"picard/a": T1, "picard/b": T1, "picard/z": T2})
    assert done == ["picard/a"]
    assert uses.pending(tmp_path) == {"picard/b": T2, "picard/c": T1}


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("subject\n\nbody", []),
        ("subject\n\nSquad-Memory-Used: picard/a", ["picard/a"]),
        ("subject\n\nSquad-Memory-Used: picard/a, wiki:security/b\n", ["picard/a", "wiki:security/b"]),
        ("subject\n\nsquad-memory-used:picard/a picard/b", ["picard/a", "picard/b"]),
        ("s\n\nSquad-Memory-Used: picard/a,\n  picard/b\nOther: x\n  not-an-id", ["picard/a", "picard/b"]),
        ("s\n\nSquad-Memory-Used: picard/a\nSquad-Memory-Used: picard/a, picard/c", ["picard/a", "picard/c"]),
        (
            "s\n\n* squashed one\n\nSquad-Memory-Used: a/x\n\n* squashed two\n\nSquad-Memory-Used: b/y",
            ["a/x", "b/y"],
        ),
        ("s\n\nNot-Squad-Memory-Used: a/x\nSquad-Memory-Used-Not: b/y", []),
        ("s\r\n\r\nSquad-Memory-Used: a/x\r\n", ["a/x"]),
    ],
    ids=["none", "one", "two", "case-and-spaces", "continuation", "repeats", "squash", "other-keys", "crlf"],
)
def test_parse_used(message: str, expected: list[str]) -> None:
    assert uses.parse_used(message) == expected


def _record_many(args: tuple[str, int]) -> None:
    folder, n = args
    uses.record(Path(folder), [f"agent{n}/s{i}" for i in range(20)], T1)


def test_record_from_concurrent_processes_loses_nothing(tmp_path: Path) -> None:
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        pool.map(_record_many, [(str(tmp_path), n) for n in range(8)])
    assert len(uses.pending(tmp_path)) == 8 * 20

from __future__ import annotations

import datetime as dt

import pytest

from squadmem.model import clock

PLUS_TWO = dt.timezone(dt.timedelta(hours=2))


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (dt.datetime(2026, 3, 1, 12, 0, 0, 999), dt.datetime(2026, 3, 1, 12, 0, 0, 999, tzinfo=dt.UTC)),
        (dt.datetime(2026, 3, 1, 12, tzinfo=PLUS_TWO), dt.datetime(2026, 3, 1, 10, tzinfo=dt.UTC)),
    ],
)
def test_utc_takes_naive_as_utc_and_converts_aware(value: dt.datetime, expected: dt.datetime) -> None:
    assert clock.utc(value) == expected and clock.utc(value).tzinfo is dt.UTC


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-03-01T10:00:00Z", dt.datetime(2026, 3, 1, 10, tzinfo=dt.UTC)),
        ("2026-03-01T10:00:00.7", dt.datetime(2026, 3, 1, 10, tzinfo=dt.UTC)),
        ("2026-03-01T12:00:00+02:00", dt.datetime(2026, 3, 1, 10, tzinfo=dt.UTC)),
        ("2026-03-01", dt.datetime(2026, 3, 1, tzinfo=dt.UTC)),
    ],
)
def test_from_iso_reads_z_naive_and_offsets_to_the_second(text: str, expected: dt.datetime) -> None:
    assert clock.from_iso(text) == expected


def test_from_iso_refuses_what_is_not_a_time() -> None:
    with pytest.raises(ValueError):
        clock.from_iso("yesterday")


def test_stamp_is_utc_whole_seconds_with_z() -> None:
    moment = dt.datetime(2026, 3, 1, 12, 0, 5, 900000, tzinfo=PLUS_TWO)
    assert clock.stamp(moment) == "2026-03-01T10:00:05Z"
    assert clock.from_iso(clock.stamp(moment)) == clock.whole(moment)


def test_days_and_epoch() -> None:
    assert clock.days(dt.timedelta(hours=36)) == 1.5
    assert clock.from_epoch(86400) == dt.datetime(1970, 1, 2, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("printed", "epoch", "odd"),
    [
        ("1767261600", 1767261600, False),
        ("", 0, True),  # git prints no time for a commit without a readable date, shows it as 1970
        ("  \n", 0, True),
        ("-5", 0, True),
        ("253402300800", clock.LAST_EPOCH, True),  # the year 10000
        ("٣", 0, True),
    ],
)
def test_git_epoch_reads_what_git_prints(printed: str, epoch: int, odd: bool) -> None:
    """Commits dated in the year 10000, or with no readable date, ended report/maintain/verify (exit 3)."""
    assert clock.git_epoch(printed) == epoch
    assert clock.git_epoch(printed.encode()) == epoch
    assert clock.odd_epoch(printed) is odd
    assert clock.from_epoch(clock.git_epoch(printed)).year in (1970, 2026, 9999)

from __future__ import annotations

import datetime as dt

import pytest

from squadmem.model.errors import SquadmemError
from squadmem.model.layout import TierFile, check_name, classify
from squadmem.model.logs import parse_log_name
from squadmem.model.places import SQUAD_PLACES


@pytest.mark.parametrize("name", ["picard", "data-2", "a.b_c", "X9"])
def test_check_name_accepts(name: str) -> None:
    assert check_name(name) == name


@pytest.mark.parametrize("name", ["", "../x", "a/b", ".hidden", "-dash", "a..b", "tab\tname", "nul\x00", "é"])
def test_check_name_refuses(name: str) -> None:
    with pytest.raises(SquadmemError, match="invalid agent name"):
        check_name(name)


@pytest.mark.parametrize(
    ("rel", "expected"),
    [
        (".squad/memory/hot/picard.md", TierFile("hot", "picard", ".squad/memory/hot/picard.md")),
        (".squad/memory/wiki/security.md", TierFile("wiki", "security", ".squad/memory/wiki/security.md")),
        (".squad/memory/log/2026-01-01.md", None),
        (".squad/memory/hot/.hidden.md", None),
        (".squad/memory/hot/a/b.md", None),
        (".squad/memory/cold/picard.txt", None),
        (".squad/memory/local/picard.md", None),
    ],
)
def test_classify(rel: str, expected: TierFile | None) -> None:
    assert classify(rel, SQUAD_PLACES) == expected


def test_tierfile_owner() -> None:
    assert TierFile("wiki", "security", "x").owner == "wiki:security"
    assert TierFile("cold", "picard", "x").owner == "picard"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("2026-03-01.md", dt.date(2026, 3, 1)),
        ("2026-02-30.md", None),
        ("2026-3-1.md", None),
        ("2026-03-01.txt", None),
        (".gitkeep", None),
    ],
)
def test_parse_log_name(name: str, expected: dt.date | None) -> None:
    assert parse_log_name(name) == expected

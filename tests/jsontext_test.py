"""JSON squadmem reads: nesting bounded, lone surrogates mended, never a RecursionError."""

from __future__ import annotations

import json

import pytest

from squadmem.model import jsontext


@pytest.mark.parametrize(
    "text",
    [
        "[" * 10_000,
        '{"a":' * 10_000,
        "[" * (jsontext.MAX_DEPTH + 1) + "]" * (jsontext.MAX_DEPTH + 1),
        "1" * 5000,
    ],
)
def test_loads_refuses_deep_nesting_and_long_numbers(text: str) -> None:
    """A pending-uses file or squad-spawn.json nested 10,000 deep ended commands with a RecursionError."""
    with pytest.raises(json.JSONDecodeError):
        jsontext.loads(text)


def test_loads_reads_what_stays_within_the_bound() -> None:
    deep = "[" * jsontext.MAX_DEPTH + "]" * jsontext.MAX_DEPTH
    assert jsontext.loads(deep) == json.loads(deep)
    assert jsontext.loads('["' + "[" * 500 + '", "\\"[["]') == ["[" * 500, '"[[']


def test_loads_mends_lone_surrogates_and_keeps_pairs() -> None:
    """A hook's JSON with "\\ud800" made ``near --from-hook`` fail to encode its output (exit 3)."""
    found = jsontext.loads('{"a\\ud800": ["\\udc00x", "\\ud83d\\ude00"]}')
    assert found == {"a\ufffd": ["\ufffdx", "\U0001f600"]}
    json.dumps(found, ensure_ascii=False).encode("utf-8")

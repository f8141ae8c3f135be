"""A tiers.toml that is ``init``'s text with values changed is read without tomllib (the hooks read
it at every commit), and reads as tomllib reads it."""

from __future__ import annotations

import subprocess
import sys
import tomllib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from squadmem.model import settings
from squadmem.model.errors import SquadmemError

LINES = settings.TEMPLATE.split("\n")
ASSIGNED = [i for i, line in enumerate(LINES) if " = " in line and not line.startswith("#")]

# Values a user may type: plain ones, and near misses tomllib reads otherwise or refuses.
VALUES = st.one_of(
    st.integers(min_value=0, max_value=10**25).map(str),
    st.floats(min_value=0, max_value=1e6, allow_nan=False).map(repr),
    st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=12).map(lambda s: f'"{s}"'),
    st.text(max_size=8).map(lambda s: f'"{s}"'),
    st.sampled_from(
        [
            "007", "1_000", "+5", "-1", "1e3", "1.", ".5", "inf", "nan", "true", '""', "'UTC'",
            '"a\\tb"', '"Europe/Paris" # home', "", " 5", "5 ", '"UTC', "0x10", "0.0", "0",
        ]
    ),
)  # fmt: skip


def same(a: object, b: object) -> bool:
    """Equal, with the same types all the way down (7 is not 7.0 here)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def tomllib_of(text: str) -> dict[str, object] | None:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


@given(st.dictionaries(st.sampled_from(ASSIGNED), VALUES, max_size=4))
def test_edited_values_read_as_tomllib_reads_them(edits: dict[int, str]) -> None:
    lines = list(LINES)
    for index, value in edits.items():
        lines[index] = lines[index].partition(" = ")[0] + " = " + value
    text = "\n".join(lines)
    fast = settings.edited_template(text)
    if fast is not None:
        assert same(fast, tomllib_of(text))


OTHER_LINES = st.sampled_from(["", "# x", "[hot]", " ", "x = 1"])


@given(st.integers(min_value=0, max_value=len(LINES) - 1), OTHER_LINES)
def test_any_other_line_changed_is_left_to_tomllib(index: int, line: str) -> None:
    lines = list(LINES)
    if lines[index] == line:
        return
    lines[index] = line
    assert settings.edited_template("\n".join(lines)) is None


def test_the_template_reads_as_tomllib_reads_it() -> None:
    assert same(settings.edited_template(settings.TEMPLATE), tomllib.loads(settings.TEMPLATE))
    assert settings.edited_template(settings.TEMPLATE + "\n") is None
    assert settings.edited_template(settings.TEMPLATE.replace("\n", "\r\n")) is None


def test_an_edited_zone_is_read_without_tomllib() -> None:
    """The edit users make most, read at every commit: no tomllib (nor typing, which it imports)."""
    code = (
        "import sys; from squadmem.model import settings as s; "
        "t = s.TEMPLATE.replace('timezone = \"UTC\"', 'timezone = \"Europe/Paris\"'); "
        "print(s.parse(t, 't').timezone, 'tomllib' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "Europe/Paris False\n"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('timezone = "Mars/Olympus"', "timezone is not a known time zone: 'Mars/Olympus'"),
        ("max_bytes = 4097.5", "hot.max_bytes must be"),
        ('evict = "newest"', "hot.evict must be 'least-recent' or 'age-bytes'"),
    ],
)
def test_a_bad_value_read_without_tomllib_is_refused_as_before(line: str, message: str) -> None:
    key = line.partition(" = ")[0]
    lines = list(LINES)
    index = next(i for i in ASSIGNED if LINES[i].startswith(key + " = "))
    lines[index] = line
    text = "\n".join(lines)
    assert settings.edited_template(text) is not None
    with pytest.raises(SquadmemError) as caught:
        settings.parse(text, "tiers.toml")
    assert str(caught.value).startswith(f"tiers.toml:{index + 1}: {message}")

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from squadmem.engine import index
from squadmem.engine.catalog import INDEX_TITLE
from squadmem.model import sections

INDEX = f"## {INDEX_TITLE}\n- picard/a (cold, 2026-01-01)\n"


def test_insert_appends_at_the_end_without_an_index() -> None:
    assert index.insert("# H\n## A\na\n", "## B\nb\n") == "# H\n## A\na\n## B\nb\n"


def test_insert_goes_just_before_the_index() -> None:
    text = "# H\n## A\na\n" + INDEX
    assert index.insert(text, "## B\nb\n") == "# H\n## A\na\n## B\nb\n" + INDEX


def test_insert_adds_one_newline_where_the_destination_lacks_it() -> None:
    assert index.insert("## A\na", "## B\nb") == "## A\na\n## B\nb"


def test_insert_adds_one_newline_to_a_moved_text_that_lacks_it_before_the_index() -> None:
    assert index.insert("## A\na\n" + INDEX, "## B\nb") == "## A\na\n## B\nb\n" + INDEX


def test_insert_keeps_crlf_and_trailing_spaces() -> None:
    assert index.insert("## A\r\na  \r\n", "## B \r\nb\r\n") == "## A\r\na  \r\n## B \r\nb\r\n"


def test_insert_refuses_after_an_unclosed_fence() -> None:
    with pytest.raises(index.SpliceError):
        index.insert("## A\n```\ncode\n", "## B\nb\n")


def test_insert_refuses_a_setext_heading_that_would_merge_with_a_paragraph() -> None:
    with pytest.raises(index.SpliceError):
        index.insert("## A\nsome text\n", "B\n---\nb\n")


def test_remove_cuts_the_exact_bytes_with_children() -> None:
    text = "# H\n## A\na\n### child\nc\n\n## B\nb\n"
    rest, cut = index.remove(text, "## A\na\n### child\nc\n")
    assert (rest, cut) == ("# H\n## B\nb\n", "## A\na\n### child\nc\n\n")


def test_remove_finds_a_section_whose_trailing_newline_was_added() -> None:
    rest, cut = index.remove("## A\na\n## B\nb\n", "## B\nb")
    assert (rest, cut) == ("## A\na\n", "## B\nb\n")


def test_remove_refuses_a_section_that_is_not_there() -> None:
    with pytest.raises(index.SpliceError, match="not in the file"):
        index.remove("## A\na\n", "## B\nb\n")


def test_replace_adds_the_index_as_last_section() -> None:
    assert index.replace("# H\n## A\na", INDEX) == "# H\n## A\na\n\n" + INDEX  # a blank line before it


def test_replace_moves_an_index_that_is_not_last_to_the_end() -> None:
    text = "## A\na\n" + INDEX + "## B\nb\n"
    new = f"## {INDEX_TITLE}\n- new\n"
    assert index.replace(text, new) == "## A\na\n## B\nb\n\n" + new


def test_current_is_the_index_text() -> None:
    assert index.current("## A\na\n" + INDEX) == INDEX
    assert index.current("## A\na\n") is None


def test_render_is_newest_first_with_unknown_dates_last() -> None:
    lines = [
        index.Line("picard/old", "Old", "cold", dt.datetime(2026, 1, 1, tzinfo=dt.UTC)),
        index.Line("picard/new", "New", "archive", dt.datetime(2026, 2, 1, tzinfo=dt.UTC)),
        index.Line("picard/what", "What", "cold", None),
        index.Line("wiki:security", "2 sections", "wiki", dt.datetime(2026, 1, 15, tzinfo=dt.UTC)),
    ]
    text = index.render(lines, 20, "picard")
    assert text.splitlines() == [
        f"## {INDEX_TITLE}",
        index.NOTE,
        "",
        "- picard/new (archive, 2026-02-01)",
        "- wiki:security (wiki, 2026-01-15): 2 sections",
        "- picard/old (cold, 2026-01-01)",
        "- picard/what (cold, date unknown)",
    ]
    assert index.listed_ids(text) == ["picard/new", "wiki:security", "picard/old", "picard/what"]


def test_render_caps_the_lines_and_says_how_many_are_left_out() -> None:
    lines = [
        index.Line(f"picard/s{n}", f"S{n}", "cold", dt.datetime(2026, 1, 1 + n, tzinfo=dt.UTC))
        for n in range(5)
    ]
    rows = index.render(lines, 3, "picard").splitlines()[3:]
    assert rows == [
        "- picard/s4 (cold, 2026-01-05)",
        "- picard/s3 (cold, 2026-01-04)",
        "- and 3 more: squadmem list --agent picard",
    ]


def test_render_index_parses_as_one_section_titled_index() -> None:
    text = index.render([index.Line("a/b", "B", "cold", None)], 5, "a")
    (section,) = sections.split(text).sections
    assert index.is_index(section)


# -- properties ----------------------------------------------------------------------------------

_words = st.text(alphabet="abc #*`~>-_=<!\t", min_size=0, max_size=12)
_line = st.one_of(
    _words,
    st.sampled_from(["```", "~~~", "<div>", "-->", "<!--", "    code", "> quote", "- item", "---", "==="]),
)
_body = st.lists(_line, max_size=5).map(lambda rows: "".join(r + "\n" for r in rows))
_heading = st.sampled_from(["## A", "## B", "## C", "## A", "Setext\n---", f"## {INDEX_TITLE}"])
_section = st.tuples(_heading, _body, st.sampled_from(["\n", "\r\n", ""])).map(
    lambda t: t[0] + "\n" + t[1].replace("\n", t[2] or "\n") if t[2] else t[0] + "\n" + t[1]
)
_file = st.tuples(
    st.sampled_from(["", "# Title\n", "# T\n<!-- c -->\n\n"]), st.lists(_section, max_size=5)
).map(lambda t: t[0] + "".join(t[1]))


def _shape(text: str) -> list[str]:
    doc = sections.split(text)
    return [sections.trimmed(doc.header), *(sections.trimmed(s.text) for s in doc.sections)]


@settings(max_examples=300, deadline=None)
@given(source=_file, target=_file, pick=st.integers(min_value=0, max_value=9), chop=st.booleans())
def test_remove_then_insert_conserves_every_section(source: str, target: str, pick: int, chop: bool) -> None:
    """A move either refuses or leaves every section once, the added bytes at most two newlines."""
    if chop:
        source = source.rstrip("\n")
    found = sections.split(source).sections
    if not found:
        return
    moved = found[pick % len(found)].text
    try:
        rest, cut = index.remove(source, moved)
        landed = index.insert(target, cut)
    except index.SpliceError:
        return
    assert cut == moved or sections.trimmed(cut) == sections.trimmed(moved)
    before = sorted(_shape(source)[1:] + _shape(target)[1:])
    after = sorted(_shape(rest)[1:] + _shape(landed)[1:])
    assert before == after
    assert _shape(rest)[0] == _shape(source)[0]
    assert _shape(landed)[0] == _shape(target)[0]
    assert len(rest) + len(landed) - len(source) - len(target) in (0, 1, 2)
    assert cut in landed or cut + "\n" in landed


def _spliced(text: str, op: str, arg: str) -> str | None:
    """``Doc``'s answer: the new text, or None when it refuses."""
    doc = index.Doc(text)
    try:
        if op == "remove":
            doc.remove(arg)
        elif op == "insert":
            doc.insert(arg)
        else:
            doc.replace_index(arg)
    except index.SpliceError:
        return None
    return doc.text()


def _whole(text: str, op: str, arg: str) -> str | None:
    """The whole-file functions' answer: the new text, or None when they refuse."""
    try:
        if op == "remove":
            return index.remove(text, arg)[0]
        if op == "insert":
            return index.insert(text, arg)
        return index.replace(text, arg)
    except index.SpliceError:
        return None


@settings(max_examples=300, deadline=None)
@given(
    text=_file,
    other=_section,
    pick=st.integers(min_value=0, max_value=9),
    op=st.sampled_from(["remove", "insert", "replace"]),
    chop=st.booleans(),
)
def test_doc_splices_exactly_as_the_whole_file_functions(
    text: str, other: str, pick: int, op: str, chop: bool
) -> None:
    """A Doc checks a splice only where text joins; it accepts, refuses and writes exactly as they do."""
    if chop:
        text = text.rstrip("\n")
    found = sections.split(text).sections
    if op == "remove":
        arg = found[pick % len(found)].text if found else other
    elif op == "replace":
        arg = f"## {INDEX_TITLE}\n" + other.partition("\n")[2]
    else:
        arg = other
    assert _spliced(text, op, arg) == _whole(text, op, arg)


@settings(max_examples=150, deadline=None)
@given(text=_file, steps=st.lists(st.tuples(st.booleans(), _section, st.integers(0, 9)), max_size=6))
def test_doc_keeps_bytes_and_lines_through_a_run_of_splices(
    text: str, steps: list[tuple[bool, str, int]]
) -> None:
    """After any run of splices a Doc's text is what the whole-file functions make, its counts exact."""
    doc, whole = index.Doc(text), text
    for remove, other, pick in steps:
        found = sections.split(whole).sections
        if remove and found:
            arg = found[pick % len(found)].text
            expected = _whole(whole, "remove", arg)
            got = _spliced(doc.text(), "remove", arg)
            assert got == expected
            if expected is not None:
                doc.remove(arg)
                whole = expected
        else:
            expected = _whole(whole, "insert", other)
            if expected is not None:
                doc.insert(other)
                whole = expected
        assert doc.text() == whole
        assert doc.bytes == len(whole.encode("utf-8"))
        assert doc.lines == len(sections.lines(whole))


def test_an_index_line_leaves_out_the_title_its_id_already_says() -> None:
    when = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    says = [
        index.Line("picard/auth-tokens", "Auth tokens", "cold", when),
        index.Line("picard/auth-tokens-2", "Auth tokens", "cold", when),  # a repeated title
        index.Line("picard/2026-03-23-bugs-96-97", "2026-03-23: Bugs #96, #97", "archive", None),
    ]
    assert [x.render() for x in says] == [
        "- picard/auth-tokens (cold, 2026-01-01)",
        "- picard/auth-tokens-2 (cold, 2026-01-01)",
        "- picard/2026-03-23-bugs-96-97 (archive, date unknown)",
    ]
    other = [
        index.Line("wiki:security", "2 sections", "wiki", when),
        index.Line("picard/rotation", "Key rotation", "cold", when),  # an id= flag named it
    ]
    assert [x.render() for x in other] == [
        "- wiki:security (wiki, 2026-01-01): 2 sections",
        "- picard/rotation (cold, 2026-01-01): Key rotation",
    ]
    assert index.listed_ids("\n".join(x.render() for x in says + other)) == [x.id for x in says + other]


@settings(max_examples=300, deadline=None)
@given(before=_file, after=st.lists(_section, max_size=3), chop=st.booleans(), crlf=st.booleans())
def test_an_index_a_host_wrote_after_is_put_last_with_its_blank_line(
    before: str, after: list[str], chop: bool, crlf: bool
) -> None:
    """Regression: OpenClaw's dreaming appends its block after the Index; the refresh puts the Index
    last again, a blank line before it, and every other section is kept, in order, once."""
    host = "\n## Promoted From Short-Term Memory (2026-03-02)\n\n<!-- openclaw-memory-promotion:k -->\n- x\n"
    if crlf:
        host = host.replace("\n", "\r\n")
    tail = "".join(after) + (host.rstrip("\r\n") if chop else host)
    text = before + INDEX + tail
    assume(text.count(INDEX_TITLE) == 1)
    new = f"## {INDEX_TITLE}\n- new\n"
    try:
        result = index.replace(text, new)
    except index.SpliceError:
        assert _spliced(text, "replace", new) is None
        return
    assert _spliced(text, "replace", new) == result
    assert result.endswith(new)
    kept = result[: -len(new)]
    assert kept == "" or sections.lines(kept)[-1].strip() == ""  # a blank line before the Index
    shape = [sections.trimmed(s.text) for s in sections.split(result).sections]
    wanted = [sections.trimmed(s.text) for s in sections.split(text).sections if not index.is_index(s)]
    assert shape == [*wanted, sections.trimmed(new)]  # nothing lost, nothing duplicated, in order
    assert sections.trimmed(sections.split(result).header) == sections.trimmed(sections.split(text).header)

from __future__ import annotations

import json

import pytest
from conftest import GitRepo
from conftest import squadmem as run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from squadmem.commands import wiki
from squadmem.model import sections
from squadmem.model.errors import SquadmemError

PAGE = ".squad/memory/wiki/security.md"
WHEN = "2026-03-01T12:00:00+00:00"


@pytest.fixture
def started(repo: GitRepo) -> GitRepo:
    repo.commit("start", {"README.md": "x\n"}, date=WHEN)
    return repo


def squadmem(repo: GitRepo, *args: str, input: str | None = None) -> tuple[int, str, str]:
    return run_cli(repo, *args, input=input, env={"GIT_COMMITTER_DATE": WHEN})


def test_write_creates_the_page_and_commits(started: GitRepo) -> None:
    code, out, _ = squadmem(
        started, "wiki", "write", "security", "--title", "Key rotation", input="Every 90 days.\n"
    )
    assert code == 0, out
    assert started.read(PAGE).endswith("## Key rotation\nEvery 90 days.\n")
    assert started.git("log", "-1", "--format=%s").strip() == 'memory(wiki:security): write "Key rotation"'
    assert started.git("status", "--porcelain") == ""


def test_write_keeps_section_bytes_and_skips_repeats(started: GitRepo) -> None:
    entry = "## Threat model\nSTRIDE  \n### Assets\n- keys\n## Owners\nworf\n"
    assert squadmem(started, "wiki", "write", "security", input=entry)[0] == 0
    assert started.read(PAGE).endswith(entry)
    head = started.head()
    code, out, _ = squadmem(started, "wiki", "write", "security", input=entry)
    assert code == 0
    assert "nothing to write" in out
    assert started.head() == head


def test_write_replace_swaps_in_place(started: GitRepo) -> None:
    squadmem(started, "wiki", "write", "security", input="## A\none\n## B\ntwo\n")
    code, _, _ = squadmem(started, "wiki", "write", "security", "--replace", input="## A\nuno\n")
    assert code == 0
    assert started.read(PAGE).endswith("## A\nuno\n## B\ntwo\n")


def test_write_leaves_other_work_alone(started: GitRepo) -> None:
    started.write("notes.txt", "staged\n")
    started.git("add", "notes.txt")
    squadmem(started, "wiki", "write", "security", "--title", "T", input="x\n")
    assert "notes.txt" not in started.git("show", "--name-only", "--format=", "HEAD")
    assert started.git("diff", "--cached", "--name-only").split() == ["notes.txt"]


def test_write_json(started: GitRepo) -> None:
    code, out, _ = squadmem(started, "wiki", "write", "security", "--json", input="## A\nx\n")
    data = json.loads(out)
    assert code == 0
    assert data["added"] == ["A"]
    assert data["commit"]["subject"] == 'memory(wiki:security): write "A"'


@pytest.mark.parametrize(
    ("args", "entry", "message"),
    [
        ((), "", "squadmem: the wiki entry is empty"),
        ((), "no heading here\n", "squadmem: the wiki entry has no ## heading"),
        ((), "preamble\n## A\nx\n", "squadmem: the wiki entry has text before its first ## heading"),
        (("--file", "missing.md"), "", "squadmem: missing.md: cannot read"),
    ],
)
def test_write_bad_entry_exits_2_and_changes_nothing(
    started: GitRepo, args: tuple[str, ...], entry: str, message: str
) -> None:
    before = started.snapshot()
    code, _, err = squadmem(started, "wiki", "write", "security", *args, input=entry)
    assert code == 2
    assert err.splitlines()[0].startswith(message)
    assert started.snapshot() == before


def test_write_same_title_refused_without_replace(started: GitRepo) -> None:
    squadmem(started, "wiki", "write", "security", input="## A\none\n")
    before = started.snapshot()
    code, _, err = squadmem(started, "wiki", "write", "security", input="## A\ntwo\n")
    assert code == 2
    assert err.splitlines()[0] == f"squadmem: {PAGE}: already has a section 'A' (wiki:security/a)"
    assert started.snapshot() == before


def test_write_bad_topic_and_dirty_page_refused(started: GitRepo) -> None:
    before = started.snapshot()
    code, _, err = squadmem(started, "wiki", "write", "../etc", input="## A\nx\n")
    assert (code, err.splitlines()[0]) == (2, "squadmem: invalid topic name '../etc'")
    assert started.snapshot() == before
    started.write(PAGE, "# mine\n")
    before = started.snapshot()
    code, _, err = squadmem(started, "wiki", "write", "security", input="## A\nx\n")
    assert code == 2
    assert PAGE in err.splitlines()[0]
    assert started.snapshot() == before


def test_entry_sections_wraps_plain_text() -> None:
    (section,) = wiki.entry_sections("just text", "Title")
    assert section.text == "## Title\njust text\n"
    with pytest.raises(SquadmemError):
        wiki.entry_sections("x", "two\nlines")


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.text(
            alphabet=st.characters(blacklist_characters="\r\0\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"),
            max_size=40,
        ),
        min_size=1,
        max_size=6,
    )
)
def test_entry_sections_lose_nothing(bodies: list[str]) -> None:
    """Every byte of a ##-sectioned entry reaches the page: the sections join back to the entry."""
    entry = "".join(f"## S{n}\n{body.strip()}\n" for n, body in enumerate(bodies))
    found = wiki.entry_sections(entry, None)
    assert "".join(s.text for s in found) == sections.split(entry).join() == entry

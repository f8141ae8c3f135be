"""Squad's files cut into entries: one ``##`` section each, every byte of every entry kept."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from squadmem.model import sections, squad

HISTORY = ".squad/agents/picard/history.md"
SQUAD_HISTORY = """# Project Context

- **Project:** demo
- **Created:** 2026-01-05

## Core Context

Agent Picard leads; owns architecture.

## Recent Updates

📌 Team initialized on 2026-01-05

📌 Team update (2026-01-07T10:00:00Z): Auth moved to JWT — decided by Picard
follow-up line

## Learnings

Initial setup complete.

### Token refresh (2026-01-08)
Use sliding windows.
```
### not a heading
```

### Cache keys (2026-01-09)
- prefix with tenant
"""
DECISIONS = """# Squad Decisions

## Active Decisions

### 2026-01-06: Use JWT
**By:** Picard
**What:** tokens are JWT
**Why:** stateless

### 2026-01-07: Tabs
**By:** Data

## Governance

- All meaningful changes require team consensus
"""


def test_an_update_keeps_the_scribes_whole_timestamp_in_its_title() -> None:
    """Regression: an update titled at the first ':' lost the time, "📌 Team update (2026-01-07T10"."""
    assert squad.update_title("📌 Team update (2026-06-02T21:15:30Z): Use JWT — decided by Picard\n") == (
        "📌 Team update (2026-06-02T21:15:30Z)"
    )
    assert squad.update_title("📌 Team initialized on 2026-01-05\n") == "📌 Team initialized on 2026-01-05"
    assert squad.update_title("📌 Note: keep it short\n") == "📌 Note"


def test_history_entries_are_units() -> None:
    found = squad.entries(HISTORY, SQUAD_HISTORY)
    assert [(e.kind, e.title) for e in found] == [
        ("core", "Project Context"),  # the block squad init starts history.md with: standing context
        ("core", "Core Context"),
        ("update", "📌 Team initialized on 2026-01-05"),
        ("update", "📌 Team update (2026-01-07T10:00:00Z)"),
        ("preamble", "Learnings"),
        ("learning", "Token refresh (2026-01-08)"),
        ("learning", "Cache keys (2026-01-09)"),
    ]
    project, core, _, update, _, refresh, _ = found
    assert project.text == (
        "## Project Context\n<!-- squadmem: pin -->\n\n- **Project:** demo\n- **Created:** 2026-01-05\n\n"
    )
    assert core.text.startswith("## Core Context\n<!-- squadmem: pin -->\n")
    assert update.text == (
        "## 📌 Team update (2026-01-07T10:00:00Z)\n"
        "📌 Team update (2026-01-07T10:00:00Z): Auth moved to JWT — decided by Picard\nfollow-up line\n\n"
    )
    assert refresh.raw.startswith("### Token refresh (2026-01-08)\n")
    assert (
        refresh.text == "## Token refresh (2026-01-08)\nUse sliding windows.\n```\n### not a heading\n```\n\n"
    )


def test_decisions_are_flagged_and_governance_is_not() -> None:
    found = squad.entries(squad.DECISIONS, DECISIONS)
    assert [(e.kind, e.title) for e in found] == [
        ("decision", "2026-01-06: Use JWT"),
        ("decision", "2026-01-07: Tabs"),
        ("section", "Governance"),
    ]
    assert found[0].text.startswith("## 2026-01-06: Use JWT\n<!-- squadmem: kind=decision -->\n**By:**")
    assert "kind=decision" not in found[2].text


@pytest.mark.parametrize(
    ("path", "text", "title"),
    [
        (".squad/decisions/inbox/data-tabs.md", "### 2026-01-07: Tabs\n**By:** Data\n", "2026-01-07: Tabs"),
        (".squad/decisions/inbox/data-tabs.md", "Use tabs everywhere.\n", "data-tabs"),
        (".squad/decisions/inbox/data-tabs.md", "## Tabs\n**By:** Data\n", "Tabs"),
    ],
)
def test_inbox_files_are_decisions(path: str, text: str, title: str) -> None:
    (entry,) = squad.entries(path, text)
    assert (entry.kind, entry.title) == ("decision", title)
    assert "kind=decision" in entry.text


def test_an_inbox_drop_and_its_merged_entry_are_the_same_entry() -> None:
    """Scribe merges an inbox file into decisions.md as an ### entry: intake must know it is one entry."""
    drop = "### 2026-01-07: Tabs\n**By:** Data\n**What:** tabs\n"
    (dropped,) = squad.entries(".squad/decisions/inbox/data-tabs.md", drop)
    merged = squad.entries(squad.DECISIONS, "# D\n\n## Active Decisions\n\n" + drop + "\n")
    assert dropped.key == merged[0].key


def test_an_entry_keeps_its_key_across_files_and_levels() -> None:
    """squad nap moves entries to history-archive.md: the same entry, the same key, the same age."""
    archive = ".squad/agents/picard/history-archive.md"
    body = "### Token refresh (2026-01-08)\nUse sliding windows.\n"
    in_history = squad.entries(HISTORY, "# H\n\n## Learnings\n\n" + body)
    in_archive = squad.entries(archive, "# A\n\n## Archived learnings\n" + body + "\n\n")
    assert in_history[0].key == in_archive[0].key


@pytest.mark.parametrize(
    ("path", "owner"),
    [
        (".squad/agents/picard/history.md", "picard"),
        (".squad/agents/picard/history-archive.md", "picard"),
        (".squad/agents/picard/charter.md", None),
        (".squad/decisions.md", "decisions"),
        (".squad/decisions-archive.md", "decisions"),
        (".squad/decisions/inbox/x.md", "decisions"),
        (".squad/decisions/inbox/.x.md", None),
        (".squad/memory/hot/picard.md", None),
    ],
)
def test_source_owner(path: str, owner: str | None) -> None:
    assert squad.source_owner(path) == owner


# -- properties: nothing lost, nothing duplicated, bytes preserved ---------------------------------

_body_line = st.sampled_from(
    [
        "text\n",
        "- item\n",
        "\n",
        "```\n",
        "### fenced\n",
        "#### deeper\n",
        "> quote\n",
        "crlf\r\n",
        "**By:** x\n",
    ]
)


@st.composite
def _history(draw: st.DrawFn) -> str:
    out = ["# Project Context\n\n- **Project:** p\n\n"]
    for name in draw(
        st.lists(
            st.sampled_from(["Core Context", "Recent Updates", "Learnings", "Notes", "2026-03-01 — Fix #9"]),
            max_size=4,
        )
    ):
        out.append(f"## {name}\n")
        out.append(draw(st.sampled_from(["", "\n", "intro\n\n"])))
        for _ in range(draw(st.integers(0, 4))):
            if name == "Recent Updates":
                out.append(
                    f"📌 Team update ({draw(st.integers(1, 28))}): {draw(st.sampled_from(['a', 'b:c']))}\n"
                )
                out.extend(draw(st.lists(st.sampled_from(["more\n", "- x\n"]), max_size=2)))
                out.append("\n")
            else:
                out.append(f"### {draw(st.sampled_from(['Topic', 'Other (2026-01-02)', 'x']))}\n")
                lines = draw(st.lists(_body_line, max_size=5))
                if "".join(lines).count("```") % 2:
                    lines.append("```\n")
                out.extend(lines)
    return "".join(out)


def _body(entry: squad.Entry) -> str:
    """What of an entry's source bytes its tier text must end with, byte for byte."""
    if entry.kind == "learning":
        return "".join(sections.lines(entry.raw)[1:])
    if entry.kind == "core" and entry.title == squad.PROJECT:  # the header's block: its # heading line
        return "".join(sections.lines(entry.raw)[1:])
    if entry.kind in ("core", "section"):
        (section,) = sections.split(entry.raw).sections
        return "".join(sections.lines(entry.raw)[section.heading_lines :])
    return entry.raw


@settings(max_examples=300, deadline=None)
@given(text=_history())
def test_each_entry_is_one_section_that_keeps_its_bytes(text: str) -> None:
    for entry in squad.entries(HISTORY, text):
        (single,) = sections.split(entry.text).sections
        assert single.text == entry.text
        assert entry.text.endswith(_body(entry))


@settings(max_examples=300, deadline=None)
@given(text=_history())
def test_entries_partition_each_container(text: str) -> None:
    """Per container: heading + preamble + the entries' raw bytes, in order, is the section byte for byte."""
    doc = sections.split(text)
    rebuilt = []
    (project,) = [e for e in squad.entries(HISTORY, doc.header) if e.title == squad.PROJECT]
    assert doc.header.endswith(project.raw)  # the header's # Project Context block: an entry of its own
    for section in doc.sections:
        found = [e for e in squad.entries(HISTORY, doc.header + section.text) if e != project]
        if len(found) == 1 and found[0].kind in ("core", "section"):
            assert found[0].raw == section.text
            rebuilt.append(found[0].raw)
            continue
        rows = sections.lines(section.text)
        head = "".join(rows[: section.heading_lines])
        body = section.text[len(head) :]
        joined = "".join(e.raw for e in found)
        if found and found[0].kind == "preamble":
            assert body == joined
        else:
            assert body.endswith(joined)
            assert not body[: len(body) - len(joined)].strip()
        rebuilt.append(section.text)
    assert doc.header + "".join(rebuilt) == text
    assert 1 + sum(len(squad.entries(HISTORY, doc.header + s.text)) - 1 for s in doc.sections) == len(
        squad.entries(HISTORY, text)
    )


# -- blocks Squad's agents leave open --------------------------------------------------------------


@pytest.mark.parametrize(
    ("tail", "closer"),
    [
        ("```bash\necho hi\n", "```\n"),  # a file cut short inside its last fence
        ("```bash", "\n```\n"),  # ... and without its last line ending
        ("~~~~\ncode\n```\n", "~~~~\n"),  # the fence it opened, not the first that looks like one
        ("<!-- note to self\nmore\n", "-->\n"),
        ("<div>\nraw html\n", "\n"),  # a blank line ends it
        ("text\r\n```\r\ncode\r\n", "```\r\n"),  # the file's line endings
    ],
)
def test_an_entry_left_open_is_closed_after_its_bytes(tail: str, closer: str) -> None:
    text = f"## Learnings\n\n### Open (2026-03-01)\n{tail}"
    (entry,) = squad.entries(HISTORY, text)
    assert entry.raw == f"### Open (2026-03-01)\n{tail}"
    assert entry.text == f"## Open (2026-03-01)\n{tail}{closer}"
    assert squad.stands_alone(entry.text)
    found = sections.split(entry.text + "## Next\nx\n").sections
    assert [s.raw_heading.strip() for s in found] == ["Open (2026-03-01)", "Next"]


def test_an_entry_that_closes_its_blocks_gets_nothing_added() -> None:
    for tail in ("```\ncode\n```\n", "<!-- c -->\n", "<div>\nx\n\n", "plain"):
        assert squad.closing(f"## T\n{tail}") == ""


@st.composite
def _open_history(draw: st.DrawFn) -> str:
    """A history whose entries may leave a fence or an HTML block open, as real ones do."""
    text = draw(_history())
    tail = draw(st.sampled_from(["", "```py\nx = 1\n", "~~~\n", "<!-- open\n", "<pre>\n", "```"]))
    return text + (f"## Learnings\n\n### Cut short\n{tail}" if tail else "")


@settings(max_examples=300, deadline=None)
@given(text=_open_history())
def test_every_entry_stands_alone_and_keeps_its_bytes(text: str) -> None:
    """Nothing lost, nothing duplicated: each entry is one section that another may follow, made of
    its source bytes and at most one closing line after them."""
    for entry in squad.entries(HISTORY, text):
        assert squad.stands_alone(entry.text)
        body = _body(entry)
        assert body in entry.text
        added = entry.text[entry.text.rindex(body) + len(body) :] if body else ""
        assert len(sections.lines(added.lstrip("\r\n"))) <= 1
        followed = sections.split(entry.text + "## Next\nx\n").sections
        assert followed[-1].text == "## Next\nx\n"


def test_a_setext_heading_is_written_as_an_atx_heading() -> None:
    """Regression (a real history-archive.md: "### Impact" then a paragraph underlined with ---,
    a setext heading): taken in as it was, the line joined the paragraph before it in the tier
    file and intake refused the whole migration."""
    text = "## Learnings\n\n### Impact\nResearch validated the plan.\n---\n## Next\nx\n"
    found = squad.entries(HISTORY, text)
    setext = next(e for e in found if e.kind == "section")
    assert setext.raw == "Research validated the plan.\n---\n"
    assert setext.text == "## Research validated the plan.\n"
    assert setext.formers == (setext.raw,) and setext.keys[1] == sections.content_key(setext.raw)
    placed = sections.split("## Before\nsome paragraph\n" + setext.text + "## After\ny\n").sections
    assert [s.raw_heading.strip() for s in placed] == ["Before", "Research validated the plan.", "After"]
    multi = squad.entries(HISTORY, "**Narration budget**\nprotocol\n- \nbody\n")
    assert [e.text for e in multi] == ["## **Narration budget** protocol\nbody\n"]


def test_an_ordinary_entry_has_one_key() -> None:
    (entry,) = squad.entries(HISTORY, "## Learnings\n\n### A\nx\n")
    assert entry.keys == (entry.key,)


def test_a_dated_section_with_parts_is_one_entry() -> None:
    """Regression (real teams write each learning as ``## 2026-08-19 — Issue #236`` with ``### Context``,
    ``### Fix``, ``### Validation`` parts): each part was its own entry, cut from what it explains."""
    text = (
        "## Learnings\n\n### Kept apart (2026-08-01)\nx\n\n"
        "## 2026-08-19 — Issue #236: overrides ignored\n\n### Context\nwhy\n### Fix\nhow\n"
        "## Learnings (archived 2026-03-01)\n\n### Old one\ny\n"
    )
    found = squad.entries(HISTORY, text)
    assert [(e.kind, e.title) for e in found] == [
        ("learning", "Kept apart (2026-08-01)"),
        ("section", "2026-08-19 — Issue #236: overrides ignored"),
        ("learning", "Old one"),
    ]
    dated = found[1]
    assert dated.text == "## 2026-08-19 — Issue #236: overrides ignored\n\n### Context\nwhy\n### Fix\nhow\n"
    assert dated.formers[1:] == ("## Context\nwhy\n", "## Fix\nhow\n")  # as squadmem cut it before
    assert dated.taken(lambda k: k in {sections.content_key(t) for t in dated.formers[1:]})
    assert not dated.taken(lambda k: k == sections.content_key("## Context\nwhy\n"))


def test_a_dated_section_in_the_decision_files_is_a_decision() -> None:
    text = "# Decisions\n\n## 2026-03-27: Refs synchronized\n\n### Local\nmain\n\n## Governance\n\n- x\n"
    found = squad.entries(".squad/decisions-archive.md", text)
    assert [(e.kind, e.title) for e in found] == [
        ("decision", "2026-03-27: Refs synchronized"),
        ("section", "Governance"),
    ]
    assert found[0].text.startswith("## 2026-03-27: Refs synchronized\n<!-- squadmem: kind=decision -->\n")


def test_the_scribes_core_context_variants_are_core_context() -> None:
    """Regression (replaying a real team): the Scribe renamed it ``## Core Context (Summarized)``
    and later ``(Essential)``; those were plain sections, and the older versions stayed pinned."""
    text = "## Core Context (Summarized)\n\n### Architecture\nx\n\n## Learnings\n\n### A\ny\n"
    core, learning = squad.entries(HISTORY, text)
    assert (core.kind, core.title) == ("core", "Core Context (Summarized)")
    assert core.text == "## Core Context (Summarized)\n<!-- squadmem: pin -->\n\n### Architecture\nx\n\n"
    assert core.formers[1:] == ("## Architecture\nx\n\n",)  # as earlier squadmem cut it
    assert learning.kind == "learning"
    assert not squad.is_core_heading("Core Contextual")

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from squadmem.engine import index
from squadmem.engine.writing import settle
from squadmem.model import merge, sections
from squadmem.model.places import SQUAD_PLACES

HOT = ".squad/memory/hot/picard.md"
COLD = ".squad/memory/cold/picard.md"
ARCHIVE = ".squad/memory/archive/picard.md"
HEADER = "# picard: hot\n\n"


def doc(*parts: str, header: str = HEADER) -> str:
    return header + "".join(parts)


def texts(text: str) -> list[str]:
    return [s.text for s in sections.split(text).sections]


@dataclasses.dataclass(frozen=True)
class Unit:
    """One section's fate on one side: unchanged, edited (new body), deleted."""

    fate: str
    body: str = ""


Case = tuple[list[tuple[str, str, str]], list[str], list[str], list[str]]


@st.composite
def three_way(draw: st.DrawFn, repeats: bool = False) -> Case:
    """Units as (base, ours, theirs) texts ('' when absent), and the three files' section lists.

    Each side is derived from base by keeping, editing or deleting each section,
    adding sections, and reordering. Without ``repeats`` every title is unique.
    """
    count = draw(st.integers(0, 6))
    if repeats:
        titles = draw(st.lists(st.sampled_from(["A", "B", "A"]), min_size=count, max_size=count))
    else:
        titles = [f"S{n}" for n in range(count)]
    units: list[tuple[str, str, str]] = []
    tag = 0
    base, ours, theirs = [], [], []
    for n, title in enumerate(titles):
        original = f"## {title}\nbase {n}\n"
        sides = []
        for _side in ("ours", "theirs"):
            fate = draw(st.sampled_from(["same", "same", "edit", "delete"]))
            tag += 1
            sides.append(
                original if fate == "same" else "" if fate == "delete" else f"## {title}\nedit {n}.{tag}\n"
            )
        if draw(st.booleans()) and sides[0] not in ("", original):
            sides[1] = sides[0]  # the same edit on both sides
        units.append((original, sides[0], sides[1]))
        base.append(original)
        ours.append(sides[0])
        theirs.append(sides[1])
    for side in (ours, theirs):
        for _ in range(draw(st.integers(0, 2))):
            tag += 1
            title = draw(st.sampled_from(["A", "New"])) if repeats else f"New{tag}"
            side.insert(draw(st.integers(0, len(side))), f"## {title}\nadd {tag}\n")
    if draw(st.booleans()):
        tag += 1
        shared = f"## Both\nadd {tag}\n"
        ours.append(shared)
        theirs.insert(draw(st.integers(0, len(theirs))), shared)
    ours = [s for s in ours if s]
    theirs = [s for s in theirs if s]
    if draw(st.booleans()):
        ours = draw(st.permutations(ours))
    if draw(st.booleans()):
        theirs = draw(st.permutations(theirs))
    return units, base, list(ours), list(theirs)


@settings(max_examples=200, deadline=None)
@given(three_way())
def test_merge_keeps_every_section_once(case: Case) -> None:
    units, base, ours, theirs = case
    result = merge.merge(doc(*base), doc(*ours), doc(*theirs))
    got = texts(result.text)
    assert sections.split(result.text).header == HEADER
    conflicted = [s for s in got if "<<<<<<< ours" in s]
    plain = [s for s in got if s not in conflicted]
    # every section comes from some side, none twice
    assert all(s in base or s in ours or s in theirs for s in plain)
    assert len(plain) == len(set(plain))
    # additions (on either side, identical ones once) are all there
    added = {s for s in ours + theirs if s not in base and not any(s in u[1:] for u in units)}
    assert added <= set(plain)
    expected_conflicts = 0
    for original, mine, other in units:
        if mine == other:
            want = mine or None
        elif mine == original:
            want = other or None
        elif other == original:
            want = mine or None
        elif not mine or not other:
            want = mine or other  # deleted on one side, edited on the other: the edit stays
        else:
            expected_conflicts += 1
            continue
        if want is None:
            assert original not in got
        else:
            assert want in plain
    assert len(result.conflicts) == expected_conflicts == len(conflicted)


@settings(max_examples=150, deadline=None)
@given(three_way(repeats=True))
def test_merge_with_repeated_titles_loses_and_doubles_nothing(case: Case) -> None:
    """Titles that repeat make identity ambiguous: still nothing lost and nothing doubled."""
    units, base, ours, theirs = case
    result = merge.merge(doc(*base), doc(*ours), doc(*theirs))
    got = texts(result.text)
    for text in {*ours, *theirs} - set(base):
        assert text in got or text.split("\n", 1)[1] in result.text
    for original, mine, other in units:
        if original == mine == other:
            assert original in got
    plain = [s for s in got if "<<<<<<<" not in s]
    for text in plain:
        assert plain.count(text) <= max(ours.count(text), theirs.count(text), 1)


def test_merge_conflict_markers_stay_inside_the_section() -> None:
    base = doc("## A\none\n", "## B\nkeep\n")
    ours = doc("## A\nmine\n", "## B\nkeep\n")
    theirs = doc("## A\nyours\n", "## B\nkeep\n")
    result = merge.merge(base, ours, theirs)
    assert result.conflicts == ("A",)
    assert result.text == doc("## A\n<<<<<<< ours\nmine\n=======\nyours\n>>>>>>> theirs\n", "## B\nkeep\n")


def test_merge_both_added_keeps_both_and_identical_once() -> None:
    base = doc("## A\na\n")
    ours = doc("## A\na\n", "## Ours\no\n", "## Same\ns\n")
    theirs = doc("## A\na\n", "## Theirs\nt\n", "## Same\ns\n")
    result = merge.merge(base, ours, theirs)
    assert result.conflicts == ()
    assert texts(result.text) == ["## A\na\n", "## Ours\no\n", "## Theirs\nt\n", "## Same\ns\n"]


def test_merge_deleted_and_edited_keeps_the_edit() -> None:
    base = doc("## A\na\n", "## B\nb\n")
    result = merge.merge(base, doc("## B\nb\n"), doc("## A\nedited\n", "## B\nb\n"))
    assert texts(result.text) == ["## A\nedited\n", "## B\nb\n"]
    assert result.kept == ("A",)


def test_merge_index_is_ours_when_both_refreshed_it() -> None:
    index_base = "## Index → Deeper Tiers\n- x\n"
    base = doc("## A\na\n", index_base)
    ours = doc("## A\na\n", "## Index → Deeper Tiers\n- ours\n")
    theirs = doc("## A\na\n", "## B\nb\n", "## Index → Deeper Tiers\n- theirs\n")
    result = merge.merge(base, ours, theirs)
    assert result.conflicts == ()
    assert texts(result.text) == ["## A\na\n", "## B\nb\n", "## Index → Deeper Tiers\n- ours\n"]


def test_merge_adds_a_line_ending_where_a_last_section_moves_up() -> None:
    base = doc("## A\na\n")
    ours = doc("## A\na\n", "## O\no")
    theirs = doc("## A\na\n", "## T\nt")
    result = merge.merge(base, ours, theirs)
    assert texts(result.text) == ["## A\na\n", "## O\no\n", "## T\nt"]


def test_merge_header_is_a_line_merge() -> None:
    base = doc("## A\na\n", header="# t\n\none\n")
    ours = doc("## A\na\n", header="# t\n\nmine\n")
    theirs = doc("## A\na\n", header="# t\n\none\n")
    assert merge.merge(base, ours, theirs).text == ours


def test_merge_keeps_crlf_bytes() -> None:
    base = "# h\r\n\r\n## A\r\na\r\n## B\r\nb\r\n"
    ours = "# h\r\n\r\n## A\r\na\r\n## B\r\nb\r\n## C\r\nc\r\n"
    theirs = "# h\r\n\r\n## A\r\nedited\r\n## B\r\nb\r\n"
    assert merge.merge(base, ours, theirs).text == "# h\r\n\r\n## A\r\nedited\r\n## B\r\nb\r\n## C\r\nc\r\n"


def test_merge_follows_the_reordering_side() -> None:
    base = doc("## A\na\n", "## B\nb\n", "## C\nc\n")
    ours = doc("## A\nedited\n", "## B\nb\n", "## C\nc\n")
    theirs = doc("## C\nc\n", "## A\na\n", "## B\nb\n")
    assert texts(merge.merge(base, ours, theirs).text) == ["## C\nc\n", "## A\nedited\n", "## B\nb\n"]


# --- moves across files --------------------------------------------------------------------------


def test_hints_move_to_a_file_merged_by_the_driver_drops_and_replaces() -> None:
    base = {HOT: doc("## A\na\n", "## B\nb\n"), COLD: doc("## C\nc\n")}
    ours = {HOT: doc("## B\nb\n"), COLD: doc("## C\nc\n", "## A\na\n")}
    theirs = {HOT: doc("## A\nedited\n", "## B\nb\n"), COLD: doc("## C\nc\n", "## D\nd\n")}
    hot = merge.merge(base[HOT], ours[HOT], theirs[HOT], hints=merge.hints(HOT, base, ours, theirs))
    cold = merge.merge(base[COLD], ours[COLD], theirs[COLD], hints=merge.hints(COLD, base, ours, theirs))
    assert texts(hot.text) == ["## B\nb\n"]
    assert texts(cold.text) == ["## C\nc\n", "## A\nedited\n", "## D\nd\n"]


def test_hints_move_to_a_file_git_takes_whole_keeps_the_edit_and_says_where() -> None:
    base = {HOT: doc("## A\na\n", "## B\nb\n"), COLD: doc("## C\nc\n")}
    ours = {HOT: doc("## B\nb\n"), COLD: doc("## C\nc\n", "## A\na\n")}
    theirs = {HOT: doc("## A\nedited\n", "## B\nb\n"), COLD: base[COLD]}
    found = merge.hints(HOT, base, ours, theirs)
    assert found.drop == frozenset()
    assert found.settle == (merge.Relocation(HOT, COLD, "## A\na\n", "## A\nedited\n"),)
    assert texts(merge.merge(base[HOT], ours[HOT], theirs[HOT], hints=found).text) == [
        "## A\nedited\n",
        "## B\nb\n",
    ]


def test_hints_mirror_when_theirs_moved_and_ours_edited() -> None:
    base = {HOT: doc("## A\na\n", "## B\nb\n"), ARCHIVE: doc()}
    ours = {HOT: doc("## A\nedited\n", "## B\nb\n"), ARCHIVE: doc("## Z\nz\n")}
    theirs = {HOT: doc("## B\nb\n"), ARCHIVE: doc("## A\na\n")}
    hot = merge.merge(base[HOT], ours[HOT], theirs[HOT], hints=merge.hints(HOT, base, ours, theirs))
    found = merge.hints(ARCHIVE, base, ours, theirs)
    arch = merge.merge(base[ARCHIVE], ours[ARCHIVE], theirs[ARCHIVE], hints=found)
    assert texts(hot.text) == ["## B\nb\n"]
    assert sorted(texts(arch.text)) == ["## A\nedited\n", "## Z\nz\n"]


def test_hints_section_moved_to_two_different_files_stays_in_one() -> None:
    """Regression: two maintain runs moved the same sections to cold on one branch, archive on the other."""
    base = {HOT: doc("## A\na\n", "## B\nb\n"), COLD: doc("## C\nc\n"), ARCHIVE: doc()}
    ours = {HOT: doc("## B\nb\n"), COLD: doc("## C\nc\n", "## A\na\n"), ARCHIVE: doc()}
    theirs = {HOT: doc("## B\nb\n", "## New\nn\n"), COLD: doc(), ARCHIVE: doc("## A\na\n", "## C\nc\n")}
    cold = merge.merge(base[COLD], ours[COLD], theirs[COLD], hints=merge.hints(COLD, base, ours, theirs))
    assert texts(cold.text) == []  # A is in theirs' archive, which git takes whole


FILES = (HOT, COLD, ARCHIVE)


def git_merge(base: dict[str, str], ours: dict[str, str], theirs: dict[str, str]) -> dict[str, str]:
    """What git does with the driver configured: one side's file when only it changed, else the driver."""
    result = {}
    for path in FILES:
        b, o, t = base[path], ours[path], theirs[path]
        if o == t or b == t:
            result[path] = o
        elif b == o:
            result[path] = t
        else:
            driven.append(path)
            found = merge.hints(path, base, ours, theirs)
            result[path] = merge.merge(b, o, t, hints=found).text
            relocations.extend(found.settle)  # doctor --fix settles them after the merge
    return result


relocations: list[merge.Relocation] = []
driven: list[str] = []


@st.composite
def moves_and_edits(
    draw: st.DrawFn,
) -> tuple[list[tuple[str, str, str]], dict[str, str], dict[str, str], dict[str, str]]:
    """Sections spread over hot, cold and archive; each side keeps, edits, moves or deletes each."""
    count = draw(st.integers(1, 6))
    units = []
    placed: dict[str, dict[str, list[str]]] = {
        side: {p: [] for p in FILES} for side in ("base", "ours", "theirs")
    }
    for n in range(count):
        home = draw(st.sampled_from(FILES))
        original = f"## S{n}\nbase {n}\n"
        placed["base"][home].append(original)
        fates = []
        for side in ("ours", "theirs"):
            fate = draw(st.sampled_from(["keep", "edit", "move", "move", "delete"]))
            if fate == "keep":
                placed[side][home].append(original)
            elif fate == "edit":
                placed[side][home].append(f"## S{n}\n{side} {n}\n")
            elif fate == "move":
                to = draw(st.sampled_from([p for p in FILES if p != home]))
                placed[side][to].append(original)
                fate = f"move {to}"
            fates.append(fate)
        units.append((original, fates[0], fates[1]))
    for side in ("ours", "theirs"):  # unrelated additions, so that both sides change more files
        for number, path in enumerate(FILES):
            if draw(st.booleans()):
                placed[side][path].insert(0, f"## {side}-{number}\nnoise\n")
    trees = {side: {p: doc(*placed[side][p]) for p in FILES} for side in placed}
    return units, trees["base"], trees["ours"], trees["theirs"]


@settings(max_examples=200, deadline=None)
@given(moves_and_edits())
def test_merge_across_files_loses_and_doubles_nothing(
    case: tuple[list[tuple[str, str, str]], dict[str, str], dict[str, str], dict[str, str]],
) -> None:
    """Moves on one side, edits or other moves on the other: after the merge (and doctor --fix) each
    section is in one place, edited where a side edited it, at its new place where a side moved it."""
    units, base, ours, theirs = case
    relocations.clear()
    driven.clear()
    result = git_merge(base, ours, theirs)
    copies: dict[str, list[str]] = {}
    for path in FILES:
        for section in sections.split(result[path]).sections:
            copies.setdefault(section.raw_heading, []).append(path)
    for paths in copies.values():  # a second copy only where git took a file whole, never by the driver
        assert len(paths) == 1 or not set(paths) <= set(driven), paths
    for item in relocations:
        done = settle.Relocation(item.source, item.target, item.old, item.new)
        result[item.target] = settle.swapped(result[item.target], done)
        result[item.source] = index.remove(result[item.source], item.new)[0]
    result.update(settle.without_repeats(result, SQUAD_PLACES)[0])
    where: dict[str, list[tuple[str, str]]] = {}
    for path in FILES:
        for section in sections.split(result[path]).sections:
            where.setdefault(section.raw_heading, []).append((path, section.text))
    for n, (original, mine, other) in enumerate(units):
        found = where.get(f"S{n}", [])
        assert len(found) <= 1, found
        fates = {mine, other}
        if fates <= {"keep", "delete"} and "delete" in fates:
            assert not found
            continue
        assert len(found) == 1
        path, text = found[0]
        if mine == other == "edit":
            assert "<<<<<<<" in text
        elif "edit" in fates:
            assert text == f"## S{n}\n{'ours' if mine == 'edit' else 'theirs'} {n}\n"
        else:
            assert text == original
        moved = [f.split()[1] for f in (mine, other) if f.startswith("move")]
        if moved and not (mine == other == "edit"):
            assert path in moved


def test_hints_section_both_moved_to_driven_files_stays_at_ours_place() -> None:
    """Both new files are merged by the driver: ours' place wins, in both files' merges alike."""
    base = {HOT: doc("## A\na\n", "## B\nb\n"), COLD: doc("## C\nc\n"), ARCHIVE: doc("## Z\nz\n")}
    ours = {HOT: doc("## B\nb\n"), COLD: doc("## C\nc\n", "## A\na\n"), ARCHIVE: doc("## Y\ny\n")}
    theirs = {
        HOT: doc("## B\nb\n"),
        COLD: doc("## C\nc\n", "## D\nd\n"),
        ARCHIVE: doc("## Z\nz\n", "## A\na\n"),
    }
    merged = {
        path: merge.merge(base[path], ours[path], theirs[path], hints=merge.hints(path, base, ours, theirs))
        for path in (COLD, ARCHIVE)
    }
    assert texts(merged[COLD].text) == ["## C\nc\n", "## A\na\n", "## D\nd\n"]
    assert texts(merged[ARCHIVE].text) == ["## Y\ny\n"]

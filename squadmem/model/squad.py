"""Squad's own memory files, cut into entries: the unit squadmem takes in, ages and moves.

Squad's agents and its Scribe keep appending to growing containers:

- ``.squad/agents/<agent>/history.md`` (and ``history-archive.md``, written by
  ``squad nap``): ``## Core Context``, ``## Recent Updates`` holding one
  ``📌`` paragraph per team update, ``## Learnings`` holding one
  ``### Topic (date)`` entry per learning;
- ``.squad/decisions.md`` (and ``decisions-archive.md``): ``## Active
  Decisions`` holding one ``### YYYY-MM-DD: Title`` entry per decision, and
  ``## Governance``; drop-box files in ``.squad/decisions/inbox/``.

Each entry becomes one ``##`` section of a tier file (its *tier text*):

- a ``###`` entry: its heading line with ``###`` written ``##``, then its
  body byte for byte;
- a ``📌`` paragraph: a ``## `` heading made from its first line (up to the
  first ``: ``), then the paragraph byte for byte;
- text between a container's heading and its first entry (its preamble),
  when not blank: ``## <container heading>`` and that text;
- a container whose heading is setext (a paragraph underlined with ``---``,
  which Squad's agents write by accident as often as on purpose): its heading
  written ``## <heading text>`` on one line, its body byte for byte; left as
  it was, the next section's heading could join the paragraph before it;
- a dated ``##`` section (``## 2026-08-19 — Issue #236``) whose ``###``
  headings are its parts (``### Context``, ``### Fix``): one entry, whole
  (:func:`is_entry_heading`);
- an entry that leaves a code fence or HTML block open (a file cut short
  inside its last fence): after its bytes, the one line that closes it
  (:func:`closing`), so the sections after it in a tier file stay sections;
- ``## Core Context`` (or a Scribe's ``## Core Context (Summarized)``): the
  whole section, flagged ``pin`` (it stays in hot);
- the ``# Project Context`` block a ``history.md`` starts with (``squad init``
  writes it, and so does Squad's history template its coordinator casts new
  agents from: owner, project, stack, created): ``## Project Context`` and the
  block's lines, flagged ``pin``; like Core Context it is the agent's standing
  context (kind ``core``), never an entry that goes cold;
- any other container: the whole section as it is.

Decisions (entries of the decision files and inbox files, not the preamble,
not ``## Governance``) are flagged ``kind=decision``. Every byte of every
container's body is in exactly one entry; the rest of a file's header (its
title above the first ``##``) is Squad's, not memory.

An entry is known by its *key*, the content key of its tier text, so the
history engine dates it by the first commit whose Squad file held it,
whatever its heading level or place. Pure text, standard library only.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator

from squadmem.model import sections
from squadmem.model.sections import content_key

AGENTS_DIR = ".squad/agents"
HISTORY_FILES = ("history.md", "history-archive.md")
DECISIONS = ".squad/decisions.md"
DECISION_FILES = (DECISIONS, ".squad/decisions-archive.md")
INBOX_DIR = ".squad/decisions/inbox"
CORE = "Core Context"
PROJECT = "Project Context"
PIN_FLAG = "<!-- squadmem: pin -->"
DECISION_FLAG = "<!-- squadmem: kind=decision -->"
_PIN = "📌"
_TITLE_MAX = 80


@dataclasses.dataclass(frozen=True)
class Entry:
    """One unit of Squad's memory, as it will stand in a tier file."""

    source: str  # repository path of the Squad file that holds it
    owner: str  # the agent, or "decisions" for the team's decision files
    kind: str  # "core" | "learning" | "update" | "decision" | "preamble" | "section"
    title: str  # the heading text of its tier section
    raw: str  # its exact bytes in the source (for an ### entry: heading line included)
    text: str  # its tier text: one ``##`` section
    formers: tuple[str, ...] = ()  # the tier texts earlier squadmem cut it into: see :attr:`keys`
    left_open: bool = False  # it leaves a block open that no closing line closes (:func:`closing`)

    @property
    def key(self) -> bytes:
        return content_key(self.text)

    @property
    def former_keys(self) -> tuple[bytes, ...]:
        return tuple(dict.fromkeys(content_key(t) for t in self.formers if t != self.text))

    @property
    def keys(self) -> tuple[bytes, ...]:
        """Its key, then the keys of the tier texts squadmem cut it into before it wrote setext
        headings as ``##``, closed open blocks and kept a dated ``##`` entry whole: what an earlier
        intake took in is known by these (verify, the history engine, intake's "taken")."""
        return (self.key, *self.former_keys)

    def taken(self, known: Callable[[bytes], bool]) -> bool:
        """Whether an intake took it in: its own key, or every one of its former tier texts."""
        formers = self.former_keys
        return known(self.key) or (bool(formers) and all(known(k) for k in formers))

    @property
    def decision(self) -> bool:
        return self.owner == "decisions"


# -- which files are Squad's -----------------------------------------------------------------------


def source_owner(path: str) -> str | None:
    """The owner of a Squad memory file (an agent, or "decisions"), None if ``path`` is not one."""
    parts = path.split("/")
    if path in DECISION_FILES:
        return "decisions"
    if len(parts) == 4 and parts[:2] == [".squad", "agents"] and parts[3] in HISTORY_FILES:
        return parts[2]
    if (
        len(parts) == 4
        and "/".join(parts[:3]) == INBOX_DIR
        and parts[3].endswith(".md")
        and not parts[3].startswith(".")
    ):
        return "decisions"
    return None


def is_source(path: str) -> bool:
    return source_owner(path) is not None


def is_inbox(path: str) -> bool:
    return path.startswith(INBOX_DIR + "/")


# -- cutting -------------------------------------------------------------------------------------


def entries(path: str, text: str) -> list[Entry]:
    """The entries of a Squad file ``path`` holding ``text``, in file order."""
    owner = source_owner(path)
    if owner is None:
        return []
    text = text.removeprefix("\ufeff")
    decision = owner == "decisions"
    doc = sections.split(text)
    if is_inbox(path) and not doc.sections:
        return _closed_at_end(_whole_file(path, text))
    found: list[Entry] = []
    project = _project(path, owner, doc.header) if path.endswith("/" + HISTORY_FILES[0]) else None
    if project is not None:
        found.append(project)
    if is_inbox(path) and doc.header.strip():
        title = _stem(path)
        tier = f"## {title}\n" + _flag_line(DECISION_FLAG, doc.header, "\n") + doc.header
        found.append(Entry(path, owner, "decision", title, doc.header, tier))
    for section in doc.sections:
        found.extend(_cut(path, owner, section, decision))
    return _closed_at_end(found)


_CACHED_BYTES = 64 * 1024  # containers up to this size are remembered: most are unchanged from the
_CACHE_LIMIT = 32 * 1024 * 1024  # last version of their file; all are forgotten past this many bytes
_cut_cache: dict[tuple[str, str, str, int, bool], tuple[Entry, ...]] = {}
_cut_cache_bytes = [0]


def _cut(path: str, owner: str, section: sections.Section, decision: bool) -> tuple[Entry, ...]:
    """:func:`_container`'s entries, remembered for the next version of the same file.

    The history engine cuts every committed version of every Squad file: a growing
    file repeats all but its last containers, and a real team's decisions file has
    hundreds of versions of a megabyte or more.
    """
    if len(section.text) > _CACHED_BYTES:
        return tuple(_container(path, owner, section, decision))
    key = (path, owner, section.text, section.heading_lines, decision)
    found = _cut_cache.get(key)
    if found is None:
        if _cut_cache_bytes[0] > _CACHE_LIMIT:
            _cut_cache.clear()
            _cut_cache_bytes[0] = 0
        found = _cut_cache[key] = tuple(_container(path, owner, section, decision))
        _cut_cache_bytes[0] += 3 * len(section.text)  # the key, and the raw and tier texts it keeps
    return found


def _closed_at_end(found: list[Entry]) -> list[Entry]:
    """``found`` with the file's last entry closed (:func:`closing`).

    Only the last can leave a block open: every other entry ends where the scanner
    saw the next heading, which an open fence or HTML block would have swallowed.
    """
    if found:
        last = found[-1]
        added = closing(last.text)
        if added is None:
            found[-1] = dataclasses.replace(last, left_open=True)
        elif added:
            found[-1] = dataclasses.replace(
                last, text=last.text + added, formers=last.formers or (last.text,)
            )
    return found


def _whole_file(path: str, text: str) -> list[Entry]:
    """An inbox file with no ``##`` section: one decision, titled by its first line or its name."""
    rows = sections.lines(text)
    if not "".join(rows).strip():
        return []
    first = next((r for r in rows if r.strip()), "")
    heading = _ATX_ANY.match(first)
    if heading:
        title = _clip(first[heading.end() :].strip().rstrip("#").strip()) or _stem(path)
        at = rows.index(first)
        body = "".join(rows[:at] + rows[at + 1 :])
        raw = text
        tier = f"## {title}{_ending(first)}" + _flag_line(DECISION_FLAG, body, first) + body
    else:
        title = _stem(path)
        raw = text
        tier = f"## {title}\n" + _flag_line(DECISION_FLAG, text, "\n") + text
    return [Entry(path, "decisions", "decision", title, raw, tier)]


_ATX_ANY = re.compile(r" {0,3}#{1,6}(?=[ \t]|$)")


def _stem(path: str) -> str:
    return path.rsplit("/", 1)[-1].removesuffix(".md")


_PROJECT_HEADING = re.compile(r" {0,3}# +Project Context(?: +#*)? *", re.IGNORECASE)


def _project(path: str, owner: str, header: str) -> Entry | None:
    """The ``# Project Context`` block of a history.md's header, as standing context (``## Project
    Context``, pinned); None when the header has none, or nothing under it."""
    rows = sections.lines(header)
    at = next((n for n, r in enumerate(rows) if _PROJECT_HEADING.fullmatch(r.rstrip("\r\n"))), None)
    if at is None or not "".join(rows[at + 1 :]).strip():
        return None
    body = "".join(rows[at + 1 :])
    head = f"## {PROJECT}{_ending(rows[at])}"
    return _entry(
        path, owner, "core", PROJECT, "".join(rows[at:]), head + _flag_line(PIN_FLAG, body, head) + body
    )


_CORE_VARIANT = re.compile(r"Core Context\s*[(\[:—–-].*", re.IGNORECASE)


def is_core_heading(name: str) -> bool:
    """``Core Context``, or the Scribe's variants of it (``Core Context (Summarized)``, ``(Essential)``)."""
    return name == CORE or bool(_CORE_VARIANT.fullmatch(name))


def _container(
    path: str, owner: str, section: sections.Section, decision: bool, variants: bool = True
) -> Iterator[Entry]:
    rows = sections.lines(section.text)
    old = "".join(rows[: section.heading_lines])
    body = "".join(rows[section.heading_lines :])
    name = section.raw_heading.strip()
    head = old
    if section.heading_lines > 1:  # a setext heading (text underlined with ---): written ## text
        name = " ".join(name.split())
        head = f"## {name}{_ending(rows[section.heading_lines - 1])}"
    if not decision and (name == CORE or (variants and is_core_heading(name))):
        flag = _flag_line(PIN_FLAG, body, head)
        core = _entry(path, owner, "core", name, section.text, head + flag + body, old + flag + body)
        if name != CORE:  # earlier squadmem did not know the variants: what it cut them into
            former = tuple(e.text for e in _container(path, owner, section, decision, variants=False))
            core = dataclasses.replace(core, formers=core.formers + former)
        yield core
        return
    children = _level3(body)
    if children:
        cut = list(_children(path, owner, name, (head, old), body, children, decision))
        if not is_entry_heading(name):
            yield from cut
            return
        whole = _whole(path, owner, name, section, head, body, decision)
        yield dataclasses.replace(whole, formers=whole.formers + tuple(e.text for e in cut))
        return
    pins = _pins(body)
    if pins and not is_entry_heading(name):
        yield from _updates(path, owner, name, (head, old), body, pins)
        return
    if is_inbox(path):
        flag = _flag_line(DECISION_FLAG, body, head)
        yield _entry(path, owner, "decision", name, section.text, head + flag + body, old + flag + body)
        return
    yield _whole(path, owner, name, section, head, body, decision and is_entry_heading(name))


def _whole(
    path: str, owner: str, name: str, section: sections.Section, head: str, body: str, decision: bool
) -> Entry:
    """A ``##`` section as one entry: a decision (flagged) in the decision files when dated."""
    if decision:
        flag = _flag_line(DECISION_FLAG, body, head)
        return _entry(path, owner, "decision", name, section.text, head + flag + body, section.text)
    return _entry(path, owner, "section", name, section.text, head + body, section.text)


def _children(
    path: str,
    owner: str,
    name: str,
    heads: tuple[str, str],
    body: str,
    children: list[tuple[int, str]],
    decision: bool,
) -> Iterator[Entry]:
    rows = sections.lines(body)
    preamble = "".join(rows[: children[0][0]])
    if preamble.strip():
        yield _entry(path, owner, "preamble", name, preamble, heads[0] + preamble, heads[1] + preamble)
    ends = [line for line, _ in children[1:]] + [len(rows)]
    kind = "decision" if decision else "learning"
    for (line, title), end in zip(children, ends, strict=True):
        heading = rows[line]
        rest = "".join(rows[line + 1 : end])
        promoted = heading.replace("###", "##", 1)
        flag = _flag_line(DECISION_FLAG, rest, heading) if decision else ""  # a decision file's ### entry
        yield _entry(path, owner, kind, title.strip(), heading + rest, promoted + flag + rest)


def _updates(
    path: str, owner: str, name: str, heads: tuple[str, str], body: str, pins: list[int]
) -> Iterator[Entry]:
    rows = sections.lines(body)
    preamble = "".join(rows[: pins[0]])
    if preamble.strip():
        yield _entry(path, owner, "preamble", name, preamble, heads[0] + preamble, heads[1] + preamble)
    ends = [*pins[1:], len(rows)]
    for start, end in zip(pins, ends, strict=True):
        paragraph = "".join(rows[start:end])
        title = update_title(rows[start])
        yield _entry(path, owner, "update", title, paragraph, f"## {title}{_ending(rows[start])}" + paragraph)


def update_title(line: str) -> str:
    """The heading a ``📌`` paragraph gets: its first line up to the first ``: ``, at most 80 characters.

    The colon must be followed by a space (or end the line), so the Scribe's
    ``📌 Team update (2026-06-02T21:15:30Z): …`` keeps its whole timestamp.
    """
    text = line.strip()
    cut = _TITLE_END.search(text)
    if cut is not None and cut.start() > 0:
        text = text[: cut.start()]
    return _clip(text.strip())


_TITLE_END = re.compile(r":(?=\s|$)")


def _clip(text: str) -> str:
    text = " ".join(text.split())
    text = text.replace("<!--", "").replace("-->", "")
    return text if len(text) <= _TITLE_MAX else text[: _TITLE_MAX - 1].rstrip() + "…"


def _ending(line: str) -> str:
    for end in ("\r\n", "\n", "\r"):
        if line.endswith(end):
            return end
    return "\n"


def _flag_line(flag: str, body: str, heading: str) -> str:
    """``flag`` on a line of its own, unless the body already starts with squadmem flags."""
    first = sections.lines(body)[:1]
    if first and _is_flags(first[0]):
        return ""
    return flag + _ending(heading)


def _is_flags(line: str) -> bool:
    try:
        return sections.parse_flags(line.rstrip("\r\n")) is not None
    except sections.FlagError:
        return True


def _entry(path: str, owner: str, kind: str, title: str, raw: str, tier: str, former: str = "") -> Entry:
    return Entry(path, owner, kind, title, raw, tier, (former or tier,))


_PROBE_TITLE = "squadmem closing probe"
_PROBE = f"## {_PROBE_TITLE}\n"
_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)
_HTML_ENDS = ("", "-->", "]]>", "?>", ">", "</script>", "</pre>", "</style>", "</textarea>")


def stands_alone(text: str) -> bool:
    """Whether a section may be followed by another and stay a section of its own."""
    ended = text if text.endswith(("\n", "\r")) else text + "\n"
    found = sections.split(ended + _PROBE).sections
    return bool(found) and found[-1].raw_heading.strip() == _PROBE_TITLE and found[-1].text == _PROBE


def closing(text: str) -> str | None:
    """What an entry's tier text needs after it so the next section stays one: "" almost always.

    Squad's agents leave a code fence (or an HTML block) open now and then, often in
    the last entry of a file cut short. In Squad's file the open block runs to its
    end; in a tier file it would swallow the sections after it. Such an entry gets,
    after its bytes, the line that closes the block: the fence it opened (same
    character, same length), else the first HTML block ending that works (a
    blank line ends most HTML blocks). None when no such line closes it: intake
    then leaves the entry out with a warning.
    """
    if "`" * 3 not in text and "~" * 3 not in text and "<" not in text:
        return ""
    if stands_alone(text):
        return ""
    lead = "" if text.endswith(("\n", "\r")) else _ending(text)
    fences = [m.group(1) for m in _FENCE_OPEN.finditer(text)]
    for line in [*dict.fromkeys(reversed(fences)), *_HTML_ENDS]:
        candidate = lead + line + _ending(text)
        if stands_alone(text + candidate):
            return candidate
    return None


_DATED = re.compile(r"\b(?:19|20)\d\d-[01]\d-[0-3]\d\b")
_CONTAINER_WORDS = {
    "active",
    "archive",
    "archived",
    "context",
    "core",
    "decision",
    "decisions",
    "history",
    "key",
    "learnings",
    "log",
    "recent",
    "summarized",
    "summary",
    "team",
    "update",
    "updates",
}


def is_entry_heading(name: str) -> bool:
    """Whether a ``##`` heading names one entry (its ``###`` are its parts), not a container of entries.

    Squad's template keeps entries under containers (``## Learnings``, ``## Active
    Decisions``); many teams' agents write each entry as a dated ``##`` section with
    ``### Context`` / ``### Fix`` / ``### Validation`` parts instead. A heading that
    holds a date and is not a container's name with a date after it (``## Learnings
    (archived 2026-03-01)``) is an entry, kept whole.
    """
    if not _DATED.search(name):
        return False
    words = re.findall(r"[a-z]+", _DATED.split(name, 1)[0].lower())
    return not words or not set(words) <= _CONTAINER_WORDS


def _level3(text: str) -> list[tuple[int, str]]:
    """(line, title) of each top-level ``###`` heading of ``text``, as CommonMark sees them.

    ``###`` lines are read as ``##`` by the section scanner, so fences, HTML
    blocks, lists and quotes are honoured exactly as for sections.
    """
    rows = sections.lines(text)
    probe = []
    candidates = set()
    for number, row in enumerate(rows):
        stripped = row.lstrip(" ")
        if len(row) - len(stripped) <= 3 and (
            stripped.startswith("### ") or stripped.rstrip("\r\n") == "###"
        ):
            probe.append(row.replace("###", "##", 1))
            candidates.add(number)
        else:
            probe.append(row)
    found = [(b.line, b.raw_heading) for b in sections.boundaries("".join(probe)) if b.line in candidates]
    return [(line, title) for line, title in found if title.strip()]


def _pins(text: str) -> list[int]:
    """Lines of ``text`` that start a ``📌`` paragraph: at the left margin, after a blank line or first."""
    rows = sections.lines(text)
    starts = []
    for number, row in enumerate(rows):
        if row.startswith(_PIN) and (
            number == 0 or not rows[number - 1].strip() or rows[number - 1].startswith(_PIN)
        ):
            starts.append(number)
    return starts

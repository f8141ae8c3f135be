"""``squadmem context``: the spawn prompt's ``## Memory Context``, hot by default.

Hot memory is always in it, and so is any pinned section of the agent that
stands in cold (a Squad Core Context larger than hot's room: intake keeps it
there). The spawn carries it first, then the hot sections that keep the hot
block within ``hot.max_bytes``, with a warning that names the fix: the
payload is over the budget only when the Core Context alone is.
The agent's cold file only with ``--include-cold``,
a wiki page only when named (``--include-wiki TOPIC``), a single section of
any tier when named (``--include ID``). Tier file headers (titles, comments
for people) are left out: only sections reach the prompt.

Uses: naming a wiki page or a section records a use of each section it
brings (pending, committed later as ``Squad-Memory-Used``). Including the
whole cold file records none: a use brings a cold section back to hot within
``promote.window_hours``, and a blanket use would send every cold section to
hot at once, over its budget. Name the cold sections that mattered
(``--include ID`` or ``squadmem touch``) to bring them back.

With a task (``--task TEXT``, the sentence the coordinator gives the agent)
the payload stays within ``hot.max_bytes``, the spawn's frame included: the
pinned sections first (Core Context), then the sections of any tier the agent
can see (its hot, cold and archive, the wiki) in :mod:`squadmem.engine.search.spawn_fill`'s
order: the task's matches by their BM25 score (recall's ranking,
:mod:`squadmem.engine.search.ranking`) with what the team wrote in its last hours raised (the
study's train teams chose how much), whole, each one that fits; then the rest
of hot in hot's order, each one that fits. Sections from hot stay in the hot block;
the other matches follow it under ``### Sections matching the task``, one blank line
between blocks, and the newest that match nothing under ``### Recent memory``. What room
is left then names further matches, best first, one line each (``- ID
(tier): title``, as hot's Index names a section: the title only when the id
does not say it) under ``### More matching the task``, for the agent to bring
with ``--include ID``: the sections held are the same with or without these
lines. What room is still left holds the agent's other deeper sections, newest
first (:func:`squadmem.engine.search.spawn_fill.newest`: by when history first holds each
section's text, as ``report`` dates it), under ``### Recent memory``: at large budgets
the payload is "matches, then newest". It ends with ``### Index → Deeper Tiers``:
a line for each section it left out (the agent's hot, cold and archive sections,
a wiki page's in one line), as hot's Index renders them (title, file, tier and the
date hot's Index gives, else the one the section states), newest first, cut
last-first to fit, its last line saying how many more (:class:`_Index`; the room
for its heading, its newest line (``INDEX_KEPT``) and that last line is kept before
the fill, at most a tenth of the budget; it takes whatever room the fill leaves).
Hot's own Index is not carried: the payload's replaces it.
A match is not recorded as a use: it is a
candidate, not a confirmed use (recording it would bring every match back to
hot at the next ``maintain``); the agent confirms with ``squadmem touch``.
"""

from __future__ import annotations

import datetime as dt
import warnings
from collections.abc import Container, Mapping, Sequence

from squadmem.engine import catalog
from squadmem.engine.search import ranking
from squadmem.gitio.repo import Repo
from squadmem.model import render, templates, uses
from squadmem.model.errors import SquadmemError, SquadmemWarning
from squadmem.model.layout import check_name
from squadmem.model.sections import content_key
from squadmem.model.settings import HotSettings
from squadmem.model.values import Value

TYPE_CHECKING = False  # the Index lines and the fill are --task's alone: without it, no dataclasses
if TYPE_CHECKING:
    from squadmem.engine import index


class Context(Value):
    __slots__ = ("parts", "task", "text", "used")

    def __init__(
        self, text: str, parts: tuple[tuple[str, int], ...], used: tuple[str, ...], task: Task | None = None
    ) -> None:
        self.text = text
        self.parts = parts  # (what, bytes) for the stderr summary
        self.used = used  # ids recorded as used
        self.task = task  # with --task: what the task brought and what it left out

    @property
    def bytes(self) -> int:
        return len(self.text.encode("utf-8"))

    def summary(self) -> str:
        parts = ", ".join(f"{what} {size} B" for what, size in self.parts)
        line = f"memory context: {self.bytes} bytes, about {render.tokens(self.bytes)} tokens ({parts})"
        if self.used:
            line += f"; recorded {len(self.used)} use(s)"
        if self.task is not None:
            line += f"; {len(self.task.matched)} section(s) matching the task"
            if self.task.named:
                line += f", {len(self.task.named)} more named"
            if self.task.recent:
                line += f", {len(self.task.recent)} recent"
            if self.task.left_out:
                line += f", {len(self.task.left_out)} hot section(s) left out"
            if self.task.indexed or self.task.unlisted:
                line += f"; the Index lists {len(self.task.indexed)} left out"
                if self.task.unlisted:
                    line += f" ({self.task.unlisted} more not listed)"
        return line

    def as_dict(self) -> dict[str, object]:
        return {
            "text": self.text,
            "bytes": self.bytes,
            "tokens": render.tokens(self.bytes),
            "parts": [{"what": w, "bytes": b} for w, b in self.parts],
            "used": list(self.used),
        } | ({} if self.task is None else {"task": self.task.as_dict()})


class Task(Value):
    """What ``--task`` did: the words it ranked by, the matches it brought, the hot sections left out."""

    __slots__ = ("held", "indexed", "left_out", "matched", "named", "recent", "text", "unlisted", "words")

    def __init__(
        self,
        text: str,
        words: tuple[str, ...],
        matched: tuple[str, ...],
        left_out: tuple[str, ...],
        named: tuple[str, ...] = (),
        recent: tuple[str, ...] = (),
        indexed: tuple[str, ...] = (),
        unlisted: int = 0,
        held: tuple[str, ...] = (),
    ) -> None:
        self.text = text
        self.words = words
        self.matched = matched  # ids of the sections in the payload because they match, best first
        self.left_out = left_out  # ids of hot sections that did not fit
        self.named = named  # ids of further matches the payload names in a line each, best first
        self.recent = recent  # ids of deeper sections filling the room left, newest first
        self.indexed = indexed  # ids (a wiki topic: wiki:TOPIC) of what the payload left out, its Index lines
        self.unlisted = unlisted  # how many more were left out than its Index had room to list
        self.held = held  # ids of every section the payload holds: hot's and carried, matched, recent

    def as_dict(self) -> dict[str, object]:
        return {
            "text": self.text,
            "words": list(self.words),
            "matched": list(self.matched),
            "left_out": list(self.left_out),
            "named": list(self.named),
            "recent": list(self.recent),
            "indexed": list(self.indexed),
            "unlisted": self.unlisted,
            "held": list(self.held),
        }


def _body(entries: Sequence[catalog.Entry]) -> str:
    """The sections' text, each ending with a newline."""
    return "".join(e.text if e.text.endswith(("\n", "\r")) else e.text + "\n" for e in entries)


def pinned_in_cold(memory: catalog.Memory, agent: str, max_bytes: int | None) -> list[catalog.Entry]:
    """The agent's pinned sections standing in cold because they are too large for hot: a Core
    Context that would take hot over ``max_bytes`` (intake keeps it there, within hot's budget).
    The spawn carries them all the same, first. A pinned section that would fit was put in cold by
    hand (a demote): it is cold memory like any other."""
    doc = memory.files.get(memory.places.tier_rel("hot", agent))
    hot = 0 if doc is None else doc.bytes
    pinned = [e for e in memory.in_file(memory.places.tier_rel("cold", agent)) if e.pinned]
    return [e for e in pinned if max_bytes is None or hot + e.bytes > max_bytes]


def _with_carried(
    agent: str, carried: list[catalog.Entry], hot: list[catalog.Entry], max_bytes: int | None
) -> list[catalog.Entry]:
    """Hot's sections after the pinned ones carried from cold, each that keeps the hot block within
    ``max_bytes`` (frame included); a warning names what was carried and what was left out."""
    if not carried:
        return hot
    template = templates.read("spawn.md")
    kept: list[catalog.Entry] = []
    left_out: list[str] = []
    for entry in hot:
        trial = template.format(
            hot=_body([*carried, *kept, entry]).rstrip("\r\n"), cold="", wiki="", sections=""
        )
        if max_bytes is None or entry.pinned or len(trial.encode("utf-8")) <= max_bytes:
            kept.append(entry)
        else:
            left_out.append(entry.id)
    size = sum(e.bytes for e in carried)
    message = (
        f"{agent}: {', '.join(e.id for e in carried)} ({size} B) is pinned but too large for hot: "
        "the spawn carries it from cold"
    )
    if left_out:
        message += f", and leaves out {len(left_out)} hot section(s) to stay within hot.max_bytes"
    warnings.warn(
        SquadmemWarning(
            message,
            hint="shorten the Core Context in Squad's history.md, or raise hot.max_bytes in tiers.toml",
        ),
        stacklevel=3,
    )
    return [*carried, *kept]


def build(
    memory: catalog.Memory,
    agent: str,
    *,
    include_cold: bool = False,
    wiki: Sequence[str] = (),
    sections: Sequence[str] = (),
    max_bytes: int | None = None,
) -> tuple[str, list[tuple[str, int]], list[str]]:
    """The context text, its parts with their sizes, and the ids it counts as used (pure).

    ``max_bytes`` (hot.max_bytes) matters only when a pinned section stands in cold: the hot block
    then keeps the hot sections that fit after it."""
    agent = memory.known_agent(check_name(agent))
    hot_file = list(memory.in_file(memory.places.tier_rel("hot", agent)))
    carried = pinned_in_cold(memory, agent, max_bytes)
    hot = _with_carried(agent, carried, hot_file, max_bytes)
    hot_text = _body(hot) or "(no hot memory yet)\n"
    parts = [("hot", len(hot_text.encode("utf-8")))]
    cold_text = wiki_text = picked_text = ""
    used: list[str] = []
    if include_cold:
        body = _body([e for e in memory.in_file(memory.places.tier_rel("cold", agent)) if e not in carried])
        body = body or "(no cold memory yet)\n"
        cold_text = f"\n### Cold (summarized history)\n\n{body}"
        parts.append(("cold", len(body.encode("utf-8"))))
    for topic in dict.fromkeys(wiki):
        memory.require(f"wiki:{check_name(topic, 'topic')}")
        entries = memory.in_file(memory.places.tier_rel("wiki", topic))
        if not entries:
            raise SquadmemError(
                f"no wiki page {memory.places.tier_rel('wiki', topic)}",
                hint="see the topics with: squadmem list --tier wiki",
            )
        body = _body(entries)
        wiki_text += f"\n### Wiki: {topic}\n\n{body}"
        parts.append((f"wiki:{topic}", len(body.encode("utf-8"))))
        used += [e.id for e in entries]
    picked = [memory.find(ref) for ref in dict.fromkeys(sections)]
    in_hot = {e.id for e in hot}
    picked = [e for e in picked if e.id not in used and e.id not in in_hot]
    if picked:
        body = _body(picked)
        picked_text = f"\n### Sections from deeper tiers\n\n{body}"
        parts.append(("sections", len(body.encode("utf-8"))))
        used += [e.id for e in picked]
    template = templates.read("spawn.md")
    text = template.format(hot=hot_text.rstrip("\r\n"), cold=cold_text, wiki=wiki_text, sections=picked_text)
    return text.rstrip("\n") + "\n", parts, used


TASK_HEADING = "### Sections matching the task"
MORE_HEADING = "### More matching the task"
RECENT_HEADING = "### Recent memory"
MORE_NOTE = "Not loaded; bring one with `squadmem context --agent {agent} --include ID`."


def _lines(named: Sequence[catalog.Entry]) -> str:
    """A line naming each section, as hot's Index does (without its date)."""
    return "".join(render.named(e.id, e.tier, e.title) + "\n" for e in named)


def task_words(task: str) -> str:
    """The task's text, refused when it holds nothing but white space."""
    if not task.strip():
        raise SquadmemError(
            "--task is empty", hint='give the task the agent is spawned for, e.g. --task "fix the login bug"'
        )
    return task


def _then(blocks: str, block: str) -> str:
    """``block`` after ``blocks``, one blank line between them, whatever blank lines the last section
    of ``blocks`` ends with (so a block costs what its own text costs, as ``fill`` counts it)."""
    return blocks.rstrip("\n") + "\n" + block if blocks else block


class _Payload:
    """The ``--task`` payload being filled: the hot block's sections by id, the matches from deeper
    tiers under their heading, further matches a line each, all within ``max_bytes``."""

    def __init__(self, agent: str, hot: Sequence[catalog.Entry], max_bytes: int) -> None:
        self.agent, self.hot, self.max_bytes = agent, hot, max_bytes
        self.template = templates.read("spawn.md")
        self.more_head = f"\n{MORE_HEADING}\n\n{MORE_NOTE.format(agent=agent)}\n\n"

    def render(
        self,
        ids: set[str],
        found: Sequence[catalog.Entry],
        more: Sequence[catalog.Entry] = (),
        recent: Sequence[catalog.Entry] = (),
    ) -> tuple[str, str, str]:
        """(the payload, its hot block, its matches' block)."""
        hot_body = _body([e for e in self.hot if e.id in ids]) or "(no hot memory yet)\n"
        deeper = [e for e in found if not (e.tier == "hot" and e.name == self.agent)]
        task_body = _body(deeper)
        extra = f"\n{TASK_HEADING}\n\n{task_body}" if deeper else ""
        if recent:
            extra = _then(extra, f"\n{RECENT_HEADING}\n\n{_body(recent)}")
        if more:
            extra = _then(extra, self.more_head + _lines(more))
        text = self.template.format(hot=hot_body.rstrip("\r\n"), cold="", wiki="", sections=extra)
        return text.rstrip("\n") + "\n", hot_body, task_body

    def size(self, ids: set[str], found: Sequence[catalog.Entry]) -> int:
        return len(self.render(ids, found)[0].encode("utf-8"))

    def fill(
        self, chosen: set[str], ranked: Sequence[catalog.Entry], matching: Container[str] | None = None
    ) -> tuple[list[catalog.Entry], list[catalog.Entry], list[catalog.Entry]]:
        """Into ``chosen`` (the pinned ids, grown in place): ``ranked``, each that fits, then the rest
        of hot in its order; returns (the matches taken, the matches named a line each in the room
        left, the others taken: the newest that ``ranked`` puts first, under the recent heading).
        ``matching``: the ids of ``ranked`` that match the task (None: all); hot's own sections
        stay in hot's block whichever they are."""

        matched: list[catalog.Entry] = []
        ahead: list[catalog.Entry] = []
        for entry in ranked:
            if matching is not None and entry.id not in matching and entry.tier == "hot":
                size = len(self.render(chosen | {entry.id}, matched, (), ahead)[0].encode("utf-8"))
                if entry.name == self.agent and size <= self.max_bytes:
                    chosen.add(entry.id)  # hot's own: in hot's block
                continue
            mine, newer = (matched, ahead) if matching is None or entry.id in matching else (ahead, matched)
            trial = [*mine, entry]
            found, recent = (trial, newer) if mine is matched else (newer, trial)
            if len(self.render(chosen | {entry.id}, found, (), recent)[0].encode()) <= self.max_bytes:
                chosen.add(entry.id)
                mine.append(entry)
        for entry in self.hot:
            size = len(self.render(chosen | {entry.id}, matched, (), ahead)[0].encode("utf-8"))
            if entry.id not in chosen and size <= self.max_bytes:
                chosen.add(entry.id)
        used = len(self.render(chosen, matched, (), ahead)[0].encode("utf-8"))
        left = self.max_bytes - used - len(self.more_head.encode("utf-8"))
        named: list[catalog.Entry] = []
        for entry in ranked:  # the lines add up: count them instead of rendering again
            cost = len(_lines([entry]).encode("utf-8"))
            if (matching is None or entry.id in matching) and entry.id not in chosen and cost <= left:
                named.append(entry)
                left -= cost
        return matched, named, ahead

    def newest(
        self,
        chosen: set[str],
        matched: Sequence[catalog.Entry],
        named: Sequence[catalog.Entry],
        rest: Sequence[catalog.Entry],
        ahead: Sequence[catalog.Entry] = (),
    ) -> list[catalog.Entry]:
        """``ahead`` (taken already), then the room the matches, hot and the named lines leave,
        filled from ``rest`` in its order (newest first), each section that fits, whole."""
        left = self.max_bytes - len(self.render(chosen, matched, named, ahead)[0].encode("utf-8"))
        if not ahead:
            left -= len(f"\n{RECENT_HEADING}\n\n".encode())
        taken = list(ahead)
        chosen = chosen | {e.id for e in ahead}
        for entry in (e for e in rest if e.id not in chosen and e.id not in named):
            cost = len(_body([entry]).encode("utf-8"))  # sections add up: count them
            if cost <= left:
                taken.append(entry)
                left -= cost
        return taken


INDEX_HEADING = f"### {catalog.INDEX_TITLE}"
INDEX_KEPT = 1  # the Index lines (its newest) whose room is kept before the fill: bench/fill_tuning.py


class _Index:
    """The payload's Index: a line for each section of the agent's memory that the payload left out
    (a wiki topic's left-out sections in one line), as hot's Index renders its lines (title, file,
    tier and date), newest first, within the budget: the lines are cut last-first to fit, and the
    last line then says how many more there are. Room for the heading, the newest ``INDEX_KEPT``
    lines (no more than hot's own Index holds, ``hot.index_max_entries``, less its last line) and
    that last line, at most a tenth of the budget, is kept before the fill (:attr:`reserve`), so
    the Index is there whatever the fill takes; it also takes whatever room the fill leaves. One
    line, not hot's whole Index: the room its four lines took held fewer of the entries real
    spawns needed than the fill put there (``bench/fill_tuning.py --index-lines``)."""

    def __init__(
        self, memory: catalog.Memory, agent: str, entries: Sequence[catalog.Entry], cap: int, max_bytes: int
    ) -> None:
        from squadmem.engine import index

        self.agent = agent
        self.places = memory.places
        self.entries = list({e.id: e for e in entries}.values())
        own = next((e for e in memory.in_file(memory.places.tier_rel("hot", agent)) if e.is_index), None)
        self.days = index.listed_days(own.text) if own is not None else {}
        self.head = f"\n{INDEX_HEADING}\n\n"
        newest = self.lines({e.id for e in self.entries if e.pinned})[: max(min(cap - 1, INDEX_KEPT), 0)]
        self.least = len((self.head + self._more(len(self.entries))).encode("utf-8"))
        lines = len("".join(x.render() + "\n" for x in newest).encode("utf-8"))
        self.reserve = max(self.least, min(self.least + lines, max_bytes // 10)) if self.entries else 0

    def _more(self, count: int) -> str:
        return f"- and {count} more: squadmem list --agent {self.agent}\n"

    def _day(self, title: str, file: str, texts: Sequence[str]) -> dt.datetime | None:
        """The date hot's Index gives the line, else the latest a section's first line states."""
        stated = sorted((d for d in map(ranking.stated_date, texts) if d), reverse=True)
        for day in [d for d in (self.days.get((title, file)), *stated) if d]:
            try:
                return dt.datetime.fromisoformat(day).replace(tzinfo=dt.UTC)
            except ValueError:
                continue
        return None

    def lines(self, carried: set[str]) -> list[index.Line]:
        """The Index lines of what is not in ``carried`` (ids), in the Index's order."""
        from squadmem.engine import index

        left = [e for e in self.entries if e.id not in carried]
        found = [
            index.Line(e.id, e.title, e.tier, self._day(e.title, e.file, [e.text]), e.file)
            for e in left
            if e.tier != "wiki"
        ]
        topics: dict[str, list[catalog.Entry]] = {}
        for e in left:
            if e.tier == "wiki":
                topics.setdefault(e.name, []).append(e)
        for topic, held in topics.items():
            file = self.places.tier_rel("wiki", topic)
            count = f"{len(held)} section" + ("" if len(held) == 1 else "s")
            day = self._day(topic, file, [e.text for e in held])
            found.append(index.Line(f"wiki:{topic}", topic, "wiki", day, file, count))
        return index.order(found)

    def add(self, text: str, carried: set[str], max_bytes: int) -> tuple[str, list[index.Line], int]:
        """``text`` with the Index of what it left out after it, as many lines as keep it within
        ``max_bytes``; the lines listed, and how many were not."""
        lines = self.lines(carried)
        if not lines:
            return text, [], 0
        shown = [x.render() + "\n" for x in lines]
        base = len(_then(text, self.head).encode("utf-8"))
        sizes = [len(x.encode("utf-8")) for x in shown]
        listed = len(shown)
        while (
            listed
            and base
            + sum(sizes[:listed])
            + (len(self._more(len(shown) - listed).encode("utf-8")) if listed < len(shown) else 0)
            > max_bytes
        ):
            listed -= 1
        tail = self._more(len(shown) - listed) if listed < len(shown) else ""
        if base + sum(sizes[:listed]) + len(tail.encode("utf-8")) > max_bytes:  # pinned sections fill it
            return text, [], len(shown)
        return _then(text, self.head + "".join(shown[:listed]) + tail), lines[:listed], len(shown) - listed


def build_for_task(
    memory: catalog.Memory,
    agent: str,
    task: str,
    max_bytes: int,
    index_lines: int | None = None,
    seen: Mapping[str, float] | None = None,
) -> tuple[str, list[tuple[str, int]], Task]:
    """The context for ``task`` within ``max_bytes`` (see the module's docstring), its parts and what the
    task did (pure). Pinned sections are always in, even when they alone are over ``max_bytes`` (a
    warning says so; ``maintain`` refuses such a hot file)."""
    from squadmem.engine.search import spawn_fill

    agent = memory.known_agent(check_name(agent))
    task_words(task)
    carried = pinned_in_cold(memory, agent, max_bytes)
    own = [
        e for e in memory.in_file(memory.places.tier_rel("hot", agent)) if not e.is_index
    ]  # the payload has its own
    hot = carried + own  # fitted below
    candidates = [
        e for e in memory.visible_to(agent) if not e.pinned or (e.tier != "hot" and e not in carried)
    ]
    terms = ranking.query_tokens(task)
    chosen = {e.id for e in hot if e.pinned}
    cap = HotSettings().index_max_entries if index_lines is None else index_lines
    deeper = _Index(memory, agent, [*hot, *candidates], cap, max_bytes)
    payload = _Payload(agent, hot, max_bytes - deeper.reserve)
    sizes = [len(_body([e]).encode("utf-8")) for e in candidates]
    pool = spawn_fill.candidates_of(candidates, terms, sizes, seen)
    first, later = spawn_fill.order(pool)
    ranked = [candidates[n] for n in first]
    matched: list[catalog.Entry] = []
    named: list[catalog.Entry] = []
    recent: list[catalog.Entry] = []
    listed: list[index.Line] = []
    unlisted = 0
    warned = payload.size(chosen, matched) > max_bytes
    if warned:
        warnings.warn(
            SquadmemWarning(
                f"{agent}'s pinned sections make a {payload.size(chosen, matched)} B context, "
                f"over hot.max_bytes {max_bytes} B",
                hint="unpin sections or raise hot.max_bytes in tiers.toml",
            ),
            stacklevel=1,
        )
    else:
        matching = {e.id for e, c in zip(candidates, pool, strict=True) if c.score > 0}
        matched, named, ahead = payload.fill(chosen, ranked, matching)
        rest = [candidates[n] for n in later if candidates[n].tier != "hot"]
        place = {candidates[n].id: k for k, n in enumerate(spawn_fill.newest(pool))}
        recent = sorted(payload.newest(chosen, matched, named, rest, ahead), key=lambda e: place[e.id])
    text, hot_body, task_body = payload.render(chosen, matched, named, recent)
    if not warned:
        held = chosen | {e.id for e in [*matched, *named, *recent]}
        text, listed, unlisted = deeper.add(text, held, max_bytes)
    parts = [("hot", len(hot_body.encode("utf-8")))]
    if task_body:
        parts.append(("task", len(task_body.encode("utf-8"))))
    if recent:
        parts.append(("recent", len(_body(recent).encode("utf-8"))))
    if named:
        parts.append(("named", len(_lines(named).encode("utf-8"))))
    if listed:
        parts.append(("index", len("".join(x.render() + "\n" for x in listed).encode("utf-8"))))
    left_out = tuple(e.id for e in hot if e.id not in chosen)
    more = tuple(e.id for e in named)
    done = Task(
        task,
        tuple(terms),
        tuple(e.id for e in matched),
        left_out,
        more,
        tuple(e.id for e in recent),
        tuple(x.id for x in listed),
        unlisted,
        tuple(dict.fromkeys([*(e.id for e in hot if e.id in chosen), *(e.id for e in [*matched, *recent])])),
    )
    return text, parts, done


def spawn_held(repo: Repo, agent: str, task: str) -> tuple[str, ...]:
    """The ids of the sections ``context --agent AGENT --task TASK`` holds, as it holds them now (what
    ``recall --beyond-spawn`` leaves out); records nothing."""
    done = context(repo, agent, dt.datetime.now(dt.UTC), task=task, record=False).task
    return done.held if done is not None else ()


def first_seen(repo: Repo, memory: catalog.Memory) -> dict[str, float]:
    """When history first holds each section's text (epoch seconds), by id; a section it does not
    hold yet is left out. Only a task's payload reads history (its cache, then the commits after).
    A cache made at HEAD (as git's files name it) is read alone: no git process, and the history
    engine is imported only when there are commits to read."""
    from squadmem.engine.history import cache

    facts, _ = cache.load_cache(cache.HISTORY.path(repo), cache.cache_key(repo), repo.hash_width // 2)
    if facts is None or not facts.tip or facts.tip != repo.head_from_files():
        from squadmem.engine.history import stream as history

        facts = history.read_facts(repo)
    found = {}
    for entry in memory.entries:
        first = facts.first.get(content_key(entry.text))
        if first is not None:
            found[entry.id] = float(first[0])
    return found


def context(
    repo: Repo,
    agent: str,
    now: dt.datetime,
    *,
    include_cold: bool = False,
    wiki: Sequence[str] = (),
    sections: Sequence[str] = (),
    record: bool = True,
    task: str | None = None,
) -> Context:
    """Build the context from the work tree and record the uses it makes (a task's matches are none)."""
    if task is not None:
        task_words(task)
        if include_cold or wiki or sections:
            raise SquadmemError(
                "--task does not combine with --include-cold, --include-wiki or --include",
                hint="--task keeps the context within hot.max_bytes; add the others without --task",
            )
        memory = catalog.load(repo.layout)
        hot = repo.layout.settings.hot
        seen = first_seen(repo, memory)
        text, parts, done = build_for_task(memory, agent, task, hot.max_bytes, hot.index_max_entries, seen)
        return Context(text, tuple(parts), (), done)
    memory = catalog.load(repo.layout)
    text, parts, used = build(
        memory,
        agent,
        include_cold=include_cold,
        wiki=wiki,
        sections=sections,
        max_bytes=repo.layout.settings.hot.max_bytes,
    )
    if record and used:
        uses.record(repo.state_dir, used, now)
    return Context(text, tuple(parts), tuple(used) if record else ())

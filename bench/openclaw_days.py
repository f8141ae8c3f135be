"""Sixty days of an OpenClaw agent's work in a memory-tiers workspace squadmem keeps in place.

A workspace repository with 15 ``MEMORY.md`` sections (``squadmem init`` in
place, day 0). Every day the agent works on the same five of them, in a
session whose transcript the bench writes as OpenClaw 2026.9.6 records one (a
``session`` header of version 4, then ``message`` entries linked by
``parentId``: user text, assistant ``toolCall`` blocks, ``toolResult``
messages; with Tool Search, the host's default, a memory tool is called
through ``tool_call`` and its run recorded in an ``openclaw.nested-tool.v1``
message; ``--direct-tools`` writes the calls as the host records them with
``tools.toolSearch`` off). The host keeps live transcripts in its SQLite
database; the bench writes each day's as a JSONL file, ``<session id>.jsonl``
under ``$HOME/.openclaw/agents/main/sessions/`` (where the host keeps its
transcript files), the events a line each. ``tests/openclaw_transcript_test.py``
holds these events to those the real host stores. Each of the five is used one
way a day, in turn:

- ``memory_get`` of its line range in the file that holds it;
- ``memory_search`` for its words, whose hit names its file and lines, then a
  ``memory_get`` of that hit;
- the ``read`` tool on its file with ``offset`` and ``limit``;
- the agent's own reply naming its title.

The ranges are those of the file that holds the section that day (a section
squadmem moved is found where it went, as ``memory_search`` would find it).
The agent then appends to the day's log ``memory/YYYY-MM-DD.md``, which is
committed (the hooks squadmem installed fire), and the bench runs
``squadmem maintain`` as a whole process with the session's host home as
``HOME``, git's dates and ``--now`` set to that evening.

It prints one row a day: ``MEMORY.md``'s bytes and lines, the sections in it
(the Index left out), how many of the five are there, and the moves squadmem
committed that day; ``--plot PATH`` draws them (needs matplotlib: ``pip
install '.[bench]'``). Once ``maintain`` reads the host's transcripts, the five
stay in ``MEMORY.md`` every day, the ten unused leave by the 7-day rule, and
``MEMORY.md`` stays within its budget without ever shrinking to its Index
alone (``tests/openclaw_days_test.py`` holds that on a shorter run).

    python -m bench.openclaw_days [--days 60] [--direct-tools] [--plot docs/openclaw-days.png] [--keep DIR]

Deterministic (session and entry ids are name-based UUIDs): the same
arguments print the same table. Asserts nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import tempfile
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from bench.gitrun import git, squadmem
from bench.harness import commit, options, scratch_repo, sealed, table

AGENT = "main"
START = dt.datetime(2026, 3, 1, 9, 0, tzinfo=dt.UTC)  # day 0: the workspace and squadmem init
SESSION_HOUR = 10  # each day's session starts then
LOG_HOUR = 22  # the day's log is committed then
MAINTAIN_HOUR = 23  # and squadmem maintain runs then
HOT_MAX_BYTES = 4096
HOT_MAX_LINES = 100
INDEX_TITLE = "Index → Deeper Tiers"
HEADER = "# MEMORY.md — Working Memory (Tier 1)\n<!-- tier: 1 — hot context -->\n"
# (title, body): made-up notes of a small workshop's agent; each body's words are found nowhere else.
SECTIONS = (
    ("Kiln schedule", "Bisque firing on Thursdays, glaze firing on Saturdays.\nCone 6 for the stoneware."),
    ("Clay suppliers", "Red earthenware from Hollins; porcelain from the Leeds depot.\nOrder by the 20th."),
    ("Glaze recipes", "Celadon: 5% iron in the base; tenmoku at 10%.\nSieve at 80 mesh twice."),
    ("Studio keys", "Spare keys in the blue tin above the slab roller.\nThe back door sticks in rain."),
    (
        "Class roster",
        "Tuesday beginners: eight places; Thursday wheel class: six.\nWaiting list in the binder.",
    ),
    (
        "Pricing rules",
        "Mugs at cost times three; commissions need a half deposit.\nNo discounts on porcelain.",
    ),
    ("Wheel maintenance", "Grease the splash pan bearings monthly.\nThe third wheel's pedal slips."),
    ("Shelf inventory", "Bisqueware on shelves A to C; greenware on D.\nLabel every board with a date."),
    ("Market stalls", "Saturday market pitch 14; bring the folding canopy.\nCard reader charges overnight."),
    ("Recycling clay", "Slop buckets by the sink; wedge reclaimed clay on plaster.\nDry bats on Mondays."),
    (
        "Safety notes",
        "Masks when sanding; the kiln room vent must run during firings.\nFirst aid kit by the door.",
    ),
    ("Photo setup", "Grey backdrop and two softboxes; shoot glazes at noon light.\nTripod in the closet."),
    ("Commission log", "Dinner set for the Okafors due in May; vase for the library.\nSketches in folder 3."),
    ("Insurance", "Policy renews in June; kiln listed separately.\nClaims line on the fridge."),
    ("Newsletter", "Monthly, first Sunday; photos of the week's best pots.\nList in the mail tool."),
)
WORKING = ("Glaze recipes", "Class roster", "Shelf inventory", "Safety notes", "Insurance")  # used every day
WAYS = ("get", "search", "read", "cite")


@dataclasses.dataclass(frozen=True)
class Row:
    day: int
    bytes: int
    lines: int
    hot: int  # sections in MEMORY.md, the Index left out
    working_hot: int  # of the five in use
    moves: int  # move commits squadmem made that day

    def cells(self) -> list[str]:
        return [
            str(self.day),
            str(self.bytes),
            str(self.lines),
            str(self.hot),
            str(self.working_hot),
            str(self.moves),
        ]


def slug(title: str) -> str:
    return "-".join("".join(c if c.isalnum() else " " for c in title.lower()).split())


def memory_md() -> str:
    return HEADER + "".join(f"\n## {title}\n{body}\n" for title, body in SECTIONS)


def at(day: int, hour: int, minute: int = 0) -> dt.datetime:
    return START.replace(hour=hour, minute=minute) + dt.timedelta(days=day)


def iso(moment: dt.datetime) -> str:
    return moment.isoformat()


# ---------------------------------------------------------------- the workspace


@dataclasses.dataclass(frozen=True)
class Workspace:
    """The workspace repository and the host's home whose ``.openclaw`` holds the sessions."""

    root: Path
    home: Path

    @property
    def sessions(self) -> Path:
        return self.home / ".openclaw" / "agents" / AGENT / "sessions"

    def env(self) -> dict[str, str]:
        return sealed(self.home, drop=("GIT_", "SQUADMEM_", "OPENCLAW_"))


def create(where: Path) -> Workspace:
    """Day 0: the workspace and its 15 sections, then ``squadmem init``, each committed."""
    ws = Workspace(where / "workspace", where / "home")
    ws.sessions.mkdir(parents=True)
    env = ws.env()
    when = iso(START)
    scratch_repo(ws.root, env=env)
    day_zero = {
        "MEMORY.md": memory_md(),
        f"memory/{START.date()}.md": f"# {START.date()}\n\n- workspace set up\n",
    }
    commit(ws.root, day_zero, "workspace", when, env=env)
    squadmem(ws.root, "init", "--agent", AGENT, env=env)
    commit(ws.root, {}, "squadmem init", when, env=env)
    return ws


def locate(root: Path, title: str) -> tuple[str, int, int]:
    """The workspace file that holds section ``title`` now, and its 1-based first and last line."""
    candidates = [root / "MEMORY.md", *sorted((root / "memory").rglob("*.md"))]
    for path in candidates:
        lines = path.read_text("utf-8").splitlines()
        for n, line in enumerate(lines):
            if line == f"## {title}":
                end = next((m for m in range(n + 1, len(lines)) if lines[m].startswith("## ")), len(lines))
                while end > n + 1 and not lines[end - 1].strip():
                    end -= 1
                return path.relative_to(root).as_posix(), n + 1, end
    raise LookupError(f"section {title!r} is in no workspace file")


def excerpt(root: Path, rel: str, first: int, last: int) -> str:
    return "\n".join((root / rel).read_text("utf-8").splitlines()[first - 1 : last])


# ---------------------------------------------------------------- OpenClaw's transcript format


class Transcript:
    """One session as OpenClaw writes it: a version-4 ``session`` header, then chained ``message`` entries."""

    def __init__(self, session_id: str, cwd: Path, start: dt.datetime, tool_search: bool = True) -> None:
        self.session_id = session_id
        self.clock = start
        self.tool_search = tool_search
        self.parent: str | None = None
        self.calls = 0
        self.nested = 0
        self.entries: list[dict[str, Any]] = [
            {"type": "session", "version": 4, "id": session_id, "timestamp": self._stamp(), "cwd": str(cwd)}
        ]

    def _stamp(self) -> str:
        self.clock += dt.timedelta(seconds=7)
        return self.clock.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def _ms(self) -> int:
        return int(self.clock.timestamp() * 1000)

    def _append(self, message: dict[str, Any]) -> None:
        entry_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self.session_id}/{len(self.entries)}"))
        stamp = self._stamp()
        message["timestamp"] = self._ms()
        self.entries.append(
            {
                "type": "message",
                "id": entry_id,
                "parentId": self.parent,
                "timestamp": stamp,
                "message": message,
            }
        )
        self.parent = entry_id

    def user(self, text: str) -> None:
        self._append({"role": "user", "content": [{"type": "text", "text": text}]})

    def assistant(self, text: str, calls: Sequence[tuple[str, dict[str, Any]]] = ()) -> list[str]:
        """An assistant turn: its text and tool calls (name, arguments); the calls' ids."""
        ids = []
        content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        for name, arguments in calls:
            self.calls += 1
            ids.append(f"call_{self.session_id[:8]}_{self.calls}")
            content.append({"type": "toolCall", "id": ids[-1], "name": name, "arguments": arguments})
        self._append(
            {
                "role": "assistant",
                "content": content,
                "api": "openai-responses",
                "provider": "openai",
                "model": "gpt-5.4",
                "stopReason": "toolUse" if calls else "stop",
            }
        )
        return ids

    def result(self, call_id: str, tool: str, payload: dict[str, Any] | str) -> None:
        """A tool's result: OpenClaw's memory tools return JSON text with the same object as details."""
        message: dict[str, Any] = {"role": "toolResult", "toolCallId": call_id, "toolName": tool}
        message.update(tool_output(payload))
        message["isError"] = False
        self._append(message)

    def memory_tool(self, tool: str, arguments: dict[str, Any], payload: dict[str, Any]) -> None:
        """A memory tool's call and result, as the host records them with Tool Search (the default) or not.

        With Tool Search the model calls ``tool_call`` with ``{"id": tool,
        "args": ...}``; the host records the inner run as a ``custom`` message
        (``openclaw.nested-tool.v1``) and answers ``tool_call`` with the tool's
        id and its result.
        """
        if not self.tool_search:
            (call,) = self.assistant("", [(tool, arguments)])
            self.result(call, tool, payload)
            return
        (call,) = self.assistant("", [("tool_call", {"id": tool, "args": arguments})])
        self.nested += 1
        inner = tool_output(payload)
        details = {
            "parentToolCallId": call,
            "toolCallId": f"tool_search_code:{call}:{tool}:{self.nested}",
            "toolName": tool,
            "input": arguments,
            "result": inner,
        }
        self._append(
            {
                "role": "custom",
                "customType": "openclaw.nested-tool.v1",
                "display": True,
                "excludeFromContext": True,
                "content": "",
                "details": details,
            }
        )
        self.result(
            call,
            "tool_call",
            {
                "tool": {"id": f"openclaw:memory-core:{tool}", "name": tool, "source": "openclaw"},
                "result": inner,
            },
        )

    def jsonl(self) -> str:
        """One JSON object a line, compact, as ``JSON.stringify`` writes them."""
        return "".join(
            json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n" for entry in self.entries
        )


def tool_output(payload: dict[str, Any] | str) -> dict[str, Any]:
    """A tool's output: text content, and for a JSON result (``jsonResult``) the same object as details."""
    if isinstance(payload, str):
        return {"content": [{"type": "text", "text": payload}]}
    text = json.dumps(payload, indent=2, ensure_ascii=False)
    return {"content": [{"type": "text", "text": text}], "details": payload}


def memory_get(t: Transcript, root: Path, rel: str, first: int, last: int) -> None:
    lines = last - first + 1
    text = excerpt(root, rel, first, last)
    t.memory_tool(
        "memory_get",
        {"path": rel, "from": first, "lines": lines},
        {"status": "ok", "text": text, "path": rel, "from": first, "lines": lines},
    )


def memory_search(t: Transcript, root: Path, query: str, rel: str, first: int, last: int) -> None:
    """A search whose one hit is the section's range, as the builtin engine reports a hit."""
    citation = f"{rel}#L{first}-L{last}"
    hit = {
        "path": rel,
        "startLine": first,
        "endLine": last,
        "score": 1,
        "snippet": f"{excerpt(root, rel, first, last)}\n\nSource: {citation}",
        "source": "memory",
        "corpus": "memory",
        "citation": citation,
    }
    t.memory_tool(
        "memory_search", {"query": query}, {"results": [hit], "provider": "none", "citations": "auto"}
    )


def session(root: Path, day: int, tool_search: bool = True) -> Transcript:
    """Day ``day``'s session: each of the five sections used one way, the ways turning day by day."""
    start = at(day, SESSION_HOUR)
    t = Transcript(str(uuid.uuid5(uuid.NAMESPACE_URL, f"openclaw-days/{day}")), root, start, tool_search)
    t.user(f"Morning. Plan today's studio work for {at(day, 0).date()}.")
    cited = []
    for n, title in enumerate(WORKING):
        way = WAYS[(n + day) % len(WAYS)]
        rel, first, last = locate(root, title)
        if way == "get":
            memory_get(t, root, rel, first, last)
        elif way == "search":
            words = SECTIONS[[s[0] for s in SECTIONS].index(title)][1].split(".")[0]
            memory_search(t, root, words, rel, first, last)
            memory_get(t, root, rel, first, last)
        elif way == "read":
            (call,) = t.assistant(
                "", [("read", {"path": str(root / rel), "offset": first, "limit": last - first + 1})]
            )
            total = len((root / rel).read_text("utf-8").splitlines())
            more = (
                f"\n\n[{total - last} more lines in file. Use offset={last + 1} to continue.]"
                if total > last
                else ""
            )
            t.result(call, "read", excerpt(root, rel, first, last) + more)
        else:
            cited.append(title)
    done = "; ".join(f"checked “{title}”" for title in cited) or "checked the notes"
    t.assistant(f"Today's plan is set: {done}. I noted the day in memory/{at(day, 0).date()}.md.")
    return t


# ---------------------------------------------------------------- the run


def hot_sections(text: str) -> list[str]:
    titles = [line[3:] for line in text.splitlines() if line.startswith("## ")]
    return [title for title in titles if title != INDEX_TITLE]


def live_day(ws: Workspace, day: int, tool_search: bool = True) -> Row:
    """Day ``day``: the session, the day's log committed, then ``squadmem maintain`` that evening."""
    env = ws.env()
    t = session(ws.root, day, tool_search)
    (ws.sessions / f"{t.session_id}.jsonl").write_text(t.jsonl(), "utf-8")
    log = ws.root / "memory" / f"{at(day, 0).date()}.md"
    log.write_text(f"# {at(day, 0).date()}\n\n- studio work planned in the morning session\n", "utf-8")
    git(ws.root, "add", "--", log.relative_to(ws.root).as_posix(), env=env)
    git(
        ws.root,
        "commit",
        "-q",
        "--no-gpg-sign",
        "-m",
        f"log {at(day, 0).date()}",
        date=iso(at(day, LOG_HOUR)),
        env=env,
    )
    before = git(ws.root, "rev-parse", "HEAD", env=env).out.strip()
    evening = iso(at(day, MAINTAIN_HOUR))
    squadmem(ws.root, "maintain", "--now", evening, date=evening, env=env)
    trailers = git(
        ws.root, "log", "--format=%(trailers:key=Squad-Memory-Move,valueonly)", f"{before}..HEAD", env=env
    )
    hot = (ws.root / "MEMORY.md").read_text("utf-8")
    titles = hot_sections(hot)
    return Row(
        day,
        len(hot.encode("utf-8")),
        len(hot.splitlines()),
        len(titles),
        sum(title in titles for title in WORKING),
        sum(1 for line in trailers.out.splitlines() if line.strip()),
    )


def run(where: Path, days: int, tool_search: bool = True) -> Iterator[Row]:
    """Day 0 then days 1..``days``, one row each (day 0's after ``init``, before any maintain)."""
    ws = create(where)
    hot = (ws.root / "MEMORY.md").read_text("utf-8")
    titles = hot_sections(hot)
    yield Row(0, len(hot.encode()), len(hot.splitlines()), len(titles), sum(t in titles for t in WORKING), 0)
    for day in range(1, days + 1):
        yield live_day(ws, day, tool_search)


HEAD = ("day", "MEMORY.md bytes", "lines", "sections hot", "of the 5 in use", "moves")


def plot(rows: Sequence[Row], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    days = [r.day for r in rows]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 6.5), sharex=True)
    top.plot(days, [r.bytes for r in rows], label="MEMORY.md bytes", linewidth=2.2)
    top.axhline(HOT_MAX_BYTES, color="grey", linestyle="--", linewidth=1, label="hot.max_bytes")
    top.set_ylabel("bytes")
    top.set_ylim(0, HOT_MAX_BYTES * 1.1)
    top.legend(loc="lower left", fontsize=8)
    top.grid(alpha=0.3)
    bottom.step(days, [r.hot for r in rows], where="post", label="sections in MEMORY.md", linewidth=2.2)
    bottom.step(days, [r.working_hot for r in rows], where="post", label="of the 5 in use", linewidth=1.4)
    bottom.bar(days, [r.moves for r in rows], color="tab:red", alpha=0.5, label="moves that day")
    bottom.set_ylabel("sections")
    bottom.set_xlabel("day")
    bottom.set_ylim(0, len(SECTIONS) + 1)
    bottom.legend(loc="upper right", fontsize=8)
    bottom.grid(alpha=0.3)
    fig.suptitle("An OpenClaw workspace kept by squadmem: 15 sections, 5 in daily use")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def arguments() -> argparse.ArgumentParser:
    parser = options(__doc__, days=60)
    parser.add_argument(
        "--direct-tools", action="store_true", help="memory tools called by name (Tool Search off)"
    )
    parser.add_argument("--plot", type=Path, help="write a PNG of the rows (needs matplotlib)")
    parser.add_argument("--keep", type=Path, help="build the workspace here (a new folder) and keep it")
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    args = arguments().parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="openclaw-days-") as scratch:
        where = args.keep if args.keep else Path(scratch)
        rows = []
        for row in run(where, args.days, not args.direct_tools):
            rows.append(row)
            print(" ".join(row.cells()), flush=True)
    print()
    table(HEAD, [row.cells() for row in rows], right=len(HEAD))
    if args.plot:
        plot(rows, args.plot)
        print(f"\nplot: {args.plot}")


if __name__ == "__main__":
    main()

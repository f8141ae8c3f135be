"""Realistic squadmem histories, fast, through ``git fast-import``.

A team of agents works in one repository for months: code commits by people
(some on short branches merged back), and memory commits by the agents:
session ends that append to the day's log and edit the hot session block,
new and edited hot sections, squadmem-style moves (hot -> cold when stale
or over budget, cold -> archive or wiki when expired, promotions back to
hot), the odd move by hand (cut and pasted with different blank lines
around it), Index refreshes, wiki entries, and ``Squad-Memory-Used``
trailers on memory and code commits alike. Every tier file stays within its
budget, as squadmem would keep it.

    python -m bench.generate DIR [--commits 20000] [--seed 1] [--memory-share 0.5]

The result is deterministic for a given seed. ``generate()`` is the library
entry point the benchmark uses.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
import re
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

from bench.gitrun import git
from bench.harness import options, scratch_repo

AGENTS = ("picard", "riker", "data", "worf", "troi")
TOPICS = ("security", "architecture", "release")
PEOPLE = (("Beverly Crusher", "beverly@example.com"), ("Geordi La Forge", "geordi@example.com"))
WORDS = [
    "token",
    "cache",
    "retry",
    "schema",
    "queue",
    "index",
    "parser",
    "budget",
    "review",
    "deploy",
    "rollback",
    "lock",
    "journal",
    "timeout",
    "session",
    "branch",
    "merge",
    "shard",
    "replica",
    "tracing",
    "metrics",
    "alert",
    "quota",
    "batch",
    "stream",
    "cursor",
    "snapshot",
]
HOT_MAX_BYTES = 4096
HOT_MAX_LINES = 100
COLD_MAX_BYTES = 12288
INDEX_TITLE = "Index → Deeper Tiers"
MEMORY = ".squad/memory"
_SLUG_RUN = re.compile(r"[\W_]+")


def slugify(title: str) -> str:
    return _SLUG_RUN.sub("-", title.lower()).strip("-") or "section"


@dataclasses.dataclass
class Section:
    title: str
    body: str  # everything after the heading line, ending with a newline
    kind: str | None = None

    def text(self) -> str:
        flags = f"<!-- squadmem: kind={self.kind} -->\n" if self.kind else ""
        return f"## {self.title}\n{flags}{self.body}\n"

    @property
    def slug(self) -> str:
        return slugify(self.title)


@dataclasses.dataclass
class Change:
    """One commit to write: message, author, time, files (None deletes)."""

    message: str
    author: tuple[str, str]
    when: int
    files: Mapping[str, str | None]
    branch: str = "main"
    merge_from: str | None = None


class World:
    """The team's repository, as text, and the rules that keep it in budget."""

    def __init__(self, seed: int, start: dt.datetime) -> None:
        self.rng = random.Random(seed)
        self.now = int(start.timestamp())
        self.counter = 0
        self.hot: dict[str, list[Section]] = {a: [] for a in AGENTS}
        self.session: dict[str, str] = {a: "- task: getting started\n" for a in AGENTS}
        self.index: dict[str, str] = {a: "" for a in AGENTS}
        self.cold: dict[str, list[Section]] = {a: [] for a in AGENTS}
        self.archive: dict[str, list[Section]] = {a: [] for a in AGENTS}
        self.wiki: dict[str, list[Section]] = {t: [] for t in TOPICS}
        self.logs: dict[str, str] = {}
        self.code: dict[str, str] = {f"src/module_{i}.py": f"# module {i}\n" for i in range(40)}
        self.pending_trailer: list[str] = []

    # -- text -------------------------------------------------------------------------------
    def words(self, n: int) -> str:
        return " ".join(self.rng.choice(WORDS) for _ in range(n))

    def new_title(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix} {self.counter}: {self.words(3)}"

    def body(self) -> str:
        parts = ["\n", f"{self.words(12).capitalize()}.\n"]
        for _ in range(self.rng.randint(1, 4)):
            parts.append(f"- {self.words(self.rng.randint(4, 10))}\n")
        roll = self.rng.random()
        if roll < 0.15:
            parts.append(
                f"\n```sh\n## not a heading: {self.words(3)}\nsquadmem {self.rng.choice(WORDS)}\n```\n"
            )
        elif roll < 0.3:
            parts.append(f"\n### Detail\n{self.words(14)}.\n")
        return "".join(parts)

    def hot_text(self, agent: str) -> str:
        head = f"# Hot memory: {agent}\n\n## Session\n\n{self.session[agent]}\n"
        text = head + "".join(s.text() for s in self.hot[agent])
        if self.index[agent]:
            text += f"## {INDEX_TITLE}\n\n{self.index[agent]}"
        return text

    def cold_text(self, agent: str) -> str:
        return f"# Cold memory: {agent}\n\n" + "".join(s.text() for s in self.cold[agent])

    def archive_text(self, agent: str) -> str:
        return f"# Archive: {agent}\n\n" + "".join(s.text() for s in self.archive[agent])

    def wiki_text(self, topic: str) -> str:
        return f"# Wiki: {topic}\n\n" + "".join(s.text() for s in self.wiki[topic])

    def files_of(self, agent: str) -> dict[str, str | None]:
        return {
            f"{MEMORY}/hot/{agent}.md": self.hot_text(agent),
            f"{MEMORY}/cold/{agent}.md": self.cold_text(agent),
            f"{MEMORY}/archive/{agent}.md": self.archive_text(agent),
        }

    # -- time -------------------------------------------------------------------------------
    def tick(self) -> int:
        self.now += self.rng.randint(3 * 60, 27 * 60)
        moment = dt.datetime.fromtimestamp(self.now, dt.UTC)
        if moment.hour >= 19:
            nxt = (moment + dt.timedelta(days=1)).replace(hour=8, minute=self.rng.randint(0, 59))
            self.now = int(nxt.timestamp())
        return self.now

    @property
    def day(self) -> str:
        return dt.datetime.fromtimestamp(self.now, dt.UTC).date().isoformat()

    def log_append(self, agent: str) -> tuple[str, str]:
        path = f"{MEMORY}/log/{self.day}.md"
        text = self.logs.get(path) or f"# Log {self.day}\n\n"
        clock = dt.datetime.fromtimestamp(self.now, dt.UTC).strftime("%H:%M")
        text += f"- {clock} [{agent}] {self.words(self.rng.randint(8, 30))}\n"
        self.logs = {path: text}  # only today's log is ever written again
        return path, text

    # -- budgets ----------------------------------------------------------------------------
    def hot_fits(self, agent: str) -> bool:
        text = self.hot_text(agent)
        return len(text.encode()) <= HOT_MAX_BYTES and text.count("\n") <= HOT_MAX_LINES

    def trailers(self, *lines: str) -> str:
        used = self.pending_trailer
        self.pending_trailer = []
        out = list(lines)
        if used:
            out.append(f"Squad-Memory-Used: {', '.join(used)}")
        return ("\n\n" + "\n".join(out)) if out else ""

    def move(self, agent: str, section: Section, src: str, dst: str, reason: str) -> Change:
        verb = {"cold": "demote", "archive": "archive", "wiki": "archive", "hot": "promote"}[dst]
        where = f"wiki:{TOPICS[0]}" if dst == "wiki" else dst
        msg = f'memory({agent}): {verb} "{section.title}" {src} → {dst}\n\n{reason}'
        msg += self.trailers(
            f"Squad-Memory-Move: {agent}/{section.slug} {src} -> {where}", f"Squad-Memory-Reason: {reason}"
        )
        files = self.files_of(agent)
        if dst == "wiki":
            files[f"{MEMORY}/wiki/{TOPICS[0]}.md"] = self.wiki_text(TOPICS[0])
        return Change(msg, (agent, f"{agent}@squad.example"), self.tick(), files)

    def demote_until_fits(self, agent: str) -> Iterator[Change]:
        while not self.hot_fits(agent) and self.hot[agent]:
            section = self.hot[agent].pop(0)
            self.cold[agent].append(section)
            yield self.move(agent, section, "hot", "cold", "over budget")
            yield from self.expire_until_fits(agent)

    def expire_until_fits(self, agent: str) -> Iterator[Change]:
        while len(self.cold_text(agent).encode()) > COLD_MAX_BYTES and self.cold[agent]:
            section = self.cold[agent].pop(0)
            if section.kind:
                self.wiki[TOPICS[0]].append(section)
                yield self.move(agent, section, "cold", "wiki", "ttl 31d > 30d")
            else:
                self.archive[agent].append(section)
                yield self.move(agent, section, "cold", "archive", "ttl 31d > 30d")

    # -- commits ----------------------------------------------------------------------------
    def memory_commit(self) -> Iterator[Change]:
        agent = self.rng.choice(AGENTS)
        author = (agent, f"{agent}@squad.example")
        roll = self.rng.random()
        if self.rng.random() < 0.12 and self.hot[agent]:
            self.pending_trailer = [f"{agent}/{self.rng.choice(self.hot[agent]).slug}"]
        if roll < 0.35:  # a session ends: log, session block, a new or edited hot section
            path, log = self.log_append(agent)
            self.session[agent] = f"- task: {self.words(6)}\n- last: {self.words(8)}\n"
            if self.rng.random() < 0.6 or not self.hot[agent]:
                kind = "decision" if self.rng.random() < 0.2 else None
                self.hot[agent].append(Section(self.new_title("Note"), self.body(), kind))
            else:
                self.rng.choice(self.hot[agent]).body += f"- {self.words(7)}\n"
            yield from self.demote_until_fits(agent)
            files = {path: log, f"{MEMORY}/hot/{agent}.md": self.hot_text(agent)}
            yield Change(f"memory({agent}): session end{self.trailers()}", author, self.tick(), files)
        elif roll < 0.5 and self.hot[agent]:  # edit a hot section
            section = self.rng.choice(self.hot[agent])
            section.body = section.body.replace(self.rng.choice(WORDS), self.rng.choice(WORDS), 1)
            section.body += f"- {self.words(5)}\n"
            yield from self.demote_until_fits(agent)
            files = {f"{MEMORY}/hot/{agent}.md": self.hot_text(agent)}
            yield Change(f"memory({agent}): update notes{self.trailers()}", author, self.tick(), files)
        elif roll < 0.6 and self.hot[agent]:  # squadmem demotes a stale section
            section = self.hot[agent].pop(0)
            self.cold[agent].append(section)
            yield self.move(agent, section, "hot", "cold", "stale 9d > 7d")
            yield from self.expire_until_fits(agent)
        elif roll < 0.63 and self.hot[agent]:  # a person moves one by hand, with other blank lines
            section = self.hot[agent].pop(self.rng.randrange(len(self.hot[agent])))
            self.cold[agent].insert(0, Section(section.title, "\n" + section.body, section.kind))
            yield from self.expire_until_fits(agent)
            yield Change(f"move {section.title} to cold by hand", author, self.tick(), self.files_of(agent))
        elif roll < 0.66 and (self.cold[agent] or self.archive[agent]):  # promotion
            pool = self.cold[agent] or self.archive[agent]
            src = "cold" if self.cold[agent] else "archive"
            section = pool.pop(self.rng.randrange(len(pool)))
            self.hot[agent].append(section)
            yield self.move(agent, section, src, "hot", "used 3h ago")
            yield from self.demote_until_fits(agent)
        elif roll < 0.71:  # index refresh
            lines = [f"- {agent}/{s.slug} — {s.title} (cold)\n" for s in self.cold[agent][-8:]]
            self.index[agent] = "".join(reversed(lines))
            yield from self.demote_until_fits(agent)
            msg = f"memory({agent}): refresh index\n\nSquad-Memory-Index: {agent}"
            yield Change(msg, author, self.tick(), {f"{MEMORY}/hot/{agent}.md": self.hot_text(agent)})
        elif roll < 0.75:  # a wiki entry
            topic = self.rng.choice(TOPICS)
            pages = self.wiki[topic]
            if pages and self.rng.random() < 0.4:
                self.rng.choice(pages).body += f"- {self.words(9)}\n"
            else:
                pages.append(Section(self.new_title("Decision"), self.body(), "decision"))
            if len(self.wiki_text(topic).encode()) > 3 * COLD_MAX_BYTES:
                pages.pop(0)
            files = {f"{MEMORY}/wiki/{topic}.md": self.wiki_text(topic)}
            yield Change(f"wiki({topic}): write entry{self.trailers()}", author, self.tick(), files)
        else:  # a log entry only
            path, log = self.log_append(agent)
            yield Change(f"memory({agent}): log{self.trailers()}", author, self.tick(), {path: log})

    def code_commit(self) -> Change:
        path = self.rng.choice(sorted(self.code))
        self.code[path] += (
            f"def f_{self.counter}_{self.rng.randint(0, 9999)}():\n    return {self.words(3)!r}\n"
        )
        self.counter += 1
        msg = f"{self.rng.choice(WORDS)}: {self.words(6)}"
        if self.rng.random() < 0.1:
            agent = self.rng.choice(AGENTS)
            pool = self.hot[agent] + self.cold[agent]
            if pool:
                self.pending_trailer = [f"{agent}/{self.rng.choice(pool).slug}"]
                msg += self.trailers()
        return Change(msg, self.rng.choice(PEOPLE), self.tick(), {path: self.code[path]})


def initial(world: World) -> Change:
    files: dict[str, str | None] = {f"{MEMORY}/tiers.toml": "# squadmem settings\n", **world.code}
    for agent in AGENTS:
        files.update(world.files_of(agent))
    return Change("initial commit", PEOPLE[0], world.tick(), files)


def changes(commits: int, seed: int = 1, memory_share: float = 0.5) -> Iterator[Change]:
    """Exactly ``commits`` changes: about ``memory_share`` of them touch .squad/memory."""
    world = World(seed, dt.datetime(2024, 1, 1, 8, 0, tzinfo=dt.UTC))
    made = 1
    yield initial(world)
    while made < commits:
        if world.rng.random() < memory_share:
            batch = list(world.memory_commit())
        elif world.rng.random() < 0.02 and commits - made > 5:
            batch = branch(world)
        else:
            batch = [world.code_commit()]
        for change in batch[: commits - made]:
            made += 1
            yield change


def branch(world: World) -> list[Change]:
    """A short code branch merged back with a merge commit."""
    out = []
    for _ in range(3):
        change = world.code_commit()
        change.branch = "topic"
        out.append(change)
    touched: dict[str, str | None] = {}
    for change in out:
        touched.update(change.files)
    merge = Change("Merge branch 'topic'", PEOPLE[1], world.tick(), touched, merge_from="topic")
    return [*out, merge]


def _data(text: str | bytes) -> bytes:
    raw = text.encode("utf-8") if isinstance(text, str) else text
    return b"data %d\n%s\n" % (len(raw), raw)


def fast_import_stream(stream: Iterator[Change]) -> Iterator[bytes]:
    tips: dict[str, int] = {}
    for mark, change in enumerate(stream, start=1):
        name, email = change.author
        who = f"{name} <{email}> {change.when} +0000".encode()
        head = [b"commit refs/heads/" + change.branch.encode(), b"mark :%d" % mark]
        head += [b"author " + who, b"committer " + who]
        out = b"\n".join(head) + b"\n" + _data(change.message)
        if change.branch not in tips and change.branch != "main" and "main" in tips:
            out += b"from :%d\n" % tips["main"]
        if change.merge_from:
            out += b"merge :%d\n" % tips[change.merge_from]
        for path, text in change.files.items():
            if text is None:
                out += b"D " + path.encode() + b"\n"
            else:
                out += b"M 100644 inline " + path.encode() + b"\n" + _data(text)
        tips[change.branch] = mark
        if change.merge_from:
            del tips[change.merge_from]
        yield out + b"\n"


def generate(root: Path, commits: int, seed: int = 1, memory_share: float = 0.5) -> None:
    """A new repository at ``root`` holding the generated history, checked out."""
    scratch_repo(root)
    # streamed as it is generated (a 100,000-commit history is not held in memory), so not through git()
    proc = subprocess.Popen(["git", "fast-import", "--quiet", "--done"], cwd=root, stdin=subprocess.PIPE)
    assert proc.stdin is not None
    for chunk in fast_import_stream(changes(commits, seed, memory_share)):
        proc.stdin.write(chunk)
    proc.stdin.write(b"done\n")
    proc.stdin.close()
    if proc.wait() != 0:
        raise SystemExit("git fast-import failed")
    git(root, "branch", "-q", "-D", "topic", check=False)
    git(root, "checkout", "-q", "-f", "main")


def generated(repo: Path | None, scratch: Path, commits: int, seed: int = 1) -> Path:
    """``repo`` when it already holds a repository (a history kept between runs), else a history of
    ``commits`` generated (:func:`generate`) into ``repo`` or a folder under ``scratch``."""
    root = repo or scratch / "history"
    if not (root / ".git").exists():
        print(f"generating {commits} commits into {root} ...", file=sys.stderr)
        generate(root, commits, seed)
        git(root, "repack", "-adq")
    return root


def main(argv: list[str] | None = None) -> int:
    parser = options(__doc__, seed=1)
    parser.add_argument("dir", type=Path, help="where to create the repository (must not exist)")
    parser.add_argument("--commits", type=int, default=20000)
    parser.add_argument("--memory-share", type=float, default=0.5)
    args = parser.parse_args(argv)
    if args.dir.exists():
        parser.error(f"{args.dir} exists")
    generate(args.dir, args.commits, args.seed, args.memory_share)
    return 0


if __name__ == "__main__":
    sys.exit(main())

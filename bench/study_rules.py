"""The real-team study's fixed rules, pure: when a logged spawn started, which references count, the
recall an agent would type for one, and plain BM25.

All of them were written down before any spawn was scored (``squad_study.py`` runs them):

- **When** (:func:`spawn_moment`): the time stamp in a log's file name (``2026-07-14T07-52-49Z``,
  ``20260717T104500Z``, ``2026-07-16T130045``, ``2026-03-06T0215``, ``2026-04-09``); a stamp without
  a zone is read in the zone of the commit that added the log, a date alone as the start of that day;
  never later than that commit. The spawn is scored on the team's state before the first
  first-parent commit at or after that moment (:func:`state_before`), so no entry committed at or
  after it counts.
- **Which references** (:func:`counts`): those of ``squad_spawns.references`` less the generic ones:
  a slash phrase that names no file (``Infra/DevOps``, ``add/edit/delete``, ``src/components``:
  a path counts when its last part has an extension, or when it is three parts or more and one of
  them holds ``-``, ``_``, ``.`` or a digit); a code span that is a command or a phrase (it holds
  white space) or a plain lower-case word (``main``, ``true``); a stock file name
  (``README.md``, ``package.json``, ``index.ts``, Squad's own ``history.md``); a product name
  written in CamelCase (``GitHub``, ``TypeScript``); an issue number of one digit (``#1``); an ID
  that is a standard or a version (``ES2022``, ``SHA256``, ``P95``).
- **The recall** (:func:`query_for`): what an agent types when it touches the thing: ``#123``, a
  CamelCase name or an ID as it stands; a file (alone or in a path) by its stem, or, when the stem
  is a stock name, by its folder and stem (``auth index``); a code span as it stands.
- **What the agent touched** (:func:`touched`), for the ``near`` hook's replay: the files and issues
  the logged work names, in the order it names them, as the tool events an agent's runtime would
  report (a file read by its path, an issue in a shell command): a path or file name with an
  extension (not Squad's own files), an issue number of two digits or more; at most
  :data:`MAX_TOUCHED` a spawn. These are the relevance proxy's own kinds of reference: the hook and
  the proxy use related signals, so the study reports what the hook costs and what it brings that
  was not relevant, not only what it finds.
- **BM25** (:class:`BM25`): Okapi BM25, k1 = 1.2, b = 0.75, over words of letters and digits
  case-folded, idf ``log(1 + (N - n + 0.5) / (n + 0.5))``.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence

_STAMP = re.compile(
    r"(?<!\d)(\d{4})-?(\d{2})-?(\d{2})"  # the date
    r"(?:[T_-]?(\d{2})[-:]?(\d{2})(?:[-:]?(\d{2}))?(?:[.,]\d+)?)?"  # a time, seconds optional
    r"(Z)?(?!\d)",
    re.IGNORECASE,
)
STOCK_FILES = frozenset(
    {
        "readme",
        "package",
        "package-lock",
        "index",
        "main",
        "app",
        "tsconfig",
        "jsconfig",
        "config",
        "settings",
        "appsettings",
        "changelog",
        "contributing",
        "license",
        "dockerfile",
        "docker-compose",
        "compose",
        "requirements",
        "setup",
        "pyproject",
        "program",
        "startup",
        "global",
        "globals",
        "styles",
        "style",
        "launch",
        "vite.config",
        "jest.config",
        "eslint.config",
        "next.config",
        "tailwind.config",
        "makefile",
        "history",
        "decisions",
        "charter",
        "team",
        "routing",
        "ceremonies",
        "agents",
        "copilot-instructions",
        "claude",
        "skill",
        "test",
        "tests",
        "utils",
        "types",
        "constants",
        "layout",
        "page",
    }
)
PRODUCTS = frozenset(
    {
        "github",
        "gitlab",
        "typescript",
        "javascript",
        "powershell",
        "devops",
        "youtube",
        "linkedin",
        "openai",
        "nuget",
        "websocket",
        "macos",
        "vscode",
        "codeql",
        "dependabot",
        "playwright",
        "postgres",
        "mongodb",
        "graphql",
        "nodejs",
        "nextjs",
        "signalr",
        "fastapi",
        "sqlite",
        "mysql",
        "webassembly",
        "netlify",
        "vercel",
        "azure",
        "chatgpt",
        "copilot",
    }
)
STANDARD_IDS = frozenset(
    {
        "es",
        "iso",
        "sha",
        "aes",
        "utf",
        "http",
        "https",
        "tls",
        "ssl",
        "md",
        "x",
        "p",
        "q",
        "t",
        "v",
        "h",
        "ie",
        "wcag",
        "ecma",
        "net",
        "py",
    }
)
COMMAND = re.compile(r"\s")
_PLAIN = re.compile(r"[a-z]+")
_WORD = re.compile(r"[a-z0-9]+")


def stamp(name: str) -> tuple[dt.datetime, bool] | None:
    """The moment a log's file name gives, naive, and whether it names UTC (a ``Z``); None when it
    has no date."""
    found = _STAMP.search(name)
    if found is None:
        return None
    year, month, day, hour, minute, second, zulu = found.groups()
    try:
        moment = dt.datetime(
            int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0)
        )
    except ValueError:
        return None
    return moment, zulu is not None


def spawn_moment(path: str, added: dt.datetime) -> dt.datetime:
    """When the spawn ``path`` logs started: its name's time stamp (in ``added``'s zone when it names
    none), never later than ``added``, the commit that added the log."""
    found = stamp(path.rsplit("/", 1)[-1])
    if found is None:
        return added
    moment, utc = found
    zone = dt.UTC if utc else added.tzinfo
    return min(moment.replace(tzinfo=zone), added)


def state_before(moments: Sequence[dt.datetime], spawn: dt.datetime) -> int:
    """How many of the first-parent commits (their times, oldest first) precede ``spawn``: those
    before the first one at or after it (a later commit dated earlier does not count: its tree holds
    the later one's entries)."""
    for n, moment in enumerate(moments):
        if moment >= spawn:
            return n
    return len(moments)


def _is_path(ref: str) -> bool:
    parts = [p for p in ref.split("/") if p]
    last = parts[-1] if parts else ""
    if "." in last.strip(".") and not last.endswith("."):
        return True
    return len(parts) >= 3 and any(re.search(r"[-_.\d]", p) for p in parts)


def _stem(name: str) -> str:
    base = name.rsplit("/", 1)[-1].casefold()
    for suffix in (".d.ts", ".test.ts", ".spec.ts"):
        base = base.removesuffix(suffix)
    return base.rsplit(".", 1)[0] if "." in base.strip(".") else base.strip(".")


def counts(ref: str) -> bool:
    """Whether a reference (as ``squad_spawns.references`` gives it) is specific enough to count."""
    if ref.startswith("#"):
        return len(ref) > 2
    if COMMAND.search(ref):
        return False
    if "/" in ref:
        return _is_path(ref) and _stem(ref) not in STOCK_FILES
    if re.fullmatch(r"[\w-]+\.\w+", ref) and "." in ref:
        return _stem(ref) not in STOCK_FILES
    if _PLAIN.fullmatch(ref):
        return False  # a plain lower-case word
    if ref.casefold() in PRODUCTS:
        return False
    found = re.fullmatch(r"([A-Za-z]{1,5})-?(\d{2,})", ref)
    return not (found and found.group(1).casefold() in STANDARD_IDS)


def clean(refs: Iterable[str]) -> set[str]:
    return {ref for ref in refs if counts(ref)}


def query_for(ref: str) -> str:
    """The one recall an agent would type when its work touches ``ref``."""
    if ref.startswith("#") or ("/" not in ref and "." not in ref):
        return ref
    parts = [p for p in ref.rstrip("/").split("/") if p]
    stem = _stem(parts[-1]) if parts else ref
    if stem in STOCK_FILES and len(parts) > 1:
        return f"{parts[-2]} {stem}"
    return stem or ref


def words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


class BM25:
    """Okapi BM25 over ``documents`` (k1 = 1.2, b = 0.75)."""

    K1 = 1.2
    B = 0.75

    def __init__(self, documents: Sequence[str]) -> None:
        self.bags = [Counter(words(d)) for d in documents]
        self.lengths = [sum(bag.values()) for bag in self.bags]
        self.average = sum(self.lengths) / len(self.lengths) if self.lengths else 0.0
        self.holding = Counter(w for bag in self.bags for w in bag)

    def idf(self, word: str) -> float:
        n, held = len(self.bags), self.holding[word]
        return math.log(1 + (n - held + 0.5) / (held + 0.5))

    def score(self, query: str, n: int) -> float:
        bag, length = self.bags[n], self.lengths[n]
        total = 0.0
        for word in set(words(query)):
            tf = bag[word]
            if tf:
                norm = self.K1 * (1 - self.B + self.B * length / (self.average or 1))
                total += self.idf(word) * tf * (self.K1 + 1) / (tf + norm)
        return total

    def ranked(self, query: str) -> list[int]:
        """The documents holding a query word, best first; equals in their given order."""
        scores = [(self.score(query, n), n) for n in range(len(self.bags))]
        return [n for s, n in sorted(scores, key=lambda p: (-p[0], p[1])) if s > 0]


def fill(sizes: Sequence[int], order: Iterable[int], room: int) -> set[int]:
    """The items taken whole, in ``order``, while they fit in ``room`` bytes."""
    taken: set[int] = set()
    used = 0
    for n in order:
        if n not in taken and used + sizes[n] <= room:
            taken.add(n)
            used += sizes[n]
    return taken


MAX_TOUCHED = 20  # tool events replayed per spawn
_TOUCHED = re.compile(r"(?<![\w#])#\d{2,}\b|(?<![\w.-])(?:[\w.-]+/)*[\w.-]*[\w-]\.[A-Za-z]\w{0,9}\b")


def touched(work: str) -> list[str]:
    """The files and issues ``work`` names, in order, once each (see the module's docstring)."""
    found: dict[str, None] = {}
    for thing in _TOUCHED.findall(work):
        if ".squad/" in thing or thing.startswith(".squad"):
            continue
        found.setdefault(thing, None)
    return list(found)[:MAX_TOUCHED]


def tool_event(session: str, thing: str) -> dict[str, object]:
    """The PostToolUse event a runtime reports when an agent reads ``thing`` (a file) or names it in a
    shell command (an issue)."""
    if thing.startswith("#"):
        command = f'git commit -m "Fix ({thing})"'
        return {"session_id": session, "tool_name": "Bash", "tool_input": {"command": command}}
    return {"session_id": session, "tool_name": "Read", "tool_input": {"file_path": thing}}


# -- the leak-free moment (bench/leak_free_study.py) -------------------------------------------------

_LABELLED = re.compile(r"^[-*#>\s]*\**(?:timestamp|date|time|when|started|spawned)\**\s*:", re.IGNORECASE)


def stated_stamps(path: str, text: str) -> list[tuple[dt.datetime, bool]]:
    """Every moment the log states: the time stamp of its file name, and those of its title line and
    of its labelled lines (``Timestamp:``, ``**Date:**`` ...) among its first 20, each naive with
    whether it names UTC."""
    found = [s for s in [stamp(path.rsplit("/", 1)[-1])] if s is not None]
    lines = text.lstrip("\ufeff").split("\n")[:20]
    heads = [
        line for n, line in enumerate(lines) if (n == 0 and line.startswith("#")) or _LABELLED.match(line)
    ]
    for line in heads:
        for match in _STAMP.finditer(line):
            found += [s for s in [stamp(match.group(0))] if s is not None]
    return found


def stated_moment(path: str, text: str, added: dt.datetime) -> dt.datetime | None:
    """When the logged spawn started, read so that nothing after it can count: the earliest of the
    moments the log states (:func:`stated_stamps`), a stamp that names no zone read both in UTC and
    in the zone of the commit that added the log (the earlier counts), a date alone as the start of
    its day; never later than that commit. None when the log states no moment at all."""
    readings = []
    for moment, utc in stated_stamps(path, text):
        readings.append(moment.replace(tzinfo=dt.UTC))
        if not utc:
            readings.append(moment.replace(tzinfo=added.tzinfo))
    return min([*readings, added]) if readings else None

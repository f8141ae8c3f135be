"""Daily logs: appending entries, and the rules that keep a log immutable after its day.

Standard library only: the pre-commit hook, the pre-push hook and ``verify``
judge changes with the same rules. A log is ``.squad/memory/log/YYYY-MM-DD.md``,
named by the day in the team's time zone, or ``YYYY-MM-DD-<suffix>.md`` beside it
(a host's session file, such as OpenClaw's ``memory/2026-03-01-2215.md``): a log of
that day like the other (:func:`name_day`). During its day (and
``log.grace_minutes`` after its midnight) it may only grow at its end; after
that it may not change, be renamed or be deleted. A name that is not a real
date, or a date in the future, is refused. Creating the log of a past day that
never had one (a backfill, as ``migrate`` does) changes nothing recorded and
is allowed; re-creating one that an ancestor had must give back what it held.

A merge is judged against every parent, as lists of lines: each parent's
version is kept whole and in order, the lines the parents share at the start
stay first, and no line is added but what the parents bring (within its day,
new lines may follow at the end). A commit is judged by its *effective* date:
the latest of its own committer date and its parents' effective dates, so a
commit dated before its parent cannot reopen a past day. An append whose
author date falls within the log's day is a replay (a rebase, a cherry-pick,
an amend kept its author date) and passes when made within
:data:`REPLAY_WINDOW` of the day's end. See ``docs/threat-model.md``.

An entry reads ``- 14:03 [picard] text``; the lines after the first of a
multi-line text are indented by two spaces, so each entry stays one list item.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections import Counter
from collections.abc import Mapping, Sequence

from squadmem.model import clock, constants
from squadmem.model import places as where
from squadmem.model.errors import SquadmemError
from squadmem.model.names import check_name

TYPE_CHECKING = False  # typing is not imported at run time: the log check imports this module
if TYPE_CHECKING:
    from pathlib import Path

    from squadmem.model.layout import Layout

# The Squad layout's; a workspace's is its places' log_prefix. The hook's start-up time is
# measured against pre-commit-hooks', so this module imports neither layout nor dataclasses up front.
LOG_PREFIX = constants.LOG_PREFIX
# ASCII digits only (\d is any digit); the suffix as OpenClaw's session-memory hook writes it: a time
# (``2215``), a time taken twice (``2215-2``) or a slug (``api-design``), lowercase ASCII and dashes.
_DATED = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})(?:-[a-z0-9]+(?:-[a-z0-9]+)*)?\.md")
LOG_NAMES = "YYYY-MM-DD.md or YYYY-MM-DD-<suffix>.md"  # how the refusals name the rule
_ENTRY = re.compile(r"- (\d{2}:\d{2})(?: \[([^\]]+)\])?(?: (.*))?")
_EPOCH = re.compile(r"@?(\d+)(?: ([+-])(\d{2}):?(\d{2}))?")
# How long after a day's end an append authored within the day may still land (a rebase or
# cherry-pick of a branch's append keeps its author date; see docs/threat-model.md).
REPLAY_WINDOW = dt.timedelta(days=7)
MAX_LOG_BYTES = constants.MAX_FILE_BYTES


# -- names and days ------------------------------------------------------------------------------
def name_day(name: str) -> dt.date | str | None:
    """The day a file name in the log folder stands for: a date, ``"bad"`` for a log's name that is no
    real date (``2026-02-30.md``), None for any other name.

    ``YYYY-MM-DD.md`` is the day's log; ``YYYY-MM-DD-<suffix>.md`` (suffix lowercase ASCII letters,
    digits and inner dashes: ``2215``, ``2215-2``, ``api-design``) is a session file of that day,
    as OpenClaw's session-memory hook names them, and a log of its day under the same rules.
    """
    match = _DATED.fullmatch(name)
    if not match:
        return None
    try:
        return dt.date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    except ValueError:
        return "bad"


def parse_log_name(name: str) -> dt.date | None:
    """The date a log file name stands for (a day's log or a session file of it, the rule of
    :func:`name_day`), or None if it is not a log's name of a real date."""
    day = name_day(name)
    return day if isinstance(day, dt.date) else None


def log_day(rel: str, places: where.Places) -> dt.date | str | None:
    """What a repository path is: a log's date, ``"bad"`` for a dated name that is no real date,
    ``"misnamed"`` for any other file in ``log/``, or None (outside ``log/``, or a dot file there
    such as ``.gitkeep``).

    Logs are named as :func:`name_day` reads them, in ``log/`` (``memory/`` in a memory-tiers
    workspace, whose ``memory/`` also holds its tier files: there any other name is simply not a log).
    ``places``: the layout the path is read in (a commit's, or the work tree's).
    """
    prefix = places.log_prefix
    if not rel.startswith(prefix):
        return None
    name = rel[len(prefix) :]
    day = name_day(name)
    if day is None:
        other = prefix != LOG_PREFIX or (name.startswith(".") and "/" not in name)
        return None if other else "misnamed"
    return day


def today(now: dt.datetime, tz: dt.tzinfo) -> dt.date:
    return now.astimezone(tz).date()


def closes_at(day: dt.date, tz: dt.tzinfo, grace_minutes: float) -> dt.datetime:
    """The moment a day's log freezes: the next midnight in ``tz``, plus the grace period."""
    midnight = dt.datetime.combine(day + dt.timedelta(days=1), dt.time(), tzinfo=tz)
    try:
        return midnight + dt.timedelta(minutes=grace_minutes)
    except (OverflowError, ValueError):  # a grace period beyond the calendar (or NaN): it never closes
        return dt.datetime.max.replace(tzinfo=dt.UTC)


def _when(moment: dt.datetime, tz: dt.tzinfo) -> str:
    return moment.astimezone(tz).strftime("%Y-%m-%d %H:%M ") + str(tz)


# -- the immutability rules ------------------------------------------------------------------------
class Change:
    """One log path changed by a commit (or by the staged index): its bytes before and after.

    ``old`` is the first parent's version (None for a file that did not exist), ``new`` None for
    one deleted; ``renamed_to`` names where a deleted file went when git saw a rename. ``others``
    holds the file in a merge's other parents (None where absent): a change with ``others`` is a
    merge. ``history`` holds the versions the path had in the commit's ancestry, read only for a
    log that no parent has (its creation), so that a re-creation is told from a backfill.
    """

    __slots__ = ("history", "new", "old", "others", "path", "renamed_to")

    def __init__(
        self,
        path: str,
        old: bytes | None,
        new: bytes | None,
        renamed_to: str | None = None,
        others: tuple[bytes | None, ...] = (),
        history: Sequence[bytes] = (),
    ) -> None:
        self.path = path
        self.old = old
        self.new = new
        self.renamed_to = renamed_to
        self.others = others
        self.history = tuple(history)

    @property
    def parents(self) -> tuple[bytes | None, ...]:
        return (self.old, *self.others)

    def __repr__(self) -> str:
        return f"Change({self.path!r}, {self.old!r}, {self.new!r}, {self.renamed_to!r}, {self.others!r})"


class Rules:
    """The settings the rules need: the team's time zone and the grace period after midnight, and
    the layout whose logs they judge (``places``: a commit's, or the work tree's)."""

    __slots__ = ("grace_minutes", "places", "tz")

    def __init__(self, tz: dt.tzinfo, grace_minutes: float, places: where.Places) -> None:
        self.tz = tz
        self.grace_minutes = grace_minutes
        self.places = places


def needs_history(change: Change, now: dt.datetime, rules: Rules) -> bool:
    """Whether judging ``change`` needs the versions its path had in history: a past log created."""
    day = log_day(change.path, rules.places)
    if not isinstance(day, dt.date) or change.new is None or any(p is not None for p in change.parents):
        return False
    return day <= today(now, rules.tz)


def judge(change: Change, now: dt.datetime, rules: Rules, authored: dt.datetime | None = None) -> list[str]:
    """Why ``change``, made at ``now``, breaks the log rules: one reason per offence, [] if it is fine.

    ``now`` is the commit's effective date (see :func:`effective`); ``authored`` its author date,
    which lets a replayed append (rebase, cherry-pick, amend) of a closed day pass within
    :data:`REPLAY_WINDOW`.
    """
    day = log_day(change.path, rules.places)
    if day is None or all(p == change.new for p in change.parents):
        return []  # not a log, or nothing new against any parent
    if isinstance(day, str):
        if change.new is None or change.new in change.parents:
            return []  # removing a misnamed file is fine; a parent's one was judged where it came
        return [_misnamed(change.path, day, rules.places)]
    assert isinstance(day, dt.date)
    local_today = today(now, rules.tz)
    if day > local_today:
        if change.new is None or change.new in change.parents:
            return []
        return [f"dated in the future: it is {local_today.isoformat()} in {rules.tz}"]
    frozen = closes_at(day, rules.tz, rules.grace_minutes)
    if now >= frozen:
        replay = authored is not None and authored < frozen and now < frozen + REPLAY_WINDOW
        return _past(change, f"its day ended {_when(frozen, rules.tz)}", replay)
    return _open(change)


def _misnamed(path: str, kind: str, places: where.Places) -> str:
    prefix = places.log_prefix
    folder = prefix[len(where.SQUAD_DIR) + 1 :] if prefix.startswith(where.SQUAD_DIR) else prefix
    if kind == "bad":
        return f"{path[len(prefix) :][:10]} is not a real date; name daily logs {folder}YYYY-MM-DD.md"
    return (
        f"not a daily log's name: only {folder}{LOG_NAMES} (ASCII digits; the suffix a-z, 0-9 and"
        f" dashes) belongs in {folder}"
    )


def _past(change: Change, ended: str, replay: bool) -> list[str]:
    present = [p for p in change.parents if p is not None]
    if change.new is None:
        verb = f"renamed to {change.renamed_to}" if change.renamed_to else "deleted"
        by = " by a merge" if change.others else ""
        return [f"{verb}{by} after {ended}; a past day's log is frozen"]
    if not present:
        if not change.history or combines(change.new, change.history):
            return []  # a backfill (the day never had a log), or the log given back as it was
        return [f"re-created after {ended} with other text than it had; a past day's log is frozen"]
    if change.others:
        if combines(change.new, present):
            return []
        return [
            f"changed by a merge after {ended}: a merge of a past day's log must keep every "
            "parent's lines, in order, and add none"
        ]
    if replay and change.old is not None and change.new.startswith(change.old):
        return []  # an append authored within its day, replayed later (rebase, cherry-pick, amend)
    return [f"changed after {ended}; a past day's log is frozen (add to today's log instead)"]


def _open(change: Change) -> list[str]:
    present = [p for p in change.parents if p is not None]
    if change.new is None:
        verb = f"renamed to {change.renamed_to}" if change.renamed_to else "deleted"
        return [f"{verb}; a daily log is never deleted or renamed, it only grows at its end"]
    if not present:
        if not change.history or combines(change.new, change.history, tail=True):
            return []
        return ["re-created with other text than it had; a daily log only grows at its end"]
    if change.others:
        if combines(change.new, present, tail=True):
            return []
        return ["not an append: a merge must keep every parent's lines in order, adding only at the end"]
    if change.old is None or change.new.startswith(change.old):
        return []
    return ["not an append: today's log may only grow at its end (earlier bytes changed)"]


def _lines(data: bytes) -> list[bytes]:
    """Lines with their endings; an unterminated last line is read as ending in a newline."""
    found = data.splitlines(keepends=True)
    if found and not found[-1].endswith((b"\n", b"\r")):
        found[-1] += b"\n"
    return found


def _embed(part: Sequence[bytes], whole: Sequence[bytes]) -> int | None:
    """Where ``part`` ends as a subsequence of ``whole`` (leftmost match), None if it is not one."""
    at = 0
    for line in part:
        while at < len(whole) and whole[at] != line:
            at += 1
        if at == len(whole):
            return None
        at += 1
    return at


def combines(merged: bytes, versions: Sequence[bytes], tail: bool = False) -> bool:
    """Whether ``merged`` is a merge of ``versions`` as lists of lines, nothing lost or made up.

    Every version's lines appear in ``merged`` in their order, repeats included; the lines all
    versions share at their start stay its start; and no line occurs more often than the shared
    start and each version's own lines after it bring. With ``tail``, new lines may follow once
    every version is complete (an append within the day).
    """
    lines = _lines(merged)
    texts = [_lines(v) for v in versions]
    if not texts:
        return False
    shared = 0
    while all(shared < len(t) for t in texts) and len({t[shared] for t in texts}) == 1:
        shared += 1
    if lines[:shared] != texts[0][:shared]:
        return False
    end = shared
    for text in texts:
        found = _embed(text, lines)
        if found is None:
            return False
        end = max(end, found)
    allowed = Counter(texts[0][:shared])
    for text in texts:
        allowed.update(text[shared:])
    return not Counter(lines[:end] if tail else lines) - allowed


def kept(path: str, old: bytes, new: bytes | None, places: where.Places) -> str | None:
    """Why a log that a pushed-over ref held (``old``) is not kept by what the push puts there (``new``).

    Every line the ref held must still be there, in order (a rebase may put other lines before an
    append; the lines the push adds are judged by ``verify`` on its commits). None if it is kept.
    """
    if not isinstance(log_day(path, places), dt.date) or new == old:
        return None
    if new is None:
        return "deleted from history that was already pushed; a daily log is never deleted"
    if _embed(_lines(old), _lines(new)) is None:
        return "lines already pushed are gone or reordered: history under a pushed ref was rewritten"
    return None


def appended_elsewhere(old: bytes, new: bytes, versions: Sequence[bytes]) -> bool:
    """Whether ``new`` appends to ``old`` only lines that one of ``versions`` (the log on a branch that
    was pushed) already holds, in their order: a squash or cherry-pick of a published range."""
    if not new.startswith(old) or new == old:
        return False
    added = _lines(new[len(old) :])
    return any(_embed(added, _lines(version)) is not None for version in versions)


def published_append(
    old: bytes, new: bytes, steps: Sequence[tuple[Change, dt.datetime, dt.datetime]], rules: Rules
) -> bool:
    """Whether a late append of ``new`` to ``old`` only brings lines that a branch already holds (a
    squash or cherry-pick of it), and that branch is proof of them: ``steps`` are its commits'
    changes of the log, each with its committer and author date, and every one of them must keep
    the log rules itself. A remote-tracking ref says where lines are, not that they were judged:
    one pushed with ``--no-verify``, or made with ``git update-ref``, proves nothing."""
    versions = []
    for change, committed, authored in steps:
        if judge(change, committed, rules, authored):
            return False
        if change.new is not None:
            versions.append(change.new)
    return appended_elsewhere(old, new, versions)


def unpublished(old: bytes, new: bytes, published: Sequence[bytes]) -> list[bytes]:
    """The lines ``new`` has beyond ``old`` that no ``published`` version holds (a forced push that
    adds to a frozen log may bring only lines already pushed elsewhere, as a rebase onto them does)."""
    known = {line for version in published for line in _lines(version)}
    return [line for line in (Counter(_lines(new)) - Counter(_lines(old))) if line not in known]


def carried(old: bytes, new: bytes | None, to: str) -> str | None:
    """Why a log that a change of layout leaves behind (``old``) is not carried to ``to``, the new
    layout's log of its day (``new``, None when absent): every line it held must be there, in order.
    None if it is."""
    if new is None:
        return (
            f"a change of layout leaves this log behind: {to} must hold its lines"
            " (squadmem migrate memory-tiers copies them)"
        )
    if _embed(_lines(old), _lines(new)) is None:
        return f"a change of layout does not carry this log: {to} lacks some of its lines or reorders them"
    return None


def is_frozen(path: str, now: dt.datetime, rules: Rules) -> bool:
    day = log_day(path, rules.places)
    return isinstance(day, dt.date) and now >= closes_at(day, rules.tz, rules.grace_minutes)


def effective(own: dt.datetime, parents: Sequence[dt.datetime]) -> dt.datetime:
    """A commit's effective date: its own, or its latest parent's when it is dated before it."""
    return max([own, *parents])


# -- git's dates ------------------------------------------------------------------------------------
def parse_git_date(value: str) -> dt.datetime | None:
    """A date in the formats git takes for GIT_COMMITTER_DATE: ISO 8601, RFC 2822, ``[@]<epoch> <tz>``.

    None when it is none of these (git's own approximate dates are not read).
    """
    text = value.strip()
    epoch = _EPOCH.fullmatch(text)
    if epoch and (text.startswith("@") or epoch.group(2) or len(epoch.group(1)) >= 9):
        return dt.datetime.fromtimestamp(int(epoch.group(1)), dt.UTC)
    iso = text.replace(" ", "T", 1) if re.match(r"\d{4}-\d{2}-\d{2} \d", text) else text
    iso = re.sub(r"\s+([+-]\d{2}:?\d{2}|Z)$", r"\1", iso)
    try:
        moment = dt.datetime.fromisoformat(iso)
    except ValueError:
        import email.utils  # only for RFC 2822 dates: keeps the hook's start-up light

        try:
            moment = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
    return moment if moment.tzinfo else moment.astimezone()


def signature_times(raw: bytes) -> tuple[dt.datetime | None, dt.datetime | None]:
    """A raw commit object's author and committer dates (None where unreadable)."""
    found: dict[bytes, dt.datetime] = {}
    for line in raw.split(b"\n\n", 1)[0].split(b"\n"):
        role, _, rest = line.partition(b" ")
        if role in (b"author", b"committer"):
            stamp = rest.rsplit(b">", 1)[-1].split()
            if stamp and stamp[0].isdigit():
                found[role] = clock.from_epoch(clock.git_epoch(stamp[0]))
    return found.get(b"author"), found.get(b"committer")


def commit_now(environ: Mapping[str, str] | None = None) -> dt.datetime:
    """The moment a commit being made will carry: GIT_COMMITTER_DATE when set, else the clock."""
    env = os.environ if environ is None else environ
    value = env.get("GIT_COMMITTER_DATE")
    if value:
        parsed = parse_git_date(value)
        if parsed is not None:
            return parsed
    return clock.now()


# -- writing and reading entries -----------------------------------------------------------------------
def title(day: dt.date) -> str:
    return f"# Daily log {day.isoformat()}\n\n"


def entry(text: str, moment: dt.datetime, tz: dt.tzinfo, agent: str | None = None) -> str:
    """One entry: ``- HH:MM [agent] first line``, further lines indented by two spaces."""
    body = text.replace("\r\n", "\n").replace("\r", "\n").strip("\n")
    if not body.strip():
        raise SquadmemError("nothing to log: the text is empty", hint='squadmem log add "what happened"')
    first, *rest = body.split("\n")
    who = f" [{check_name(agent)}]" if agent else ""
    lines = [f"- {moment.astimezone(tz).strftime('%H:%M')}{who} {first}".rstrip()]
    lines += [f"  {line}".rstrip() for line in rest]
    return "\n".join(lines) + "\n"


def refuse_future(day: dt.date, tz: dt.tzinfo) -> dt.date:
    """``day``, unless it is after the clock's today in ``tz`` (the hooks refuse such a log)."""
    if day > today(clock.now(), tz):
        raise SquadmemError(
            f"the log of {day.isoformat()} would be dated in the future (in {tz})",
            hint="log under today's date: drop --now, or give a moment that has passed",
        )
    return day


def append(layout: Layout, tz: dt.tzinfo, text: str, now: dt.datetime, agent: str | None = None) -> Path:
    """Append an entry to today's log (by ``tz``), creating the log with its title line; return its path.

    Refuses (nothing written) a day after the clock's today, a NUL byte, and an entry that
    would take the log over the 1 MiB limit: the hooks would refuse to commit any of them.
    ``agent``, when given, must be an agent with tier files here (the one agent rule).
    """
    from squadmem.model.layout import encode_tier

    if agent is not None:
        agent = layout.require_agent(agent)
    day = refuse_future(today(now, tz), tz)
    line = entry(text, now, tz, agent)
    path = layout.log_path(day)  # refuses a path that a symlink leads outside the memory
    rel = layout.rel(path)
    layout.regular(path)  # a folder, a FIFO, a symlink loop or one to nothing: refused, never opened
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise SquadmemError(f"{rel}: is not a regular file", hint="replace it with the log file")
    size = path.stat().st_size if path.exists() else 0
    grown = size + len(encode_tier(title(day) + line, rel))
    if grown > MAX_LOG_BYTES:
        raise SquadmemError(
            f"{rel}: squadmem will not write it: {grown} bytes would be over the 1 MiB limit",
            hint="log a shorter entry (put long output in a file and log its path); nothing was written",
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "ab") as handle:
        end = handle.tell()
        prefix = title(day) if end == 0 else ""
        if end and not _ends_with_newline(path, end):
            prefix = "\n"
        handle.write((prefix + line).encode("utf-8"))
    return path


def _ends_with_newline(path: Path, size: int) -> bool:
    with open(path, "rb") as handle:
        handle.seek(size - 1)
        return handle.read(1) in (b"\n", b"\r")


class Entry:
    """One entry of a log: its ``HH:MM``, its agent (if named) and its text."""

    __slots__ = ("agent", "text", "time")

    def __init__(self, time: str, agent: str | None, text: str) -> None:
        self.time = time
        self.agent = agent
        self.text = text

    def as_dict(self) -> dict[str, str | None]:
        return {"time": self.time, "agent": self.agent, "text": self.text}


def entries(text: str) -> list[Entry]:
    """The entries of a log's text; lines that are not entries (a raw session) join the entry above."""
    found: list[Entry] = []
    for line in text.replace("\r\n", "\n").split("\n"):
        match = _ENTRY.fullmatch(line)
        if match:
            found.append(Entry(match.group(1), match.group(2), match.group(3) or ""))
        elif found and (line.startswith("  ") or not line):
            found[-1].text += f"\n{line[2:]}"
    for item in found:
        item.text = item.text.rstrip("\n")
    return found


def parse_day(value: str) -> dt.date:
    """A ``YYYY-MM-DD`` argument."""
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise SquadmemError(
            f"date {value!r}: not a date", hint="give the day as YYYY-MM-DD, e.g. 2026-03-01"
        ) from None


def read(layout: Layout, day: dt.date) -> tuple[str, str]:
    """A day's log: its repository path and text."""
    path = layout.log_path(day)
    rel = layout.rel(path)
    raw = layout.read_file(path)
    if raw is None:
        raise SquadmemError(
            f"{rel}: no log for {day.isoformat()}", hint='squadmem log add "text" writes today\'s log'
        )
    return rel, raw.decode("utf-8", "replace")


def read_sessions(layout: Layout, day: dt.date) -> list[tuple[str, str]]:
    """The session files of ``day`` beside its log (``YYYY-MM-DD-<suffix>.md``), by name: each one's
    repository path and text."""
    found = []
    stem = day.isoformat() + "-"
    for name in layout.log_names():
        if name.startswith(stem) and name_day(name) == day:
            path = layout.log_folder / name
            found.append((layout.rel(path), (layout.read_file(path) or b"").decode("utf-8", "replace")))
    return found

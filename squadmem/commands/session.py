"""``session start`` / ``session end``: the Scribe's work on an agent's hot ``## Session`` block.

``start`` writes the block (task, start time, then ``###`` Active decisions,
Last actions, Blockers and Talking to, each ``- none yet``) as the first
section of ``hot/<agent>.md`` and commits it. ``end`` appends the raw block to
today's daily log, writes a dated cold section ``## <YYYY-MM-DD>: <task>``
holding a summary (the caller's, or an extractive one of about a tenth of
the block's size), clears the block back to :data:`EMPTY`, and commits hot,
cold and log in one commit. Both commit through :meth:`writer.Writer.commit_files`,
under the writers' lock, beside the user's index: their other changes stay
untouched, and a file it writes with uncommitted changes makes it refuse.
The block is never pinned: the rules never move a section titled ``Session``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from pathlib import Path
from typing import Any

import mistune
from mistune.renderers.markdown import MarkdownRenderer

from squadmem.engine import catalog, index, titles
from squadmem.engine.writing import writer
from squadmem.gitio import questions
from squadmem.gitio.repo import Repo
from squadmem.model import logs, sections, settings, templates
from squadmem.model.errors import SquadmemError

HEADING = f"## {catalog.SESSION_TITLE}"
NONE_YET = "- none yet"
EMPTY = f"{HEADING}\n{NONE_YET}\n"
PARTS = ("Active decisions", "Last actions", "Blockers", "Talking to")
SUMMARY_FLOOR = 200  # bytes: the extractive summary's budget is max(this, a tenth of the block)
_PLACEHOLDER = re.compile(r"[-*+]\s+none(?: yet)?\.?", re.IGNORECASE)
_TASK = "**Task:**"
_STARTED = "**Started:**"
_TASK_LINE = re.compile(r"[-*+] \*\*Task:\*\*(.*)")
_parse = mistune.create_markdown(renderer=None)


@dataclasses.dataclass(frozen=True)
class Result:
    """What a session command wrote and committed."""

    agent: str
    task: str
    commit: writer.Made
    files: tuple[str, ...]
    summary: str | None = None
    session_bytes: int | None = None
    recovered: str | None = None

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"agent": self.agent, "task": self.task, "files": list(self.files)}
        data.update(self.commit.as_dict())
        if self.summary is not None:
            data["summary"] = self.summary
            data["summary_bytes"] = len(self.summary.encode("utf-8"))
            data["session_bytes"] = self.session_bytes
        if self.recovered:
            data["recovered"] = self.recovered
        return data

    def text(self) -> str:
        out = [f"squadmem: {self.recovered}"] if self.recovered else []
        out.append(f"{self.commit.sha[:7]} {self.commit.subject}")
        if self.summary is not None:
            size = len(self.summary.encode("utf-8"))
            out.append(f"summary ({size} of {self.session_bytes} bytes) in {self.files[1]}:")
            out.extend(f"  {line}" for line in self.summary.rstrip("\n").split("\n"))
        return "\n".join(out)


# -- the block -----------------------------------------------------------------------------------


def block(task: str, started: dt.datetime, talking_to: str | None = None) -> str:
    """A new session block; it ends with a blank line."""
    rows = [HEADING, f"- {_TASK} {task}", f"- {_STARTED} {started.isoformat()}", ""]
    for part in PARTS:
        rows += [f"### {part}", f"- {talking_to}" if part == "Talking to" and talking_to else NONE_YET, ""]
    return "\n".join(rows) + "\n"


def _one_line(value: str, option: str) -> str:
    text = value.strip()
    if not text or "\n" in text or "\r" in text:
        raise SquadmemError(f"{option}: give one non-empty line", hint=f'{option} "rotate the staging keys"')
    return text


def find(text: str) -> int | None:
    """The position of the session block among the hot file's sections, or None."""
    for position, section in enumerate(index.split(text).sections):
        if titles.plain(section.raw_heading) == catalog.SESSION_TITLE:
            return position
    return None


def has_content(section: sections.Section) -> bool:
    """Whether a block holds anything beyond its heading, flags, ``###`` headings and placeholders."""
    for row in sections.lines(section.text)[section.heading_lines :]:
        line = row.strip()
        if line and not line.startswith(("<!--", "###")) and not _PLACEHOLDER.fullmatch(line):
            return True
    return False


def _splice(text: str, position: int | None, new_block: str) -> str:
    """``text`` with its session block (at ``position``, or a new first section) set to ``new_block``.

    Everything else keeps its bytes; the result must split into the same other sections.
    """
    doc = index.split(text)
    others = [sections.trimmed(s.text) for n, s in enumerate(doc.sections) if n != position]
    before = [s.text for s in doc.sections[:position]] if position is not None else []
    after = [s.text for s in doc.sections[(position + 1 if position is not None else 0) :]]
    header = doc.header
    if position is None and header.strip() and not header.endswith(("\n\n", "\r\n\r\n")):
        header += "\n" if index.ends_line(header) else "\n\n"  # a blank line before the block
    result = header + "".join(before) + new_block + "".join(after)
    found = index.split(result)
    at = len(before)
    kept = [sections.trimmed(s.text) for n, s in enumerate(found.sections) if n != at]
    same = len(found.sections) == len(others) + 1 and found.sections[at].text == new_block
    if not same or sections.trimmed(found.header) != sections.trimmed(doc.header) or kept != others:
        raise SquadmemError(
            "the session block would not stay a section of its own in the hot file",
            hint="close any open code fence or HTML block in the section before it",
        )
    return result


# -- the summary ---------------------------------------------------------------------------------


def _item_markdown(node: dict[str, Any], state: Any) -> str:
    """One list item (or paragraph) as a ``- `` list item of Markdown."""
    if node["type"] == "list_item":
        wrapper = {"type": "list", "children": [node], "tight": True, "bullet": "-"}
        wrapper["attrs"] = {"depth": 0, "ordered": False}
        rendered: str = MarkdownRenderer()([wrapper], state)
    else:
        rendered = "- " + MarkdownRenderer()([node], state).strip("\n").replace("\n", "\n  ") + "\n"
    return rendered.strip("\n") + "\n"


def parts(text: str) -> dict[str, list[str]]:
    """The block's items by part: ``task``, ``decisions``, ``blockers``, ``actions``, ``other``.

    Each item is Markdown ``- ...\\n``; placeholders (``- none yet``) are left out.
    """
    tokens, state = _parse.parse(text)
    assert isinstance(tokens, list)
    found: dict[str, list[str]] = {k: [] for k in ("task", "decisions", "blockers", "actions", "other")}
    part = "top"
    for token in tokens:
        kind = token["type"]
        if kind == "heading":
            part = _part_of(token)
            continue
        if part == "skip" or kind not in ("list", "paragraph"):
            continue
        nodes = token["children"] if kind == "list" else [token]
        for node in nodes:
            item = _item_markdown(node, state)
            if _PLACEHOLDER.fullmatch(item.strip()):
                continue
            if part != "top":
                found[part].append(item)
            elif item.startswith(f"- {_TASK}"):
                found["task"].append(item)
            elif not item.startswith(f"- {_STARTED}"):
                found["other"].append(item)
    return found


def _part_of(heading: dict[str, Any]) -> str:
    """Which part a heading opens: ``top`` (## and #), a part of the summary, or ``skip``."""
    if heading["attrs"]["level"] <= 2:
        return "top"
    title = "".join(_raw(heading.get("children", []))).lower()
    for word, part in (("decision", "decisions"), ("blocker", "blockers"), ("action", "actions")):
        if word in title:
            return part
    return "skip"


def _raw(nodes: list[dict[str, Any]]) -> list[str]:
    out: list[str] = []
    for node in nodes:
        if "children" in node:
            out.extend(_raw(node["children"]))
        else:
            out.append(str(node.get("raw", " ")))
    return out


def task_line(text: str) -> str | None:
    """The block's ``- **Task:** ...`` line as written (without its line ending), if it has one."""
    for row in sections.lines(text):
        match = _TASK_LINE.fullmatch(row.rstrip("\r\n"))
        if match:
            return match.group(0)
    return None


def task_of(text: str) -> str:
    """The block's task: its ``- **Task:**`` line, else the first line of its first item."""
    line = task_line(text)
    if line is not None:
        return line.split(_TASK, 1)[1].strip() or "session"
    other = parts(text)["other"]
    return (other[0].split("\n", 1)[0][2:].strip()[:72] if other else "") or "session"


def _labelled(item: str, label: str) -> str:
    return f"- **{label}:** {item[2:]}" if item.startswith("- ") and item[2:3] not in ("", " ") else item


def summarize(text: str, log_rel: str) -> str:
    """A deterministic extractive summary of a block, about a tenth of its size.

    The task line and every active decision always; then blockers, then the
    last actions, each whole item taken in order while it fits the budget
    (max(SUMMARY_FLOOR, a tenth of the block's bytes)); a last line counts what
    was left out and names the log that holds it all.
    """
    budget = max(SUMMARY_FLOOR, len(text.encode("utf-8")) // 10)
    found = parts(text)
    task = (task_line(text) or f"- {_TASK} {task_of(text)}") + "\n"
    kept = [task, *(_labelled(i, "Decision") for i in found["decisions"])]
    candidates = [_labelled(i, "Blocker") for i in found["blockers"]]
    candidates += [_labelled(i, "Done") for i in found["actions"]]
    candidates += found["other"]
    left = 0
    size = sum(len(k.encode("utf-8")) for k in kept)
    for item in candidates:
        more = len(item.encode("utf-8"))
        note = len(_left_note(left + 1, log_rel).encode("utf-8"))
        if size + more + note <= budget:
            kept.append(item)
            size += more
        else:
            left += 1
    if left:
        kept.append(_left_note(left, log_rel))
    return "".join(kept)


def _left_note(count: int, log_rel: str) -> str:
    return f"- {count} more item{'s' if count != 1 else ''} in {log_rel}\n"


# -- the log entry -------------------------------------------------------------------------------


def log_entry(raw: str, task: str, moment: dt.datetime, tz: dt.tzinfo, agent: str) -> str:
    """``- HH:MM [agent] session end: <task>`` then the raw block, each line indented by two spaces.

    Byte for byte but for line endings (``\\n``) and the block's trailing blank lines:
    unlike :func:`logs.entry`, no line is stripped, so ``logs.entries`` gives the block back.
    """
    rows = [row.rstrip("\r\n") for row in sections.lines(raw)]
    while rows and not rows[-1].strip():
        rows.pop()
    first = logs.entry(f"session end: {task}", moment, tz, agent)
    return first + "".join(f"  {row}\n" if row else "\n" for row in rows)


def _appended(current: str | None, entry: str, day: dt.date) -> str:
    if not current:
        return logs.title(day) + entry
    return current + ("" if index.ends_line(current) else "\n") + entry


# -- the commands --------------------------------------------------------------------------------


def _hot(scribe: writer.Writer, repo: Repo, agent: str) -> tuple[str, str]:
    rel = repo.layout.rel(repo.layout.tier_path("hot", agent))
    found = scribe.text(rel)
    return rel, templates.tier_header("hot", agent, workspace=False) + "\n" if found is None else found


def start(
    repo: Repo,
    agent: str,
    task: str,
    now: dt.datetime,
    talking_to: str | None = None,
    force: bool = False,
    new: bool = False,
) -> Result:
    """Write the session block into ``hot/<agent>.md`` (its first section if new) and commit it.

    The agent must have tier files already, unless ``new`` (then its hot file is created).
    """
    if not new:
        agent = repo.layout.require_agent(agent)
    task = _one_line(task, "--task")
    talking_to = _one_line(talking_to, "--talking-to") if talking_to is not None else None
    tz = repo.layout.settings.tz
    with writer.session(repo) as scribe:
        rel = repo.layout.rel(repo.layout.tier_path("hot", agent))
        scribe.refuse_dirty([rel])
        rel, text = _hot(scribe, repo, agent)
        position = find(text)
        if position is not None and not force and has_content(index.split(text).sections[position]):
            raise SquadmemError(
                f"{rel}: {agent} has a session in progress",
                hint=f"squadmem session end --agent {agent} first (or start again with --force)",
            )
        started = _splice(text, position, block(task, now.astimezone(tz).replace(microsecond=0), talking_to))
        made = scribe.commit_files({rel: started}, f'memory({agent}): session start "{task}"')
    return Result(agent, task, made, (rel,), recovered=scribe.recovered)


def _refuse_a_frozen_log(repo: Repo, scribe: writer.Writer, rel: str, new: str, day: dt.date) -> None:
    """squadmem never makes a commit its own ``verify`` refuses: the log of ``--now``'s day must still
    be open at the date the commit will carry (``GIT_COMMITTER_DATE`` or the clock, or HEAD's when
    later), judged by the rules ``verify`` applies (HEAD's settings)."""
    committed = dt.datetime.fromtimestamp(scribe.config().committer_time(), dt.UTC)
    head = questions.commit_time(repo.git, scribe.head)
    moment = logs.effective(committed, [dt.datetime.fromtimestamp(head, dt.UTC)])
    old = scribe.text(rel)
    change = logs.Change(rel, None if old is None else old.encode("utf-8"), new.encode("utf-8"))
    path = repo.layout.places.settings
    raw = scribe.text(path)
    conf = settings.Settings() if raw is None else settings.parse(raw, Path(path))
    why = logs.judge(change, moment, logs.Rules(conf.tz, conf.log.grace_minutes, repo.layout.places))
    if why:
        raise SquadmemError(
            f"{rel}: the commit would be dated {moment:%Y-%m-%d %H:%M} UTC, after the log of "
            f"{day.isoformat()} froze",
            hint="leave out --now (the session is logged in the day's log as the commit is dated)",
        )


def end(repo: Repo, agent: str, now: dt.datetime, summary: str | None = None) -> Result:
    """Log the raw block, write its summary into cold, clear the block: one commit."""
    agent = repo.layout.require_agent(agent)
    tz = repo.layout.settings.tz
    day = logs.refuse_future(logs.today(now, tz), tz)
    with writer.session(repo) as scribe:
        hot_rel = repo.layout.rel(repo.layout.tier_path("hot", agent))
        cold_rel = repo.layout.rel(repo.layout.tier_path("cold", agent))
        log_rel = repo.layout.rel(repo.layout.log_path(day))
        scribe.refuse_dirty([hot_rel, cold_rel])
        log_text = scribe.grown_text(log_rel)  # today's log may hold uncommitted `log add` entries
        hot_rel, hot = _hot(scribe, repo, agent)
        position = find(hot)
        raw = index.split(hot).sections[position] if position is not None else None
        if raw is None or not has_content(raw):
            raise SquadmemError(
                f"{hot_rel}: {agent} has no session in progress",
                hint=f'squadmem session start --agent {agent} --task "what you are doing"',
            )
        task = task_of(raw.text)
        if summary is None:
            text = summarize(raw.text, log_rel)
        else:
            text = summary.replace("\r\n", "\n").strip("\n") + "\n"
            if not text.strip():
                raise SquadmemError("the summary is empty", hint="write one, or leave out --summary-file")
        cold = scribe.text(cold_rel)
        cold = templates.tier_header("cold", agent, workspace=False) + "\n" if cold is None else cold
        # A session that made decisions leaves a summary the wiki keeps when it ages out of cold.
        flags = "<!-- squadmem: kind=decision -->\n" if parts(raw.text)["decisions"] else ""
        section = f"## {day.isoformat()}: {task}\n{flags}{text}\n"
        try:
            sections.split(section)
        except sections.FlagError as exc:
            raise SquadmemError(f"the summary: {exc.message}", hint=exc.hint) from None
        try:
            new_cold = index.insert(cold, section)
        except index.SpliceError:
            raise SquadmemError(
                "the summary would not stay one cold section",
                hint="use ### (not ##) for headings in it, and close any code fence",
            ) from None
        entry = log_entry(raw.text, task, now, tz, agent)
        files = {
            hot_rel: _splice(hot, position, EMPTY + "\n"),
            cold_rel: new_cold,
            log_rel: _appended(log_text, entry, day),
        }
        _refuse_a_frozen_log(repo, scribe, log_rel, files[log_rel], day)
        first = next(line for line in text.split("\n") if line.strip())
        made = scribe.commit_files(files, f'memory({agent}): session end "{task}"', first, grown=[log_rel])
    return Result(
        agent,
        task,
        made,
        (hot_rel, cold_rel, log_rel),
        summary=text,
        session_bytes=len(raw.text.encode("utf-8")),
        recovered=scribe.recovered,
    )

"""``squadmem demo``: squadmem at work on 60 days of a squad's memory, in a throw-away repository.

The history comes from ``templates/demo/story.toml`` (shipped in the package):
three agents keep hot, cold, archive and wiki memory, daily logs and some code
for about two months. It is written with one ``git fast-import`` run, with
every date and identity fixed, then the demo prints ``report``,
``maintain --dry-run``, ``maintain``, ``verify``, the log and one move commit.
``--now`` is the end of that history and squadmem's own commits are dated
then too, so the output is the same on every run.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import tempfile
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from squadmem.engine import maintenance as maintain
from squadmem.engine import report
from squadmem.engine.verify import verifier as verify
from squadmem.gitio import fastimport, questions
from squadmem.gitio.repo import Repo
from squadmem.model import logs, sections, settings, templates, uses
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import MEMORY_DIR
from squadmem.model.places import SQUAD_PLACES

STORY = "demo/story.toml"
RULE = "=" * 4


@dataclasses.dataclass(frozen=True)
class Story:
    start: dt.datetime
    now: dt.datetime
    agents: dict[str, str]  # name -> "Name <email>"
    commits: list[dict[str, Any]]
    pending: list[dict[str, Any]]


def load() -> Story:
    data = tomllib.loads(templates.read(STORY))
    return Story(
        dt.datetime.fromisoformat(data["start"]),
        dt.datetime.fromisoformat(data["now"]),
        dict(data["agents"]),
        list(data["commit"]),
        list(data.get("pending", [])),
    )


# -- the history ---------------------------------------------------------------------------------


def _moment(story: Story, commit: Mapping[str, Any]) -> dt.datetime:
    hours, minutes = (int(x) for x in commit["time"].split(":"))
    return story.start + dt.timedelta(days=commit["day"], hours=hours, minutes=minutes)


def _tier_path(short: str) -> str:
    tier, _, name = short.partition("/")
    return SQUAD_PLACES.tier_rel(tier, name)  # the demo's team keeps the Squad layout


def _add(texts: dict[str, str], short: str, section: str) -> None:
    rel = _tier_path(short)
    tier, _, name = short.partition("/")
    current = texts.get(rel) or templates.tier_header(tier, name, workspace=False) + "\n"
    texts[rel] = current + section + "\n"  # a blank line after each section, as people write them


def _replace(texts: dict[str, str], short: str, heading: str, section: str) -> None:
    rel = _tier_path(short)
    doc = sections.split(texts[rel])
    parts = []
    for old in doc.sections:
        if old.raw_heading == heading:
            tail = old.text[len(old.text.rstrip("\n")) + 1 :]  # keep the blank lines that followed it
            parts.append(section + tail)
        else:
            parts.append(old.text)
    texts[rel] = doc.header + "".join(parts)


def _log(texts: dict[str, str], moment: dt.datetime, agent: str, lines: list[str]) -> None:
    rel = f"{MEMORY_DIR}/log/{moment.date().isoformat()}.md"
    text = texts.get(rel) or logs.title(moment.date())
    for line in lines:
        text += logs.entry(line, moment, dt.UTC, agent)
    texts[rel] = text


def fast_import_stream(story: Story) -> bytes:
    """The whole history as one ``git fast-import`` stream."""
    texts: dict[str, str] = {f"{MEMORY_DIR}/tiers.toml": settings.TEMPLATE}
    out = []
    for number, commit in enumerate(story.commits, start=1):
        moment = _moment(story, commit)
        changed = set(texts) if number == 1 else set()
        for item in commit.get("add", []):
            _add(texts, item["file"], item["text"])
            changed.add(_tier_path(item["file"]))
        for item in commit.get("replace", []):
            _replace(texts, item["file"], item["heading"], item["text"])
            changed.add(_tier_path(item["file"]))
        if commit.get("log"):
            _log(texts, moment, commit["agent"], commit["log"])
            changed.add(f"{MEMORY_DIR}/log/{moment.date().isoformat()}.md")
        for path, body in commit.get("files", {}).items():
            texts[path] = body
            changed.add(path)
        message = commit["message"] + "\n"
        if commit.get("used"):
            message += "\n" + uses.trailer_line(commit["used"]) + "\n"
        who = f"{story.agents[commit['agent']]} {int(moment.timestamp())} +0000"
        out.append(fastimport.commit("refs/heads/main", number, who, message, {p: texts[p] for p in changed}))
    out.append(fastimport.DONE)
    return b"".join(out)


_NEEDS = "squadmem demo needs git 2.28 or later on PATH"


def build(root: Path, story: Story) -> None:
    """A new repository at ``root`` holding the story's history, checked out, with its pending uses."""
    name, _, email = story.agents["scribe"].partition(" <")
    config = {
        "user.name": name,
        "user.email": email.rstrip(">"),
        "commit.gpgsign": "false",
        "core.autocrlf": "false",
    }
    fastimport.Repository(root, _NEEDS).create(config, fast_import_stream(story))
    with Repo(root) as repo:
        for use in story.pending:
            uses.record(repo.state_dir, [use["id"]], dt.datetime.fromisoformat(use["at"]))


def _identity(story: Story) -> dict[str, str]:
    """squadmem's own commits made as the Scribe, at the story's ``now`` (so every run is the same)."""
    name, _, email = story.agents["scribe"].partition(" <")
    return {
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email.rstrip(">"),
        "GIT_COMMITTER_NAME": name,
        "GIT_COMMITTER_EMAIL": email.rstrip(">"),
        "GIT_AUTHOR_DATE": story.now.isoformat(),
        "GIT_COMMITTER_DATE": story.now.isoformat(),
    }


# -- the show ------------------------------------------------------------------------------------


def _heading(text: str) -> str:
    return f"\n{RULE} {text} {RULE}\n"


def _folder(keep: Path | None) -> contextlib.AbstractContextManager[str]:
    if keep is None:
        return tempfile.TemporaryDirectory(prefix="squadmem-demo-")
    if keep.exists() and (not keep.is_dir() or any(keep.iterdir())):
        raise SquadmemError(f"--keep {keep}: exists and is not an empty folder", hint="name a new folder")
    return contextlib.nullcontext(str(keep))


def run(keep: Path | None, echo: Callable[[str], None]) -> None:
    """Build the demo repository and print squadmem's work on it."""
    story = load()
    now = story.now.isoformat().replace("+00:00", "Z")
    with _folder(keep) as folder:
        root = Path(folder) if keep is not None else Path(folder) / "ledger"
        build(root, story)
        agents = ", ".join(a for a in story.agents if a != "scribe")
        where = keep if keep is not None else "a temporary folder, deleted at the end (--keep DIR keeps it)"
        echo(f"squadmem demo: {len(story.commits)} commits, 60 days of a squad ({agents}) building a ledger")
        echo(f"repository: {where}")
        with Repo(root, identity=_identity(story)) as repo:
            before = questions.head(repo.git)
            echo(_heading(f"squadmem report --now {now}"))
            echo(report.text(report.make(repo, now=story.now)))
            echo(_heading(f"squadmem maintain --dry-run --now {now}"))
            echo(maintain.maintain(repo, now=story.now, dry_run=True).text())
            echo(_heading(f"squadmem maintain --now {now}"))
            outcome = maintain.maintain(repo, now=story.now)
            echo(outcome.text())
            echo(_heading(f"squadmem verify {(before or '')[:7]}..HEAD"))
            echo(verify.text(verify.verify(repo, [f"{before}..HEAD"], story.now)))
            count = len(outcome.made) + 3
            echo(_heading(f"git log --oneline -{count}"))
            echo(fastimport.Repository(root, _NEEDS).oneline(count))
            if outcome.made:
                first = outcome.made[0].sha
                echo(_heading(f"git show --stat {first[:7]}  (one move: one section, two files)"))
                echo(fastimport.Repository(root, _NEEDS).show_stat(first))
            echo(_heading("again: squadmem maintain --dry-run"))
            echo(maintain.maintain(repo, now=story.now, dry_run=True).text())

"""``squadmem wiki write TOPIC``: an on-demand wiki entry, checked, then committed.

The entry is Markdown with one or more top-level ``##`` sections (or plain
text and ``--title``, which becomes its heading). Each section is appended to
``wiki/<topic>.md`` (created from the template) byte for byte; a section
already there with the same content is skipped, and one whose title the page
already has is refused unless ``--replace`` swaps it in place. One commit,
``memory(wiki:<topic>): write "<title>"``, under the writers' lock and beside
the user's work. The rules never move wiki sections.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from squadmem.engine import catalog, index, titles
from squadmem.engine.writing import writer
from squadmem.gitio.repo import Repo
from squadmem.model import layout, sections, templates
from squadmem.model.errors import SquadmemError


@dataclasses.dataclass(frozen=True)
class Written:
    topic: str
    file: str
    added: tuple[str, ...]
    replaced: tuple[str, ...]
    skipped: tuple[str, ...]
    commit: writer.Made | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "topic": self.topic,
            "file": self.file,
            "added": list(self.added),
            "replaced": list(self.replaced),
            "skipped": list(self.skipped),
            "commit": self.commit.as_dict() if self.commit else None,
        }

    def text(self) -> str:
        lines = [f"added {t}" for t in self.added] + [f"replaced {t}" for t in self.replaced]
        lines += [f"already there, skipped: {t}" for t in self.skipped]
        if self.commit:
            lines.append(f"committed {self.commit.sha[:7]} {self.commit.subject}")
        else:
            lines.append(f"nothing to write: {self.file} has all of it already")
        return "\n".join(lines)


def entry_sections(text: str, title: str | None) -> list[sections.Section]:
    """The entry's sections; plain text gets ``## <title>``. Pure; raises on anything unclear."""
    text = text.replace("\r\n", "\n")
    if not text.strip():
        raise SquadmemError("the wiki entry is empty", hint="pipe the entry in, or pass --file F")
    if "\0" in text:
        raise SquadmemError("the wiki entry holds a NUL byte", hint="wiki entries are UTF-8 Markdown text")
    try:
        doc = sections.split(text if text.endswith("\n") else text + "\n")
    except sections.FlagError as exc:
        raise SquadmemError(f"the wiki entry: {exc.message}", hint=exc.hint) from None
    if not doc.sections:
        if not title or not title.strip() or "\n" in title:
            raise SquadmemError(
                "the wiki entry has no ## heading", hint='give it one, or name it with --title "..."'
            )
        doc = sections.split(f"## {title.strip()}\n{text.strip(chr(10))}\n")
    elif doc.header.strip():
        raise SquadmemError(
            "the wiki entry has text before its first ## heading",
            hint="start the entry with a ## heading (use ### inside it)",
        )
    return list(doc.sections)


def _same(a: str, b: str) -> bool:
    return a.replace("\r\n", "\n").rstrip() == b.replace("\r\n", "\n").rstrip()


def write(repo: Repo, topic: str, text: str, title: str | None = None, replace: bool = False) -> Written:
    layout.check_name(topic, "topic")
    rel = repo.layout.rel(repo.layout.tier_path("wiki", topic))
    new = entry_sections(text, title)
    with writer.session(repo) as scribe:
        scribe.refuse_dirty([rel])
        page = scribe.text(rel)
        page = templates.tier_header("wiki", topic, workspace=False) + "\n" if page is None else page
        added, replaced, skipped = [], [], []
        for section in new:
            name = titles.plain(section.raw_heading)
            current = catalog.from_texts({rel: page}, repo.layout.places).in_file(rel)
            if any(_same(e.text, section.text) for e in current):
                skipped.append(name)
                continue
            clash = [e for e in current if e.title == name]
            if clash and not replace:
                raise SquadmemError(
                    f"{rel}: already has a section {name!r} ({clash[0].id})",
                    hint="pass --replace to replace it, or give the entry another title",
                )
            if clash:
                doc = index.split(page)
                at = clash[0].position
                body = section.text if section.text.endswith("\n") else section.text + "\n"
                parts = [s.text for s in doc.sections]
                parts[at] = body
                page = doc.header + "".join(parts)
                replaced.append(name)
            else:
                page = index.insert(page, section.text)
                added.append(name)
        made = None
        if added or replaced:
            first = (added or replaced)[0]
            more = len(added) + len(replaced) - 1
            subject = f'memory(wiki:{topic}): write "{first}"' + (f" and {more} more" if more else "")
            made = scribe.commit_files({rel: page}, subject)
    return Written(topic, rel, tuple(added), tuple(replaced), tuple(skipped), made)

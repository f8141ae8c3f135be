"""``squadmem context``: the spawn prompt's ``## Memory Context``, hot by default.

Hot memory is always in it; the agent's cold file only with ``--include-cold``,
a wiki page only when named (``--include-wiki TOPIC``), a single section of
any tier when named (``--include ID``). Tier file headers (titles, comments
for people) are left out: only sections reach the prompt.

Uses: naming a wiki page or a section records a use of each section it
brings (pending, committed later as ``Squad-Memory-Used``). Including the
whole cold file records none: a use brings a cold section back to hot within
``promote.window_hours``, and a blanket use would send every cold section to
hot at once, over its budget. Name the cold sections that mattered
(``--include ID`` or ``squadmem touch``) to bring them back.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Sequence

from squadmem.engine import catalog
from squadmem.gitio.repo import Repo
from squadmem.model import render, templates, uses
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import check_name, known_agent, tier_rel


@dataclasses.dataclass(frozen=True)
class Context:
    text: str
    parts: tuple[tuple[str, int], ...]  # (what, bytes) for the stderr summary
    used: tuple[str, ...]  # ids recorded as used

    @property
    def bytes(self) -> int:
        return len(self.text.encode("utf-8"))

    def summary(self) -> str:
        parts = ", ".join(f"{what} {size} B" for what, size in self.parts)
        line = f"memory context: {self.bytes} bytes, about {render.tokens(self.bytes)} tokens ({parts})"
        if self.used:
            line += f"; recorded {len(self.used)} use(s)"
        return line

    def as_dict(self) -> dict[str, object]:
        return {
            "text": self.text,
            "bytes": self.bytes,
            "tokens": render.tokens(self.bytes),
            "parts": [{"what": w, "bytes": b} for w, b in self.parts],
            "used": list(self.used),
        }


def _body(entries: Sequence[catalog.Entry]) -> str:
    """The sections' text, each ending with a newline."""
    return "".join(e.text if e.text.endswith(("\n", "\r")) else e.text + "\n" for e in entries)


def build(
    memory: catalog.Memory,
    agent: str,
    *,
    include_cold: bool = False,
    wiki: Sequence[str] = (),
    sections: Sequence[str] = (),
) -> tuple[str, list[tuple[str, int]], list[str]]:
    """The context text, its parts with their sizes, and the ids it counts as used (pure)."""
    memory.require(check_name(agent))
    known_agent(agent, memory.agents())
    hot = memory.in_file(tier_rel("hot", agent))
    hot_text = _body(hot) or "(no hot memory yet)\n"
    parts = [("hot", len(hot_text.encode("utf-8")))]
    cold_text = wiki_text = picked_text = ""
    used: list[str] = []
    if include_cold:
        body = _body(memory.in_file(tier_rel("cold", agent))) or "(no cold memory yet)\n"
        cold_text = f"\n### Cold (summarized history)\n\n{body}"
        parts.append(("cold", len(body.encode("utf-8"))))
    for topic in dict.fromkeys(wiki):
        memory.require(f"wiki:{check_name(topic, 'topic')}")
        entries = memory.in_file(tier_rel("wiki", topic))
        if not entries:
            raise SquadmemError(
                f"no wiki page {tier_rel('wiki', topic)}",
                hint="see the topics with: squadmem list --tier wiki",
            )
        body = _body(entries)
        wiki_text += f"\n### Wiki: {topic}\n\n{body}"
        parts.append((f"wiki:{topic}", len(body.encode("utf-8"))))
        used += [e.id for e in entries]
    picked = [memory.find(ref) for ref in dict.fromkeys(sections)]
    picked = [e for e in picked if e.id not in used and e.file != tier_rel("hot", agent)]
    if picked:
        body = _body(picked)
        picked_text = f"\n### Sections from deeper tiers\n\n{body}"
        parts.append(("sections", len(body.encode("utf-8"))))
        used += [e.id for e in picked]
    template = templates.read("spawn.md")
    text = template.format(hot=hot_text.rstrip("\r\n"), cold=cold_text, wiki=wiki_text, sections=picked_text)
    return text.rstrip("\n") + "\n", parts, used


def context(
    repo: Repo,
    agent: str,
    now: dt.datetime,
    *,
    include_cold: bool = False,
    wiki: Sequence[str] = (),
    sections: Sequence[str] = (),
    record: bool = True,
) -> Context:
    """Build the context from the work tree and record the uses it makes."""
    memory = catalog.load(repo.layout)
    text, parts, used = build(memory, agent, include_cold=include_cold, wiki=wiki, sections=sections)
    if record and used:
        uses.record(repo.state_dir, used, now)
    return Context(text, tuple(parts), tuple(used) if record else ())

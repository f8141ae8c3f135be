"""The report: tier files against their budgets, every section's last use, logs, advice (``squadmem
report``, and the first thing ``demo`` shows).

:func:`make` builds one JSON-ready object (its schema is in docs/commands.md
and is stable: keys are only ever added); :func:`text` and :func:`markdown`
render it. The hints (``due``) follow the tier rules (docs/concepts.md) so a
reader sees what ``squadmem maintain`` would look at; the plan itself is
``squadmem maintain --dry-run``'s to make, and each recommendation names the
exact command to run.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from squadmem.engine import catalog
from squadmem.engine.history import lastuse
from squadmem.engine.hosts import uses as track
from squadmem.engine.intake import sources as squad_sources
from squadmem.engine.planning import coldfix, policy
from squadmem.gitio import questions
from squadmem.gitio.repo import Repo
from squadmem.model import budget, clock, logs, render, settings, uses
from squadmem.model.layout import AGENT_TIERS, TierFile

SCHEMA = 1
MAINTAIN = "squadmem maintain --dry-run"


def make(repo: Repo, *, now: dt.datetime, agent: str | None = None, verbose: bool = False) -> dict[str, Any]:
    """The report as one JSON-ready object (its schema: docs/commands.md)."""
    now = clock.utc(now)
    config = repo.layout.settings
    memory = catalog.load(repo.layout)
    files = _select_files(memory, agent)
    entries = [e for e in memory.entries if e.file in files]
    usage = lastuse.usage(repo, memory, now=now, verbose=verbose, extra=track.host_latest(repo, now))
    section_rows = [_section(e, usage[e.id], now, config) for e in entries]
    file_rows = [_file(memory.files[rel].tier_file, memory.files[rel], config) for rel in files]
    lasts = {ident: use.last for ident, use in usage.items()}
    for row in file_rows:
        if row["tier"] == "cold" and row["over_budget"]:
            row["fix"] = _cold_fix(memory, lasts, config, now, row["file"])
    pending = sorted(
        (k, v) for k, v in uses.pending(repo.state_dir).items() if agent is None or _owned(k, agent)
    )
    data: dict[str, Any] = {
        "schema": SCHEMA,
        "now": _iso(now),
        "head": questions.head(repo.git),
        "shallow": repo.is_shallow(),
        "agent": agent,
        "budgets": _budgets(config),
        "files": file_rows,
        "sections": section_rows,
        "logs": _logs(repo),
        "pending_uses": [{"id": k, "when": _iso(v)} for k, v in pending],
        "unknown_ages": sum(1 for row in section_rows if row["last_used"] is None),
        "squad_entries_not_taken_in": squad_sources.pending_count(repo),
    }
    data["recommendations"] = recommendations(data)
    return data


def _budgets(config: settings.Settings) -> dict[str, dict[str, float]]:
    hot, cold = config.hot, config.cold
    return {
        "hot": {"max_bytes": hot.max_bytes, "max_lines": hot.max_lines, "stale_days": hot.stale_days},
        "cold": {"max_bytes": cold.max_bytes, "ttl_days": cold.ttl_days},
        "promote": {"window_hours": config.promote.window_hours},
    }


def _owned(ident: str, agent: str) -> bool:
    return ident.split("/", 1)[0] == agent


def _select_files(memory: catalog.Memory, agent: str | None) -> list[str]:
    if agent is None:
        return list(memory.files)
    agent = memory.known_agent(agent)
    return [
        rel
        for rel, doc in memory.files.items()
        if doc.tier_file.tier in AGENT_TIERS and doc.tier_file.name == agent
    ]


def _iso(moment: dt.datetime | None) -> str | None:
    return render.timestamp(moment)


def _file(tf: TierFile, doc: catalog.TierDoc, config: settings.Settings) -> dict[str, Any]:
    limit = budget.limits(tf.tier, config)
    max_bytes, max_lines = limit.max_bytes, limit.max_lines
    over = budget.over(doc.bytes, doc.lines, limit) is not None
    return {
        "file": tf.rel,
        "tier": tf.tier,
        "name": tf.name,
        "bytes": doc.bytes,
        "lines": doc.lines,
        "tokens": render.tokens(doc.bytes),
        "sections": len(doc.document.sections),
        "max_bytes": max_bytes,
        "max_lines": max_lines,
        "over_budget": over,
        "fix": None,  # cold over budget: the maintain run that brings it under (see recommendations)
    }


def _cold_fix(
    memory: catalog.Memory,
    lasts: dict[str, lastuse.LastUse],
    config: settings.Settings,
    now: dt.datetime,
    rel: str,
) -> dict[str, Any] | None:
    """The ``maintain --cold-ttl-days`` run that brings a cold file under budget."""
    fix = coldfix.cold_fix(memory, lasts, config, now, rel, policy.plan)
    if fix is None:
        return None
    return {"command": fix.command, "ttl_days": fix.ttl_days, "ids": list(fix.ids), "bytes": fix.size}


def _section(
    entry: catalog.Entry, use: lastuse.Usage, now: dt.datetime, config: settings.Settings
) -> dict[str, Any]:
    last = use.last
    exact = budget.age_days(now, last.when)
    age = None if exact is None else round(exact, 2)
    return {
        **entry.describe(),
        "tokens": render.tokens(entry.bytes),
        "pinned": entry.pinned,
        "kind": entry.kind,
        "last_used": _iso(last.when),
        "age_days": age,
        "last_use_commit": last.commit,
        "last_use_kind": last.kind,
        "uses": use.trailer_commits + (1 if use.pending else 0),
        "due": _due(entry, last, exact, config, use.previous),
    }


def _due(
    entry: catalog.Entry,
    last: lastuse.LastUse,
    age: float | None,
    config: settings.Settings,
    previous: dt.datetime | None = None,
) -> str | None:
    """What the rules would do to this section on age alone: demote, expire, promote, or nothing.

    ``age`` is exact (:func:`squadmem.model.budget.age_days`), compared as the policy compares it.
    """
    if age is None or entry.pinned or entry.is_session or entry.is_index:
        return None
    if entry.tier == "hot" and age > config.hot.stale_days:
        return "demote"
    if entry.tier == "cold" and age > config.cold.ttl_days:
        return "expire"
    if (
        entry.tier in ("cold", "archive")
        and last.kind in ("trailer", "pending")
        and age * 24 <= config.promote.window_hours
        and _second_use_met(last, previous, config)
    ):
        return "promote"
    return None


def _second_use_met(last: lastuse.LastUse, previous: dt.datetime | None, config: settings.Settings) -> bool:
    """Under ``promote.rule = "second-use"``, was the section used once before, recently enough?"""
    if config.promote.rule != "second-use":
        return True
    if previous is None or last.when is None:
        return False
    return clock.days(last.when - previous) <= config.promote.repeat_days


def _logs(repo: Repo) -> dict[str, Any]:
    folder = repo.layout.log_folder
    days = sorted(d for d in (logs.parse_log_name(p.name) for p in _listing(folder)) if d is not None)
    return {
        "count": len(days),
        "first": days[0].isoformat() if days else None,
        "last": days[-1].isoformat() if days else None,
    }


def _listing(folder: Path) -> list[Path]:
    try:
        return [p for p in folder.iterdir() if p.is_file()]
    except OSError:
        return []


# -- recommendations -------------------------------------------------------------------------------
def _some(ids: Sequence[str], limit: int = 3) -> str:
    shown = ", ".join(ids[:limit])
    return shown + (f" and {len(ids) - limit} more" if len(ids) > limit else "")


def recommendations(data: dict[str, Any]) -> list[dict[str, str]]:
    """What to run next, each with the exact command and why."""
    out: list[dict[str, str]] = []
    waiting = data.get("squad_entries_not_taken_in", 0)
    if waiting:
        noun = "entry" if waiting == 1 else "entries"
        why = f"{waiting} {noun} of Squad's history.md / decisions files not taken in yet"
        out.append(_rec("squadmem intake", why))
    out += _due_recs(data)
    out += _cold_recs(data)
    out += _pinned_recs(data)
    if data["unknown_ages"]:
        why = (
            f"{data['unknown_ages']} section(s) reach this shallow clone's boundary: "
            "their ages are unknown and they never move"
        )
        out.append(_rec("git fetch --unshallow", why))
    return out


def _due_recs(data: dict[str, Any]) -> list[dict[str, str]]:
    """``maintain`` for what the rules would move: stale hot sections, hot files over budget,
    expired cold sections, sections used recently in cold or the archive."""
    out = []
    budgets, rows = data["budgets"], data["sections"]
    stale = [r["id"] for r in rows if r["due"] == "demote"]
    if stale:
        days = _num(budgets["hot"]["stale_days"])
        out.append(_rec(MAINTAIN, f"{len(stale)} hot section(s) unused > {days} d: {_some(stale)}"))
    for row in data["files"]:
        if row["tier"] == "hot" and row["over_budget"]:
            why = (
                f"{row['file']} is over its budget: {row['bytes']} B / {row['max_bytes']} B, "
                f"{row['lines']} / {row['max_lines']} lines"
            )
            out.append(_rec(MAINTAIN, why))
    expired = [r["id"] for r in rows if r["due"] == "expire"]
    if expired:
        days = _num(budgets["cold"]["ttl_days"])
        out.append(_rec(MAINTAIN, f"{len(expired)} cold section(s) unused > {days} d: {_some(expired)}"))
    recent = [r["id"] for r in rows if r["due"] == "promote"]
    if recent:
        hours = _num(budgets["promote"]["window_hours"])
        why = f"{len(recent)} section(s) used within {hours} h wait in cold or archive: {_some(recent)}"
        out.append(_rec(MAINTAIN, why))
    return out


def _cold_recs(data: dict[str, Any]) -> list[dict[str, str]]:
    """The run that brings each cold file over budget under, or what to do by hand."""
    out = []
    rows = data["sections"]
    for row in data["files"]:
        if row["tier"] == "cold" and row["over_budget"]:
            fix = row.get("fix")
            over = f"{row['file']} is over {row['max_bytes']} B ({row['bytes']} B)"
            if fix is None:
                out.append(_by_hand(row, [r for r in rows if r["file"] == row["file"]], over))
                continue
            ids = _some(fix["ids"])
            why = f"{over}; {len(fix['ids'])} section(s) leave it ({ids}): {fix['bytes']} B after"
            out.append(_rec(fix["command"], why))
    return out


def _pinned_recs(data: dict[str, Any]) -> list[dict[str, str]]:
    """Pinned cold sections too large for hot: every spawn carries them from cold."""
    out = []
    budgets = data["budgets"]
    hot_bytes = {row["file"]: row["bytes"] for row in data["files"] if row["tier"] == "hot"}
    room = budgets["hot"]["max_bytes"]
    for r in data["sections"]:
        hot_file = r["file"].replace("/cold/", "/hot/", 1)
        too_large = room is not None and r["bytes"] + hot_bytes.get(hot_file, 0) > room  # as context
        if r["pinned"] and r["tier"] == "cold" and too_large:
            why = (
                f"{r['id']} ({r['bytes']} B) is pinned but too large for hot: every spawn carries it from "
                f"cold, over hot.max_bytes {_num(budgets['hot']['max_bytes'])} B; shorten it (a Squad Core "
                "Context: in history.md) or raise hot.max_bytes in tiers.toml"
            )
            out.append(_rec(f"squadmem history {r['id']}", why))
    return out


def _by_hand(row: dict[str, Any], rows: list[dict[str, Any]], over: str) -> dict[str, str]:
    """No TTL fixes the file: archive by hand its least recently used unpinned sections until it fits."""
    size, chosen = row["bytes"], []
    for r in sorted((r for r in rows if not r["pinned"]), key=lambda r: (r["last_used"] or "~", r["id"])):
        if size <= row["max_bytes"]:
            break
        size -= r["bytes"]
        chosen.append(r["id"])
    if size > row["max_bytes"] or not chosen:
        why = f"{over}; even without every unpinned section it would be {size} B: unpin or shorten"
        return _rec(f"squadmem list --agent {row['name']}", why)
    command = " && ".join(f"squadmem demote {ident} --to archive" for ident in chosen)
    why = f"{over}; no cold.ttl_days brings it under (its sections are too recent); {size} B after"
    return _rec(command, why)


def _rec(command: str, reason: str) -> dict[str, str]:
    return {"command": command, "reason": reason}


def _num(value: float) -> str:
    return f"{value:g}"


# -- renderings -------------------------------------------------------------------------------------
def _age_text(row: dict[str, Any]) -> str:
    if row["age_days"] is None:
        return "unknown"
    return f"{budget.days_text(row['age_days'])} d"


def _used_text(row: dict[str, Any]) -> str:
    if row["last_used"] is None:
        return "unknown (shallow)"
    return row["last_used"][:16].replace("T", " ")


def _budget(value: int, limit: int | None) -> str:
    return f"{value}" if limit is None else f"{value}/{limit}"


def _file_rows(data: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (
            r["file"],
            r["tier"],
            _budget(r["bytes"], r["max_bytes"]),
            _budget(r["lines"], r["max_lines"]),
            r["tokens"],
            r["sections"],
            "OVER" if r["over_budget"] else "",
        )
        for r in data["files"]
    ]


def _section_rows(data: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (
            r["id"],
            r["tier"],
            r["bytes"],
            _used_text(r),
            _age_text(r),
            r["last_use_kind"],
            (r["last_use_commit"] or "")[:10],
            "pin" if r["pinned"] else "",
            r["due"] or "",
        )
        for r in data["sections"]
    ]


FILE_HEADERS = ("file", "tier", "bytes", "lines", "tokens", "sections", "")
SECTION_HEADERS = ("id", "tier", "bytes", "last used (UTC)", "age", "from", "commit", "pin", "due")


def _logs_text(data: dict[str, Any]) -> str:
    logs = data["logs"]
    if not logs["count"]:
        return "Daily logs: none"
    return f"Daily logs: {logs['count']}, {logs['first']} … {logs['last']}"


def _title(data: dict[str, Any]) -> str:
    head = (data["head"] or "no commits")[:10]
    scope = f", agent {data['agent']}" if data["agent"] else ""
    shallow = ", shallow clone" if data["shallow"] else ""
    return f"squadmem report: {data['now']} (HEAD {head}{scope}{shallow})"


def text(data: dict[str, Any]) -> str:
    """The human rendering of :func:`make`'s object."""
    out = [_title(data), "", "Tier files"]
    out.append(render.table(FILE_HEADERS, _file_rows(data), right=(4, 5)) if data["files"] else "  (none)")
    out += ["", "Sections"]
    out.append(
        render.table(SECTION_HEADERS, _section_rows(data), right=(2, 4)) if data["sections"] else "  (none)"
    )
    out += ["", _logs_text(data)]
    if data["pending_uses"]:
        pend = ", ".join(f"{p['id']} ({p['when'][:16].replace('T', ' ')})" for p in data["pending_uses"])
        out.append(f"Pending uses (a {uses.TRAILER} trailer on the next commit): {pend}")
    out += ["", "Recommendations" if data["recommendations"] else "Recommendations: none, memory is in shape"]
    out += [f"  {r['command']}\n      {r['reason']}" for r in data["recommendations"]]
    return "\n".join(out)


def _md_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    def cell(value: Any) -> str:
        return str("" if value is None else value).replace("|", "\\|")

    lines = ["| " + " | ".join(cell(h) for h in headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def markdown(data: dict[str, Any]) -> str:
    """The report as Markdown (for a pull-request comment or a wiki page)."""
    out = [f"## {_title(data)}", "", "### Tier files", ""]
    out.append(
        _md_table((*FILE_HEADERS[:-1], "over budget"), _file_rows(data)) if data["files"] else "_none_"
    )
    out += ["", "### Sections", ""]
    rows = [(f"`{r[0]}`", *r[1:]) for r in _section_rows(data)]
    out.append(_md_table(SECTION_HEADERS, rows) if rows else "_none_")
    out += ["", f"**{_logs_text(data)}**"]
    if data["pending_uses"]:
        out.append("")
        out.append("Pending uses: " + ", ".join(f"`{p['id']}`" for p in data["pending_uses"]))
    out += ["", "### Recommendations", ""]
    recs = data["recommendations"]
    out += [f"- `{r['command']}`: {r['reason']}" for r in recs] or ["None: memory is in shape."]
    return "\n".join(out) + "\n"

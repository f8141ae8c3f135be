"""squadmem's whole Squad path on real Squad repositories, as a new user would run it.

Give it git repositories whose ``.squad/`` a real Squad team wrote (your own,
or public ones you cloned). Each is cloned into a temporary folder and, at
one hour after its last commit (so the ages are what the team would have seen
that evening):

1. ``squadmem init`` (hooks installed) and a commit of what it wrote;
2. ``squadmem migrate squad`` (the first intake), then ``squadmem maintain``;
3. ``squadmem intake`` again: it must find nothing new;
4. ``squadmem doctor``, and ``squadmem verify`` over every commit squadmem made;
5. ``squadmem context --agent A`` for every agent with a history.

It checks what the issue asks of a Squad team's memory: every entry of
Squad's files (as ``squadmem.model.squad`` cuts them) is a section of the
tiers, none twice; Squad's own files are byte-identical; each spawn payload
is within ``hot.max_bytes`` and carries the agent's Core Context. Squad's own
load (``history.md`` + ``decisions.md``) is printed beside the payload.

    python -m bench.squad_corpus REPO [REPO ...] [--json] [--keep DIR]

Prints one row per repository and a summary. Asserts nothing; exit 0.
"""

from __future__ import annotations

import collections
import datetime as dt
import json
import os
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench.gitrun import Done, git, squadmem
from bench.harness import Stopwatch, options, scratch_repo, table
from squadmem.commands import intake
from squadmem.model import sections, squad
from squadmem.model.layout import MEMORY_DIR

ROOT = Path(__file__).resolve().parent.parent
INDEX_TITLE = "Index → Deeper Tiers"
BUDGET = 4096


def squad_sources(root: Path) -> list[str]:
    """Every Squad memory file committed at HEAD, as repository paths."""
    listed = git(root, "ls-tree", "-r", "-z", "--name-only", "HEAD", "--", ".squad").out.split("\0")
    return sorted(rel for rel in listed if rel and squad.is_source(rel))


def committed(root: Path, rel: str) -> str:
    """A file as HEAD has it (what squadmem reads: a work tree may hold it with other line endings)."""
    return git(root, "show", f"HEAD:{rel}").stdout.decode("utf-8", errors="replace")


def squad_entries(root: Path) -> list[squad.Entry]:
    """Every entry of the Squad files committed at HEAD."""
    return [e for rel in squad_sources(root) for e in squad.entries(rel, committed(root, rel))]


def tier_sections(root: Path) -> list[tuple[str, bytes, str]]:
    """(owner, content key, title) of every section of every tier file but the Indexes."""
    found = []
    for tier in ("hot", "cold", "archive", "wiki"):
        for path in sorted((root / MEMORY_DIR / tier).glob("*.md")):
            owner = "decisions" if tier == "wiki" else path.stem
            for s in sections.split(path.read_bytes().decode("utf-8")).sections:
                if not s.raw_heading.startswith(INDEX_TITLE):
                    found.append((owner, sections.content_key(s.text), s.raw_heading.strip()))
    return found


def carries(payload: str, entry: squad.Entry) -> bool:
    """Whether a spawn payload holds ``entry``, compared as squadmem compares content (line endings
    normalized: a Squad file rewritten with CRLF holds the entry squadmem took in with LF)."""
    return sections.normalize(entry.text) in sections.normalize(payload)


def failure(done: Done) -> str:
    """The last non-blank line a failed squadmem printed, stderr first."""
    return first_line(done.err or done.out)


def first_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:160] if lines else ""


def export_squad_history(source: Path, root: Path) -> str | None:
    """``source``'s default branch with only ``.squad/``, into a new repository at ``root``; None, or
    why it cannot be had. Dates and messages are kept (squadmem reads no other path), so a mirror
    that lacks large blobs elsewhere still works, and the copy is small."""
    ref = git(source, "symbolic-ref", "-q", "HEAD").out.strip()  # refs/heads/<default branch>
    scratch_repo(root, branch=ref.removeprefix("refs/heads/"))
    export = ["fast-export", "--signed-tags=strip", "--tag-of-filtered-object=drop", ref]
    # fast-export takes the first "--" as its own: a second one ends the revisions
    exported = git(source, *export, "--", "--", ".squad").stdout
    git(root, "fast-import", "--quiet", input=exported)
    if not git(root, "rev-parse", "--verify", "-q", ref, check=False).out.strip():
        return "skipped: .squad/ is in none of its default branch's commits"
    git(root, "reset", "-q", "--hard", ref)
    if not (root / ".squad").is_dir():
        return "skipped: no .squad/ at its last commit"
    return None


def identity(when: str) -> dict[str, str]:
    """The environment squadmem and git run in: an identity, the commit date, this checkout's squadmem."""
    return dict(
        os.environ,
        GIT_AUTHOR_NAME="squadmem corpus",
        GIT_AUTHOR_EMAIL="corpus@squadmem.invalid",
        GIT_COMMITTER_NAME="squadmem corpus",
        GIT_COMMITTER_EMAIL="corpus@squadmem.invalid",
        GIT_AUTHOR_DATE=when,
        GIT_COMMITTER_DATE=when,
        PYTHONPATH=str(ROOT),
    )


def repo_name(source: Path) -> str:
    return source.name if source.name not in ("repo", ".git") else source.parent.name


def exported(source: Path, root: Path) -> dict[str, Any]:
    """A run's row, its ``.squad/`` history exported to ``root`` first (``failed`` says why not)."""
    row: dict[str, Any] = {"repo": repo_name(source)}
    why = export_squad_history(source, root)
    if why is not None:
        row["failed"] = why
    return row


def run_one(source: Path, work: Path) -> dict[str, Any]:
    root = work / "clone"
    row = exported(source, root)
    if "failed" in row:
        return row
    head_date = dt.datetime.fromisoformat(git(root, "log", "-1", "--format=%cI").out.strip())
    evening = (head_date + dt.timedelta(hours=1)).isoformat()
    env = identity(evening)
    row["commits"] = int(git(root, "rev-list", "--count", "HEAD").out.strip())
    row["last_commit"] = head_date.date().isoformat()
    sources = squad_sources(root)
    texts = {rel: committed(root, rel) for rel in sources}
    everything = [e for rel in sources for e in squad.entries(rel, texts[rel])]
    entries, left_out = intake.usable(everything)  # the rest intake leaves out, with a warning each
    row["squad_kb"] = round(sum(len(t.encode("utf-8")) for t in texts.values()) / 1024, 1)
    row["entries"] = len(everything)
    row["left_out"] = left_out
    row["kinds"] = dict(collections.Counter(e.kind for e in entries))
    row["sizes"] = {
        kind: [len(e.text.encode("utf-8")) for e in entries if e.kind == kind] for kind in row["kinds"]
    }
    agents = sorted(
        p.parent.name
        for p in (root / ".squad/agents").glob("*/history.md")
        if squad.is_source(p.relative_to(root).as_posix())
    )
    row["agents"] = len(agents)
    before = git(root, "rev-parse", "HEAD").out.strip()
    squad_before = {rel: (root / rel).read_bytes() for rel in sources}
    if not take_in(root, env, evening, row):
        return row
    check_again(root, env, evening, before, row)

    tiers = tier_sections(root)
    counts = collections.Counter((owner, key) for owner, key, _ in tiers)
    wanted = {(e.owner, e.key): e for e in entries}
    row["lost"] = sorted(f"{e.source}: {e.title}" for k, e in wanted.items() if counts[k] == 0)
    row["twice"] = sorted(f"{o}: {t}" for o, k, t in tiers if counts[(o, k)] > 1)
    row["squad_files_unchanged"] = all(
        (root / rel).read_bytes() == data for rel, data in squad_before.items()
    )
    payloads = spawn_payloads(root, env, evening, agents, entries, texts)
    row["payloads"] = payloads
    good = [p for p in payloads if "bytes" in p]
    row["payload_max"] = max((p["bytes"] for p in good), default=0)
    row["over_budget"] = sum(p["bytes"] > BUDGET for p in good)
    # over only because the Core Context itself leaves no room: the spawn carries it all the same
    row["over_by_core"] = sum(p["bytes"] > BUDGET and p["core_bytes"] > BUDGET - 512 for p in good)
    row["core_missing"] = sum(p["core_wanted"] and not p["core_in"] for p in good)
    row["context_errors"] = [p for p in payloads if "error" in p]
    row["squad_load_max"] = max((p["squad_bytes"] for p in good), default=0)
    return row


def take_in(root: Path, env: dict[str, str], evening: str, row: dict[str, Any]) -> bool:
    """``squadmem init`` (committed), ``migrate squad`` and ``maintain``, each one's seconds in ``row``;
    False, with ``row["failed"]``, at the first that fails."""
    steps: list[tuple[str, tuple[str, ...]]] = [
        ("init", ("init",)),
        ("migrate", ("migrate", "squad", "--now", evening)),
        ("maintain", ("maintain", "--now", evening)),
    ]
    row["seconds"] = {}
    for label, args in steps:
        clock = Stopwatch()
        done = squadmem(root, *args, env=env, check=False)
        row["seconds"][label] = round(clock.seconds(), 2)
        if done.returncode:
            row["failed"] = f"{label} (exit {done.returncode}): {failure(done)}"
            return False
        if label == "init":
            git(root, "add", "-A", env=env)
            git(root, "commit", "-q", "-m", "squadmem init", env=env)
    return True


def check_again(root: Path, env: dict[str, str], evening: str, before: str, row: dict[str, Any]) -> None:
    """After the first intake: squadmem's commits, a second ``intake`` (it must find nothing new),
    ``doctor``, and ``verify`` over every commit squadmem made, into ``row``."""
    made = int(git(root, "rev-list", "--count", f"{before}..HEAD").out.strip())
    row["squadmem_commits"] = made

    done = squadmem(root, "intake", "--now", evening, env=env, check=False)
    again = int(git(root, "rev-list", "--count", f"{before}..HEAD").out.strip()) - made
    row["rerun_new_commits"] = again if done.returncode == 0 else f"exit {done.returncode}: {failure(done)}"

    done = squadmem(root, "doctor", "--json", env=env, check=False)
    out = done.out
    failed = [c for c in json.loads(out)["checks"] if c["status"] == "fail"] if out.startswith("{") else []
    row["doctor"] = (
        "ok" if done.returncode == 0 else "; ".join(f"{c['name']}: {c['detail']}" for c in failed)[:200]
    )

    clock = Stopwatch()
    done = squadmem(root, "verify", f"{before}..HEAD", "--now", evening, env=env, check=False)
    row["seconds"]["verify"] = round(clock.seconds(), 2)
    row["verify"] = (
        "ok" if done.returncode == 0 else f"exit {done.returncode}: {first_line(done.out + done.err)}"
    )


def spawn_payloads(
    root: Path,
    env: dict[str, str],
    evening: str,
    agents: Sequence[str],
    entries: Sequence[squad.Entry],
    texts: dict[str, str],
) -> list[dict[str, Any]]:
    """``context --agent A`` for every agent: its bytes, Squad's own load beside it, its Core Context."""
    decisions = len(texts.get(squad.DECISIONS, "").encode("utf-8"))
    payloads: list[dict[str, Any]] = []
    for agent in agents:
        done = squadmem(root, "context", "--agent", agent, "--json", "--now", evening, env=env, check=False)
        if done.returncode:
            payloads.append({"agent": agent, "error": failure(done)})
            continue
        spawn = json.loads(done.out)
        core = [
            e for e in entries if e.owner == agent and e.kind == "core" and e.source.endswith("/history.md")
        ]
        history = len(texts.get(f".squad/agents/{agent}/history.md", "").encode("utf-8"))
        payloads.append(
            {
                "agent": agent,
                "bytes": spawn["bytes"],
                "squad_bytes": history + decisions,
                "core_wanted": bool(core),
                "core_in": all(carries(spawn["text"], e) for e in core),
                "core_bytes": sum(len(e.text.encode("utf-8")) for e in core),
            }
        )
    return payloads


def _cells(r: dict[str, Any]) -> tuple[object, ...]:
    """A repository's row, or as much of it as was had before a step failed."""
    kb = f"{r.get('squad_kb', '')} KB"
    named = (r["repo"], r.get("commits", ""), kb, r.get("entries", ""), r.get("agents", ""))
    if "failed" in r:
        return (*named, f"**failed:** {r['failed']}", *[""] * 10)
    return (
        *(*named, r["squadmem_commits"], r["rerun_new_commits"], r["verify"], len(r["left_out"])),
        *(
            len(r["lost"]),
            len(r["twice"]),
            "yes" if r["squad_files_unchanged"] else "NO",
            f"{r['payload_max']} B",
        ),
        *(f"{r['over_budget']} ({r['over_by_core']})", r["core_missing"], f"{r['squad_load_max']} B"),
    )


def report(rows: Sequence[dict[str, Any]]) -> None:
    head = (
        *("repository", "commits", "Squad files", "entries", "agents", "squadmem commits", "re-run"),
        *("verify", "left out (warned)", "lost", "twice", "Squad files same", "payload max"),
        *("over 4 KB (by Core Context)", "Core missing", "Squad's load max"),
    )
    table(head, [_cells(r) for r in rows])
    ok = [r for r in rows if "failed" not in r]
    print()
    print(f"{len(rows)} repositories, {len(rows) - len(ok)} failed a step;", end=" ")
    print(
        f"of the rest: verify ok {sum(r['verify'] == 'ok' for r in ok)}, "
        f"nothing lost {sum(not r['lost'] for r in ok)}, nothing twice {sum(not r['twice'] for r in ok)}, "
        f"re-run adds nothing {sum(r['rerun_new_commits'] == 0 for r in ok)}, "
        f"doctor ok {sum(r['doctor'] == 'ok' for r in ok)}, "
        f"every payload within 4 KB {sum(r['over_budget'] == 0 for r in ok)} "
        f"(or over only by a Core Context larger than that: "
        f"{sum(r['over_budget'] == r['over_by_core'] for r in ok)}), "
        f"Core Context in every payload {sum(r['core_missing'] == 0 for r in ok)}."
    )
    spawns = [p for r in ok for p in r["payloads"] if "bytes" in p]
    if spawns:
        ours = statistics.median(p["bytes"] for p in spawns)
        theirs = statistics.median(p["squad_bytes"] for p in spawns)
        print(
            f"{len(spawns)} agents' spawns: squadmem's payload median {ours:,.0f} B, largest "
            f"{max(p['bytes'] for p in spawns):,} B; what Squad loads for the same agent (history.md + "
            f"decisions.md) median {theirs:,.0f} B, largest {max(p['squad_bytes'] for p in spawns):,} B; "
            f"Squad's load is over 4 KB for {sum(p['squad_bytes'] > BUDGET for p in spawns)} of them."
        )
    sizes: dict[str, list[int]] = collections.defaultdict(list)
    for r in ok:
        for kind, found in r.get("sizes", {}).items():
            sizes[kind].extend(found)
    if sizes:
        print(
            "entry sizes in the tiers (median / 90th percentile): "
            + "; ".join(
                f"{kind} {statistics.median(v):,.0f} / {sorted(v)[int(len(v) * 0.9)]:,} B ({len(v):,})"
                for kind, v in sorted(sizes.items(), key=lambda kv: -len(kv[1]))
            )
        )
    for r in rows:
        details = (
            r.get("left_out", [])[:2]
            + r.get("lost", [])[:3]
            + r.get("twice", [])[:3]
            + [e["error"] for e in r.get("context_errors", [])][:3]
            + ([f"doctor: {r['doctor']}"] if r.get("doctor", "ok") != "ok" else [])
        )
        if details:
            print(f"- {r['repo']}: " + "; ".join(details))


def main(argv: Sequence[str] | None = None) -> None:
    parser = options(__doc__, json=True)
    parser.add_argument("repos", nargs="+", type=Path, help="git repositories with a Squad team's .squad/")
    parser.add_argument("--keep", type=Path, help="keep each worked clone under this folder")
    args = parser.parse_args(argv)
    run_all(args.repos, lambda source, work: run_one(source, work), args.json, report, keep=args.keep)


def run_all(
    sources: Sequence[Path],
    one: Callable[[Path, Path], dict[str, Any]],
    as_json: bool,
    report: Callable[[Sequence[dict[str, Any]]], None],
    keep: Path | None = None,
) -> None:
    """``one(source, work folder)`` for each repository, a failure reported as its row, then the rows."""
    rows: list[dict[str, Any]] = []
    for source in sources:
        work = Path(tempfile.mkdtemp(prefix="squad-corpus-"))
        try:
            rows.append(one(source.resolve(), work))
        except Exception as exc:  # a bench reports and goes on
            rows.append({"repo": repo_name(source), "failed": f"{type(exc).__name__}: {exc}"[:200]})
        finally:
            if keep is not None and (work / "clone").exists():
                keep.mkdir(parents=True, exist_ok=True)
                shutil.move(str(work / "clone"), str(keep / rows[-1]["repo"]))
            shutil.rmtree(work, ignore_errors=True)
        print(f"{rows[-1]['repo']}: done", file=sys.stderr)
    if as_json:
        print(json.dumps(rows, indent=2))
    else:
        report(rows)


if __name__ == "__main__":
    main()

"""Uses from what OpenClaw leaves, in a memory-tiers workspace kept in place.

Transcripts are built as OpenClaw 2026.9 writes them: a ``session`` header,
then ``message`` events whose ``message`` has a ``role`` (``user``,
``assistant``, ``toolResult``) and ``content`` blocks (``text``,
``toolCall`` with ``name`` and ``arguments``); its SQLite store holds the
same events in ``transcript_events`` (``event_json``, or a Zstd frame in
``event_zstd`` for a long one). The text is made up for these tests;
tests/openclaw_real_test.py runs the real OpenClaw.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from conftest import GitRepo, assert_refused, run_squadmem
from conftest import squadmem as cli

from squadmem.engine.hosts import openclaw, transcripts
from squadmem.model import openclaw as config
from squadmem.model import uses

HOT = (
    "# MEMORY.md\n"  # 1
    "\n"  # 2
    "## Greenhouse vents\n"  # 3
    "Open the east vent above 24 °C; the west one sticks.\n"  # 4
    "\n"  # 5
    "## Ferry timetable\n"  # 6
    "The 07:40 ferry skips Sundays; the 08:15 does not.\n"  # 7
    "\n"  # 8
    "## Library card\n"  # 9
    "Renew it at the desk in the annex, never online.\n"  # 10
)
COLD = (
    "# Tier 2 — Recent\n"  # 1
    "\n"  # 2
    "## Kettle descaling\n"  # 3
    "Vinegar, then two rinses; the filter comes out upward.\n"  # 4
    "\n"  # 5
    "## Rowboat outboard\n"  # 6
    "Two-stroke mix at 1:50; the choke is the blue lever.\n"  # 7
)
D0 = "2026-03-01T10:00:00+00:00"
USED = "2026-03-05T09:00:03Z"  # when the agent used a section in these transcripts
NOW = "2026-03-10T12:00:00+00:00"  # 9 days after D0: hot sections unused since D0 are stale
SESSION = "0b9c4f4e-5d2a-4c1e-9a53-1d2f3e4a5b6c"
DDL = """
CREATE TABLE session_windows (
  session_id TEXT NOT NULL PRIMARY KEY,
  session_key TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;
CREATE TABLE transcript_events (
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  event_json TEXT,
  created_at INTEGER NOT NULL,
  event_zstd BLOB,
  event_utf8_bytes INTEGER CHECK (event_utf8_bytes IS NULL OR event_utf8_bytes >= 0),
  navigation_json TEXT,
  PRIMARY KEY (session_id, seq),
  FOREIGN KEY (session_id) REFERENCES session_windows(session_id) ON DELETE CASCADE
) STRICT;
"""


def kept(repo: GitRepo) -> GitRepo:
    """A memory-tiers workspace committed at D0, then ``squadmem init`` (it keeps the memory in place)."""
    repo.commit("workspace", {"MEMORY.md": HOT, "memory/tier2-recent.md": COLD}, date=D0)
    assert cli(repo, "init", "--no-hooks")[0] == 0
    repo.git("add", "-A")
    repo.git("commit", "-q", "--no-gpg-sign", "-m", "squadmem init", date="2026-03-01T11:00:00+00:00")
    return repo


# -- transcripts as OpenClaw writes them -----------------------------------------------------------


def header(cwd: Path) -> dict[str, Any]:
    return {
        "type": "session",
        "version": 3,
        "id": SESSION,
        "timestamp": "2026-03-05T09:00:00.000Z",
        "cwd": str(cwd),
    }


def _message(number: int, when: str, message: dict[str, Any]) -> dict[str, Any]:
    parent = f"e{number - 1:07d}" if number > 1 else None
    return {
        "type": "message",
        "id": f"e{number:07d}",
        "parentId": parent,
        "timestamp": when,
        "message": message,
    }


def user(number: int, when: str, text: str) -> dict[str, Any]:
    return _message(
        number, when, {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 0}
    )


def assistant(number: int, when: str, *content: dict[str, Any]) -> dict[str, Any]:
    message = {
        "role": "assistant",
        "content": list(content),
        "api": "openai-responses",
        "provider": "openai",
        "model": "gpt-5",
        "stopReason": "toolUse",
        "timestamp": 0,
    }
    return _message(number, when, message)


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "toolCall", "id": f"call_{name}", "name": name, "arguments": arguments}


def text(words: str) -> dict[str, Any]:
    return {"type": "text", "text": words}


def result(number: int, when: str, name: str, payload: dict[str, Any]) -> dict[str, Any]:
    message = {
        "role": "toolResult",
        "toolCallId": f"call_{name}",
        "toolName": name,
        "content": [{"type": "text", "text": json.dumps(payload)}],
        "isError": False,
        "timestamp": 0,
    }
    return _message(number, when, message)


def memory_get_session(root: Path) -> list[dict[str, Any]]:
    """The agent searches, follows one hit with memory_get and answers; the other hit is left alone."""
    hits = {
        "results": [
            {"path": "MEMORY.md", "startLine": 6, "endLine": 7, "score": 0.8, "snippet": "07:40 ferry"},
            {"path": "memory/tier2-recent.md", "startLine": 6, "endLine": 7, "score": 0.4, "snippet": "mix"},
        ]
    }
    return [
        header(root),
        user(1, "2026-03-05T09:00:00Z", "When is the ferry? (## Library card is not what I mean)"),
        assistant(2, "2026-03-05T09:00:01Z", call("memory_search", query="ferry")),
        result(3, "2026-03-05T09:00:02Z", "memory_search", hits),
        assistant(4, USED, call("memory_get", path="MEMORY.md", **{"from": 6, "lines": 2})),
        result(5, "2026-03-05T09:00:04Z", "memory_get", {"path": "MEMORY.md", "text": "## Ferry timetable"}),
        assistant(6, "2026-03-05T09:00:05Z", text("The 07:40 ferry skips Sundays.")),
    ]


def jsonl(events: Sequence[dict[str, Any]]) -> str:
    return "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events)


def sessions_dir(agent: str = "main") -> Path:
    return Path(os.environ["HOME"]) / ".openclaw" / "agents" / agent / "sessions"


def store_path(agent: str = "main") -> Path:
    return Path(os.environ["HOME"]) / ".openclaw" / "agents" / agent / "agent" / openclaw.STORE


def write_store(path: Path, events: Sequence[dict[str, Any]], *, compress: bool = False) -> Path:
    """An agent store with ``events`` as one session's rows (long ones as Zstd frames if ``compress``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path)
    connection.executescript(DDL)
    connection.execute("INSERT INTO session_windows VALUES (?, ?, 0, 0)", (SESSION, "agent:main:main"))
    for seq, event in enumerate(events):
        body = json.dumps(event, ensure_ascii=False)
        created = 1772701200000 + seq
        row: tuple[object, ...]
        if compress and len(body.encode()) >= 1024:
            frame = _zstd(body.encode())
            row = (SESSION, seq, None, created, frame, len(body.encode()), '{"version": 1}')
        else:
            row = (SESSION, seq, body, created, None, None, None)
        connection.execute("INSERT INTO transcript_events VALUES (?, ?, ?, ?, ?, ?, ?)", row)
    connection.commit()
    connection.close()
    return path


def _zstd(data: bytes) -> bytes:
    return subprocess.run(["zstd", "-1", "-q", "-c"], input=data, capture_output=True, check=True).stdout


def pending(repo: GitRepo) -> dict[str, str]:
    return {k: v.isoformat() for k, v in uses.pending(repo.root / ".git" / "squadmem").items()}


def tracked(repo: GitRepo, *args: str) -> dict[str, Any]:
    code, out, err = cli(repo, "track", *args, "--now", NOW, "--json")
    assert code == 0, err
    return dict(json.loads(out))


# -- what counts as a use ------------------------------------------------------------------------


def test_memory_get_uses_the_sections_its_lines_cover(repo: GitRepo) -> None:
    kept(repo)
    session = repo.root.parent / "session.jsonl"
    session.write_text(jsonl(memory_get_session(repo.root)), encoding="utf-8")
    found = tracked(repo, "--format", "openclaw", str(session))
    assert [(u["id"], u["how"], u["when"]) for u in found["uses"]] == [
        ("main/ferry-timetable", "read", "2026-03-05T09:00:03Z")
    ]
    assert found["transcripts"] == [{"file": str(session), "format": "openclaw"}]
    assert pending(repo) == {"main/ferry-timetable": "2026-03-05T09:00:03+00:00"}


def test_auto_format_tells_an_openclaw_session_file(repo: GitRepo) -> None:
    kept(repo)
    session = repo.root.parent / "session.jsonl"
    session.write_text(jsonl(memory_get_session(repo.root)), encoding="utf-8")
    assert tracked(repo, "--dry-run", str(session))["transcripts"][0]["format"] == "openclaw"


def test_read_edit_exec_and_a_cited_hit_are_uses(repo: GitRepo) -> None:
    kept(repo)
    events = [
        header(repo.root),
        assistant(1, "2026-03-05T09:00:01Z", call("read", path="memory/tier2-recent.md", offset=3, limit=2)),
        assistant(
            2,
            "2026-03-05T09:00:02Z",
            call(
                "edit", path=str(repo.root / "MEMORY.md"), edits=[{"oldText": "never online", "newText": "x"}]
            ),
        ),
        assistant(
            3,
            "2026-03-05T09:00:03Z",
            call("exec", command="sed -n '9,10p' MEMORY.md", workdir=str(repo.root)),
        ),
        assistant(
            4, "2026-03-05T09:00:04Z", text("Two-stroke at 1:50.\n\nSource: memory/tier2-recent.md#L6-L7")
        ),
    ]
    session = repo.root.parent / "session.jsonl"
    session.write_text(jsonl(events), encoding="utf-8")
    found = tracked(repo, "--dry-run", str(session))
    assert [(u["id"], u["how"]) for u in found["uses"]] == [
        ("main/kettle-descaling", "read"),
        ("main/library-card", "edit"),
        ("main/library-card", "read"),
        ("main/rowboat-outboard", "read"),
    ]


def test_a_whole_memory_md_read_and_the_prompt_are_not_uses(repo: GitRepo) -> None:
    """The bootstrap's load of MEMORY.md (a whole-file read) and the user's words are not the agent's uses."""
    kept(repo)
    events = [
        header(repo.root),
        user(1, "2026-03-05T09:00:00Z", "Remember the ## Greenhouse vents section?"),
        assistant(2, "2026-03-05T09:00:01Z", call("read", path="MEMORY.md")),
        assistant(3, "2026-03-05T09:00:02Z", call("memory_get", path="MEMORY.md")),
    ]
    session = repo.root.parent / "session.jsonl"
    session.write_text(jsonl(events), encoding="utf-8")
    assert tracked(repo, str(session))["uses"] == []
    assert pending(repo) == {}


def test_the_store_is_read_in_a_workspace_with_no_files(repo: GitRepo) -> None:
    kept(repo)
    write_store(store_path(), memory_get_session(repo.root))
    first = tracked(repo)
    assert first["transcripts"] == [{"file": str(store_path()), "format": "openclaw-sqlite"}]
    assert [u["id"] for u in first["uses"]] == ["main/ferry-timetable"]
    again = tracked(repo)
    assert (again["uses"], again["lines_read"], again["lines_seen_before"]) == ([], 0, 0)  # past its mark
    with sqlite3.connect(store_path()) as connection:
        later = assistant(
            7, "2026-03-06T10:00:00Z", call("memory_get", path="memory/tier2-recent.md", lines=4)
        )
        connection.execute(
            "INSERT INTO transcript_events VALUES (?, 7, ?, 0, NULL, NULL, NULL)",
            (SESSION, json.dumps(later)),
        )
    grown = tracked(repo)
    assert [(u["id"], u["when"]) for u in grown["uses"]] == [
        ("main/kettle-descaling", "2026-03-06T10:00:00Z")
    ]
    assert grown["lines_read"] == 1


def test_an_event_read_from_its_file_then_from_the_store_counts_once(repo: GitRepo) -> None:
    """``openclaw doctor --session-sqlite import`` moves a session file's events into SQLite: they are
    the same uses, not new ones."""
    kept(repo)
    events = memory_get_session(repo.root)
    sessions_dir().mkdir(parents=True)
    (sessions_dir() / f"{SESSION}.jsonl").write_text(jsonl(events), encoding="utf-8")
    assert [u["id"] for u in tracked(repo)["uses"]] == ["main/ferry-timetable"]
    (sessions_dir() / f"{SESSION}.jsonl").unlink()
    write_store(store_path(), events)
    assert tracked(repo)["uses"] == []


def test_a_compressed_event_is_read(repo: GitRepo) -> None:
    """OpenClaw stores an event of 1 KiB or more as a Zstd frame (event_zstd), not as event_json."""
    if shutil.which("zstd") is None or openclaw._zstd() is None:
        pytest.skip("zstd is not installed here")
    kept(repo)
    long_answer = "The outboard, as noted under ## Rowboat outboard, " + "wants its mix. " * 80
    events = [header(repo.root), assistant(1, USED, text(long_answer))]
    write_store(store_path(), events, compress=True)
    with sqlite3.connect(store_path()) as connection:
        assert connection.execute(
            "SELECT count(*) FROM transcript_events WHERE event_zstd IS NOT NULL"
        ).fetchone()
    found = tracked(repo, "--dry-run")
    assert [(u["id"], u["how"], u["when"]) for u in found["uses"]] == [
        ("main/rowboat-outboard", "heading", USED)
    ]


def test_the_configured_agent_dir_of_the_agent_whose_workspace_this_is(repo: GitRepo, tmp_path: Path) -> None:
    kept(repo)
    agent_dir = tmp_path / "elsewhere" / "agent"
    config = tmp_path / "conf.json5"
    entry = f'"wren": {{"workspace": "{repo.root}", "agentDir": "{agent_dir}",}}'
    config.write_text(f'{{\n  // JSON5, as OpenClaw reads it\n  "agents": {{"entries": {{{entry}}}}},\n}}\n')
    write_store(agent_dir / openclaw.STORE, memory_get_session(repo.root))
    code, out, err = cli(repo, "track", "--dry-run", "--json", env={"OPENCLAW_CONFIG_PATH": str(config)})
    assert code == 0, err
    assert json.loads(out)["transcripts"] == [
        {"file": str(agent_dir / openclaw.STORE), "format": "openclaw-sqlite"}
    ]


def test_the_skill_access_log_counts_at_its_last_access(repo: GitRepo) -> None:
    kept(repo)
    log = {
        "files": {"MEMORY.md": {"lastAccessed": "2026-03-06T08:00:00Z", "accessCount": 9}},
        "sections": {
            "memory/tier2-recent.md#Kettle descaling": {"lastAccessed": 1772784000000, "accessCount": 2},
            "MEMORY.md#Nothing like it": {"lastAccessed": "2026-03-06T08:00:00Z"},
        },
    }
    repo.write("skills/memory-tiers/state/access-log.json", json.dumps(log))
    found = tracked(repo)
    assert [(u["id"], u["how"], u["when"]) for u in found["uses"]] == [
        ("main/kettle-descaling", "access-log", "2026-03-06T08:00:00Z")
    ]
    assert tracked(repo)["uses"] == []  # the same record again: nothing new


# -- maintain -------------------------------------------------------------------------------------


def test_maintain_keeps_a_section_the_host_used_and_moves_the_unused(repo: GitRepo) -> None:
    kept(repo)
    sessions_dir().mkdir(parents=True)
    (sessions_dir() / f"{SESSION}.jsonl").write_text(jsonl(memory_get_session(repo.root)), encoding="utf-8")
    before = repo.snapshot()
    dry = run_squadmem(repo.root, "maintain", "--dry-run", "--now", NOW, "--json", date=NOW)
    assert dry.returncode == 0, dry.stderr
    planned = {(m["id"], m["to"]) for m in json.loads(dry.stdout)["moves"]}
    assert ("main/greenhouse-vents", "cold") in planned
    assert not any(ident == "main/ferry-timetable" for ident, _ in planned)
    assert repo.snapshot() == before and pending(repo) == {}
    done = run_squadmem(repo.root, "maintain", "--now", NOW, "--json", date=NOW)
    assert done.returncode == 0, done.stderr
    assert "## Ferry timetable" in repo.read("MEMORY.md")
    assert "## Greenhouse vents" in repo.read("memory/tier2-recent.md")
    assert "Squad-Memory-Used: main/ferry-timetable" in repo.git("log", "--format=%B")
    again = run_squadmem(repo.root, "maintain", "--now", NOW, "--json", date=NOW)
    assert json.loads(again.stdout)["host_uses"]["recorded"] == []


def test_maintain_skips_a_store_it_cannot_read_with_a_warning(repo: GitRepo) -> None:
    """A corrupt store maintain found on its own is a one-line warning; the run goes on."""
    kept(repo)
    store_path().parent.mkdir(parents=True)
    store_path().write_bytes(openclaw.MAGIC + b"\x00garbage" * 100)
    done = run_squadmem(repo.root, "maintain", "--dry-run", "--now", NOW, date=NOW)
    assert done.returncode == 0, done.stderr
    warning = [line for line in done.stderr.splitlines() if "warning" in line]
    assert len(warning) == 1 and str(store_path()) in warning[0] and "skipped" in warning[0]


def test_a_broken_config_is_a_warning_and_the_default_places_are_read(repo: GitRepo) -> None:
    kept(repo)
    config = Path(os.environ["HOME"]) / ".openclaw" / "openclaw.json"
    config.parent.mkdir(parents=True)
    config.write_text("{ agents: { entries: ", encoding="utf-8")
    write_store(store_path(), memory_get_session(repo.root))
    done = run_squadmem(repo.root, "track", "--dry-run", "--now", NOW)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        f"squadmem: warning: {config}: OpenClaw's config is not a JSON5 object squadmem can read;"
        " reading the default places"
    ]
    assert "main/ferry-timetable" in done.stdout


# -- bad input ------------------------------------------------------------------------------------


def _refused_quickly(repo: GitRepo, path: Path, message: str) -> None:
    before = repo.snapshot()
    done = subprocess.run(
        [sys.executable, "-m", "squadmem", "track", "--format", "openclaw", str(path)],
        cwd=repo.root,
        text=True,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[0] == message
    assert repo.snapshot() == before and pending(repo) == {}


def test_track_dev_zero_is_refused(repo: GitRepo) -> None:
    """``track /dev/zero`` read zeros without end into one line, memory growing."""
    kept(repo)
    _refused_quickly(repo, Path("/dev/zero"), "squadmem: /dev/zero: not a regular file")


def test_track_a_fifo_is_refused_without_waiting(repo: GitRepo, tmp_path: Path) -> None:
    """``track`` on a FIFO nobody writes to waited in open() for ever."""
    kept(repo)
    fifo = tmp_path / "session.jsonl"
    os.mkfifo(fifo)
    _refused_quickly(repo, fifo, f"squadmem: {fifo}: not a regular file")


def test_a_transcript_over_the_size_cap_is_refused(repo: GitRepo, tmp_path: Path) -> None:
    kept(repo)
    huge, cap = tmp_path / "huge.jsonl", transcripts.MAX_BYTES
    with huge.open("wb") as handle:
        handle.truncate(cap + 1)  # sparse: no disk used
    _refused_quickly(
        repo,
        huge,
        f"squadmem: {huge}: {cap + 1} bytes, over the {cap} a transcript may have",
    )


def test_a_corrupt_named_store_is_refused(repo: GitRepo, tmp_path: Path) -> None:
    kept(repo)
    bad = tmp_path / "openclaw-agent.sqlite"
    bad.write_bytes(openclaw.MAGIC + b"\x00garbage" * 100)
    _refused_quickly(
        repo, bad, f"squadmem: {bad}: cannot read OpenClaw's session store: file is not a database"
    )


def test_a_locked_named_store_is_refused_within_the_busy_timeout(repo: GitRepo, tmp_path: Path) -> None:
    """A store a writer holds locked (rollback journal, EXCLUSIVE) is an error, not a wait."""
    kept(repo)
    path = write_store(tmp_path / "openclaw-agent.sqlite", memory_get_session(repo.root))
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        _refused_quickly(
            repo, path, f"squadmem: {path}: cannot read OpenClaw's session store: database is locked"
        )
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_a_named_sqlite_file_that_is_not_a_store_is_refused(repo: GitRepo, tmp_path: Path) -> None:
    kept(repo)
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    _refused_quickly(repo, other, f"squadmem: {other}: no transcript_events table")


def test_a_binary_file_is_not_a_transcript(repo: GitRepo, tmp_path: Path) -> None:
    kept(repo)
    binary = tmp_path / "blob.jsonl"
    binary.write_bytes(bytes(range(256)) * 64)
    assert_refused(
        repo,
        "track",
        str(binary),
        message=f"squadmem: {binary}: not a Claude Code, Codex CLI or OpenClaw transcript",
    )


def test_a_line_cut_short_is_read_once_it_is_whole(repo: GitRepo) -> None:
    """A host still writing leaves a last line without its end: it is not read until it is whole."""
    kept(repo)
    whole = jsonl(memory_get_session(repo.root))
    cut = whole.rstrip("\n").rsplit("\n", 3)[0] + "\n" + whole.rstrip("\n").rsplit("\n", 3)[1][:40]
    session = repo.root.parent / "session.jsonl"
    session.write_text(cut, encoding="utf-8")
    assert tracked(repo, str(session))["uses"] == []
    session.write_text(whole, encoding="utf-8")
    assert [u["id"] for u in tracked(repo, str(session))["uses"]] == ["main/ferry-timetable"]


def test_a_line_over_the_line_cap_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transcripts, "MAX_LINE", 64)
    path = tmp_path / "s.jsonl"
    path.write_text('{"a": "' + "x" * 200 + '"}\n{"b": 1}\n', encoding="utf-8")
    assert [(n, d) for n, _, d in transcripts.records(path)] == [(2, {"b": 1})]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        (
            '{\n  // a comment\n  "a": [1, 2,], /* b */\n  "s": "// kept, }",\n}',
            {"a": [1, 2], "s": "// kept, }"},
        ),
        ('{"e": "q\\"//"}', {"e": 'q"//'}),
    ],
)
def test_json5_comments_and_trailing_commas(text: str, expected: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "openclaw.json"
    path.write_text(text, encoding="utf-8")
    assert config.read_config(str(path)) == expected


def test_state_dir_follows_openclaws_variables(tmp_path: Path) -> None:
    assert config.state_dir({"HOME": str(tmp_path)}) == str(tmp_path / ".openclaw")
    assert config.state_dir({"HOME": str(tmp_path), "OPENCLAW_PROFILE": "dev"}) == str(
        tmp_path / ".openclaw-dev"
    )
    assert config.state_dir({"HOME": "/x", "OPENCLAW_HOME": str(tmp_path)}) == str(tmp_path / ".openclaw")
    assert config.state_dir({"HOME": str(tmp_path), "OPENCLAW_STATE_DIR": "~/s"}) == str(tmp_path / "s")
    assert config.state_dir({"HOME": str(tmp_path), "OPENCLAW_STATE_DIR": "undefined"}) == str(
        tmp_path / ".openclaw"
    )


def _lines(events: Sequence[dict[str, Any]]) -> Iterator[tuple[str, dict[str, Any], int | None]]:
    for number, event in enumerate(events):
        yield f"s:{number}", event, None


def test_memory_get_ranges() -> None:
    events = [
        assistant(1, USED, call("memory_get", path="MEMORY.md", **{"from": 3, "lines": 2})),
        assistant(2, USED, call("memory_get", path="MEMORY.md", **{"from": 9})),
        assistant(3, USED, call("memory_get", path="memory/x.md", lines=5)),
    ]
    found = [(e.path, e.first, e.last) for e in transcripts.openclaw_events(_lines(events), "/w")]
    assert found == [("MEMORY.md", 3, 4), ("MEMORY.md", 9, None), ("memory/x.md", 1, 5)]


def test_an_event_after_now_counts_only_once_now_reaches_it(repo: GitRepo) -> None:
    """A session written ahead of ``--now`` (a replayed month) was counted at ``--now`` and never again."""
    kept(repo)
    sessions_dir().mkdir(parents=True)
    (sessions_dir() / f"{SESSION}.jsonl").write_text(jsonl(memory_get_session(repo.root)), encoding="utf-8")
    code, out, err = cli(repo, "track", "--now", "2026-03-04T12:00:00Z", "--json")
    assert code == 0, err
    assert json.loads(out)["uses"] == [] and pending(repo) == {}
    assert [(u["id"], u["when"]) for u in tracked(repo)["uses"]] == [("main/ferry-timetable", USED)]


def test_report_shows_the_host_use_as_the_last_use(repo: GitRepo) -> None:
    kept(repo)
    write_store(store_path(), memory_get_session(repo.root))
    code, out, err = cli(repo, "report", "--json", "--now", NOW)
    assert code == 0, err
    rows = {row["id"]: row["last_used"] for row in json.loads(out)["sections"]}
    assert rows["main/ferry-timetable"] == "2026-03-05T09:00:03Z"
    assert rows["main/library-card"] != rows["main/ferry-timetable"]
    assert pending(repo) == {}  # report records nothing


def test_an_unreadable_sessions_folder_is_a_warning(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder of OpenClaw's that cannot be listed ended track and maintain with an internal error."""
    kept(repo)

    def denied(self: openclaw.Store) -> list[Path]:
        raise PermissionError(13, "Permission denied", str(self.sessions))

    monkeypatch.setattr(openclaw.Store, "transcripts", denied)
    code, _, err = cli(repo, "track", "--now", NOW)
    assert code == 0, err
    assert err.splitlines() == [
        f"squadmem: warning: skipped {sessions_dir()}: cannot read: Permission denied"
    ]


def test_the_store_mark_passes_neither_a_later_event_nor_a_dry_run(repo: GitRepo) -> None:
    """Rows the mark passed are never read again: it must not pass an event after --now, nor move
    on a dry run (maintain --dry-run, report)."""
    kept(repo)
    write_store(store_path(), memory_get_session(repo.root))
    code, out, err = cli(repo, "track", "--now", "2026-03-04T12:00:00Z", "--json")
    assert code == 0 and json.loads(out)["uses"] == [], err
    assert [u["id"] for u in tracked(repo, "--dry-run")["uses"]] == ["main/ferry-timetable"]
    assert [(u["id"], u["when"]) for u in tracked(repo)["uses"]] == [("main/ferry-timetable", USED)]


def test_maintain_skips_a_locked_store_with_a_warning_and_reads_it_next_time(repo: GitRepo) -> None:
    """A store a writer holds locked is skipped with a one-line warning, not waited on; nothing of it
    is remembered, so the next run reads it again."""
    kept(repo)
    write_store(store_path(), memory_get_session(repo.root))
    holder = sqlite3.connect(store_path(), isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        done = run_squadmem(repo.root, "maintain", "--now", NOW, "--json", date=NOW)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        f"squadmem: warning: skipped {store_path()}: cannot read OpenClaw's session store: database is locked"
    ]
    assert "## Ferry timetable" in repo.read("memory/tier2-recent.md")  # nothing showed it in use
    again = json.loads(run_squadmem(repo.root, "track", "--now", NOW, "--json").stdout)
    assert (again["lines_read"], again["lines_seen_before"]) == (2, 0)


def _span(text: str, title: str) -> tuple[int, int] | None:
    """The first and last line of the section ``## title`` in ``text`` (its body is one line)."""
    rows = text.splitlines()
    return next(((n + 1, n + 2) for n, row in enumerate(rows) if row == f"## {title}"), None)


def test_daily_sessions_keep_their_sections_hot_while_the_rest_ages_out(repo: GitRepo) -> None:
    """Nothing an agent did in OpenClaw counted: daily maintain drained MEMORY.md by commit age alone
    until it held only its Index. Here the agent reads three of twelve sections every day (finding
    each where it is that day, as memory_search would) and maintain runs every evening."""
    titles = [f"Topic {n}" for n in range(1, 13)]
    hot = "# MEMORY.md\n" + "".join(f"\n## {t}\nwhat to know about {t.lower()}\n" for t in titles)
    repo.commit("workspace", {"MEMORY.md": hot, "memory/tier2-recent.md": "# Tier 2\n"}, date=D0)
    assert cli(repo, "init", "--no-hooks")[0] == 0
    repo.git("add", "-A")
    repo.git("commit", "-q", "--no-gpg-sign", "-m", "squadmem init", date=D0)
    used = ["Topic 1", "Topic 5", "Topic 9"]
    sessions_dir().mkdir(parents=True)
    for day in range(2, 13):
        when = f"2026-03-{day:02d}T09:00:00Z"
        events = [header(repo.root)]
        for number, title in enumerate(used, start=1):
            rel = next(r for r in ("MEMORY.md", "memory/tier2-recent.md") if _span(repo.read(r), title))
            first, last = _span(repo.read(rel), title) or (0, 0)
            get = call("memory_get", path=rel, **{"from": first, "lines": last - first + 1})
            events.append(assistant(number, when, get))
        (sessions_dir() / f"day-{day}.jsonl").write_text(jsonl(events), encoding="utf-8")
        evening = f"2026-03-{day:02d}T21:00:00+00:00"
        done = run_squadmem(repo.root, "maintain", "--now", evening, date=evening)
        assert done.returncode == 0, done.stderr
    kept_hot = [t for t in titles if f"## {t}\n" in repo.read("MEMORY.md")]
    assert kept_hot == used

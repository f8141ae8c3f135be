from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import GitRepo, assert_refused
from conftest import squadmem as cli

from squadmem.engine.hosts import transcripts
from squadmem.model import uses
from squadmem.model.layout import MEMORY_DIR

OLD = "2026-01-01T10:00:00+00:00"
NOW = "2026-03-01T12:00:00+00:00"
HOT = f"{MEMORY_DIR}/hot/picard.md"
COLD = f"{MEMORY_DIR}/cold/picard.md"
ARCHIVE = f"{MEMORY_DIR}/archive/picard.md"
WIKI = f"{MEMORY_DIR}/wiki/security.md"

HOT_TEXT = "# Hot memory: picard\n\n## Session\n- none yet\n\n## Deploy keys\nin the vault\n"
COLD_TEXT = (
    "# Cold memory: picard\n"  # 1
    "\n"  # 2
    "## Auth tokens\n"  # 3
    "tokens live 15 min\n"  # 4
    "\n"  # 5
    "## Release train\n"  # 6
    "every second Tuesday\n"  # 7
    "\n"  # 8
    "## Unused\n"  # 9
    "nobody reads this\n"  # 10
)
ARCHIVE_TEXT = "# Archive: picard\n\n## Warp core\nsrc/warp.py\n\n## Holodeck\nsafety off\n"
WIKI_TEXT = "# Wiki: security\n\n## Key rotation\nevery 90 days\n"


def memory(repo: GitRepo) -> None:
    repo.commit("memory", {HOT: HOT_TEXT, COLD: COLD_TEXT, ARCHIVE: ARCHIVE_TEXT, WIKI: WIKI_TEXT}, date=OLD)


def _lines(rows: list[dict[str, object]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def claude_transcript(root: Path) -> str:
    """A Claude Code session file, shaped as version 2.0.x writes them."""
    common = {
        "isSidechain": False,
        "userType": "external",
        "cwd": str(root),
        "sessionId": "5d1f",
        "version": "2.0.14",
    }
    common["gitBranch"] = "main"

    def assistant(uuid: str, when: str, content: list[dict[str, object]]) -> dict[str, object]:
        message = {
            "id": f"msg_{uuid}",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": content,
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
        return {
            **common,
            "parentUuid": "p",
            "type": "assistant",
            "message": message,
            "uuid": uuid,
            "timestamp": when,
        }

    def result(uuid: str, when: str, tool: str, text: str) -> dict[str, object]:
        content = [{"tool_use_id": tool, "type": "tool_result", "content": text}]
        return {
            **common,
            "type": "user",
            "message": {"role": "user", "content": content},
            "uuid": uuid,
            "timestamp": when,
        }

    return _lines(
        [
            {"type": "summary", "summary": "Key work", "leafUuid": "u0"},
            {
                **common,
                "parentUuid": None,
                "type": "user",
                "message": {
                    "role": "user",
                    "content": "## Memory Context\n## Release train\n...\nrotate the keys",
                },
                "uuid": "u1",
                "timestamp": "2026-03-01T10:00:00.000Z",
            },
            assistant(
                "a1",
                "2026-03-01T10:00:05.000Z",
                [
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "Read",
                        "input": {"file_path": f"{root}/{HOT}"},
                    }
                ],
            ),
            result("u2", "2026-03-01T10:00:06.000Z", "toolu_1", "     1\t# Hot memory: picard\n"),
            assistant(
                "a2",
                "2026-03-01T10:01:00.000Z",
                [
                    {
                        "type": "tool_use",
                        "id": "toolu_2",
                        "name": "Read",
                        "input": {"file_path": f"{root}/{COLD}", "offset": 3, "limit": 2},
                    }
                ],
            ),
            result(
                "u3",
                "2026-03-01T10:01:01.000Z",
                "toolu_2",
                "     3\t## Auth tokens\n     4\ttokens live 15 min\n",
            ),
            assistant(
                "a3",
                "2026-03-01T10:02:00.000Z",
                [{"type": "tool_use", "id": "toolu_3", "name": "Read", "input": {"file_path": WIKI}}],
            ),
            assistant(
                "a4",
                "2026-03-01T10:30:00.000Z",
                [
                    {
                        "type": "text",
                        "text": "Done. As `picard/holodeck` says, and per the **Deploy keys** note.",
                    }
                ],
            ),
        ]
    )


def codex_transcript(root: Path) -> str:
    """A Codex CLI rollout file, shaped as cli_version 0.4x writes them."""
    call = {
        "command": ["bash", "-lc", f"sed -n '3,4p' {ARCHIVE}"],
        "workdir": str(root),
        "timeout_ms": 120000,
    }
    output = {"output": "## Warp core\nsrc/warp.py\n", "metadata": {"exit_code": 0, "duration_seconds": 0.0}}
    return _lines(
        [
            {
                "timestamp": "2026-03-01T11:00:00.000Z",
                "type": "session_meta",
                "payload": {
                    "id": "0199",
                    "cwd": str(root),
                    "originator": "codex_cli_rs",
                    "cli_version": "0.46.0",
                },
            },
            {
                "timestamp": "2026-03-01T11:00:00.100Z",
                "type": "turn_context",
                "payload": {"model": "gpt-5-codex"},
            },
            {
                "timestamp": "2026-03-01T11:00:01.000Z",
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": 'memory: picard/unused "Unused"'}],
                },
            },
            {
                "timestamp": "2026-03-01T11:00:05.000Z",
                "type": "response_item",
                "payload": {
                    "type": "function_call",
                    "name": "shell",
                    "arguments": json.dumps(call),
                    "call_id": "call_1",
                },
            },
            {
                "timestamp": "2026-03-01T11:00:06.000Z",
                "type": "response_item",
                "payload": {
                    "type": "function_call_output",
                    "call_id": "call_1",
                    "output": json.dumps(output),
                },
            },
            {
                "timestamp": "2026-03-01T11:01:00.000Z",
                "type": "event_msg",
                "payload": {"type": "agent_message", "message": 'The "Release train" runs Tuesdays.'},
            },
            {
                "timestamp": "2026-03-01T11:01:00.000Z",
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": 'The "Release train" runs Tuesdays.'}],
                },
            },
        ]
    )


def write(repo: GitRepo, name: str, text: str) -> Path:
    path = repo.root.parent / name
    path.write_text(text, encoding="utf-8")
    return path


def pending(repo: GitRepo) -> dict[str, str]:
    found = uses.pending(repo.root / ".git" / "squadmem")
    return {k: v.isoformat() for k, v in found.items()}


def test_claude_code_session_reads_and_citations_become_uses(repo: GitRepo) -> None:
    memory(repo)
    path = write(repo, "s.jsonl", claude_transcript(repo.root))
    code, out, err = cli(repo, "track", str(path), "--now", NOW, "--json")
    assert code == 0, err
    got = {(u["id"], u["how"]) for u in json.loads(out)["uses"]}
    assert got == {
        ("picard/auth-tokens", "read"),  # offset 3, limit 2: lines 3-4 only
        ("wiki:security/key-rotation", "read"),  # a whole wiki page
        ("picard/holodeck", "id"),
        ("picard/deploy-keys", "heading"),
    }  # the whole hot file (the spawn's load) and the prompt's quotes are not uses
    assert pending(repo) == {
        "picard/auth-tokens": "2026-03-01T10:01:00+00:00",
        "wiki:security/key-rotation": "2026-03-01T10:02:00+00:00",
        "picard/holodeck": "2026-03-01T10:30:00+00:00",
        "picard/deploy-keys": "2026-03-01T10:30:00+00:00",
    }


def test_codex_rollout_reads_and_citations_become_uses(repo: GitRepo) -> None:
    memory(repo)
    path = write(repo, "rollout-2026-03-01T11-00-00-0199.jsonl", codex_transcript(repo.root))
    code, out, err = cli(repo, "track", str(path), "--now", NOW, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["transcripts"] == [{"file": str(path), "format": "codex"}]
    assert {(u["id"], u["how"]) for u in data["uses"]} == {
        ("picard/warp-core", "read"),  # sed -n '3,4p'
        ("picard/release-train", "heading"),  # once: the event_msg copy is not read
    }
    assert set(pending(repo)) == {"picard/warp-core", "picard/release-train"}


def test_reading_a_transcript_twice_records_nothing_new(repo: GitRepo) -> None:
    memory(repo)
    path = write(repo, "s.jsonl", claude_transcript(repo.root))
    assert cli(repo, "track", str(path), "--now", NOW)[0] == 0
    repo.commit("work", {"src/a.py": "x\n"}, date=NOW)  # the pending uses ride on a commit and are consumed
    (repo.root / ".git" / "squadmem" / "pending-uses.json").unlink(missing_ok=True)
    code, out, _ = cli(repo, "track", str(path), "--now", NOW)
    assert code == 0
    assert out.splitlines()[-1].endswith("1 line(s), 3 tracked before: recorded 0 use(s)")
    assert pending(repo) == {}
    path.write_text(
        path.read_text("utf-8")
        + json.dumps(
            {
                "type": "assistant",
                "timestamp": "2026-03-01T11:00:00.000Z",
                "message": {"role": "assistant", "content": [{"type": "text", "text": "see picard/unused"}]},
            }
        )
        + "\n",
        encoding="utf-8",
    )
    code, out, _ = cli(repo, "track", str(path), "--now", NOW)
    assert pending(repo) == {"picard/unused": "2026-03-01T11:00:00+00:00"}


def test_maintain_promotes_what_the_transcript_shows_was_read(repo: GitRepo) -> None:
    memory(repo)
    path = write(repo, "rollout.jsonl", codex_transcript(repo.root))
    assert cli(repo, "track", str(path), "--now", NOW)[0] == 0
    code, out, err = cli(repo, "maintain", "--dry-run", "--json", "--now", NOW)
    assert code == 0, err
    moves = {(m["id"], m["from"], m["to"]) for m in json.loads(out)["moves"]}
    assert ("picard/warp-core", "archive", "hot") in moves
    assert ("picard/release-train", "cold", "hot") in moves
    assert ("picard/unused", "cold", "archive") in moves


def test_session_end_tracks_the_transcript_and_carries_the_uses(repo: GitRepo) -> None:
    memory(repo)
    path = write(repo, "s.jsonl", claude_transcript(repo.root))
    env = {"GIT_COMMITTER_DATE": NOW, "GIT_AUTHOR_DATE": NOW}
    assert cli(repo, "session", "start", "--agent", "picard", "--task", "keys", env=env)[0] == 0
    code, _, err = cli(repo, "session", "end", "--agent", "picard", "--transcript", str(path), env=env)
    assert code == 0, err
    assert "recorded 4 use(s)" in err
    message = repo.git("log", "-1", "--format=%B")
    assert set(uses.parse_used(message)) == {
        "picard/auth-tokens",
        "wiki:security/key-rotation",
        "picard/holodeck",
        "picard/deploy-keys",
    }


def test_from_hook_reads_the_transcript_path(repo: GitRepo) -> None:
    memory(repo)
    path = write(repo, "s.jsonl", claude_transcript(repo.root))
    hook = json.dumps({"session_id": "5d1f", "transcript_path": str(path), "hook_event_name": "SessionEnd"})
    code, out, err = cli(repo, "track", "--from-hook", "--dry-run", "--now", NOW, input=hook)
    assert code == 0, err
    assert out.splitlines()[-1].endswith("recorded 0 use(s)")
    assert pending(repo) == {}


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("cat .squad/memory/cold/a.md", [(".squad/memory/cold/a.md", None, None)]),
        (["bash", "-lc", "sed -n '10,20p' a.md && head -n 5 b.md"], [("a.md", 10, 20), ("b.md", 1, 5)]),
        ("sed -n 7p a.md|wc -l", [("a.md", 7, 7)]),
        ("tail -n 3 a.md; ls", [("a.md", -3, None)]),
        ("rg token .squad/memory", []),
        (["cat", "notes.txt"], []),
        ("cat 'unclosed", []),
    ],
)
def test_shell_reads(command: object, expected: list[tuple[str, int | None, int | None]]) -> None:
    assert transcripts.shell_reads(command) == expected


def test_bad_transcripts_are_refused(repo: GitRepo) -> None:
    memory(repo)
    other = write(repo, "other.jsonl", '{"hello": "world"}\nnot json\n')
    assert_refused(
        repo,
        "track",
        str(other),
        message=f"squadmem: {other}: not a Claude Code, Codex CLI or OpenClaw transcript",
    )
    assert_refused(repo, "track", message="squadmem: no transcript given")
    assert_refused(repo, "track", str(other), "--format", "vim", message="squadmem: --format vim: unknown")
    missing = repo.root.parent / "missing.jsonl"
    assert_refused(
        repo, "track", str(missing), message=f"squadmem: {missing}: cannot read: No such file or directory"
    )

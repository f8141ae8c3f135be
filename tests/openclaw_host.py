"""The real OpenClaw, for the tests that run squadmem under it (marker ``openclaw``, and ``slow``).

The ``openclaw`` command comes from SQUADMEM_OPENCLAW (``.ci/run`` installs
Node.js 24 and openclaw 2026.9.6 and writes a wrapper that starts that Node.js
by its absolute path). It is read here, at import, before each test's sealed
environment drops SQUADMEM_* variables. In CI (``CI`` set) a missing command
fails the test; elsewhere it is skipped with the reason.

:func:`sealed_host` gives each test its own OpenClaw home: ``openclaw setup
--baseline`` pointed at the test's workspace, and memory search set to
``provider: none`` (keyword-only full-text search, no embedding provider), so
the host reads and indexes files offline and never calls a model.

:class:`Recorder` is what stands where a model would be, for the tests that
need to see what the host sends one (its system prompt, with the bootstrap
files it loaded): a local OpenAI-compatible endpoint on 127.0.0.1 that keeps
each request and answers every one with the same fixed reply, ``ok``.
"""

from __future__ import annotations

import base64
import json
import os
import shlex
import sqlite3
import subprocess
import threading
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

OPENCLAW = os.environ.get("SQUADMEM_OPENCLAW", "")  # read before the sealed environment drops it
IN_CI = bool(os.environ.get("CI"))
VERSION = "2026.9.6"
TIMEOUT = 300.0  # seconds for one openclaw command; a cold start takes a few seconds


def openclaw_command() -> Path:
    """The real ``openclaw`` command: fails in CI when it is missing, skips elsewhere."""
    path = Path(OPENCLAW) if OPENCLAW else None
    if path is None or not path.exists():
        reason = (
            "the real OpenClaw is not installed: set SQUADMEM_OPENCLAW to its `openclaw` command "
            f"(.ci/run installs openclaw {VERSION} with Node.js 24)"
        )
        if IN_CI:
            pytest.fail(reason)
        pytest.skip(reason)
    return path


@dataclass(frozen=True)
class OpenClawHost:
    """One sealed OpenClaw installation: its command, its HOME, and the workspace it serves."""

    command: Path
    home: Path
    workspace: Path

    @property
    def state_dir(self) -> Path:
        """Where the host keeps its config, sessions and indexes (``~/.openclaw``)."""
        return self.home / ".openclaw"

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("OPENCLAW_")}
        env.update(HOME=str(self.home), NO_COLOR="1", FORCE_COLOR="0")
        return env

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """``openclaw ARGS`` in the workspace, as this host."""
        done = subprocess.run(
            [str(self.command), *args],
            cwd=self.workspace,
            env=self.env(),
            text=True,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=TIMEOUT,
        )
        if check and done.returncode != 0:
            raise AssertionError(f"openclaw {' '.join(args)} failed ({done.returncode}):\n{done.stderr}")
        return done

    def config(self) -> dict[str, Any]:
        loaded: dict[str, Any] = json.loads((self.state_dir / "openclaw.json").read_text("utf-8"))
        return loaded

    def index(self) -> str:
        """``openclaw memory index``: (re)index the workspace's memory files; its report line."""
        return self.run("memory", "index").stdout

    def search(self, query: str, max_results: int = 20) -> list[dict[str, Any]]:
        """``openclaw memory search --json QUERY``: the hits (path, startLine, endLine, snippet, score)."""
        done = self.run("memory", "search", "--json", "--max-results", str(max_results), query)
        results: list[dict[str, Any]] = json.loads(done.stdout)["results"]
        return results


def sealed_host(where: Path, workspace: Path) -> OpenClawHost:
    """A fresh OpenClaw home under ``where`` serving ``workspace``, offline, keyword-only memory search."""
    home = where / "openclaw-home"
    home.mkdir(parents=True)
    host = OpenClawHost(openclaw_command(), home, workspace)
    host.run("setup", "--baseline", "--workspace", str(workspace))
    host.run(
        "config", "set", "--batch-json", json.dumps([{"path": "memory.search.provider", "value": "none"}])
    )
    config = host.config()
    assert config["agents"]["entries"]["main"]["workspace"] == str(workspace), config
    assert config["memory"]["search"]["provider"] == "none", config
    return host


class Recorder:
    """A local stand-in for a model endpoint: keeps each chat request and answers from a fixed script.

    The first requests are answered with the tool ``calls`` given, one each
    (name, arguments), so the host runs its real tools; every later one with
    the text ``ok``. Streamed (as the host asks) or not.
    """

    REPLY = "ok"

    def __init__(self, calls: Sequence[tuple[str, dict[str, Any]]] = ()) -> None:
        self.requests: list[dict[str, Any]] = []
        self.calls = list(calls)
        self.port = 0

    def system_prompt(self) -> str:
        """The system message of the last chat request the host sent."""
        messages = self.requests[-1]["messages"]
        content = next(m["content"] for m in messages if m["role"] in ("system", "developer"))
        return content if isinstance(content, str) else "".join(part.get("text", "") for part in content)

    def answer(self, request: dict[str, Any]) -> tuple[str, bytes]:
        self.requests.append(request)
        turn = len(self.requests)
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        base = {"id": f"recorded-{turn}", "created": 0, "model": request.get("model", "")}
        if turn <= len(self.calls):
            name, arguments = self.calls[turn - 1]
            call = {
                "id": f"call_{turn}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
            message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
            delta: dict[str, Any] = {"role": "assistant", "tool_calls": [{"index": 0, **call}]}
            finish = "tool_calls"
        else:
            message = {"role": "assistant", "content": self.REPLY}
            delta = dict(message)
            finish = "stop"
        if not request.get("stream"):
            choice = {"index": 0, "message": message, "finish_reason": finish}
            reply = {**base, "object": "chat.completion", "choices": [choice], "usage": usage}
            return "application/json", json.dumps(reply).encode()
        chunks = [
            {
                **base,
                "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
            },
            {
                **base,
                "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
                "usage": usage,
            },
        ]
        events = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
        return "text/event-stream", events.encode()

    @contextmanager
    def serving(self) -> Iterator[Recorder]:
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                kind, data = recorder.answer(json.loads(body or b"{}"))
                self.send_response(200)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = server.server_address[1]
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            server.shutdown()
            server.server_close()
            thread.join()

    def configure(self, host: OpenClawHost) -> None:
        """Make the recorder ``host``'s model (``recorder/recorded``), by ``openclaw config set``."""
        provider = {
            "baseUrl": f"http://127.0.0.1:{self.port}/v1",
            "api": "openai-completions",
            "apiKey": "recorder-key",
            "models": [{"id": "recorded", "name": "recorded"}],
        }
        batch = [
            {"path": "models.providers.recorder", "value": provider},
            {"path": "agents.defaults.model", "value": "recorder/recorded"},
        ]
        host.run("config", "set", "--batch-json", json.dumps(batch))

    def turn(self, host: OpenClawHost, message: str, *args: str) -> dict[str, Any]:
        """One embedded agent turn (``openclaw agent --local``); the main agent's main session unless
        ``args`` name another (``--session-key``); its JSON envelope."""
        select = args if "--session-key" in args else ("--agent", "main", *args)
        done = host.run("agent", "--local", "--message", message, "--json", *select)
        envelope: dict[str, Any] = json.loads(done.stdout)
        return envelope


def transcript(host: OpenClawHost, agent: str = "main") -> list[dict[str, Any]]:
    """Every transcript event the host stored for ``agent``, session by session, in order.

    OpenClaw 2026.9.6 keeps live transcripts in the agent's SQLite database
    (``agents/<id>/agent/openclaw-agent.sqlite``, table ``transcript_events``:
    one JSON event a row, the same events a JSONL transcript holds a line each;
    a large event is stored zstd-compressed instead, and is read back here with
    the zstd of the host's own Node.js).
    """
    path = host.state_dir / "agents" / agent / "agent" / "openclaw-agent.sqlite"
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        query = "SELECT event_json, event_zstd FROM transcript_events ORDER BY session_id, seq"
        rows: list[tuple[str | None, bytes | None]] = db.execute(query).fetchall()
    packed = [blob for text, blob in rows if text is None and blob is not None]
    unpacked = iter(zstd_decompress(host, packed))
    return [json.loads(text if text is not None else next(unpacked)) for text, _blob in rows]


UNZSTD = (
    "const z=require('node:zlib');let d='';process.stdin.on('data',c=>d+=c).on('end',()=>{"
    "for(const l of d.split('\\n'))if(l)"
    "console.log(JSON.stringify(z.zstdDecompressSync(Buffer.from(l,'base64')).toString('utf8')))})"
)


def node_of(host: OpenClawHost) -> str:
    """The Node.js the ``openclaw`` wrapper starts (its ``exec`` line's first word)."""
    for line in host.command.read_text("utf-8").splitlines():
        if line.startswith("exec "):
            return shlex.split(line)[1]
    raise AssertionError(f"{host.command}: no exec line naming Node.js")


def zstd_decompress(host: OpenClawHost, blobs: Sequence[bytes]) -> list[str]:
    if not blobs:
        return []
    stdin = "".join(base64.b64encode(blob).decode("ascii") + "\n" for blob in blobs)
    done = subprocess.run(
        [node_of(host), "-e", UNZSTD],
        input=stdin,
        text=True,
        capture_output=True,
        check=True,
        timeout=TIMEOUT,
    )
    return [json.loads(line) for line in done.stdout.splitlines()]

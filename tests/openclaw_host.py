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
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
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

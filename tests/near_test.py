"""squadmem near: the entries naming what an agent just touched, through Claude Code's PostToolUse hook."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest
from conftest import GitRepo, run_squadmem

from squadmem.commands import near
from squadmem.model import uses

DAY = "2026-03-01T12:00:00+00:00"
FILES = {
    ".squad/memory/hot/picard.md": "# Hot\n\n## Token cache\ntoken.py keeps a TokenCache.\n",
    ".squad/memory/cold/picard.md": "# Cold\n\n## Refresh race\n"
    "The race in src/auth/token.py: lock before refresh.\n"
    "## Login form\nFR-022: a second factor, see #123.\n",
    ".squad/memory/archive/picard.md": "# Archive\n\n## Old token store\n"
    + "token.py once kept tokens on disk.\n" * 40,
    ".squad/memory/cold/worf.md": "# Cold\n\n## Worf's token.py note\ntoken.py is worf's too.\n",
}


def hook(repo: GitRepo, event: Mapping[str, object], *args: str) -> tuple[int, str, str]:
    done = run_squadmem(repo.root, "near", "--from-hook", *args, input=json.dumps(event))
    return done.returncode, done.stdout, done.stderr


def read(path: str, session: str = "s1") -> dict[str, object]:
    return {
        "session_id": session,
        "hook_event_name": "PostToolUse",
        "tool_name": "Read",
        "tool_input": {"file_path": path},
    }


@pytest.fixture
def memory(repo: GitRepo) -> GitRepo:
    repo.commit("memory", FILES, date=DAY)
    return repo


@pytest.mark.parametrize(
    ("tool_input", "touched"),
    [
        ({"file_path": "src/app/src/auth/token.py"}, ("token.py",)),
        ({"notebook_path": "notes/plan.ipynb"}, ("plan.ipynb",)),
        ({"file_path": "src/app/.squad/memory/cold/picard.md"}, ()),  # memory itself
        ({"command": "gh issue view #123 && pytest tests/auth_test.py -k refresh"}, ("#123", "auth_test.py")),
        ({"command": "ls -la"}, ()),
    ],
)
def test_parse_takes_what_the_tool_touched(tool_input: dict[str, str], touched: tuple[str, ...]) -> None:
    event = near.parse(json.dumps({"session_id": "s", "tool_name": "X", "tool_input": tool_input}))
    assert event.touched == touched


def test_a_read_brings_the_entries_naming_the_file_once_a_session(memory: GitRepo) -> None:
    code, out, err = hook(memory, read("../other-checkout/src/auth/token.py"), "--agent", "picard")
    assert (code, err) == (0, "")
    context = json.loads(out)["hookSpecificOutput"]
    assert context["hookEventName"] == "PostToolUse"
    text = context["additionalContext"]
    assert text.startswith("Memory naming token.py (squadmem;")
    assert "<!-- picard/refresh-race (cold) -->\n## Refresh race\n" in text
    assert "Token cache" not in text  # picard's hot: the spawn carried it
    assert "worf" not in text  # another agent's
    assert len(text.encode()) <= 1024
    assert "- picard/old-token-store (archive)\n" in text  # too long whole: named
    assert hook(memory, read("src/auth/token.py"), "--agent", "picard")[1] == ""  # given already
    assert "refresh-race" in hook(memory, read("token.py", session="s2"), "--agent", "picard")[1]
    assert uses.pending(memory.root / ".git" / "squadmem") == {}  # candidates, not uses


def test_an_issue_in_a_shell_command(memory: GitRepo) -> None:
    event = {"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "gh issue view #123"}}
    text = json.loads(hook(memory, event)[1])["hookSpecificOutput"]["additionalContext"]
    assert "## Login form\nFR-022: a second factor, see #123.\n" in text


def test_nothing_to_add_prints_nothing(memory: GitRepo) -> None:
    assert hook(memory, read("README.md")) == (0, "", "")


def test_a_problem_never_fails_the_tool_call(memory: GitRepo, tmp_path: Path) -> None:
    done = run_squadmem(memory.root, "near", "--from-hook", input="not json")
    assert (done.returncode, done.stdout) == (0, "")
    assert done.stderr == "squadmem near: --from-hook: standard input is not a Claude Code hook's JSON\n"
    outside = tmp_path / "outside"
    outside.mkdir()
    done = run_squadmem(outside, "near", "--from-hook", input=json.dumps(read("token.py")))
    assert done.returncode == 0 and done.stdout == "" and done.stderr.startswith("squadmem near: ")


def test_by_hand_and_json(memory: GitRepo) -> None:
    done = run_squadmem(memory.root, "near", "src/auth/token.py", "--agent", "picard", "--json")
    data = json.loads(done.stdout)
    assert data["touched"] == ["token.py"]
    assert "picard/refresh-race" in data["entries"] and data["bytes"] <= 1024


def test_the_hook_s_command_imports_no_section_scanner() -> None:
    """``near`` runs at every tool call: naming a section (``render.named``) needs a slug, not the
    scanner that cuts tier files."""
    code = "import sys, squadmem.commands.near; print(sorted(m for m in sys.modules if 'model.' in m))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = done.stdout
    assert "squadmem.model.slug" in loaded
    assert "squadmem.model.scanner" not in loaded and "squadmem.model.sections" not in loaded

"""A new user's first ten minutes: the README's quick start is two set-up commands that make and use a
virtual environment, CI runs exactly those lines and everything after them inside it, no figure stands
in the quick start's way, and no `--help` shows a type's repr where a value's name belongs."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from cli_test import _commands as every_command
from click.testing import CliRunner
from readme_test import README, ROOT, quick_start_setup

from squadmem.cli.app import app

CI = ROOT / ".ci" / "run"
TYPE_REPR = re.compile(r"<(?:list|tuple|dict|str|int|float|bool|path|Path)\b[^>\n]*>")


def ci_lines() -> list[str]:
    return [line for line in CI.read_text("utf-8").splitlines() if line and not line.startswith("#")]


def quick_start() -> str:
    return README.read_text("utf-8").split("\n## Quick start\n", 1)[1].split("\n## ", 1)[0]


def test_the_first_command_makes_and_activates_a_virtual_environment() -> None:
    first, second = quick_start_setup()
    assert first.startswith("python3 -m venv .venv && . .venv/bin/activate && ")
    assert second.startswith(". .venv/bin/activate && ")
    for command in (first, second):
        assert "--user" not in command and "--break-system-packages" not in command


def test_ci_runs_the_two_commands_in_order_and_all_the_rest_inside_the_environment() -> None:
    lines = ci_lines()
    setup = quick_start_setup()
    start = lines.index(setup[0])
    assert lines[start + 1] == setup[1]
    before = lines[:start]
    assert not [
        line for line in before if re.search(r"\b(python3?|pip|pytest|ruff|mypy|lint-imports)\b", line)
    ]
    assert not [line for line in lines[start:] if "deactivate" in line]
    later = " ".join(lines[start + 2 :])
    for tool in ("pytest -q -m slow", "ruff check", "mypy", "lint-imports", "npm install"):
        assert tool in later


def test_the_environment_step_works_under_ci_shell_options(tmp_path: Path) -> None:
    """The venv step as the README writes it, in bash with .ci/run's `set -euo pipefail`."""
    step = quick_start_setup()[0].split(" && python3 -m pip ", 1)[0]
    step = step.replace("python3 -m venv .venv", "python3 -m venv --without-pip .venv", 1)  # offline
    done = subprocess.run(
        ["bash", "-c", f"set -euo pipefail; {step} && command -v python3"],
        cwd=tmp_path,
        text=True,
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(tmp_path / ".venv" / "bin" / "python3")


def test_no_figure_stands_in_the_quick_start() -> None:
    """A 25-line benchmark paragraph once split the quick start in two."""
    section = quick_start()
    assert "%" not in section
    assert len(section.splitlines()) <= 45


def test_the_quick_start_names_flags_pin_and_uninstall() -> None:
    section = quick_start()
    for word in ("pin", "kind=decision", "squadmem uninstall", "--now"):
        assert word in section


def test_the_readme_links_the_hit_rate_plot() -> None:
    assert "(docs/hit-rate.png)" in README.read_text("utf-8")


@pytest.mark.parametrize("path", [(), *every_command(app)], ids=lambda p: " ".join(p) or "squadmem")
def test_no_help_shows_a_type_repr(path: tuple[str, ...]) -> None:
    shown = CliRunner().invoke(app, [*path, "--help"], terminal_width=200)
    assert shown.exit_code == 0, shown.output
    assert not TYPE_REPR.findall(shown.output), shown.output


def test_the_type_repr_pattern_finds_what_help_once_showed() -> None:
    for leftover in (
        "--include <list[str]>",
        "--now <str>",
        "--limit <int>",
        "FILES <list[Path]>",
        "-C <path>",
    ):
        assert TYPE_REPR.search(leftover), leftover

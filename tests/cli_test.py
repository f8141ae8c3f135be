from __future__ import annotations

import datetime as dt
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from squadmem import __version__
from squadmem.cli.app import app, guarded

runner = CliRunner()


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout == f"squadmem {__version__}\n"


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found: list[tuple[str, ...]] = []
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            found += _commands(command, (*prefix, name))
        else:
            found.append((*prefix, name))
    return found


@pytest.mark.parametrize("command", _commands(app), ids=" ".join)
def test_help_on_every_command(command: tuple[str, ...]) -> None:
    result = runner.invoke(app, [*command, "--help"])
    assert result.exit_code == 0
    assert "Usage:" in result.stdout


def test_unknown_command_is_usage_error() -> None:
    result = runner.invoke(app, ["frobnicate"])
    assert result.exit_code == 2


def test_guarded_unexpected_error_exits_3() -> None:
    @guarded
    def boom() -> None:
        raise RuntimeError("kaboom")

    with pytest.raises(click.exceptions.Exit) as info:
        boom()
    assert info.value.exit_code == 3


def test_module_entry_point_runs() -> None:
    proc = subprocess.run([sys.executable, "-m", "squadmem", "--version"], capture_output=True, text=True)
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"squadmem {__version__}"


@pytest.mark.parametrize("command", _commands(app), ids=" ".join)
def test_every_command_is_in_the_reference(command: tuple[str, ...]) -> None:
    """docs/reference.md has a section for each command (tests/readme_test.py checks each is explained)."""
    page = (Path(__file__).parent.parent / "docs" / "reference.md").read_text(encoding="utf-8")
    assert f"\n## `squadmem {' '.join(command)}`\n" in page


def test_the_command_reference_is_generated_from_help() -> None:
    """docs/reference.md is exactly what `python -m squadmem.cli.reference` renders from --help."""
    from squadmem.cli import reference

    page = (Path(__file__).parent.parent / "docs" / "reference.md").read_text(encoding="utf-8")
    assert page == reference.render(), "regenerate: python -m squadmem.cli.reference > docs/reference.md"


@pytest.mark.parametrize(
    ("moment", "text"),
    [
        (dt.datetime(2026, 3, 1, 12, 0, 0, 26787, tzinfo=dt.UTC), "2026-03-01T12:00:00Z"),
        (dt.datetime(2026, 3, 1, 14, 0, tzinfo=dt.timezone(dt.timedelta(hours=2))), "2026-03-01T12:00:00Z"),
        (None, None),
    ],
)
def test_one_time_format_in_json(moment: dt.datetime | None, text: str | None) -> None:
    """Regression: JSON times differed between commands (`…52.026787Z` vs `…+00:00`)."""
    from squadmem.model import render

    assert render.timestamp(moment) == text

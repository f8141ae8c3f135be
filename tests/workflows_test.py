"""The GitHub Actions workflow templates pass actionlint and run what they promise."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml  # type: ignore[import-untyped]

FOLDER = Path(__file__).resolve().parents[1] / "squadmem" / "templates" / "workflows"
WORKFLOWS = sorted(FOLDER.glob("*.yml"))


def test_workflows_both_present() -> None:
    assert [p.name for p in WORKFLOWS] == ["squadmem-maintain.yml", "squadmem-verify.yml"]


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_passes_actionlint(path: Path) -> None:
    actionlint = shutil.which("actionlint")
    assert actionlint, "actionlint is not installed: pip install the test extra (it ships the binary)"
    done = subprocess.run([actionlint, "-no-color", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_catches_a_broken_workflow(tmp_path: Path) -> None:
    """The lint is not a no-op: an untrusted expression in a script is an error."""
    actionlint = shutil.which("actionlint")
    assert actionlint, "actionlint is not installed"
    bad = tmp_path / "bad.yml"
    bad.write_text(
        "on: pull_request\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: echo ${{ github.event.pull_request.title }}\n"
    )
    done = subprocess.run([actionlint, "-no-color", str(bad)], capture_output=True, text=True)
    assert done.returncode == 1
    assert "potentially untrusted" in done.stdout


def _scripts(path: Path) -> str:
    data = yaml.safe_load(path.read_text("utf-8"))
    return "\n".join(step.get("run", "") for job in data["jobs"].values() for step in job["steps"])


def test_verify_workflow_verifies_and_comments() -> None:
    data = yaml.safe_load((FOLDER / "squadmem-verify.yml").read_text("utf-8"))
    assert "pull_request" in data[True]  # yaml reads the key `on` as True
    scripts = _scripts(FOLDER / "squadmem-verify.yml")
    assert 'squadmem verify "origin/${BASE_REF}..HEAD"' in scripts
    assert 'squadmem review "origin/${BASE_REF}..HEAD" --format markdown' in scripts
    assert "gh pr comment" in scripts


def test_maintain_workflow_maintains_on_schedule_and_opens_a_pull_request() -> None:
    data = yaml.safe_load((FOLDER / "squadmem-maintain.yml").read_text("utf-8"))
    assert data[True]["schedule"]
    scripts = _scripts(FOLDER / "squadmem-maintain.yml")
    assert "squadmem maintain" in scripts
    assert "gh pr create" in scripts

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from squadmem.cli.app import app
from squadmem.commands import demo

ROOT = Path(__file__).resolve().parents[1]


def run_demo(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["demo", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def output() -> str:
    code, out, err = run_demo()
    assert code == 0, err
    return out


def test_demo_shows_report_plan_run_verify_log_and_a_move(output: str) -> None:
    headings = [line for line in output.splitlines() if line.startswith("==== ")]
    assert headings == [
        "==== squadmem report --now 2026-03-06T18:00:00Z ====",
        "==== squadmem maintain --dry-run --now 2026-03-06T18:00:00Z ====",
        "==== squadmem maintain --now 2026-03-06T18:00:00Z ====",
        headings[3],
        headings[4],
        headings[5],
        "==== again: squadmem maintain --dry-run ====",
    ]
    assert headings[3].startswith("==== squadmem verify ")
    assert headings[4].startswith("==== git log --oneline -")
    assert headings[5].startswith("==== git show --stat ")


def test_demo_exercises_every_rule(output: str) -> None:
    plan = output.split("==== squadmem maintain --now")[1].split("\n==== ")[0]
    for reason in ("stale ", "ttl ", "used ", "over budget "):
        assert reason in plan
    for arrow in ("hot → cold", "cold → wiki:", "cold → archive", "cold → hot", "archive → hot"):
        assert arrow in plan
    assert "refresh index" in plan
    assert "no violations" in output
    assert "Squad-Memory-Used: data/cache-hit-ratios" in output  # the pending use rides on the first move
    assert output.rstrip().endswith("nothing to do: every section is where the rules want it")


def test_demo_is_the_same_on_every_run(output: str) -> None:
    assert run_demo()[1] == output


def test_demo_keep_leaves_the_repository(tmp_path: Path, output: str) -> None:
    kept = tmp_path / "ledger"
    code, out, _ = run_demo("--keep", str(kept))
    assert code == 0
    assert out.splitlines()[2:] == output.splitlines()[2:]
    status = subprocess.run(["git", "status", "--porcelain"], cwd=kept, capture_output=True, text=True)
    assert status.stdout == ""
    log = subprocess.run(["git", "log", "--oneline"], cwd=kept, capture_output=True, text=True).stdout
    assert len(log.splitlines()) > len(demo.load().commits)


def test_demo_keep_refuses_a_folder_with_files(tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("keep me\n")
    code, _, err = run_demo("--keep", str(tmp_path))
    assert code == 2
    assert err.splitlines()[0] == f"squadmem: --keep {tmp_path}: exists and is not an empty folder"
    assert [p.name for p in tmp_path.iterdir()] == ["mine.txt"]


def test_demo_works_from_a_plain_install(tmp_path: Path) -> None:
    """The sample content is package data: an install (setuptools' build_py) carries it and the demo runs."""
    source = tmp_path / "src"
    shutil.copytree(
        ROOT, source, ignore=shutil.ignore_patterns(".git", "*.egg-info", "build", "__pycache__", "tests")
    )
    lib = tmp_path / "lib"
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import setuptools; setuptools.setup()",
            "-q",
            "build_py",
            "--build-lib",
            str(lib),
        ],
        cwd=source,
        check=True,
        capture_output=True,
    )
    assert (lib / "squadmem" / "templates" / "demo" / "story.toml").is_file()
    env = dict(os.environ, PYTHONPATH=str(lib))
    where = subprocess.run(
        [sys.executable, "-c", "import squadmem; print(squadmem.__file__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert where.stdout.startswith(str(lib))
    result = subprocess.run(
        [sys.executable, "-m", "squadmem", "demo"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert "no violations" in result.stdout

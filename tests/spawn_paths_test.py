"""bench/squad_spawn_paths.py: what each path that starts a Squad agent tells it to read, before and after.

The reading rule is tested on small texts here; the whole bench runs small on a real ``squad init``
(slow: SQUADMEM_SQUAD_CLI, required when CI is set, as in tests/squad_cli_test.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import GitRepo
from squad_cli_test import squad_cli  # noqa: F401 (the fixture)

from bench import squad_spawn_paths as paths

NOW = "2026-03-02T08:00:00+00:00"
HOT = "# Hot\n\n## Core Context\n<!-- squadmem: pin -->\nPicard leads.\n"


@pytest.fixture
def team(repo: GitRepo) -> GitRepo:
    repo.commit(
        "team",
        {
            ".squad/agents/picard/history.md": "# Project Context\n\n## Learnings\n\n" + "x" * 900 + "\n",
            ".squad/decisions.md": "# Decisions\n\n" + "y" * 500 + "\n",
            ".squad/memory/hot/picard.md": HOT,
        },
        date="2026-03-01T08:00:00+00:00",
    )
    return repo


def test_squads_read_lines_count_the_files_they_name(team: GitRepo) -> None:
    text = (
        "Read `agents/{name}/history.md` with `squad_state_read` when state tools are available;"
        " otherwise fall back to `.squad/agents/{name}/history.md`.\n"
        "Before starting work, read `.squad/decisions.md` for team decisions that affect me.\n"
        "Read `.squad/decisions.md` again: once counts.\n"
        "After making a decision, write it to `.squad/decisions/inbox/x.md`.\n"
    )
    reads = paths.told(team.root, text, "picard", "fix it", NOW)
    assert reads == {".squad/agents/picard/history.md": 934, ".squad/decisions.md": 514}


def test_inside_squadmems_blocks_only_the_context_command_counts(team: GitRepo) -> None:
    text = (
        "<!-- squadmem:history (squadmem spawn off puts Squad's line back) -->\n"
        'MEMORY: run `squadmem context --agent {name} --task "<your task, in one line>"`. Without squadmem,'
        " read `.squad/memory/hot/{name}.md` instead. Do not read `.squad/agents/{name}/history.md` whole.\n"
        "<!-- /squadmem:history -->\n"
        "Do not read `.squad/decisions.md` whole.\n"
    )
    reads = paths.told(team.root, text, "picard", "fix it", NOW)
    (command, size), *rest = reads.items()
    assert command == "squadmem context --agent picard" and not rest  # Squad's "do not read" reads nothing
    assert (
        "Picard leads." in paths.squadmem(team.root, "context", "--agent", "picard", "--task", "fix it").out
    )
    assert size == len(paths.squadmem(team.root, "context", "--agent", "picard", "--task", "fix it").stdout)


@pytest.mark.slow
@pytest.mark.squad_cli
def test_the_bench_reads_every_path_of_a_real_squad_team(squad_cli: Path, tmp_path: Path) -> None:  # noqa: F811
    cli = squad_cli
    agents = ("picard", "data")
    rows = paths.scenario(cli, tmp_path / "team", agents, days=8)
    assert sorted((r.path, r.agent) for r in rows) == sorted((p, a) for p in paths.PATHS for a in agents)
    for row in rows:
        assert row.before > 0
        assert not any(r.startswith("squadmem") for r in row.reads_before)  # Squad alone
        if row.path == "coordinator spawn template":  # Squad's template reads the whole history
            assert f".squad/agents/{row.agent}/history.md" in row.reads_before
        if row.path in ("coordinator spawn template", "SDK"):  # squadmem's block, or its hook
            assert f"squadmem context --agent {row.agent}" in row.reads_after
        if any(r.startswith("squadmem") for r in row.reads_after):
            assert f".squad/agents/{row.agent}/history.md" not in row.reads_after
    table = paths.table(rows)
    assert all(f"| {p} | 2 |" in table for p in paths.PATHS)

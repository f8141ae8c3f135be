"""The GitHub Actions workflow templates pass actionlint and run what they promise."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml  # type: ignore[import-untyped]
from conftest import GitRepo
from conftest import squadmem as cli

from squadmem.engine.install import workflows

FOLDER = Path(__file__).resolve().parents[1] / "templates" / "workflows"
WORKFLOWS = sorted(FOLDER.glob("*.yml"))
ACTIONLINT = Path(sys.executable).parent / "actionlint"  # the test environment's own, never PATH's


def test_workflows_both_present() -> None:
    assert [p.name for p in WORKFLOWS] == ["squadmem-maintain.yml", "squadmem-verify.yml"]


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_passes_actionlint(path: Path) -> None:
    actionlint = ACTIONLINT
    assert actionlint.exists(), (
        "actionlint is not installed: pip install the test extra (it ships the binary)"
    )
    done = subprocess.run([actionlint, "-no-color", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_catches_a_broken_workflow(tmp_path: Path) -> None:
    """The lint is not a no-op: an untrusted expression in a script is an error."""
    actionlint = ACTIONLINT
    assert actionlint.exists(), "actionlint is not installed"
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
    assert "pull_request_target" in data[True]  # yaml reads the key `on` as True
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


# -- rendered by init, pinned ---------------------------------------------------------------------

GIT_REQ = "squadmem @ git+https://github.com/example/squadmem@0123456789abcdef0123456789abcdef01234567"


def test_init_writes_both_workflows_pinned_to_the_requirement(repo: GitRepo) -> None:
    repo.commit("start", {"README.md": "x\n"}, date="2026-03-01T08:00:00+00:00")
    code, out, err = cli(repo, "init", "--agent", "picard", "--workflows", "--requirement", GIT_REQ)
    assert code == 0, err
    for name in ("squadmem-maintain.yml", "squadmem-verify.yml"):
        text = repo.read(f".github/workflows/{name}")
        assert f"python -m pip install '{GIT_REQ}'" in text or f"PINNED: '{GIT_REQ}'" in text
        assert "pip install squadmem\n" not in text
    assert f"the workflows install {GIT_REQ}" in out
    # a second run keeps what is there
    code, out, _ = cli(repo, "init", "--agent", "picard", "--workflows", "--requirement", "squadmem==9")
    assert "kept .github/workflows/squadmem-verify.yml (already there)" in out
    assert GIT_REQ in repo.read(".github/workflows/squadmem-verify.yml")


def test_init_refuses_workflows_it_cannot_pin(repo: GitRepo) -> None:
    """Regression: the workflows installed `squadmem` by name from an index where no such package exists."""
    repo.commit("start", {"README.md": "x\n"}, date="2026-03-01T08:00:00+00:00")
    before = repo.snapshot()
    code, _, err = cli(repo, "init", "--agent", "picard", "--workflows", "--requirement", "x'; rm -rf /")
    assert code == 2
    assert err.startswith('squadmem: --requirement "x\'; rm -rf /": not a pip requirement for squadmem')
    assert repo.snapshot() == before


def test_installed_requirement_of_this_checkout() -> None:
    """An editable or local install cannot be reached from a runner: squadmem says so instead of guessing."""
    from squadmem.engine.install import workflows
    from squadmem.model.errors import SquadmemError

    try:
        found = workflows.installed_requirement()
    except SquadmemError as exc:
        assert "which a GitHub runner cannot reach" in exc.message
    else:
        assert found.startswith(("squadmem==", "squadmem @ "))


def test_the_default_branch_is_known_on_every_trigger() -> None:
    """Regression: on `schedule` github.event.repository.default_branch is empty (range 'origin/..HEAD')."""
    data = yaml.safe_load((FOLDER / "squadmem-maintain.yml").read_text("utf-8"))
    base = data["jobs"]["maintain"]["env"]["BASE"]
    assert base == "${{ github.event.repository.default_branch || github.ref_name }}"


def test_the_pull_requests_commits_are_read_never_run_and_keep_no_credentials() -> None:
    """On pull_request_target the run holds a write token: the checkout keeps no credentials, no
    step runs what the pull request holds (only squadmem as pinned, and git reading objects), and a
    failed comment never turns the check red."""
    data = yaml.safe_load((FOLDER / "squadmem-verify.yml").read_text("utf-8"))
    steps = data["jobs"]["verify"]["steps"]
    assert steps[0]["with"]["persist-credentials"] is False
    assert data["permissions"] == {"contents": "read", "pull-requests": "write"}
    scripts = _scripts(FOLDER / "squadmem-verify.yml")
    assert "./" not in scripts and "pip install -e" not in scripts and "make " not in scripts
    assert steps[-1]["continue-on-error"] is True


# -- the steps' scripts, run here against real repositories, GitHub's CLI recorded ---------------

GH = """#!/bin/sh
echo "$*" >> "$GH_LOG"
case "$1 $2" in
  "pr list") echo "${GH_OPEN_PR:-}" ;;
  "api repos/"*) [ -n "${GH_COMMENT_ID:-}" ] && echo "$GH_COMMENT_ID" ;;
esac
exit 0
"""


def _steps(name: str) -> dict[str, str]:
    data = yaml.safe_load(workflows.render(name, GIT_REQ))
    job = next(iter(data["jobs"].values()))
    return {step.get("name", ""): step.get("run", "") for step in job["steps"]}


def _tools(tmp: Path) -> Path:
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    (bin_dir / "gh").write_text(GH)
    (bin_dir / "squadmem").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m squadmem "$@"\n')
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    return bin_dir


def _run(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=cwd,
        env=env,
        text=True,
        capture_output=True,
    )


def _actions_env(tmp: Path, bin_dir: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    out, summary, log = tmp / "output", tmp / "summary", tmp / "gh.log"
    for path in (out, summary, log):
        path.write_text("")
    env.update(GITHUB_OUTPUT=str(out), GITHUB_STEP_SUMMARY=str(summary), GH_LOG=str(log))
    env.update(GITHUB_REPOSITORY="example/app", **extra)
    return env


def _origin_with_stale_memory(tmp: Path) -> tuple[Path, GitRepo]:
    """A bare origin whose main has a hot section unused for 10 days, and a clone of it."""
    old = (dt.datetime.now(dt.UTC) - dt.timedelta(days=10)).isoformat()
    seed = GitRepo(tmp / "seed")
    seed.root.mkdir()
    seed.git("init", "-q", "-b", "main")
    assert cli(seed, "init", "--agent", "picard", "--no-hooks")[0] == 0
    seed.write(".squad/memory/hot/picard.md", "# Hot memory: picard\n\n## Old plan\nstale\n")
    seed.git("add", "-A")
    seed.commit("memory", date=old)
    origin = tmp / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(seed.root), str(origin)], check=True)
    clone = GitRepo(tmp / "clone")
    subprocess.run(["git", "clone", "-q", str(origin), str(clone.root)], check=True)
    return origin, clone


def test_maintain_steps_push_one_rolling_branch_and_open_one_pull_request(tmp_path: Path) -> None:
    steps = _steps("squadmem-maintain.yml")
    origin, clone = _origin_with_stale_memory(tmp_path)
    env = _actions_env(tmp_path, _tools(tmp_path), BASE="main", BRANCH="squadmem/maintain")
    done = _run(steps["Maintain on the rolling branch"], clone.root, env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "changed=yes" in (tmp_path / "output").read_text()
    pushed = subprocess.run(
        ["git", "-C", str(origin), "log", "--format=%s", "squadmem/maintain"], capture_output=True, text=True
    ).stdout
    assert 'memory(picard): demote "Old plan" hot → cold' in pushed
    assert "<!-- squadmem-review -->" in (clone.root / "squadmem-review.md").read_text()
    done = _run(steps["Open the pull request, or update the one already open"], clone.root, env)
    assert done.returncode == 0, done.stderr
    assert "pr create --base main --head squadmem/maintain" in (tmp_path / "gh.log").read_text()
    # a rerun the same day, with the pull request open: rebuilt, force-pushed, and edited in place
    env["GH_OPEN_PR"] = "7"
    (tmp_path / "gh.log").write_text("")
    assert _run(steps["Maintain on the rolling branch"], clone.root, env).returncode == 0
    assert (
        _run(steps["Open the pull request, or update the one already open"], clone.root, env).returncode == 0
    )
    log = (tmp_path / "gh.log").read_text()
    assert "pr edit 7 --body-file squadmem-review.md" in log and "pr create" not in log


def test_verify_steps_comment_once_and_stay_quiet_without_memory(tmp_path: Path) -> None:
    steps = _steps("squadmem-verify.yml")
    _, clone = _origin_with_stale_memory(tmp_path)
    bin_dir = _tools(tmp_path)
    clone.git("switch", "-q", "-c", "feature")
    clone.commit("code only", {"src/app.py": "print(1)\n"}, date="2026-03-01T08:00:00+00:00")
    env = _actions_env(tmp_path, bin_dir, BASE_REF="main", PR_NUMBER="12")
    done = _run(steps["Verify"], clone.root, env)
    assert done.returncode == 0, done.stderr
    assert "memory=no" in (tmp_path / "output").read_text()
    # a pull request that touches memory: verified, reviewed, one comment; then the same comment edited
    assert cli(clone, "touch", "picard/old-plan")[0] == 0
    clone.write(".squad/memory/hot/picard.md", clone.read(".squad/memory/hot/picard.md") + "more\n")
    clone.git("add", "-A")
    clone.commit("memory edit", date=dt.datetime.now(dt.UTC).isoformat())
    env = _actions_env(tmp_path, bin_dir, BASE_REF="main", PR_NUMBER="12")
    for name in (
        "Verify",
        "Review",
        "Comment on the pull request, editing squadmem's comment if there is one",
    ):
        done = _run(steps[name], clone.root, env)
        assert done.returncode == 0, name + done.stdout + done.stderr
    assert "memory=yes" in (tmp_path / "output").read_text()
    assert (
        "pr comment 12 --repo example/app --body-file squadmem-review.md" in (tmp_path / "gh.log").read_text()
    )
    env["GH_COMMENT_ID"] = "99"
    (tmp_path / "gh.log").write_text("")
    done = _run(
        steps["Comment on the pull request, editing squadmem's comment if there is one"], clone.root, env
    )
    assert done.returncode == 0
    log = (tmp_path / "gh.log").read_text()
    assert "api --method PATCH repos/example/app/issues/comments/99 -F body=@squadmem-review.md" in log
    assert "pr comment" not in log


def test_verify_workflow_runs_on_every_pull_request() -> None:
    """The workflow verified only pull requests that changed .squad/memory/: every one in a workspace
    repository, and one deleting .squad/memory/ for a workspace, passed CI unverified."""
    data = yaml.safe_load((FOLDER / "squadmem-verify.yml").read_text("utf-8"))
    assert data[True] == {"pull_request_target": None}  # no paths filter
    verify = _steps("squadmem-verify.yml")["Verify"]
    assert verify.rstrip().endswith('squadmem verify "origin/${BASE_REF}..HEAD"')
    assert "exit 0" not in verify


def _workspace_origin(tmp: Path) -> GitRepo:
    """A clone of an origin whose main keeps a memory-tiers workspace in place, with a log of a past day."""
    seed = GitRepo(tmp / "seed")
    seed.root.mkdir()
    seed.git("init", "-q", "-b", "main")
    seed.write("MEMORY.md", "# MEMORY.md\n\n## Vents\nOpen the east vent.\n")
    seed.write("memory/2026-03-01.md", "# 2026-03-01\n\n- 09:10 seed trays\n")
    assert cli(seed, "init", "--no-hooks")[0] == 0
    seed.git("add", "-A")
    seed.commit("workspace", date="2026-03-01T10:00:00+00:00")
    origin = tmp / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(seed.root), str(origin)], check=True)
    clone = GitRepo(tmp / "clone")
    subprocess.run(["git", "clone", "-q", str(origin), str(clone.root)], check=True)
    clone.git("switch", "-q", "-c", "feature")
    return clone


def test_verify_step_judges_a_workspace_pull_request(tmp_path: Path) -> None:
    """A pull request that forges a workspace log changes nothing under .squad/memory/: it used to
    pass CI without squadmem verify running."""
    clone = _workspace_origin(tmp_path)
    clone.commit(
        "forged",
        {"memory/2026-03-01.md": "# 2026-03-01\n\n- 09:10 garage\n"},
        date="2026-03-05T09:00:00+00:00",
    )
    env = _actions_env(tmp_path, _tools(tmp_path), BASE_REF="main", PR_NUMBER="3")
    done = _run(_steps("squadmem-verify.yml")["Verify"], clone.root, env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "memory/2026-03-01.md" in done.stdout
    assert "memory=yes" in (tmp_path / "output").read_text()


def test_install_step_takes_the_base_branchs_pin(tmp_path: Path) -> None:
    """A pull request that edits the workflow (its pin, its steps) is verified by the base branch's
    copy, as pull_request_target runs it: the base's pin is installed and the edit is flagged."""
    clone = _workspace_origin(tmp_path)
    name = ".github/workflows/squadmem-verify.yml"
    base = workflows.render("squadmem-verify.yml", "squadmem==1.0.0")
    clone.git("switch", "-q", "main")
    clone.commit("workflow", {name: base}, date="2026-03-02T09:00:00+00:00")
    clone.git("push", "-q", "origin", "main")
    clone.git("switch", "-q", "-C", "feature")
    edited = base.replace("squadmem==1.0.0", "squadmem==6.6.6").replace("squadmem verify", "true")
    clone.commit("pin", {name: edited}, date="2026-03-03T09:00:00+00:00")
    bin_dir = _tools(tmp_path)
    (bin_dir / "python").write_text('#!/bin/sh\necho "$*" >> "$GH_LOG"\n')
    (bin_dir / "python").chmod(0o755)
    env = _actions_env(tmp_path, bin_dir, BASE_REF="main", PR_NUMBER="3")
    runs = yaml.safe_load(clone.git("show", f"origin/main:{name}"))["jobs"]["verify"]["steps"]
    step = next(x for x in runs if x.get("name", "").startswith("Install"))
    done = _run(step["run"], clone.root, dict(env, **step["env"]))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "gh.log").read_text() == "-m pip install squadmem==1.0.0\n"
    assert done.stdout.startswith(f"::warning file={name}::this pull request edits the workflow")

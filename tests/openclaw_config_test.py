"""OpenClaw's config as ``squadmem init`` reads it: found as OpenClaw finds it, its user time zone.

The slow test makes the config with the real OpenClaw (``openclaw setup --baseline``, then
``openclaw config set``), offline, in the test's own HOME. Its command comes from
SQUADMEM_OPENCLAW; in CI (``CI`` set) a missing command fails that test, elsewhere it is
skipped with the reason.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import GitRepo, run_squadmem
from openclaw_host import openclaw_command

from squadmem.model import openclaw, settings
from squadmem.model.errors import SquadmemError

HOT = "# MEMORY.md\n\n## Greenhouse vents\nOpen the east vent above 24 °C.\n"
JSON5 = """\
// written by hand, as OpenClaw's docs show it
{
  agents: {
    defaults: {
      userTimezone: 'Europe/Berlin', /* the user's */
      workspace: "~/.openclaw/workspace",
    },
  },
}
"""


def home() -> Path:
    return Path(os.environ["HOME"])


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return path


def zoned(zone: str) -> str:
    return json.dumps({"agents": {"defaults": {"userTimezone": zone}}})


def workspace(repo: GitRepo) -> GitRepo:
    repo.commit("workspace", {"MEMORY.md": HOT, "memory/.keep": ""}, date="2026-03-02T08:00:00+00:00")
    return repo


# -- finding the config ------------------------------------------------------------------------------
def test_config_path_none_without_a_config() -> None:
    assert openclaw.config_path({"HOME": str(home())}) is None


def test_config_path_order_as_openclaw_finds_it(tmp_path: Path) -> None:
    """OPENCLAW_CONFIG_PATH, else OPENCLAW_STATE_DIR's, ~/.openclaw's, the legacy names and folder."""
    env = {"HOME": str(tmp_path / "h")}
    legacy = write(tmp_path / "h" / ".clawdbot" / "clawdbot.json", "{}")
    assert openclaw.config_path(env) == str(legacy)
    old_name = write(tmp_path / "h" / ".openclaw" / "clawdbot.json", "{}")
    assert openclaw.config_path(env) == str(old_name)
    default = write(tmp_path / "h" / ".openclaw" / "openclaw.json", "{}")
    assert openclaw.config_path(env) == str(default)
    state = write(tmp_path / "state" / "openclaw.json", "{}")
    assert openclaw.config_path({**env, "OPENCLAW_STATE_DIR": str(tmp_path / "state")}) == str(state)
    other_home = write(tmp_path / "oc-home" / ".openclaw" / "openclaw.json", "{}")
    assert openclaw.config_path({**env, "OPENCLAW_HOME": str(tmp_path / "oc-home")}) == str(other_home)
    named = write(tmp_path / "h" / "conf" / "a.json", "{}")
    assert openclaw.config_path({**env, "OPENCLAW_CONFIG_PATH": "~/conf/a.json"}) == str(named)
    assert openclaw.config_path({**env, "OPENCLAW_CONFIG_PATH": str(tmp_path / "none.json")}) is None


@pytest.mark.parametrize(
    ("text", "zone"),
    [
        (zoned("America/Chicago"), "America/Chicago"),
        (zoned("  Asia/Tokyo "), "Asia/Tokyo"),  # OpenClaw trims it
        (JSON5, "Europe/Berlin"),
        ('{"agents": {"defaults": {"workspace": "w"}}}', None),
        ("{}", None),
        ("{'a': 'it\\'s // not a comment', b: [1, 2e-3,],}", None),
    ],
)
def test_user_timezone_read(tmp_path: Path, text: str, zone: str | None) -> None:
    assert openclaw.user_timezone(str(write(tmp_path / "openclaw.json", text))) == zone


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{agents: ", "is not a JSON5 object squadmem can read"),
        ("[]", "is not a JSON5 object squadmem can read"),
        ("/* open", "is not a JSON5 object squadmem can read"),
        (zoned("Mars/Olympus"), "agents.defaults.userTimezone 'Mars/Olympus' is not a known time zone"),
        (zoned("../../etc/passwd"), "is not a known time zone"),
        ('{"agents": {"defaults": {"userTimezone": 5}}}', "5 is not a known time zone"),
    ],
)
def test_user_timezone_refused(tmp_path: Path, text: str, problem: str) -> None:
    path = write(tmp_path / "openclaw.json", text)
    with pytest.raises(SquadmemError) as caught:
        openclaw.user_timezone(str(path))
    assert caught.value.message.startswith(f"{path}: ")
    assert problem in caught.value.message


# -- init -----------------------------------------------------------------------------------------------
def test_init_reads_the_user_timezone(repo: GitRepo) -> None:
    """Failure: tiers.toml said UTC while OpenClaw dated its logs in the user's zone, so an evening's
    flush landed in the wrong day's log. init writes OpenClaw's zone and says where it read it."""
    config = write(home() / ".openclaw" / "openclaw.json", JSON5)
    done = run_squadmem(workspace(repo).root, "init")
    assert done.returncode == 0, done.stderr
    assert repo.read("memory/tiers.toml") == settings.workspace_template("main", "Europe/Berlin")
    said = f"timezone Europe/Berlin (OpenClaw's agents.defaults.userTimezone, from {config})"
    assert said in done.stdout
    assert done.stderr == ""


def test_init_without_an_openclaw_config_says_nothing_and_keeps_utc(repo: GitRepo) -> None:
    done = run_squadmem(workspace(repo).root, "init")
    assert done.returncode == 0, done.stderr
    assert repo.read("memory/tiers.toml") == settings.workspace_template("main")
    assert "timezone" not in done.stdout and "OpenClaw" not in done.stdout
    assert done.stderr == ""


def test_init_with_a_config_that_names_no_zone_says_so(repo: GitRepo) -> None:
    """OpenClaw then dates its logs in the machine's zone: init keeps UTC and says how to match it."""
    config = write(home() / ".openclaw" / "openclaw.json", "{}")
    done = run_squadmem(workspace(repo).root, "init")
    assert done.returncode == 0, done.stderr
    assert repo.read("memory/tiers.toml") == settings.workspace_template("main")
    assert f"{config} sets no agents.defaults.userTimezone" in done.stdout


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"agents": ', "OpenClaw's config is not a JSON5 object squadmem can read"),
        (zoned("Mars/Olympus"), "agents.defaults.userTimezone 'Mars/Olympus' is not a known time zone"),
    ],
)
def test_init_with_a_broken_config_warns_and_keeps_utc(repo: GitRepo, text: str, problem: str) -> None:
    """A config init cannot read does not stop it (the workspace is set up; timezone can be set
    later): one warning naming the file and a hint, UTC kept."""
    config = write(home() / ".openclaw" / "openclaw.json", text)
    done = run_squadmem(workspace(repo).root, "init")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == f"squadmem: warning: {config}: {problem}; timezone stays UTC"
    assert lines[1].startswith("hint: ") and len(lines) == 2
    assert repo.read("memory/tiers.toml") == settings.workspace_template("main")
    assert "created memory/tiers.toml" in done.stdout


def test_init_again_never_overwrites_the_timezone_set(repo: GitRepo) -> None:
    """A timezone the user set in tiers.toml stays, whatever OpenClaw's config says now."""
    workspace(repo)
    mine = settings.workspace_template("main", "Asia/Tokyo")
    write(repo.root / "memory" / "tiers.toml", mine)
    write(home() / ".openclaw" / "openclaw.json", zoned("Europe/Berlin"))
    done = run_squadmem(repo.root, "init")
    assert done.returncode == 0, done.stderr
    assert repo.read("memory/tiers.toml") == mine
    said = "memory/tiers.toml says timezone Asia/Tokyo, OpenClaw's agents.defaults.userTimezone Europe/Berlin"
    assert said in done.stdout
    write(home() / ".openclaw" / "openclaw.json", zoned("Asia/Tokyo"))
    again = run_squadmem(repo.root, "init")
    assert again.returncode == 0, again.stderr
    assert "timezone" not in again.stdout and repo.read("memory/tiers.toml") == mine


# -- the real OpenClaw ------------------------------------------------------------------------------------
@pytest.fixture
def openclaw_cli() -> Path:
    return openclaw_command()


@pytest.mark.slow
def test_init_reads_the_zone_the_real_openclaw_set(repo: GitRepo, openclaw_cli: Path) -> None:
    """The config as OpenClaw itself writes it (``setup --baseline``, then ``config set``), offline."""

    def oc(*args: str) -> None:
        env = dict(os.environ, OPENCLAW_OFFLINE="1")
        args_ = [str(openclaw_cli), *args]
        done = subprocess.run(args_, env=env, text=True, capture_output=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr

    oc("setup", "--baseline")
    oc("config", "set", "agents.defaults.userTimezone", "America/Los_Angeles")
    config = home() / ".openclaw" / "openclaw.json"
    assert openclaw.config_path(os.environ) == str(config)
    done = run_squadmem(workspace(repo).root, "init")
    assert done.returncode == 0, done.stderr
    assert repo.read("memory/tiers.toml") == settings.workspace_template("main", "America/Los_Angeles")
    said = f"timezone America/Los_Angeles (OpenClaw's agents.defaults.userTimezone, from {config})"
    assert said in done.stdout

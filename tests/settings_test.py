from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GitRepo

from squadmem.model import settings
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import MEMORY_DIR, Layout


def test_template_holds_every_default() -> None:
    """The tiers.toml that init writes spells out every key, each at its default."""
    assert settings.parse(settings.TEMPLATE, Path("tiers.toml")) == settings.Settings()
    for name, value in settings.Settings().slot_values().items():
        if isinstance(value, settings.Value):
            assert f"[{name}]" in settings.TEMPLATE
            for inner in value.slot_values():
                assert f"\n{inner} = " in settings.TEMPLATE, inner
        else:
            assert f"\n{name} = " in settings.TEMPLATE


def test_the_template_is_read_without_tomllib_and_so_is_any_other_text() -> None:
    """The template short-cut gives what tomllib gives for the same text; a changed byte is parsed."""
    code = (
        "import sys; from pathlib import Path; from squadmem.model import settings as s; "
        "a = s.parse(s.TEMPLATE, 't'); print('tomllib' in sys.modules); "
        "b = s.parse(s.TEMPLATE + '\\n', 't'); print('tomllib' in sys.modules, a == b)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "False\nTrue True\n"


def test_values_compare_copy_and_refuse_unknown_fields() -> None:
    hot = settings.HotSettings()
    assert hot == settings.HotSettings(7, 4096, 100, 5) and hash(hot) == hash(settings.HotSettings())
    assert hot.replaced(max_bytes=1) == settings.HotSettings(max_bytes=1) != hot
    assert hot != settings.ColdSettings()
    with pytest.raises(TypeError):
        hot.replaced(max_byte=1)
    assert repr(settings.LogSettings()) == "LogSettings(grace_minutes=0)"


def test_load_missing_file_gives_defaults(tmp_path: Path) -> None:
    assert settings.load(tmp_path) == settings.Settings()


def test_parse_overrides_one_key() -> None:
    got = settings.parse("timezone = 'Europe/Paris'\n[hot]\nstale_days = 3\n", Path("t"))
    assert got.hot.stale_days == 3
    assert got.hot.max_bytes == 4096
    assert str(got.tz) == "Europe/Paris"


def test_replace_ignores_none() -> None:
    got = settings.Settings().replace(hot={"stale_days": 2, "max_bytes": None})
    assert got.hot.stale_days == 2
    assert got.hot.max_bytes == 4096


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[hot]\nmax_bytes = -1\n", "t:2: hot.max_bytes must be a whole number from 0 to 1000000000, not -1"),
        (
            "[hot]\nmax_bytes = true\n",
            "t:2: hot.max_bytes must be a whole number from 0 to 1000000000, not True",
        ),
        ("[cold]\n\nttl_days = 'x'\n", "t:3: cold.ttl_days must be a number from 0 to 36500, not 'x'"),
        ("hot = 3\n", "t:1: hot is not a squadmem setting"),
    ],
)
def test_parse_errors_name_key_and_line(text: str, message: str) -> None:
    with pytest.raises(SquadmemError) as info:
        settings.parse(text, Path("t"))
    assert info.value.message == message


def test_load_not_utf8(tmp_path: Path) -> None:
    (tmp_path / "tiers.toml").write_bytes(b"\xff")
    with pytest.raises(SquadmemError, match="not UTF-8"):
        settings.load(tmp_path)


HOT = f"{MEMORY_DIR}/hot/picard.md"

# -- read once per command ---------------------------------------------------------------------------

COUNTING = (
    "import sys\n"
    "opened = []\n"
    "def audit(event, args):\n"
    "    if event == 'open' and str(args[0]).endswith('tiers.toml'):\n"
    "        opened.append(args[0])\n"
    "sys.addaudithook(audit)\n"
    "from squadmem.cli.app import run\n"
    "try:\n"
    "    run()\n"
    "finally:\n"
    "    print(f'tiers.toml opened {len(opened)} time(s)', file=sys.stderr)\n"
)


def test_layout_reads_tiers_toml_once(tmp_path: Path) -> None:
    (tmp_path / ".squad" / "memory").mkdir(parents=True)
    (tmp_path / ".squad" / "memory" / "tiers.toml").write_text("[hot]\nstale_days = 3\n")
    layout = Layout(tmp_path)
    first = layout.settings
    (tmp_path / ".squad" / "memory" / "tiers.toml").write_text("[hot]\nstale_days = 4\n")
    assert layout.settings is first and first.hot.stale_days == 3
    assert Layout(tmp_path).settings.hot.stale_days == 4


def test_layout_settings_refuses_a_malformed_file_each_time(tmp_path: Path) -> None:
    (tmp_path / ".squad" / "memory").mkdir(parents=True)
    (tmp_path / ".squad" / "memory" / "tiers.toml").write_text("[hot]\nstale_days = 'x'\n")
    layout = Layout(tmp_path)
    for _ in range(2):
        with pytest.raises(SquadmemError, match=r"hot\.stale_days"):
            _ = layout.settings


@pytest.mark.parametrize(
    "args",
    [
        ("report",),
        ("maintain", "--dry-run"),
        ("review", "--format", "json", "HEAD"),
        ("verify", "HEAD"),
        ("log", "add", "hello"),
    ],
)
def test_a_command_reads_tiers_toml_once(repo: GitRepo, args: tuple[str, ...]) -> None:
    """Each command parsed tiers.toml twice: once to refuse a bad file early, once to use it."""
    files = {f"{MEMORY_DIR}/tiers.toml": "[hot]\nstale_days = 3\n", HOT: "# Hot\n\n## A\nx\n"}
    repo.commit("seed", files, date="2026-03-01T10:00:00+00:00")
    result = subprocess.run(
        [sys.executable, "-c", COUNTING, *args], cwd=repo.root, capture_output=True, text=True
    )
    assert result.returncode in (0, 1), result.stderr
    assert result.stderr.splitlines()[-1] == "tiers.toml opened 1 time(s)"

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import GitRepo, squadmem

HOT = ".squad/memory/hot/picard.md"


@pytest.fixture
def memory(repo: GitRepo) -> GitRepo:
    repo.write(
        HOT,
        "# Hot\n\n## Auth tokens\n<!-- squadmem: pin kind=decision -->\n"
        "use JWT\n### Detail\nx\n## Notes\nn\n",
    )
    repo.write(".squad/memory/cold/picard.md", "# Cold\n\n## Notes\nold\n")
    repo.write(".squad/memory/wiki/security.md", "# Wiki\n\n## Threat model\nt\n")
    repo.commit("memory", date="2026-03-01T12:00:00+00:00")
    return repo


def test_list_table_shows_ids_and_flags(memory: GitRepo) -> None:
    code, out, _ = squadmem(memory.root, "list")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["id", "tier", "bytes", "lines", "flags", "title"]
    assert any(line.startswith("picard/auth-tokens") and "pin kind=decision" in line for line in lines)
    assert any(line.startswith("picard/notes-2 ") and " cold " in line for line in lines)
    assert any(line.startswith("wiki:security/threat-model") for line in lines)


def test_list_json_schema(memory: GitRepo) -> None:
    code, out, _ = squadmem(memory.root, "list", "--json")
    assert code == 0
    sections = json.loads(out)["sections"]
    first = sections[0]
    assert set(first) == {"id", "tier", "file", "title", "bytes", "lines", "flags"}
    assert first == {
        "id": "picard/auth-tokens",
        "tier": "hot",
        "file": HOT,
        "title": "Auth tokens",
        "bytes": len("## Auth tokens\n<!-- squadmem: pin kind=decision -->\nuse JWT\n### Detail\nx\n"),
        "lines": 5,
        "flags": {"pin": True, "kind": "decision", "topic": None, "id": None},
    }


@pytest.mark.parametrize(
    ("args", "ids"),
    [
        (("--tier", "cold"), ["picard/notes-2"]),
        (("--agent", "picard", "--tier", "hot"), ["picard/auth-tokens", "picard/notes"]),
        (("--tier", "wiki"), ["wiki:security/threat-model"]),
    ],
)
def test_list_filters(memory: GitRepo, args: tuple[str, ...], ids: list[str]) -> None:
    code, out, _ = squadmem(memory.root, "list", "--json", *args)
    assert code == 0
    assert [s["id"] for s in json.loads(out)["sections"]] == ids


def test_list_empty_repository_says_how_to_start(repo: GitRepo) -> None:
    code, out, _ = squadmem(repo.root, "list")
    assert code == 0
    assert "squadmem init" in out


def _bad_input_cases() -> list[tuple[str, bytes, str]]:
    return [
        ("not-utf8", b"# Hot\n\n## A\n\xff\xfe\n", f"{HOT}: not UTF-8"),
        ("nul", b"# Hot\n\n## A\nx\x00y\n", f"{HOT}: holds a NUL byte"),
        ("huge", b"## A\n" + b"x" * (1024 * 1024), f"{HOT}: {1024 * 1024 + 5} bytes is over the 1 MiB limit"),
        ("bad-flag", b"## A\n<!-- squadmem: colour=red -->\n", f"{HOT}: unknown squadmem flag 'colour=red'"),
        ("bad-kind", b"## A\n<!-- squadmem: kind=rumour -->\n", f"{HOT}: kind must be decision or fact"),
    ]


@pytest.mark.parametrize(
    ("case", "data", "message"), _bad_input_cases(), ids=[c[0] for c in _bad_input_cases()]
)
def test_list_leaves_out_a_bad_tier_file_naming_it(
    repo: GitRepo, case: str, data: bytes, message: str
) -> None:
    """One bad file leaves out its owner's memory, with a warning; the others are listed."""
    repo.write(HOT, data)
    repo.write(".squad/memory/hot/worf.md", "## W\nw\n")
    before = repo.snapshot()
    code, out, err = squadmem(repo.root, "list")
    assert code == 0, err
    assert "worf/w" in out and "picard/" not in out
    first, hint = err.splitlines()
    assert first.startswith(f"squadmem: warning: {message}") and first.endswith(
        "(picard's memory is left out)"
    )
    assert hint.startswith("hint: ")
    assert repo.snapshot() == before


def test_list_not_a_git_repository_exits_2(tmp_path: Path) -> None:
    code, _, err = squadmem(tmp_path, "list")
    assert code == 2
    assert err.splitlines()[0] == f"squadmem: not a git repository: {tmp_path.resolve()}"


def test_list_symlinked_tier_file_outside_exits_2(repo: GitRepo, tmp_path: Path) -> None:
    """A symlink leading outside is never read: its owner is left out (list warns), and a listing of
    that agent exits 2 naming it."""
    secret = tmp_path / "secret.md"
    secret.write_text("## Secret\nx\n")
    (repo.root / ".squad/memory/hot").mkdir(parents=True)
    (repo.root / HOT).symlink_to(secret)
    before = repo.snapshot()
    code, out, err = squadmem(repo.root, "list")
    assert code == 0
    assert "Secret" not in out
    assert err.startswith(f"squadmem: warning: {HOT}: leads outside .squad/memory/")
    code, out, err = squadmem(repo.root, "list", "--agent", "picard")
    assert code == 2
    assert err.startswith(f"squadmem: {HOT}: leads outside .squad/memory/")
    assert "Secret" not in out
    assert repo.snapshot() == before


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("[hot]\nstale_days = 'soon'\n", "tiers.toml:2: hot.stale_days must be a number from 0 to 36500"),
        ("[hot]\nstale_dayz = 3\n", "tiers.toml:2: hot.stale_dayz is not a squadmem setting"),
        ("[hot\n", "tiers.toml: not valid TOML"),
        ("timezone = 'Mars/Olympus'\n", "tiers.toml:1: timezone is not a known time zone"),
        ("[budget]\nmode = 'maybe'\n", "tiers.toml:2: budget.mode must be 'fail' or 'warn'"),
    ],
)
def test_list_malformed_settings_exit_2_naming_key_and_line(repo: GitRepo, toml: str, message: str) -> None:
    repo.write(".squad/memory/tiers.toml", toml)
    before = repo.snapshot()
    code, _, err = squadmem(repo.root, "list")
    assert code == 2
    assert message in err.splitlines()[0]
    assert repo.snapshot() == before


def test_list_ambiguous_and_unknown_tier_exit_2(memory: GitRepo) -> None:
    code, _, err = squadmem(memory.root, "list", "--tier", "lukewarm")
    assert code == 2
    assert err.splitlines()[0] == "squadmem: unknown tier 'lukewarm'"

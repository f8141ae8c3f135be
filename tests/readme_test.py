"""Docs are tested: the README's set-up commands are what CI runs, every link resolves, every command and hook
is documented beyond the generated reference, and the README stays short."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = sorted((ROOT / "docs").glob("*.md"))
HOOKS = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text("utf-8"))
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
MARKER = re.compile(r"<!--\s*[a-z]+(-[a-z]+)*\s*-->")


def _prose(text: str) -> list[str]:
    """The lines outside fenced code blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: markup and punctuation dropped, lower case, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found: set[str] = set()
    for line in _prose(page.read_text("utf-8")):
        if match := re.match(r"#{1,6} (.+)", line):
            base = name = _anchor(match.group(1))
            n = 0
            while name in found:
                n += 1
                name = f"{base}-{n}"
            found.add(name)
    return found


def links(page: Path) -> list[str]:
    return [m for line in _prose(page.read_text("utf-8")) for m in LINK.findall(line)]


def quick_start_setup() -> list[str]:
    """The one-line `sh` blocks of the README's quick start that install something."""
    text = README.read_text("utf-8")
    section = text.split("\n## Quick start\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, flags=re.S)
    return [b.strip() for b in blocks if "pip install" in b]


def test_the_quick_start_has_exactly_two_setup_commands_and_ci_runs_both() -> None:
    setup = quick_start_setup()
    assert len(setup) == 2, setup
    assert "squadmem demo" in setup[0] and "pytest" in setup[1]
    ci = (ROOT / ".ci" / "run").read_text("utf-8").splitlines()
    for command in setup:
        assert "\n" not in command
        assert command in ci, f".ci/run must run the README's set-up command as written: {command}"


def test_every_extra_the_setup_names_exists() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["optional-dependencies"]
    setup = README.read_text("utf-8") + (ROOT / ".ci" / "run").read_text("utf-8")
    named = re.findall(r"\.\[([\w,-]+)\]", setup)
    assert named
    for group in named:
        for extra in group.split(","):
            assert extra in extras, f"no extra {extra!r} in pyproject.toml"


@pytest.mark.parametrize("page", [README, *PAGES], ids=lambda p: p.name)
def test_every_relative_link_resolves(page: Path) -> None:
    for target in links(page):
        if re.match(r"[a-z]+:", target):
            continue  # an outside address
        path, _, fragment = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        assert resolved.exists(), f"{page.name}: {target} leads nowhere"
        if fragment:
            assert fragment in anchors(resolved), f"{page.name}: {target}: no such heading"


def test_the_readme_links_every_docs_page() -> None:
    named = {(README.parent / link.partition("#")[0]).resolve() for link in links(README)}
    missing = [p.name for p in PAGES if p.resolve() not in named]
    assert not missing, f"README links no {missing}"


def test_the_readme_stays_short() -> None:
    """The README introduces; the manual is in docs/."""
    assert len(README.read_text("utf-8").splitlines()) <= 200


@pytest.mark.parametrize("page", [README, *PAGES], ids=lambda p: p.name)
def test_no_leftover_markers(page: Path) -> None:
    assert not [line for line in _prose(page.read_text("utf-8")) if MARKER.fullmatch(line.strip())]


def reference_commands() -> list[str]:
    text = (ROOT / "docs" / "reference.md").read_text("utf-8")
    return re.findall(r"^## `squadmem (.+)`$", text, flags=re.M)


def test_the_reference_lists_commands() -> None:
    assert len(reference_commands()) > 20


@pytest.mark.parametrize("command", reference_commands())
def test_every_command_of_the_reference_is_explained_in_the_docs(command: str) -> None:
    """Each command the generated reference lists is named in a docs page written by hand (or the README)."""
    pages = [README, *(p for p in PAGES if p.name != "reference.md")]
    text = "\n".join(p.read_text("utf-8") for p in pages)
    assert re.search(rf"`squadmem {re.escape(command)}[` ]", text), f"no page explains squadmem {command}"


@pytest.mark.parametrize("hook", HOOKS, ids=lambda h: h["id"])
def test_the_hooks_page_lists_every_hook_id(hook: dict[str, object]) -> None:
    assert f"`{hook['id']}`" in (ROOT / "docs" / "hooks.md").read_text("utf-8")

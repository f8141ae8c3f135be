"""Docs are tested: every hook id in .pre-commit-hooks.yaml appears in the README."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parents[1]
HOOKS = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text("utf-8"))


@pytest.mark.parametrize("hook", HOOKS, ids=lambda h: h["id"])
def test_readme_lists_every_hook_id(hook: dict[str, object]) -> None:
    assert f"`{hook['id']}`" in (ROOT / "README.md").read_text("utf-8")

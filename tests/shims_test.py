"""The plain git hook shims in hooks/ are exactly what `squadmem init` would write, with python3."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from squadmem.engine.install import githooks

HOOKS = Path(__file__).resolve().parents[1] / "hooks"


@pytest.mark.parametrize("event", githooks.EVENTS)
def test_shim_is_the_rendered_hook(event: str) -> None:
    path = HOOKS / event
    assert path.read_text("utf-8") == githooks.render(event, python="python3")
    assert os.access(path, os.X_OK)


def test_shims_one_per_event_and_nothing_else() -> None:
    assert sorted(p.name for p in HOOKS.iterdir()) == sorted(githooks.EVENTS)

"""Every case of the attack driver (bench/attack.py) is held: each built in a fresh repository.

A timed case (``attack.TIMED``) stays out: it is held only by answering within a bound, and
tests never assert timings (``python3 -m bench.attack`` runs them).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import attack

HELD = tuple(name for name in attack.CASES if name not in attack.TIMED)


@pytest.mark.parametrize("name", HELD)
def test_attack_is_held(name: str, tmp_path: Path) -> None:
    """Each case pins its own failure (its docstring in bench/attack.py): exit 3, a traceback or a
    forged date let through."""
    verdict = attack.run(name, tmp_path, timeout=600)
    assert verdict.kind == "held", verdict.detail


def test_attack_cases_are_known() -> None:
    assert set(attack.TIMED) <= set(attack.CASES) and len(HELD) >= 30

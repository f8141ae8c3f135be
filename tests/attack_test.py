"""The attack driver's cases that squadmem holds: each built in a fresh repository, each held.

Cases other work fixes join ``HELD`` once fixed; a timed case (``attack.TIMED``) stays out:
it is held only by answering within a bound, and tests never assert timings.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import attack

HELD = (
    "deep-json-spawn-record",
    "deep-json-squad-config",
    "deep-json-pending-uses",
    "deep-json-hook-stdin",
    "date-year-10000",
    "date-no-zone",
    "date-negative",
    "date-missing",
    "recall-1000-words",
    "recall-huge-limit",
    "near-lone-surrogate",
    "tiers-toml-dev-zero",
    "squad-config-fifo",
    "tiers-toml-odd-values",
    "tier-nul-and-bad-utf8",
    "tier-is-folder",
    "tier-is-submodule",
    "unicode-titles",
    "long-lines",
    "now-odd-values",
    "octopus-merge",
)


@pytest.mark.parametrize("name", HELD)
def test_attack_is_held(name: str, tmp_path: Path) -> None:
    """Each case pins its own failure (its docstring in bench/attack.py): exit 3, a traceback or a
    forged date let through."""
    verdict = attack.run(name, tmp_path, timeout=600)
    assert verdict.kind == "held", verdict.detail


def test_attack_cases_are_known() -> None:
    assert set(HELD) | set(attack.TIMED) <= set(attack.CASES)

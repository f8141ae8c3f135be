"""The default and CI runs are deterministic; random exploration is a separate, named command.

Regression: the default run once drew a new random hypothesis example and failed (``restore --at``
with a NUL byte). Property tests now run derandomized unless ``SQUADMEM_HYPOTHESIS=explore``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import conftest
import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]
EXPLORE = "SQUADMEM_HYPOTHESIS=explore python3 -m pytest -q"


def _skip_if_exploring(request: pytest.FixtureRequest) -> None:
    chosen = request.config.getoption("hypothesis_profile", default=None) or conftest.PROFILE
    if chosen != "ci":
        pytest.skip(f"the {chosen} profile is chosen on purpose")


def test_the_default_profile_is_derandomized_without_a_database(request: pytest.FixtureRequest) -> None:
    _skip_if_exploring(request)
    chosen = settings.default
    assert chosen is not None
    assert chosen.derandomize is True
    assert chosen.database is None


def test_a_property_test_draws_the_same_examples_every_run(tmp_path: Path) -> None:
    """Two default runs of one property test draw the same examples (a different seed does not matter)."""
    probe = tmp_path / "probe_test.py"
    probe.write_text(
        "import os\n"
        "from hypothesis import given, strategies as st\n"
        "@given(st.text())\n"
        "def test_probe(s):\n"
        "    with open(os.environ['PROBE_OUT'], 'a', encoding='utf-8') as f:\n"
        "        f.write(repr(s) + '\\n')\n"
    )
    (tmp_path / "conftest.py").write_text((ROOT / "tests" / "conftest.py").read_text("utf-8"))
    drawn = []
    for seed in ("1", "2"):
        out = tmp_path / f"drawn-{seed}.txt"
        env = {k: v for k, v in os.environ.items() if k != "SQUADMEM_HYPOTHESIS"}
        env.update(PROBE_OUT=str(out), PYTHONHASHSEED=seed)
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", str(probe)],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        drawn.append(out.read_text("utf-8"))
    assert drawn[0] == drawn[1]


def test_the_docs_name_the_exploring_command() -> None:
    for page in ("README.md", "docs/architecture.md"):
        text = " ".join((ROOT / page).read_text("utf-8").split())
        assert EXPLORE in text, page


def test_a_tests_own_settings_keep_the_profile(request: pytest.FixtureRequest) -> None:
    _skip_if_exploring(request)
    assert settings(max_examples=3).derandomize is True

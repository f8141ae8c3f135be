from __future__ import annotations

import datetime as dt
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from squadmem.model import uses, writes
from squadmem.model.errors import SquadmemError

HOLD = (
    "import sys, time\n"
    "from pathlib import Path\n"
    "from squadmem.model import writes\n"
    "with writes.FileLock(Path(sys.argv[1])):\n"
    "    print('held', flush=True)\n"
    "    time.sleep(30)\n"
)


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(writes.TMP_SUFFIX))


@pytest.mark.parametrize("locked", [False, True])
def test_atomic_writes_whole_file_and_leaves_no_temporary(tmp_path: Path, locked: bool) -> None:
    target = tmp_path / "sub" / "f.json"
    writes.atomic(target, b"one\n", locked=locked)
    writes.atomic(target, b"two\r\n", locked=locked)
    assert target.read_bytes() == b"two\r\n"
    assert _leftovers(target.parent) == []


def test_atomic_new_file_mode_follows_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        writes.atomic(tmp_path / "a", b"x")
        writes.atomic(tmp_path / "b", b"x", locked=True)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "a").stat().st_mode) == 0o640
    assert stat.S_IMODE((tmp_path / "b").stat().st_mode) == 0o640


def test_atomic_mode_and_executable(tmp_path: Path) -> None:
    writes.atomic(tmp_path / "a", b"x", mode=0o100600)
    writes.atomic(tmp_path / "b", b"x", mode=0o600, executable=True)
    assert stat.S_IMODE((tmp_path / "a").stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "b").stat().st_mode) == 0o711


def test_atomic_failure_keeps_the_old_file_and_removes_the_temporary(tmp_path: Path) -> None:
    """A write that cannot be put in place leaves nothing behind (here: the target is a folder)."""
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "inside").write_text("kept")
    with pytest.raises(OSError):
        writes.atomic(tmp_path / "taken", b"new")
    assert (tmp_path / "taken" / "inside").read_text() == "kept"
    assert _leftovers(tmp_path) == []


def test_temp_of_names_the_locked_writers_temporary(tmp_path: Path) -> None:
    assert writes.temp_of(tmp_path / "hot.md") == tmp_path / ".hot.md.squadmem-tmp"


def test_lock_is_exclusive_and_gives_up_after_its_timeout(tmp_path: Path) -> None:
    path = tmp_path / "state" / "lock"
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        assert writes.FileLock(path).held_by_other()
        with pytest.raises(SquadmemError) as caught, writes.FileLock(path, timeout=0.1):
            pass
        assert str(caught.value) == (
            f"another squadmem process (pid {holder.pid}) holds lock; gave up after waiting 0.1 s"
        )
        assert "SQUADMEM_LOCK_TIMEOUT=SECONDS" in (caught.value.hint or "")
    finally:
        holder.kill()
        holder.wait()
    with writes.FileLock(path, timeout=0) as lock:
        assert path.read_text() == f"{os.getpid()}\n" and lock.fd is not None
    assert not writes.FileLock(path).held_by_other()


def test_lock_timeout_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(writes.LOCK_TIMEOUT_ENV, "0.5")
    assert writes.lock_timeout() == 0.5
    monkeypatch.setenv(writes.LOCK_TIMEOUT_ENV, "-3")
    assert writes.lock_timeout() == 0.0
    monkeypatch.delenv(writes.LOCK_TIMEOUT_ENV)
    assert writes.lock_timeout() == writes.LOCK_TIMEOUT


def test_pending_uses_lock_has_a_timeout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Recording a use waited forever while another process held the pending file's lock."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(tmp_path / uses.LOCK)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        monkeypatch.setenv(writes.LOCK_TIMEOUT_ENV, "0.1")
        with pytest.raises(SquadmemError, match=r"gave up after waiting 0\.1 s"):
            uses.record(tmp_path, ["picard/a"], dt.datetime(2026, 3, 1, tzinfo=dt.UTC))
    finally:
        holder.kill()
        holder.wait()
    assert uses.pending(tmp_path) == {}
    uses.record(tmp_path, ["picard/a"], dt.datetime(2026, 3, 1, tzinfo=dt.UTC))
    assert list(uses.pending(tmp_path)) == ["picard/a"]
    assert _leftovers(tmp_path) == []

"""The hooks' process runner (``os.posix_spawnp``): what subprocess would do, on real processes."""

from __future__ import annotations

import os
import sys
import tempfile

import pytest

from squadmem.gitio import process, runner

pytestmark = pytest.mark.skipif(not process.AVAILABLE, reason="no os.posix_spawnp")
ENV = dict(os.environ)


def sh(script: str, input: bytes | None = None) -> tuple[int, bytes, bytes]:
    return process.run(["sh", "-c", script], ENV, input)


def open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else set()


def test_run_gives_status_output_and_error() -> None:
    assert sh("printf out; printf err >&2; exit 3") == (3, b"out", b"err")


def test_a_death_by_signal_is_minus_its_number() -> None:
    assert sh("kill -TERM $$")[0] == -15


def test_input_and_both_outputs_larger_than_a_pipe_do_not_deadlock() -> None:
    """The child writes a lot to stderr before it reads its input: written and read together."""
    data = os.urandom(1 << 20)
    status, out, err = sh("head -c 300000 /dev/zero >&2; cat", data)
    assert (status, out, len(err)) == (0, data, 300000)


def test_a_child_that_stops_reading_its_input_is_no_error() -> None:
    assert sh("head -c 10 >/dev/null; echo done", b"x" * (4 << 20)) == (0, b"done\n", b"")


def test_stdin_is_empty_without_input() -> None:
    assert sh("wc -c")[1].strip() == b"0"


def test_sigpipe_is_back_to_its_default_in_the_child() -> None:
    """Python ignores SIGPIPE, and exec keeps an ignored signal ignored (a shell cannot undo it): a
    writer to a closed pipe must die of it quietly, not fail on EPIPE and say so."""
    assert sh("yes | head -c 6") == (0, b"y\ny\ny\n", b"")


def test_a_program_that_is_not_there_raises_and_leaves_no_descriptor() -> None:
    before = open_fds()
    with pytest.raises(FileNotFoundError):
        process.run(["squadmem-no-such-program"], ENV)
    assert open_fds() == before


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="no /proc")
def test_the_child_gets_only_its_three_streams() -> None:
    """Neither a file Python opened nor an inheritable descriptor reaches the child (close_fds)."""
    with tempfile.TemporaryFile(), tempfile.TemporaryFile() as shared:
        os.set_inheritable(shared.fileno(), True)
        status, out, _ = process.run(["sh", "-c", "exec ls /proc/self/fd"], ENV)
    assert status == 0
    assert sorted(out.split()) == [b"0", b"1", b"2", b"3"]  # 3: the folder ls reads


def test_no_descriptor_stays_open_after_a_run() -> None:
    before = open_fds()
    sh("echo hi", b"input")
    assert open_fds() == before


def test_an_interactive_child_through_a_stdin_pipe() -> None:
    proc = process.Process(
        ["sh", "-c", "read line; echo got $line; read more; echo got $more"], ENV, process.PIPE
    )
    assert proc.stdin is not None
    proc.stdin.write(b"one\n")
    proc.stdin.flush()
    assert proc.stdout.readline() == b"got one\n"
    proc.stdin.write(b"two\n")
    proc.stdin.close()
    assert proc.stdout.read() == b"got two\n"
    proc.stdout.close()
    proc.stderr.close()
    assert proc.wait() == 0


def test_a_file_as_stdin_and_kill() -> None:
    with tempfile.TemporaryFile() as names:
        names.write(b"from a file\n")
        names.seek(0)
        proc = process.Process(["sh", "-c", "cat; sleep 30"], ENV, names)
    assert proc.stdout.readline() == b"from a file\n"
    proc.kill()
    assert proc.wait() == -9
    proc.kill()  # waited for: nothing to do
    proc.stdout.close()
    proc.stderr.close()


def test_runner_runs_git_here_without_subprocess(tmp_path: object) -> None:
    code = (
        "import sys; from squadmem.gitio import runner;"
        "print(runner.run(['version'], runner.git_env())[0], 'subprocess' in sys.modules)"
    )
    done = process.run([sys.executable, "-I", "-c", f"import sys; sys.path[:0] = {sys.path!r}; {code}"], ENV)
    assert done[0] == 0, done[2]
    assert done[1] == b"0 False\n"


def test_runner_says_what_git_refused() -> None:
    with pytest.raises(runner.GitError, match="exit 1"):
        runner.git(["cat-file", "-e", "0" * 40], runner.git_env())

"""Chaos: squadmem beside a team's own git traffic, for a fixed time; nothing may be lost.

Six cases share the time, each in fresh temporary repositories (two agents,
hot and cold sections, a past daily log):

- *commit loop*: a thread runs ``git commit -a`` on an unrelated file as fast
  as it can (an editor or agent committing on its own) while ``promote`` and
  ``demote`` move random sections;
- *status loop*: a thread runs ``git status`` (a shell prompt) while
  ``promote`` and ``maintain`` move sections back and forth; then the user
  makes a plain commit;
- *kill -9*: ``maintain`` is killed at a random moment, then the user commits
  (``git commit -a``; when git or the hooks refuse, ``squadmem doctor --fix``
  first, as the messages say);
- *-X merges*: two branches each run ``maintain`` (different sections move),
  then ``git merge -X ours`` or ``-X theirs``;
- *merge, settle, push*: with the hooks installed and a bare remote, a hot
  section is edited on a branch and demoted on main; the branch is merged,
  then ``maintain`` and ``doctor --fix`` run (a team's nightly flow), then
  ``verify origin/main..HEAD`` and a real ``git push``;
- *clone without the driver*: ``git clone`` copies neither the merge driver
  nor the hooks (both live in ``.git/``); in the clone two branches each
  demote a section of one agent, then a plain ``git merge`` (on a conflict, the
  ``-X ours`` or ``-X theirs`` a user reaches for).

After each run every commit of the history and the work tree are checked (in the
push case, where a section is edited on purpose, HEAD and the work tree):
*sections lost* and *duplicated* count sections missing or extra against the
seed in the worst state of each run (any commit of the history, or the final
work tree), summed over runs.
Each run ends with a forged log (a past day's log edited with ``--no-verify``)
and counts it as *forged logs passed* if ``squadmem verify`` accepts it;
*verify missed* counts runs with a loss or duplicate that ``verify`` accepted.
*verify ok* counts runs whose history ``verify`` accepts before the forgery
(for the push case, ``verify origin/main..HEAD``), *pushes accepted* the real
pushes the remote and the pre-push hook took; *notes* say what happened on
the way (merge conflicts, what ``doctor --fix`` did, why a push was refused).

    python -m bench.chaos [--seconds 60] [--seed 1]
"""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from bench.gitrun import SQUADMEM, Done, git, squadmem
from bench.harness import commit, identify, options, scratch_repo, table
from squadmem.engine import catalog
from squadmem.model import sections
from squadmem.model.layout import MEMORY_DIR
from squadmem.model.places import SQUAD_PLACES

OLD = "2026-01-01T10:00:00+00:00"
NEXT_DAY = "2026-01-02T10:00:00+00:00"  # the push case's day: the edit, the demote, the merge
NEXT_NIGHT = "2026-01-02T23:00:00+00:00"  # and its nightly maintain
LOG = f"{MEMORY_DIR}/log/2026-01-01.md"
AGENTS = ("picard", "worf")
SHA = re.compile(r"[0-9a-f]{7,} ")  # a violation line of verify starts with its commit
LOCKED = dict(os.environ, SQUADMEM_LOCK_TIMEOUT="30")  # squadmem's environment: waits out a busy lock


def spawn(root: Path, *args: str) -> subprocess.Popen[bytes]:
    """squadmem started and left running (to be killed), beside the user's own git traffic."""
    return subprocess.Popen(
        [*SQUADMEM, *args], cwd=root, env=LOCKED, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


def seed(root: Path) -> None:
    scratch_repo(root)
    for agent in AGENTS:
        hot = "".join(f"## {agent} note {n}\n{agent} detail {n}\n\n" for n in range(8))
        cold = "".join(f"## {agent} old {n}\n{agent} old detail {n}\n\n" for n in range(3))
        for tier, text in (("hot", f"# Hot\n\n{hot}"), ("cold", f"# Cold\n\n{cold}")):
            path = root / MEMORY_DIR / tier / f"{agent}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    (root / LOG).parent.mkdir(parents=True, exist_ok=True)
    (root / LOG).write_text("# Daily log 2026-01-01\n- 09:00 started\n")
    (root / "notes.txt").write_text("0\n")
    squadmem(
        root, "init", "--no-hooks", env=LOCKED, check=False
    )  # as a team sets up: attributes and the merge driver
    commit(root, {}, "memory", OLD)


def sections_of(files: dict[str, bytes]) -> Counter[str]:
    memory = catalog.from_blobs(files, SQUAD_PLACES)
    return Counter(sections.trimmed(e.text) for e in memory.entries if not (e.is_index or e.is_session))


def tree_sections(root: Path, tree: str) -> Counter[str]:
    names = git(root, "ls-tree", "-r", "--name-only", tree, "--", MEMORY_DIR).stdout.decode().split()
    names = [n for n in names if "/log/" not in n and n.endswith(".md")]
    specs = "".join(f"{tree}:{n}\n" for n in names).encode()
    out = git(root, "cat-file", "--batch", input=specs, check=False).stdout
    files, at = {}, 0
    for name in names:
        end = out.index(b"\n", at)
        size = int(out[at:end].split()[2])
        files[name] = out[end + 1 : end + 1 + size]
        at = end + 1 + size + 1
    return sections_of(files)


def work_sections(root: Path) -> Counter[str]:
    folder = root / MEMORY_DIR
    files = {
        p.relative_to(root).as_posix(): p.read_bytes() for p in folder.rglob("*.md") if "log" not in p.parts
    }
    return sections_of(files)


class Tally:
    def __init__(self) -> None:
        self.runs = self.user_commits = self.squadmem_ok = self.lost = self.duplicated = 0
        self.forged_passed = self.verify_missed = self.verify_ok = 0
        self.pushes = self.pushed = 0
        self.notes: Counter[str] = Counter()
        self.expected: Counter[str] | None = None  # what a case changed on purpose (an edit)
        self.verdict: int | None = None  # a case's own verify verdict (a range), else verify HEAD's

    def check(self, root: Path, expected: Counter[str]) -> None:
        """Every distinct tree of the history and the work tree against the seed; verify; a forgery."""
        self.runs += 1
        expected = self.expected if self.expected is not None else expected
        trees = dict.fromkeys(git(root, "log", "--format=%T", "HEAD").stdout.decode().split())
        found = [tree_sections(root, t) for t in trees] + [work_sections(root)]
        if self.expected is not None:  # the seed's trees hold the text before the edit: judge the end
            found = found[:1] + found[-1:]
        lost = max(sum((expected - f).values()) for f in found)
        duplicated = max(sum((f - expected).values()) for f in found)
        self.lost += lost
        self.duplicated += duplicated
        verified = (
            squadmem(root, "verify", "HEAD", env=LOCKED, check=False).returncode
            if self.verdict is None
            else self.verdict
        )
        self.verify_ok += verified == 0
        if (lost or duplicated) and verified == 0:
            self.verify_missed += 1
        self.expected = self.verdict = None
        self.forge(root)

    def forge(self, root: Path) -> None:
        git(root, "reset", "-q", "--hard", check=False)
        with open(root / LOG, "a") as handle:
            handle.write("- 23:00 a line written long after the day\n")
        git(root, "add", LOG)
        git(root, "commit", "-q", "--no-verify", "-m", "forged")
        if squadmem(root, "verify", "HEAD", env=LOCKED, check=False).returncode == 0:
            self.forged_passed += 1


def pick(root: Path, tiers: tuple[str, ...], agent: str | None = None) -> catalog.Entry | None:
    memory = catalog.load(catalog.Layout(root))
    found = [
        e
        for e in memory.entries
        if e.tier in tiers and not (e.is_index or e.is_session) and agent in (None, e.name)
    ]
    return random.choice(found) if found else None


def loop(root: Path, stop: threading.Event, args: list[str], edit: bool, made: list[int]) -> None:
    n = 0
    while not stop.is_set():
        if edit:
            n += 1
            (root / "notes.txt").write_text(f"{n}\n")
        if git(root, *args, check=False).returncode == 0 and edit:
            made.append(1)


def beside(root: Path, args: list[str], edit: bool, work: Callable[[], None]) -> int:
    stop, made = threading.Event(), list[int]()
    thread = threading.Thread(target=loop, args=(root, stop, args, edit, made))
    thread.start()
    try:
        work()
    finally:
        stop.set()
        thread.join()
    return len(made)


def commit_loop(root: Path, tally: Tally, deadline: float) -> None:
    def work() -> None:
        for _ in range(6):
            if time.monotonic() > deadline:
                return
            entry = pick(root, ("hot", "cold"))
            if entry is not None:
                verb = "demote" if entry.tier == "hot" else "promote"
                tally.squadmem_ok += squadmem(root, verb, entry.id, env=LOCKED, check=False).returncode == 0

    tally.user_commits += beside(root, ["commit", "-a", "-q", "-m", "user"], True, work)


def status_loop(root: Path, tally: Tally, deadline: float) -> None:
    def work() -> None:
        for _night in range(3):  # maintain at the clock: the seed's sections are long stale by then
            if time.monotonic() > deadline:
                return
            for _ in range(2):
                entry = pick(root, ("cold", "archive"))
                if entry is not None:
                    tally.squadmem_ok += (
                        squadmem(root, "promote", entry.id, env=LOCKED, check=False).returncode == 0
                    )
            tally.squadmem_ok += squadmem(root, "maintain", env=LOCKED, check=False).returncode == 0

    beside(root, ["status", "--porcelain"], False, work)
    (root / "notes.txt").write_text("after\n")
    git(root, "add", "notes.txt")
    tally.user_commits += git(root, "commit", "-q", "-m", "user", check=False).returncode == 0


def kill_maintain(root: Path, tally: Tally, deadline: float) -> None:
    proc = spawn(root, "maintain")
    time.sleep(random.uniform(0.05, 0.9))
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    (root / "notes.txt").write_text("after the kill\n")
    if git(root, "commit", "-a", "-q", "-m", "user", check=False).returncode != 0:
        squadmem(root, "doctor", "--fix", env=LOCKED, check=False)
        git(root, "commit", "-a", "-q", "-m", "user", check=False)
    tally.user_commits += 1
    tally.squadmem_ok += squadmem(root, "maintain", env=LOCKED, check=False).returncode == 0


def two_hot(root: Path) -> tuple[catalog.Entry, catalog.Entry]:
    """Two different hot sections of one agent, drawn at random."""
    agent = random.choice(AGENTS)
    first = pick(root, ("hot",), agent)
    second = pick(root, ("hot",), agent)
    while first is not None and second is not None and second.id == first.id:
        second = pick(root, ("hot",), agent)
    assert first is not None and second is not None
    return first, second


def x_merge(root: Path, tally: Tally, deadline: float) -> None:
    """Each branch demotes a different hot section of the same agent: both append to one cold file."""
    side = random.choice(("ours", "theirs"))
    first, second = two_hot(root)
    git(root, "checkout", "-q", "-b", "side")
    tally.squadmem_ok += squadmem(root, "demote", first.id, env=LOCKED, check=False).returncode == 0
    git(root, "checkout", "-q", "main")
    tally.squadmem_ok += squadmem(root, "demote", second.id, env=LOCKED, check=False).returncode == 0
    git(root, "merge", "-q", "--no-edit", "-X", side, "side", check=False)
    if git(root, "rev-parse", "-q", "--verify", "MERGE_HEAD", check=False).returncode == 0:
        git(root, "merge", "--abort", check=False)
    tally.user_commits += 1


def _first_line(proc: Done) -> str:
    lines = (proc.stderr or proc.stdout).decode("utf-8", "replace").strip().splitlines()
    return lines[0] if lines else f"exit {proc.returncode}"


def merge_settle_push(root: Path, tally: Tally, deadline: float) -> None:
    """A section demoted on main and edited on a branch, merged; maintain, doctor --fix, verify, push.

    Everything happens the day after the seed (dates set), so the nightly ``maintain`` moves only
    what that day's rules move, not every section of a year-old seed.
    """
    squadmem(root, "init", env=LOCKED, check=False)  # the hooks too: pre-push runs verify on what leaves
    remote = root.parent / f"{root.name}-remote.git"
    git(root.parent, "init", "-q", "--bare", str(remote))
    git(root, "remote", "add", "origin", str(remote))
    git(root, "push", "-q", "-u", "origin", "main")
    agent = random.choice(AGENTS)
    entry = pick(root, ("hot",), agent)
    assert entry is not None
    path = root / entry.file
    edited = entry.text.rstrip("\n") + "\nedited on the branch\n"
    git(root, "checkout", "-q", "-b", "side")
    path.write_text(path.read_text().replace(entry.text.rstrip("\n"), edited.rstrip("\n"), 1))
    committed = git(root, "commit", "-a", "-q", "-m", "edit", date=NEXT_DAY, check=False)
    tally.user_commits += committed.returncode == 0
    git(root, "checkout", "-q", "main")
    tally.squadmem_ok += (
        squadmem(root, "demote", entry.id, date=NEXT_DAY, env=LOCKED, check=False).returncode == 0
    )
    merged = git(root, "merge", "-q", "--no-edit", "side", date=NEXT_DAY, check=False)
    tally.user_commits += merged.returncode == 0
    if merged.returncode != 0:
        tally.notes["merge refused: " + _first_line(merged)] += 1
        git(root, "merge", "--abort", check=False)
    for args in (["maintain", "--now", NEXT_NIGHT], ["doctor", "--fix"]):
        done = squadmem(root, *args, date=NEXT_NIGHT, env=LOCKED, check=False)
        tally.squadmem_ok += done.returncode == 0
        if done.returncode != 0:
            tally.notes[f"{args[0]} exit {done.returncode}"] += 1
        elif args[0] == "doctor" and b"fixed:" in done.stdout:
            tally.notes["doctor --fix settled"] += 1
    verified = squadmem(root, "verify", "--now", NEXT_NIGHT, "origin/main..HEAD", env=LOCKED, check=False)
    tally.verdict = verified.returncode
    if verified.returncode != 0:
        violations = [line for line in verified.stdout.decode().splitlines() if SHA.match(line)]
        tally.notes[f"verify: {len(violations)} violation(s)"] += 1
    tally.pushes += 1
    pushed = git(root, "push", "-q", "origin", "main", check=False)
    tally.pushed += pushed.returncode == 0
    if pushed.returncode != 0:
        tally.notes["push refused"] += 1
    tally.expected = _with_edit(root, Counter({sections.trimmed(entry.text): 1}), sections.trimmed(edited))


def _with_edit(root: Path, before: Counter[str], after: str) -> Counter[str]:
    seeded = tree_sections(root, git(root, "rev-list", "--max-parents=0", "HEAD").stdout.decode().split()[0])
    return seeded - before + Counter({after: 1})


def clone_without_driver(root: Path, tally: Tally, deadline: float) -> None:
    """In a clone (no merge driver, no hooks), two branches each demote a section; a plain merge."""
    clone = root.parent / f"{root.name}-clone"
    git(root.parent, "clone", "-q", str(root), str(clone))
    identify(clone)
    driver = git(clone, "config", "--get", "merge.squadmem.driver", check=False).returncode == 0
    first, second = two_hot(clone)
    git(clone, "checkout", "-q", "-b", "side")
    tally.squadmem_ok += squadmem(clone, "demote", first.id, env=LOCKED, check=False).returncode == 0
    git(clone, "checkout", "-q", "main")
    tally.squadmem_ok += squadmem(clone, "demote", second.id, env=LOCKED, check=False).returncode == 0
    driver = driver or git(clone, "config", "--get", "merge.squadmem.driver", check=False).returncode == 0
    tally.notes["merge driver set up in the clone" if driver else "no merge driver in the clone"] += 1
    merged = git(clone, "merge", "-q", "--no-edit", "side", check=False)
    if merged.returncode != 0:
        git(clone, "merge", "--abort", check=False)
        side = random.choice(("ours", "theirs"))
        tally.notes[f"plain merge conflicted, then -X {side}"] += 1
        merged = git(clone, "merge", "-q", "--no-edit", "-X", side, "side", check=False)
        if merged.returncode != 0:
            tally.notes["-X merge failed too: aborted"] += 1
            git(clone, "merge", "--abort", check=False)
    tally.user_commits += merged.returncode == 0
    shutil.rmtree(root)
    shutil.copytree(clone, root, symlinks=True)  # judged where the merge happened
    shutil.rmtree(clone)


CASES: dict[str, Callable[[Path, Tally, float], None]] = {
    "commit loop beside promote/demote": commit_loop,
    "status loop beside promote/maintain": status_loop,
    "kill -9 of maintain, then commit -a": kill_maintain,
    "-X ours / -X theirs merges": x_merge,
    "merge, settle (maintain, doctor --fix), verify, push": merge_settle_push,
    "clone without the merge driver, then a merge": clone_without_driver,
}


HEAD = (
    *("case", "runs", "user commits", "squadmem commands ok", "sections lost", "duplicated"),
    *("forged logs passed", "verify missed", "verify ok", "pushes accepted", "notes"),
)


def _cells(name: str, t: Tally) -> tuple[object, ...]:
    pushes = f"{t.pushed}/{t.pushes}" if t.pushes else "-"
    notes = "; ".join(f"{note} ({n})" for note, n in sorted(t.notes.items())) or "-"
    return (
        *(name, t.runs, t.user_commits, t.squadmem_ok, t.lost, t.duplicated, t.forged_passed),
        *(t.verify_missed, f"{t.verify_ok}/{t.runs}", pushes, notes),
    )


def main() -> None:
    parser = options(__doc__, seed=1)
    parser.add_argument("--seconds", type=float, default=60.0, help="total running time (default 60)")
    args = parser.parse_args()
    random.seed(args.seed)
    share = args.seconds / len(CASES)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        template = Path(tmp) / "template"
        seed(template)
        expected = tree_sections(template, "HEAD")
        for number, (name, case) in enumerate(CASES.items()):
            tally = Tally()
            deadline = time.monotonic() + share
            run = 0
            while time.monotonic() < deadline or run == 0:
                root = Path(tmp) / f"{number}-{run}"
                shutil.copytree(template, root)
                case(root, tally, deadline)
                tally.check(root, expected)
                shutil.rmtree(root, ignore_errors=True)
                shutil.rmtree(Path(tmp) / f"{number}-{run}-remote.git", ignore_errors=True)
                run += 1
            rows.append((name, tally))
    print(f"chaos: {args.seconds:g} s, seed {args.seed}")
    print()
    table(HEAD, [_cells(name, t) for name, t in rows])
    totals = [sum(getattr(t, k) for _, t in rows) for k in ("lost", "duplicated", "forged_passed")]
    print()
    print(f"total: {totals[0]} lost, {totals[1]} duplicated, {totals[2]} forged logs passed")


if __name__ == "__main__":
    main()

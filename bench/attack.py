"""Attacks: inputs and histories built to break squadmem, each answered one way.

    python -m bench.attack                 # every case, one line each
    python -m bench.attack deep-json-spawn-record recall-1000-words
    python -m bench.attack --list

Each case builds a fresh repository in a temporary folder (sealed: its own HOME, no
system git config, fixed identity), runs the real squadmem commands, hooks, ``git
commit`` and ``git push`` to a local bare remote, and says what came of it:

- ``held``: squadmem answered as it must (a refusal is exit 1 or 2 with a one-line
  message, and the repository is as it was; a proof refuses what was forged);
- ``forged``: a change squadmem must refuse went through (``verify`` passed it, a push
  carried it);
- ``lost``: memory changed or went missing where nothing should have;
- ``stuck``: the case ran past its time (a hang, or work that never settles), or a
  command refused what it must do;
- ``crashed``: exit 3, a traceback, or any status squadmem never gives.

Each case runs in a child process with its own time bound (``--timeout``, 120 s):
a hang shows as ``stuck`` and the driver goes on. The status is 1 when any case is
not held. :data:`CASES` maps each name to its function, so a test can run any of
them alone (:func:`run`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

from bench.gitrun import Done, git, squadmem
from bench.harness import commit, identify, options, scratch_repo, sealed

DAY = "2026-01-01T10:00:00+00:00"
LATER = "2026-01-05T10:00:00+00:00"
NOW = "2026-01-06T10:00:00+00:00"
MEMORY = ".squad/memory"
HOT = f"{MEMORY}/hot/picard.md"
COLD = f"{MEMORY}/cold/picard.md"
LOG = f"{MEMORY}/log/2026-01-01.md"
DEEP = "[" * 10_000


@dataclasses.dataclass(frozen=True)
class Verdict:
    kind: str  # held, forged, lost, stuck, crashed
    detail: str


def held(detail: str) -> Verdict:
    return Verdict("held", detail)


class Lab:
    """One case's folder: a sealed environment and the repositories made in it."""

    def __init__(self, base: Path) -> None:
        self.base = base
        home = base / "home"
        home.mkdir(parents=True, exist_ok=True)
        self.env = sealed(home, PRE_COMMIT_HOME=str(base / "pre-commit"))

    def git(self, root: Path, *args: str, date: str | None = None, check: bool = True, **kw: bytes) -> Done:
        return git(root, *args, date=date, env=self.env, check=check, input=kw.get("input"))

    def sq(
        self, root: Path, *args: str, input: bytes | None = None, env: dict[str, str] | None = None
    ) -> Done:
        return squadmem(root, *args, env=env or self.env, input=input, check=False)

    def commit(self, root: Path, message: str, date: str) -> None:
        """Everything in the work tree committed at ``date``, every hook skipped."""
        commit(root, {}, message, date, env=self.env)

    def repo(self, name: str = "repo", hooks: bool = False) -> Path:
        """A Squad-layout repository: picard's hot and cold sections, a log of 2026-01-01 (committed
        on its day), squadmem's files from ``init`` (its hooks with ``hooks``)."""
        root = scratch_repo(self.base / name, "picard", env=self.env, hooks=hooks)
        write(root, HOT, "# Hot\n\n## Auth tokens\n\nrotate weekly\n\n## Deploy\n\nblue green\n")
        write(root, COLD, "# Cold\n\n## Old plan\n\nwas fine\n")
        write(root, LOG, "# Daily log 2026-01-01\n\n- started\n")
        self.commit(root, "memory", DAY)
        return root

    def remote(self, root: Path) -> Path:
        bare = self.base / f"{root.name}.git"
        self.git(self.base, "init", "-q", "--bare", str(bare))
        self.git(root, "remote", "add", "origin", str(bare))
        self.git(root, "push", "-q", "--no-verify", "origin", "main")
        self.git(root, "fetch", "-q", "origin")
        return bare

    def raw_commit(self, root: Path, header: str, message: str = "odd date\n") -> str:
        """A commit of HEAD's tree on HEAD, with ``header`` as its author and committer lines' date
        part, written as an object git's own date parser would never make."""
        tree = self.git(root, "rev-parse", "HEAD^{tree}").out.strip()
        parent = self.git(root, "rev-parse", "HEAD").out.strip()
        who = "Attacker <a@example.com>"
        body = f"tree {tree}\nparent {parent}\nauthor {who} {header}\ncommitter {who} {header}\n\n{message}"
        sha = self.git(
            root, "hash-object", "-t", "commit", "-w", "--literally", "--stdin", input=body.encode()
        ).out.strip()
        self.git(root, "update-ref", "HEAD", sha)
        return sha


def write(root: Path, rel: str, text: str | bytes) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, str):
        text = text.encode("utf-8")
    path.write_bytes(text)


def state(lab: Lab, root: Path) -> tuple[str, str, str]:
    """What "nothing changed" compares: every ref, the status, the work tree's memory bytes."""
    refs = lab.git(root, "for-each-ref", "--format=%(refname) %(objectname)").out
    status = lab.git(root, "status", "--porcelain", "--untracked-files=all").out
    files = lab.git(root, "ls-files", "-s").out
    return refs, status, files


def failed(done: Done, allowed: tuple[int, ...] = (0, 1, 2)) -> Verdict | None:
    """A crash if the process gave exit 3, a traceback or a status outside ``allowed``."""
    both = done.out + done.err
    if done.returncode == 3 or "Traceback (most recent call last)" in both:
        return Verdict("crashed", f"exit {done.returncode}: {last_line(done)}")
    if done.returncode not in allowed:
        return Verdict("crashed", f"exit {done.returncode} (expected {allowed}): {last_line(done)}")
    return None


def last_line(done: Done) -> str:
    lines = [line for line in (done.err or done.out).splitlines() if line.strip()]
    return lines[-1][:160] if lines else "(no output)"


def answered(
    lab: Lab, root: Path, commands: list[tuple[str, ...]], allowed: tuple[int, ...] = (0, 1, 2)
) -> Verdict:
    """Each command answers (no crash) and leaves the repository as it was."""
    before = state(lab, root)
    codes = []
    for args in commands:
        done = lab.sq(root, *args)
        bad = failed(done, allowed)
        if bad is not None:
            return Verdict(bad.kind, f"{' '.join(args)[:40]}: {bad.detail}")
        codes.append(f"{args[0]} {done.returncode}")
    if state(lab, root) != before:
        return Verdict("lost", "the repository changed")
    return held(", ".join(codes))


# -- cases fixed on this branch --------------------------------------------------------------------------
def same_titles(lab: Lab) -> Verdict:
    """10,000 cold sections titled alike: ``maintain --dry-run`` numbered each repeat over the whole
    owner per move (quadratic: over 300 s); linear, it answers in seconds."""
    root = lab.repo()
    write(root, COLD, "# Cold\n\n" + "".join(f"## Same title\n\nbody {n}\n\n" for n in range(10_000)))
    lab.git(root, "commit", "-q", "-a", "--no-verify", "-m", "many", date=DAY)
    return answered(lab, root, [("maintain", "--dry-run", "--now", NOW)])


def identical_sections(lab: Lab) -> Verdict:
    """100,000 identical hot sections (``## a``) over the hot budget: each move looked for its section
    by walking the file (quadratic: minutes); found in file order at once, it answers in seconds."""
    root = lab.repo()
    write(root, HOT, "# Hot\n\n" + "## a\n" * 100_000)
    lab.git(root, "commit", "-q", "-a", "--no-verify", "-m", "many", date=DAY)
    return answered(lab, root, [("maintain", "--dry-run", "--now", NOW)])


def _deep_file(lab: Lab, rel: str, commands: list[tuple[str, ...]]) -> Verdict:
    root = lab.repo()
    write(
        root,
        ".squad/agents/picard/history.md",
        "# Picard\n\n## Learnings\n\n### Tokens (2026-01-01)\nrotate\n",
    )
    write(root, rel, DEEP)
    lab.commit(root, "deep json", DAY)
    found = answered(lab, root, commands)
    if found.kind != "held":
        return found
    named = any(Path(rel).name in (d.err + d.out) for d in (lab.sq(root, *c) for c in commands))
    return found if named else held(f"{found.detail}; no command named the file")


def deep_spawn_record(lab: Lab) -> Verdict:
    """A committed squad-spawn.json nested 10,000 deep: ``doctor`` and ``spawn status`` exited 3."""
    return _deep_file(lab, f"{MEMORY}/squad-spawn.json", [("doctor",), ("spawn", "status")])


def deep_squad_config(lab: Lab) -> Verdict:
    """A committed .squad/config.json nested 10,000 deep: ``doctor`` and ``spawn status`` exited 3."""
    return _deep_file(lab, ".squad/config.json", [("doctor",), ("spawn", "status")])


def deep_pending_uses(lab: Lab) -> Verdict:
    """.git/squadmem/pending-uses.json nested 10,000 deep: every ``git commit`` printed a traceback
    (the prepare-commit-msg hook) and ``report`` exited 3."""
    root = lab.repo(hooks=True)
    write(root, ".git/squadmem/pending-uses.json", DEEP)
    found = answered(lab, root, [("report", "--now", NOW)])
    if found.kind != "held":
        return found
    write(root, "notes.txt", "x\n")
    lab.git(root, "add", "notes.txt")
    done = lab.git(root, "commit", "-q", "-m", "notes", date=LATER, check=False)
    if "Traceback" in done.out + done.err or done.returncode != 0:
        return Verdict("crashed", f"git commit: exit {done.returncode}: {last_line(done)}")
    return held(f"{found.detail}, git commit 0")


def _odd_date(lab: Lab, header: str) -> Verdict:
    root = lab.repo()
    base = lab.git(root, "rev-parse", "HEAD").out.strip()
    lab.raw_commit(root, header)
    commands: list[tuple[str, ...]] = [
        ("report", "--now", NOW),
        ("maintain", "--dry-run", "--now", NOW),
        ("history", "picard/auth-tokens"),
    ]
    found = answered(lab, root, commands)
    if found.kind != "held":
        return found
    done = lab.sq(root, "verify", f"{base}..HEAD")
    bad = failed(done)
    if bad is not None:
        return Verdict(bad.kind, f"verify: {bad.detail}")
    if done.returncode != 1:
        return Verdict("forged", f"verify passed a commit dated {header!r}")
    return held(f"{found.detail}; verify 1: {last_line(done)[:60]}")


def date_year_10000(lab: Lab) -> Verdict:
    """A commit dated in the year 10000: report, maintain, history and verify exited 3."""
    return _odd_date(lab, "253402300800 +0000")


def date_no_zone(lab: Lab) -> Verdict:
    """A commit line whose date has no zone: git prints no time; report, maintain, history and verify
    exited 3."""
    return _odd_date(lab, "1767261600")


def date_negative(lab: Lab) -> Verdict:
    """A commit with a negative time: git prints none; report, maintain, history, verify exited 3."""
    return _odd_date(lab, "-5 +0000")


def date_missing(lab: Lab) -> Verdict:
    """A commit whose author and committer lines carry no date at all."""
    return _odd_date(lab, "")


def recall_1000_words(lab: Lab) -> Verdict:
    """``recall`` with a 1,000-word query: SQLite's "Expression tree is too large", exit 3."""
    root = lab.repo()
    return answered(lab, root, [("recall", " ".join(f"w{n}" for n in range(1000)))], allowed=(2,))


def recall_huge_limit(lab: Lab) -> Verdict:
    """``recall --limit`` 10^23 (an OverflowError in SQLite's binding): exit 3."""
    root = lab.repo()
    return answered(lab, root, [("recall", "tokens", "--limit", str(10**23))], allowed=(2,))


def near_lone_surrogate(lab: Lab) -> Verdict:
    """``near --from-hook`` given a hook JSON with a lone surrogate: UnicodeEncodeError, exit 3."""
    root = lab.repo()
    before = state(lab, root)
    payload = b'{"tool_name":"Read","tool_input":{"file_path":"\\ud800"}}'
    done = lab.sq(root, "near", "--from-hook", input=payload)
    bad = failed(done)
    if bad is not None:
        return bad
    return (
        held(f"near {done.returncode}")
        if state(lab, root) == before
        else Verdict("lost", "the repository changed")
    )


def deep_hook_json(lab: Lab) -> Verdict:
    """``near --from-hook`` given hook JSON nested 10,000 deep."""
    root = lab.repo()
    done = lab.sq(root, "near", "--from-hook", input=DEEP.encode())
    return failed(done) or held(f"near {done.returncode}")


# -- new classes: odd files, odd settings, odd values ----------------------------------------------------
READERS = [
    ("list",),
    ("report", "--now", NOW),
    ("maintain", "--dry-run", "--now", NOW),
    ("doctor",),
    ("context", "--agent", "picard"),
    ("recall", "tokens"),
]


def _committed(
    lab: Lab, files: Mapping[str, str | bytes], commands: list[tuple[str, ...]] = READERS
) -> Verdict:
    root = lab.repo()
    for rel, text in files.items():
        write(root, rel, text)
    lab.commit(root, "odd", LATER)
    return answered(lab, root, commands)


def tiers_dev_zero(lab: Lab) -> Verdict:
    """tiers.toml committed as a symlink to /dev/zero: every command read it forever (a hang for
    everyone who pulls); it must be refused as not a regular file."""
    root = lab.repo()
    (root / MEMORY / "tiers.toml").unlink()
    (root / MEMORY / "tiers.toml").symlink_to("/dev/zero")
    lab.commit(root, "zero", LATER)
    return answered(lab, root, READERS, allowed=(1, 2))


def squad_config_fifo(lab: Lab) -> Verdict:
    """.squad/config.json a FIFO no one writes: ``doctor``, ``report`` and ``maintain`` waited on it."""
    root = lab.repo()
    write(root, ".squad/agents/picard/history.md", "# Picard\n\n## Learnings\n\n### T (2026-01-01)\nx\n")
    lab.commit(root, "team", DAY)
    os.mkfifo(root / ".squad" / "config.json")
    return answered(
        lab, root, [("doctor",), ("report", "--now", NOW), ("maintain", "--dry-run", "--now", NOW)]
    )


def tiers_odd_values(lab: Lab) -> Verdict:
    """tiers.toml with values no one means: 1e400, 10^26, nan, inf, an unknown zone."""
    text = (
        'timezone = "Mars/Phobos"\n[hot]\nmax_bytes = 1e400\nstale_days = nan\n'
        "index_max_entries = 99999999999999999999999999\n[cold]\nttl_days = inf\n"
        "[log]\ngrace_minutes = 99999999999999999\n"
    )
    return _committed(lab, {f"{MEMORY}/tiers.toml": text})


def tier_bytes(lab: Lab) -> Verdict:
    """NUL bytes in a hot file, invalid UTF-8 in a cold file and in a log."""
    return _committed(
        lab,
        {
            HOT: "# Hot\n\n## A\x00B\n\nx\x00\n",
            COLD: b"# Cold\n\n## C\xff\n\ny\xc3\n",
            LOG: b"# Log\n\n- \xff\n",
        },
    )


def tier_folder(lab: Lab) -> Verdict:
    """A tier file that is a folder in the commit (``cold/picard.md/x.md``)."""
    root = lab.repo()
    lab.git(root, "rm", "-q", COLD)
    write(root, f"{COLD}/x.md", "# x\n")
    lab.commit(root, "folder", LATER)
    return answered(lab, root, READERS)


def tier_submodule(lab: Lab) -> Verdict:
    """A tier file that is a submodule (a gitlink) in the commit."""
    root = lab.repo()
    lab.git(root, "rm", "-q", "--cached", COLD)
    (root / COLD).unlink()
    head = lab.git(root, "rev-parse", "HEAD").out.strip()
    lab.git(root, "update-index", "--add", "--cacheinfo", f"160000,{head},{COLD}")
    lab.git(root, "commit", "-q", "--no-verify", "-m", "gitlink", date=LATER)
    return answered(lab, root, [*READERS, ("verify", "HEAD~1..HEAD")])


def unicode_titles(lab: Lab) -> Verdict:
    """Titles and ids in unicode: accents, an emoji, fullwidth letters, a right-to-left override,
    a dotted capital I (lowercased with a combining dot), a ligature."""
    text = "# Hot\n\n## Ünïcödé 🚀 ｆｕｌｌ\n\nx\n\n## \u202eevil\n\ny\n\n## İstanbul ﬁ\n\nz\n"
    return _committed(
        lab, {HOT: text}, [*READERS, ("history", "picard/ünïcödé-ｆｕｌｌ"), ("touch", "picard/i-stanbul-ﬁ")]
    )


def long_lines(lab: Lab) -> Verdict:
    """A 3 MB heading line in hot (over the tier file limit) and a 900 KB one in cold."""
    return _committed(lab, {HOT: "# Hot\n\n## " + "x" * 3_000_000 + "\n", COLD: "## " + "y" * 900_000 + "\n"})


def odd_now(lab: Lab) -> Verdict:
    """``--now`` given what no clock says: year 0, year 99999, 1e30, nan, a zone of +99:00."""
    root = lab.repo()
    commands: list[tuple[str, ...]] = [
        (command, "--now", now)
        for now in ("0000-00-00", "99999-01-01", "1e30", "nan", "2026-01-01T00:00:00+99:00", "")
        for command in ("report", "list")
    ]
    return answered(lab, root, commands)


def octopus(lab: Lab) -> Verdict:
    """A merge of 20 parents, some of which move and edit memory."""
    root = lab.repo()
    for n in range(20):
        lab.git(root, "checkout", "-q", "-b", f"b{n}", "main")
        write(root, f"f{n}.txt", "x")
        if n % 5 == 0:
            write(root, HOT, (root / HOT).read_text() + f"\n## Branch {n}\n\nb\n")
        lab.commit(root, f"b{n}", LATER)
    lab.git(root, "checkout", "-q", "main")
    lab.git(
        root, "merge", "-q", "--no-verify", "-m", "octopus", *[f"b{n}" for n in range(1, 20, 5)], date=LATER
    )
    return answered(lab, root, [*READERS, ("verify", "HEAD~1..HEAD"), ("history", "picard/auth-tokens")])


# -- cases other work fixes (listed so the driver says where each stands) ------------------------------
def workspace_layout_forge(lab: Lab) -> Verdict:
    """A memory-tiers workspace: a closed log rewritten in a commit that also adds a file under
    .squad/memory/ (the layout the tree seems to have switches): verify must still refuse."""
    root = scratch_repo(lab.base / "ws", env=lab.env)
    write(root, "MEMORY.md", "# Memory\n\n## Auth tokens\n\nrotate\n")
    write(root, "memory/2026-01-01.md", "# 2026-01-01\n\n- started\n")
    lab.sq(root, "init", "--no-hooks")
    lab.commit(root, "workspace", DAY)
    base = lab.git(root, "rev-parse", "HEAD").out.strip()
    write(root, "memory/2026-01-01.md", "# 2026-01-01\n\n- forged\n")
    write(root, f"{MEMORY}/hot/x.md", "# x\n")
    lab.commit(root, "switch", LATER)
    return _verify_refuses(lab, root, base, "a closed log rewritten through a layout switch")


def _verify_refuses(lab: Lab, root: Path, base: str, what: str) -> Verdict:
    done = lab.sq(root, "verify", f"{base}..HEAD")
    bad = failed(done)
    if bad is not None:
        return Verdict(bad.kind, f"verify: {bad.detail}")
    if done.returncode == 0:
        return Verdict("forged", f"verify passed {what}")
    return held(f"verify 1: {last_line(done)[:80]}")


def layout_removed(lab: Lab) -> Verdict:
    """``git rm -r .squad/memory`` and a ``memory/tiers.toml`` added in one commit: every section
    and the closed log gone in a commit verify must refuse."""
    root = lab.repo()
    base = lab.git(root, "rev-parse", "HEAD").out.strip()
    lab.git(root, "rm", "-r", "-q", MEMORY)
    write(root, "memory/tiers.toml", "")
    lab.commit(root, "gone", LATER)
    return _verify_refuses(lab, root, base, "the memory removed behind a new tiers.toml")


def replaced_commit(lab: Lab) -> Verdict:
    """A commit that rewrites a closed log, hidden behind ``git replace`` by a clean one: verify and
    the pre-push hook must judge the objects pushed, not the replacements."""
    root = lab.repo(hooks=True)
    lab.remote(root)
    base = lab.git(root, "rev-parse", "HEAD").out.strip()
    write(root, LOG, "# Daily log 2026-01-01\n\n- forged\n")
    lab.git(root, "commit", "-q", "-a", "--no-verify", "-m", "forge", date=LATER)
    forged = lab.git(root, "rev-parse", "HEAD").out.strip()
    tree = lab.git(root, "rev-parse", f"{base}^{{tree}}").out.strip()
    clean = lab.git(root, "commit-tree", tree, "-p", base, "-m", "forge", date=LATER).out.strip()
    lab.git(root, "replace", forged, clean)
    found = _verify_refuses(lab, root, base, "a forged log hidden by git replace")
    if found.kind != "held":
        return found
    push = lab.git(root, "push", "-q", "origin", "main", check=False)
    if push.returncode == 0:
        return Verdict("forged", "git push carried a forged log hidden by git replace")
    return held(f"{found.detail}; push refused")


def log_symlink(lab: Lab) -> Verdict:
    """A closed log's mode changed to a symlink (same blob): verify must refuse."""
    root = lab.repo()
    base = lab.git(root, "rev-parse", "HEAD").out.strip()
    blob = lab.git(root, "rev-parse", f"HEAD:{LOG}").out.strip()
    lab.git(root, "update-index", "--cacheinfo", f"120000,{blob},{LOG}")
    lab.git(root, "commit", "-q", "--no-verify", "-m", "mode", date=LATER)
    return _verify_refuses(lab, root, base, "a log turned into a symlink")


def autocrlf_demote(lab: Lab) -> Verdict:
    """``core.autocrlf=true`` set after an LF checkout (git status clean): ``demote`` of a clean
    section must not be refused as an uncommitted edit."""
    root = lab.repo()
    lab.git(root, "config", "core.autocrlf", "true")
    if lab.git(root, "status", "--porcelain").out.strip():
        return Verdict("stuck", "git status is not clean after setting core.autocrlf")
    done = lab.sq(root, "demote", "picard/deploy", "--now", NOW)
    bad = failed(done)
    if bad is not None:
        return bad
    if done.returncode:
        return Verdict("stuck", f"demote refused: {last_line(done)[:100]}")
    return held("demote 0")


def rebased_move(lab: Lab) -> Verdict:
    """A move rebased onto a teammate's edit of its section (``git pull --rebase``): verify refuses
    it naming a command, and that command gets the user out (verify passes after it)."""
    root = lab.repo()
    lab.remote(root)
    lab.git(root, "checkout", "-q", "-b", "teammate")
    write(root, HOT, "# Hot\n\n## Auth tokens\n\nrotate daily\n\n## Deploy\n\nblue green\n")
    lab.git(root, "commit", "-q", "-a", "--no-verify", "-m", "teammate edits", date=LATER)
    lab.git(root, "push", "-q", "--no-verify", "origin", "teammate:main")
    lab.git(root, "checkout", "-q", "main")
    env = dict(lab.env, GIT_AUTHOR_DATE=LATER, GIT_COMMITTER_DATE=LATER)
    done = lab.sq(root, "demote", "picard/auth-tokens", "--now", NOW, env=env)
    if done.returncode:
        return failed(done) or Verdict("stuck", f"demote refused: {last_line(done)[:100]}")
    lab.git(root, "pull", "-q", "--rebase", "--no-gpg-sign", "origin", "main", date=LATER)
    done = lab.sq(root, "verify", "--now", NOW)
    bad = failed(done)
    if bad is not None:
        return bad
    if done.returncode == 0:
        return Verdict("forged", "verify passed a rebased move that carried the text from before the edit")
    named = re.search(r"\(run: (squadmem [a-z -]+?)(?:,|\))", done.out)
    if named is None:
        return Verdict("stuck", f"verify names no way out: {last_line(done)[:100]}")
    fix = lab.sq(root, *named.group(1).split()[1:])
    again = lab.sq(root, "verify", "--now", NOW)
    if fix.returncode or again.returncode:
        return failed(fix) or failed(again) or Verdict("stuck", f"after {named.group(1)}: {last_line(again)}")
    return held(f"verify 1 naming {named.group(1)}; after it verify 0")


def track_dev_zero(lab: Lab) -> Verdict:
    """``track /dev/zero``: an endless file must be refused, not read."""
    root = lab.repo()
    return answered(lab, root, [("track", "/dev/zero")], allowed=(1, 2))


def track_fifo(lab: Lab) -> Verdict:
    """``track`` on a FIFO no one writes: must be refused, not waited on."""
    root = lab.repo()
    os.mkfifo(lab.base / "pipe")
    return answered(lab, root, [("track", str(lab.base / "pipe"))], allowed=(1, 2))


def shallow_index_churn(lab: Lab) -> Verdict:
    """A shallow clone: ``maintain`` must not commit an Index whose dates turned "date unknown"
    (a full clone's same run commits nothing)."""
    root = lab.repo()
    write(root, COLD, "# Cold\n\n## Old plan\n\nwas fine\n\n## Kept\n\nk\n")
    lab.git(root, "commit", "-q", "-a", "--no-verify", "-m", "cold", date=DAY)
    env = dict(lab.env, GIT_AUTHOR_DATE=DAY, GIT_COMMITTER_DATE=DAY)
    if lab.sq(root, "maintain", "--now", "2026-01-02T10:00:00+00:00", env=env).returncode:
        return Verdict("stuck", "maintain failed in the full clone")
    for n in range(2):
        lab.git(root, "commit", "-q", "--allow-empty", "-m", f"unrelated {n}", date=LATER)
    clone = lab.base / "shallow"
    lab.git(lab.base, "clone", "-q", "--depth", "2", f"file://{root}", str(clone))
    identify(clone, lab.env)
    head = lab.git(clone, "rev-parse", "HEAD").out.strip()
    done = lab.sq(clone, "maintain", "--now", NOW)
    bad = failed(done)
    if bad is not None:
        return bad
    if lab.git(clone, "rev-parse", "HEAD").out.strip() != head:
        return Verdict("stuck", "maintain in a shallow clone committed what a full clone does not")
    if "date unknown" in (clone / HOT).read_text("utf-8"):
        return Verdict("stuck", "the shallow clone's Index says date unknown")
    return held("maintain commits nothing")


def foreign_git_dir(lab: Lab) -> Verdict:
    """GIT_DIR and GIT_WORK_TREE naming a repository from another folder: squadmem must work on
    that repository (as git does), not on the folder it was started in."""
    root = lab.repo()
    elsewhere = lab.repo("other")
    write(elsewhere, HOT, "# Hot\n\n## Elsewhere only\n\nx\n")
    env = dict(lab.env, GIT_DIR=str(root / ".git"), GIT_WORK_TREE=str(root))
    done = lab.sq(elsewhere, "list", "--json", env=env)
    bad = failed(done)
    if bad is not None:
        return bad
    if "auth-tokens" not in done.out or "elsewhere-only" in done.out:
        return Verdict("forged", f"list read another repository than GIT_DIR names (exit {done.returncode})")
    return held("list read GIT_DIR's repository")


Case = Callable[[Lab], Verdict]
CASES: dict[str, Case] = {
    "same-titles-10000": same_titles,
    "identical-sections-100000": identical_sections,
    "deep-json-spawn-record": deep_spawn_record,
    "deep-json-squad-config": deep_squad_config,
    "deep-json-pending-uses": deep_pending_uses,
    "deep-json-hook-stdin": deep_hook_json,
    "date-year-10000": date_year_10000,
    "date-no-zone": date_no_zone,
    "date-negative": date_negative,
    "date-missing": date_missing,
    "recall-1000-words": recall_1000_words,
    "recall-huge-limit": recall_huge_limit,
    "near-lone-surrogate": near_lone_surrogate,
    "tiers-toml-dev-zero": tiers_dev_zero,
    "squad-config-fifo": squad_config_fifo,
    "tiers-toml-odd-values": tiers_odd_values,
    "tier-nul-and-bad-utf8": tier_bytes,
    "tier-is-folder": tier_folder,
    "tier-is-submodule": tier_submodule,
    "unicode-titles": unicode_titles,
    "long-lines": long_lines,
    "now-odd-values": odd_now,
    "octopus-merge": octopus,
    "workspace-layout-forge": workspace_layout_forge,
    "layout-removed": layout_removed,
    "replaced-commit": replaced_commit,
    "log-symlink": log_symlink,
    "autocrlf-demote": autocrlf_demote,
    "track-dev-zero": track_dev_zero,
    "track-fifo": track_fifo,
    "shallow-index-churn": shallow_index_churn,
    "rebased-move": rebased_move,
    "foreign-git-dir": foreign_git_dir,
}
# held only by answering within the bound: not for the test suite
TIMED = ("same-titles-10000", "identical-sections-100000")


def run(name: str, folder: Path, timeout: float = 120) -> Verdict:
    """Run one case in a child process under ``folder``; a case over ``timeout`` seconds is stuck."""
    top = str(Path(__file__).resolve().parents[1])  # the checkout: bench and squadmem from here
    paths = [top, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    child = subprocess.Popen(
        [sys.executable, "-m", "bench.attack", "--one", name, str(folder)],
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(paths)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        out, err = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        return Verdict("stuck", f"no answer in {timeout:g} s")
    lines = out.decode("utf-8", "replace").splitlines()
    if child.returncode or not lines:
        tail = err.decode("utf-8", "replace").strip().splitlines()
        return Verdict("crashed", f"the case itself failed: {tail[-1][:160] if tail else child.returncode}")
    return Verdict(**json.loads(lines[-1]))


def main(argv: list[str] | None = None) -> int:
    parser = options(__doc__)
    parser.add_argument("names", nargs="*", help="cases to run (default: all)")
    parser.add_argument("--timeout", type=float, default=120, help="seconds each case may take")
    parser.add_argument("--list", action="store_true", help="list the cases and what each attacks")
    parser.add_argument("--one", nargs=2, metavar=("NAME", "FOLDER"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        name, folder = args.one
        print(json.dumps(dataclasses.asdict(CASES[name](Lab(Path(folder))))))
        return 0
    if args.list:
        for name, case in CASES.items():
            print(f"{name:<28} {(case.__doc__ or '').split(chr(10))[0]}")
        return 0
    unknown = [n for n in args.names if n not in CASES]
    if unknown:
        parser.error(f"unknown case {unknown[0]!r} (see --list)")
    worst = 0
    for name in args.names or list(CASES):
        with tempfile.TemporaryDirectory(prefix="squadmem-attack-") as folder:
            verdict = run(name, Path(folder), args.timeout)
        print(f"{name:<28} {verdict.kind:<8} {verdict.detail}", flush=True)
        worst = max(worst, verdict.kind != "held")
    return worst


if __name__ == "__main__":
    raise SystemExit(main())

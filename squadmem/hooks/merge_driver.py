"""git merge driver for tier files: merges sections, not lines.

``squadmem init`` configures it (``merge.squadmem.driver``)::

    <python> -m squadmem.hooks.merge_driver --marker-size %L %O %A %B %P

git runs it only for a tier file that both sides changed, writes the three
versions to temporary files, and takes what it leaves in ``%A``; a non-zero
exit marks the file conflicted. The merge itself is :mod:`squadmem.model.merge`.

Moves across files: git never shows a driver the other files of the merge,
so the driver reads them itself: ours is HEAD, theirs the commit being merged
(``GITHEAD_<sha>`` set by ``git merge``, the pick named in
``rebase-merge/done`` during a rebase, the arguments of a parent ``git
cherry-pick``, MERGE_HEAD, CHERRY_PICK_HEAD or REBASE_HEAD), the base their
merge base (or theirs' parent for a pick), each accepted only if its version of ``%P`` is byte for byte the
file git handed over. Where no such trio is found (a virtual merge base, a
stash, an octopus) the file is merged on its own. An edit whose section moved
to a file that git merged without the driver is kept at its old place and
noted in ``.git/squadmem/merge-settle.json``; the post-merge hook (``squadmem
settle``), ``maintain`` or ``doctor --fix`` then puts the edit at the new place. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

from squadmem.gitio import formats, questions
from squadmem.model import constants, jsontext, merge, sections, writes
from squadmem.model import places as where
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import MAX_FILE_BYTES, classify

SETTLE = constants.SETTLE
_PICKS = ("MERGE_HEAD", "CHERRY_PICK_HEAD", "REBASE_HEAD")

Trees = tuple[dict[str, str], dict[str, str], dict[str, str]]


def git_line_merge(size: int, env: Mapping[str, str]) -> merge.LineMerge:
    """``git merge-file`` on three texts: git's own line merge, markers labelled ours / theirs."""

    def run(base: str, ours: str, theirs: str) -> tuple[str, bool]:
        with tempfile.TemporaryDirectory(prefix="squadmem-merge-") as folder:
            paths = []
            for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
                path = Path(folder) / name
                path.write_bytes(text.encode("utf-8"))
                paths.append(str(path))
            conflicted = not questions.merge_file(env, size, *paths)  # the result is written into ours
            merged = Path(paths[0]).read_bytes().decode("utf-8", "replace")
        if conflicted and "<" * size + " ours" not in merged:  # an error, not a count of conflicts
            return merge.conflict_lines(base, ours, theirs, size)
        return merged, conflicted

    return run


def _decode(raw: bytes) -> str | None:
    if len(raw) > MAX_FILE_BYTES or b"\0" in raw:
        return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _theirs_candidates(env: Mapping[str, str]) -> Iterator[str]:
    """Commits that may be the other side, likeliest first, resolved only when asked for.

    None is trusted until its blobs match (see :func:`find_trio`).
    """
    seen = set()
    for name in env:
        if name.startswith("GITHEAD_"):
            seen.add(name[len("GITHEAD_") :])
            yield name[len("GITHEAD_") :]
    for name in [*_rebase_pick(env), *_picked_by_parent(), *_PICKS]:
        sha = questions.commit(env, name)
        if sha and sha not in seen:
            seen.add(sha)
            yield sha


def _rebase_pick(env: Mapping[str, str]) -> list[str]:
    """The commit a rebase is picking: the last line of ``rebase-merge/done``."""
    done = Path(questions.git_path(env, "rebase-merge/done") or "-")
    try:
        rows = done.read_text("utf-8").split("\n")
    except OSError:
        return []
    last = [row.split() for row in rows if row.strip() and not row.startswith("#")][-1:]
    return [last[0][1]] if last and len(last[0]) > 1 else []


def _picked_by_parent() -> list[str]:
    """``git cherry-pick`` writes CHERRY_PICK_HEAD only after merging: its arguments, read from /proc."""
    pid = os.getppid()
    for _ in range(3):
        try:
            args = Path(f"/proc/{pid}/cmdline").read_bytes().decode("utf-8", "replace").split("\0")
            stat = Path(f"/proc/{pid}/stat").read_text("utf-8", "replace")
        except OSError:
            return []
        if len(args) > 1 and os.path.basename(args[0]) == "git" and "cherry-pick" in args[1:3]:
            rest = args[args.index("cherry-pick") + 1 :]
            return [a for a in rest if a and not a.startswith("-") and ".." not in a][:20]
        pid = int(stat.rsplit(")", 1)[-1].split()[1])
    return []


def find_trio(path: str, files: Sequence[str], env: Mapping[str, str]) -> tuple[str, str, str] | None:
    """(base, ours, theirs) commits whose ``path`` is exactly the files git gave, or None."""
    ids = questions.blob_ids(env, files)
    head = questions.commit(env, "HEAD")
    if len(ids) != 3 or not head:
        return None
    empty = os.path.getsize(files[0]) == 0
    for theirs in _theirs_candidates(env):
        bases = questions.merge_bases(env, head, theirs)
        parent = questions.commit(env, f"{theirs}^1")
        candidates = [b for b in [*(bases if len(bases) == 1 else []), parent] if b]
        blobs = questions.blob_at(env, [head, theirs, *candidates], path)
        if blobs.get(head) != ids[1] or blobs.get(theirs) != ids[2]:
            continue
        for base in candidates:
            if blobs.get(base) == ids[0] or (empty and blobs.get(base) is None):
                return base, head, theirs
    return None


def _tier_blobs(rev: str, env: Mapping[str, str], places: where.Places) -> dict[str, str]:
    try:
        files = questions.tree_blobs(env, rev, places.pathspecs)
    except SquadmemError:
        return {}
    return {rel: sha for rel, sha in files.items() if classify(rel, places) is not None}


def read_trees(trio: tuple[str, str, str], env: Mapping[str, str], places: where.Places) -> Trees:
    """The tier files (in ``places``) that differ between the three commits, as texts (unreadable
    ones left out)."""
    listings = [_tier_blobs(rev, env, places) for rev in trio]
    paths = set().union(*listings)
    changed = {p for p in paths if len({listing.get(p) for listing in listings}) > 1}
    shas = sorted({listing[p] for listing in listings for p in changed if p in listing})
    blobs = formats.cat_files(shas, env)
    texts: dict[str, str | None] = {sha: _decode(blobs.get(sha) or b"") for sha in shas}
    unreadable = {p for listing in listings for p in changed if p in listing and texts[listing[p]] is None}
    trees = tuple(
        {p: texts[listing[p]] or "" for p in changed - unreadable if p in listing} for listing in listings
    )
    return trees[0], trees[1], trees[2]


def _state_dir(env: Mapping[str, str]) -> Path | None:
    try:
        common = questions.common_dir(env)
    except SquadmemError:
        return None
    return Path(common).resolve() / "squadmem" if common else None


def note_settle(relocations: Sequence[merge.Relocation], env: Mapping[str, str]) -> None:
    """Add the edits kept at their old place to the record ``doctor --fix`` settles."""
    folder = _state_dir(env)
    if folder is None:
        return
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / SETTLE
    try:
        known = jsontext.loads(writes.read_state(path).decode("utf-8")).get("relocations", [])
    except (OSError, ValueError, AttributeError):
        known = []
    for item in relocations:
        entry = {"source": item.source, "target": item.target, "old": item.old, "new": item.new}
        if entry not in known:
            known.append(entry)
    writes.atomic_text(path, json.dumps({"relocations": known}, ensure_ascii=False, indent=1))


def line_merge_only(files: Sequence[str], size: int, env: Mapping[str, str]) -> int:
    """What git would do without the driver: a line merge of the file, in place."""
    return 0 if questions.merge_file(env, size, files[1], files[0], files[2]) else 1


def _title(text: str) -> str:
    doc = sections.split(text)
    return doc.sections[0].raw_heading.strip() if doc.sections else text.split("\n", 1)[0]


def run(
    files: Sequence[str],
    path: str,
    size: int,
    env: Mapping[str, str],
    say: Callable[[str], None],
    places: where.Places,
) -> int:
    """Merge one tier file by sections (``places``: the work tree's layout, which names the tier
    files whose moves give the merge its hints)."""
    raws = [Path(f).read_bytes() for f in files]
    texts = [_decode(raw) for raw in raws]
    base, ours, theirs = texts
    if base is None or ours is None or theirs is None:
        say(f"squadmem: {path}: not a readable tier file; merged line by line")
        return line_merge_only(files, size, env)
    hints = merge.Hints()
    trio = find_trio(path, files, env) if path else None
    if trio is not None:
        trees = read_trees(trio, env, places)
        for tree, text in zip(trees, (base, ours, theirs), strict=True):
            tree[path] = text
        hints = merge.hints(path, *trees)
    try:
        result = merge.merge(base, ours, theirs, git_line_merge(size, env), hints)
    except sections.FlagError as exc:
        say(f"squadmem: {path}: {exc}; merged line by line")
        return line_merge_only(files, size, env)
    Path(files[1]).write_bytes(result.text.encode("utf-8"))
    settled = {_title(item.new) for item in hints.settle}
    for title in (t for t in result.kept if t not in settled):
        say(f"squadmem: {path}: {title!r} was deleted on one side and edited on the other: the edit is kept")
    for item in hints.settle:
        say(
            f"squadmem: {path}: {_title(item.new)!r} moved to {item.target} on one side and was edited"
            " here on the other: the edit is kept here for now; squadmem's post-merge hook settles it"
            " after the merge (else run: squadmem settle)"
        )
    if hints.settle:
        note_settle(hints.settle, env)
    for title in result.conflicts:
        say(f"squadmem: {path}: both sides changed {title!r}: conflict markers inside it")
    return 1 if result.conflicts else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m squadmem.hooks.merge_driver",
        description="git merge driver for squadmem tier files: merges sections, not lines",
    )
    parser.add_argument("--marker-size", type=int, default=merge.MARKER_SIZE, help="git's %%L")
    parser.add_argument("base", help="git's %%O: the common ancestor's version")
    parser.add_argument("ours", help="git's %%A: our version; the result is written here")
    parser.add_argument("theirs", help="git's %%B: their version")
    parser.add_argument("path", nargs="?", default="", help="git's %%P: the file's path in the repository")
    args = parser.parse_args(argv)
    env = dict(os.environ)
    try:
        places = where.detect(os.getcwd())  # git runs a merge driver at the top of the work tree
        return run([args.base, args.ours, args.theirs], args.path, args.marker_size, env, _stderr, places)
    except OSError as exc:
        print(f"squadmem merge driver: {exc}", file=sys.stderr)
        return 2


def _stderr(line: str) -> None:
    print(line, file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())

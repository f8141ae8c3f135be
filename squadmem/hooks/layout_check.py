"""pre-commit check: a commit that changes the layout keeps every section.

Which files are memory is decided by what a commit holds
(:func:`squadmem.model.places.decide`), so a commit that changes it (from
``.squad/memory/`` to a memory-tiers workspace kept in place, or back, or
removes the settings that made it one) is a move like any other: every
section HEAD's tier files hold, in HEAD's layout, must be in the index's tier
files, in the index's layout (the Index and the session block aside:
squadmem writes them), and every daily log of HEAD's layout must be carried
to the index's, each line in order (left behind, it would be no log any
more). The changes of each layout's logs are the log check's, which judges
both. Run by the file check; standard library only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from squadmem.gitio import questions
from squadmem.hooks import staged
from squadmem.model import constants
from squadmem.model import places as where
from squadmem.model.errors import SquadmemError

WRITTEN = {constants.INDEX_TITLE, "Session"}  # a hot file's sections squadmem writes itself


def check(env: Mapping[str, str]) -> list[str]:
    """``path: problem`` for each section or log HEAD holds that the index's change of layout drops."""
    before, after = staged.head_places(env), staged.places(env)
    if before == after:
        return []
    held = _sections(env, before, "HEAD")
    gone = Counter(text for _, text in held) - Counter(text for _, text in _sections(env, after, None))
    found = []
    for path, text in held:
        if gone[text]:
            gone[text] -= 1
            found.append(
                f"{path}: {text.split(chr(10), 1)[0]!r} is not kept by this commit's change of layout"
                f" ({_name(before)} -> {_name(after)}); every section must be in the new layout's tier"
                " files (squadmem migrate memory-tiers copies a workspace), or keep the layout"
            )
    return found + _logs(env, before, after)


def _logs(env: Mapping[str, str], before: where.Places, after: where.Places) -> list[str]:
    """``path: problem`` for each daily log of HEAD's layout that the index's layout does not carry."""
    import datetime as dt

    from squadmem.model import logs

    if before.log_prefix == after.log_prefix:
        return []
    olds = questions.tree_blobs(env, "HEAD", [before.log_prefix])
    olds = {p: sha for p, sha in olds.items() if isinstance(logs.log_day(p, before), dt.date)}
    news = questions.index_blobs(env, [after.log_prefix])
    read = staged.blobs([*olds.values(), *news.values()], env)
    found = []
    for path, sha in sorted(olds.items()):
        to = after.log_prefix + path[len(before.log_prefix) :]
        why = logs.carried(read[sha] or b"", read[news[to]] if to in news else None, to)
        if why:
            found.append(f"{path}: {why}")
    return found


def _name(places: where.Places) -> str:
    return where.SQUAD_DIR if places.kind == where.SQUAD else "workspace"


def _sections(env: Mapping[str, str], places: where.Places, rev: str | None) -> list[tuple[str, str]]:
    """(path, trimmed text) of every section of the tier files of ``places`` at ``rev`` (None: the
    index), but those squadmem writes itself."""
    from squadmem.model import sections
    from squadmem.model.layout import classify, decode_tier

    if rev is None:
        listed = questions.index_blobs(env, places.pathspecs)
    else:
        listed = questions.tree_blobs(env, rev, places.pathspecs)
    files = {path: sha for path, sha in listed.items() if classify(path, places) is not None}
    raw = staged.blobs(list(files.values()), env)
    found = []
    for path, sha in sorted(files.items()):
        tier = classify(path, places)
        assert tier is not None
        try:
            doc = sections.split(decode_tier(raw[sha] or b"", path))
        except SquadmemError:  # an unreadable file is the file check's to refuse
            continue
        for section in doc.sections:
            title = section.raw_heading.strip().lstrip("#").strip()
            if tier.tier == "hot" and title in WRITTEN:
                continue
            found.append((path, sections.trimmed(section.text)))
    return found

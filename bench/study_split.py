"""The spawn study's held-out sets, fixed by a hash committed before any rule they judge changes.

The split is every team of ``bench/corpus/squad-teams.tsv`` in (``train`` or ``held-out``) and every
team of ``bench/corpus/squad-teams-new.tsv`` (``new``: teams outside the corpus), each as
``split<TAB>repo<TAB>commit``, sorted, one a line, UTF-8. ``bench/corpus/split.sha256`` holds the
SHA-256 of that listing: a change to who is in which set, or to the commit a team is measured at,
changes it, and ``tests/study_split_test.py`` recomputes it.

    python -m bench.study_split            # prints the listing's hash
    python -m bench.study_split --listing  # prints the listing
"""

from __future__ import annotations

import csv
import hashlib
from collections.abc import Sequence
from pathlib import Path

from bench.harness import options

CORPUS = Path(__file__).resolve().parent / "corpus"
FILES = (CORPUS / "squad-teams.tsv", CORPUS / "squad-teams-new.tsv")
HASH_FILE = CORPUS / "split.sha256"


def rows(path: Path) -> list[dict[str, str]]:
    """The rows of a corpus list (TSV, ``#`` lines are comments)."""
    with path.open(encoding="utf-8", newline="") as lines:
        return list(csv.DictReader((line for line in lines if not line.startswith("#")), delimiter="\t"))


def listing(paths: Sequence[Path] = FILES) -> str:
    """The split's canonical listing: ``split<TAB>repo<TAB>commit`` for each team in, sorted."""
    found = {
        f"{r['split']}\t{r['repo']}\t{r['commit']}\n"
        for path in paths
        for r in rows(path)
        if r["split"] != "out"
    }
    return "".join(sorted(found))


def digest(paths: Sequence[Path] = FILES) -> str:
    return hashlib.sha256(listing(paths).encode("utf-8")).hexdigest()


def main(argv: Sequence[str] | None = None) -> None:
    parser = options(__doc__)
    parser.add_argument("--listing", action="store_true", help="print the listing, not its hash")
    args = parser.parse_args(argv)
    if args.listing:
        print(listing(), end="")
    else:
        print(digest())


if __name__ == "__main__":
    main()

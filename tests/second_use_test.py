"""Second-use promotion (``promote.rule = "second-use"``): a cold section comes back to hot only on
its second use within ``promote.repeat_days``; the default (``first-use``) is unchanged."""

from __future__ import annotations

import itertools
import json

from conftest import GitRepo, assert_refused
from conftest import squadmem as cli
from hypothesis import given
from hypothesis import strategies as st

from squadmem.engine.history import cache as history_cache
from squadmem.engine.history import facts
from squadmem.model.layout import MEMORY_DIR

HOT = f"{MEMORY_DIR}/hot/picard.md"
COLD = f"{MEMORY_DIR}/cold/picard.md"
TIERS = f"{MEMORY_DIR}/tiers.toml"
EARLY = "2026-03-05T12:00:00+00:00"  # 4 days before LATE: outside the 3-day repeat window
BEFORE = "2026-03-07T12:00:00+00:00"
LATE = "2026-03-09T12:00:00+00:00"
NOW = "2026-03-10T06:00:00+00:00"  # LATE is 18 h ago: within the 24 h promote window
SECOND_USE = '[promote]\nrule = "second-use"\n'
WAITS = (
    "waits: picard/runbook stays in cold: used once; second-use promotion waits for a second use "
    "(promote.rule, within 3 d)"
)


def seed(repo: GitRepo, rule: str | None = SECOND_USE) -> None:
    files = {
        HOT: "# Hot memory: picard\n\n## Session\n- task\n",
        COLD: "# Cold memory: picard\n\n## Runbook\nrestart the pods\n\n## Other\nx\n",
    }
    if rule is not None:
        files[TIERS] = rule
    repo.commit("memory", files, date="2026-02-09T12:00:00+00:00")  # 29 d before NOW: within cold.ttl_days


def use(repo: GitRepo, date: str) -> None:
    repo.commit("work\n\nSquad-Memory-Used: picard/runbook", {"src/app.py": date}, date=date)


def planned(repo: GitRepo) -> dict[str, object]:
    code, out, _ = cli(repo, "maintain", "--dry-run", "--json", "--now", NOW)
    assert code == 0
    data: dict[str, object] = json.loads(out)
    return data


def moves(repo: GitRepo) -> list[tuple[str, str, str]]:
    found = planned(repo)["moves"]
    assert isinstance(found, list)
    return [(m["id"], m["from"], m["to"]) for m in found]


def test_used_once_stays_in_cold_and_the_dry_run_says_why(repo: GitRepo) -> None:
    seed(repo)
    use(repo, LATE)
    before = repo.snapshot()
    code, out, _ = cli(repo, "maintain", "--dry-run", "--now", NOW)
    assert code == 0
    assert out.splitlines() == [
        f"index: rewrite the Index of {HOT} (2 line(s))",
        WAITS,
        "dry run: 0 moves and 1 Index refresh planned; nothing changed",
    ]
    assert planned(repo)["waiting"] == [WAITS.removeprefix("waits: ")]
    assert repo.snapshot() == before


def test_used_once_is_promoted_by_the_default_rule(repo: GitRepo) -> None:
    seed(repo, rule=None)
    use(repo, LATE)
    assert moves(repo) == [("picard/runbook", "cold", "hot")]
    assert planned(repo)["waiting"] == []


def test_used_twice_within_the_window_is_promoted(repo: GitRepo) -> None:
    seed(repo)
    use(repo, BEFORE)
    use(repo, LATE)
    code, out, _ = cli(repo, "maintain", "--json", "--now", NOW)
    assert code == 0
    done = json.loads(out)
    assert [(m["id"], m["from"], m["to"]) for m in done["moves"]] == [("picard/runbook", "cold", "hot")]
    assert "used before that (promote.rule second-use)" in done["moves"][0]["why"]
    assert "## Runbook" in repo.read(HOT) and "## Runbook" not in repo.read(COLD)
    assert moves(repo) == []  # a second run plans nothing


def test_uses_further_apart_than_repeat_days_do_not_promote(repo: GitRepo) -> None:
    seed(repo)
    use(repo, EARLY)
    use(repo, LATE)
    assert moves(repo) == []
    repo.commit("wider", {TIERS: SECOND_USE + "repeat_days = 4\n"}, date=LATE)  # exactly 4 d apart: counts
    assert moves(repo) == [("picard/runbook", "cold", "hot")]


def test_a_pending_use_counts_as_the_second(repo: GitRepo) -> None:
    seed(repo)
    use(repo, BEFORE)
    code, _, _ = cli(repo, "touch", "picard/runbook", "--now", LATE)
    assert code == 0
    assert moves(repo) == [("picard/runbook", "cold", "hot")]


def test_two_pending_touches_are_one_use(repo: GitRepo) -> None:
    seed(repo)
    for when in (BEFORE, LATE):
        assert cli(repo, "touch", "picard/runbook", "--now", when)[0] == 0
    assert moves(repo) == []  # a pending use is one (its latest time) until a commit carries it


def test_an_unknown_rule_is_refused(repo: GitRepo) -> None:
    seed(repo, rule='[promote]\nrule = "third-use"\n')
    assert_refused(
        repo,
        "maintain",
        "--now",
        NOW,
        message=f"squadmem: {repo.root / TIERS}:2: promote.rule must be 'first-use' or 'second-use', "
        "not 'third-use'",
    )


def test_an_old_format_cache_is_rebuilt_with_the_use_before_the_last(repo: GitRepo) -> None:
    """A cache written before uses kept their previous time (format 4, three fields per id) is
    read again from history, so second-use promotion sees both uses."""
    seed(repo)
    use(repo, BEFORE)
    use(repo, LATE)
    assert moves(repo) == [("picard/runbook", "cold", "hot")]
    path = repo.root / ".git" / "squadmem" / history_cache.CACHE_FILE
    head, payload = path.read_bytes().split(b"\n", 1)
    meta = json.loads(head)
    size = meta["contents"] * (16 + 8 + 20 + 1)
    used = json.loads(payload[size : size + meta["trailers"]])
    old_used = json.dumps({k: v[:3] for k, v in used.items()}, separators=(",", ":")).encode()
    old_payload = payload[:size] + old_used + payload[size + meta["trailers"] :]
    meta.update(format=4, key="4:" + meta["key"].split(":", 1)[1], trailers=len(old_used))
    meta["digest"] = history_cache.hashlib.blake2b(old_payload, digest_size=16).hexdigest()
    path.write_bytes(json.dumps(meta).encode() + b"\n" + old_payload)
    assert moves(repo) == [("picard/runbook", "cold", "hot")]
    assert json.loads(path.read_bytes().split(b"\n", 1)[0])["format"] == history_cache.FORMAT == 6


@given(st.lists(st.integers(0, 50), min_size=1, max_size=6))
def test_add_use_keeps_the_latest_two_times_in_any_order(times: list[int]) -> None:
    expected = sorted(times)
    for order in itertools.islice(itertools.permutations(times), 24):
        got: facts.Used | None = None
        for n, when in enumerate(order):
            got = facts.add_use(got, when, f"{when:02d}{n}")
        assert got is not None
        assert (got[0], got[2]) == (expected[-1], len(times))
        assert got[3] == (expected[-2] if len(times) > 1 else facts.NO_TIME)


def due(repo: GitRepo) -> object:
    code, out, _ = cli(repo, "report", "--json", "--now", NOW)
    assert code == 0
    return next(s["due"] for s in json.loads(out)["sections"] if s["id"] == "picard/runbook")


def test_report_predicts_the_promotion_only_on_a_second_use(repo: GitRepo) -> None:
    seed(repo)
    use(repo, LATE)
    assert due(repo) is None
    use(repo, BEFORE)  # a commit made later, carrying an earlier dated use: still two uses
    assert due(repo) == "promote"

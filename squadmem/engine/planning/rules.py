"""The tier rules, each a small function: given a section and its last use, where it goes and why.

Pure: no git, no files, no clock. :mod:`squadmem.engine.planning.policy` applies them in
order over the projection of a run (the tiers as the moves planned so far
leave them); each rule here reads one section and the facts of the run
(:class:`Facts`) and answers with a :class:`Target`, or None to leave it:

- :func:`stale`: a hot section unused for more than ``hot.stale_days`` goes
  to cold (or straight to where it would expire to);
- :func:`expiry`: a cold section unused for more than ``cold.ttl_days`` goes
  to the wiki (``kind=decision|fact``) or the archive;
- :func:`promotion`: a cold or archive section used within
  ``promote.window_hours`` comes back to hot (under ``promote.rule =
  "second-use"`` only if used once before, recently enough);
- :func:`new_tier`: where a new section of a given age lands (the intake's entries),
  as :func:`stale` and :func:`expiry` would leave it;
- :func:`budget_out`: where the budget pass sends a hot file's least recently
  used section, :func:`evictable`, which sections it may send, and
  :func:`evict_key`, in which order (``hot.evict``).

A rule never moves what :func:`ruled` says is fixed (pinned, the Session
block, the Index, the wiki, a section of unknown age).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping
from typing import Protocol

from squadmem.engine import catalog
from squadmem.model import budget
from squadmem.model.clock import days as _days
from squadmem.model.errors import SquadmemError
from squadmem.model.layout import TIERS, check_name
from squadmem.model.settings import Settings

USE_KINDS = ("trailer", "pending")  # what counts as a use for promotion (not a write)
DEFAULT_TOPIC = "decisions"
_NEVER = dt.datetime.max.replace(tzinfo=dt.UTC)


class Use(Protocol):
    """A section's last use (``lastuse.LastUse`` has this shape)."""

    @property
    def when(self) -> dt.datetime | None: ...

    @property
    def kind(self) -> str: ...


@dataclasses.dataclass(frozen=True)
class Target:
    """Where a rule sends a section, and its words for the commit: the rule, a short reason, a sentence."""

    tier: str
    name: str
    rule: str
    reason: str
    why: str


@dataclasses.dataclass(frozen=True)
class Facts:
    """What every rule reads: the last uses, the settings, ``now``, and the dates of hand moves."""

    uses: Mapping[str, Use]
    settings: Settings
    now: dt.datetime
    demoted: Mapping[str, dt.datetime] = dataclasses.field(default_factory=dict)  # out of hot by hand
    previous: Mapping[str, dt.datetime] = dataclasses.field(default_factory=dict)  # the use before the last
    warnings: list[str] = dataclasses.field(default_factory=list)  # what the rules leave, and why

    def use(self, entry: catalog.Entry) -> Use | None:
        return self.uses.get(entry.id)

    def age(self, entry: catalog.Entry) -> dt.timedelta | None:
        return age(self.use(entry), self.now)

    def tie_key(self, entry: catalog.Entry) -> tuple[dt.datetime, int, str, int]:
        """Least recently used first (unknown last), then file order."""
        use = self.use(entry)
        when = use.when if use is not None and use.when is not None else _NEVER
        return (when, TIERS.index(entry.tier), entry.name, entry.position)

    def expires_to(self, entry: catalog.Entry) -> tuple[str, str]:
        """:func:`expiry_target`, noting a bad topic in the warnings."""
        tier, name = expiry_target(entry)
        if not name:
            self.warnings.append(bad_topic(entry))
        return tier, name


# -- ages ----------------------------------------------------------------------------------------


def age(use: Use | None, now: dt.datetime) -> dt.timedelta | None:
    if use is None or use.when is None:
        return None
    return max(now - use.when, dt.timedelta(0))


def number(value: float) -> str:
    return f"{value:g}" if value == int(value) else f"{value:.1f}"


def ago(delta: dt.timedelta) -> str:
    minutes = int(delta.total_seconds() // 60)
    return f"{minutes}min" if minutes < 60 else f"{minutes // 60}h"


def recently_used(use: Use | None, now: dt.datetime, settings: Settings) -> bool:
    """Used (not written) within the promote window, and not stale by the hot rule either."""
    delta = age(use, now)
    if delta is None or use is None or use.kind not in USE_KINDS:
        return False
    return (
        delta <= dt.timedelta(hours=settings.promote.window_hours) and _days(delta) <= settings.hot.stale_days
    )


def ruled(entry: catalog.Entry, use: Use | None) -> bool:
    """May the rules move this section at all?"""
    if entry.tier == "wiki" or entry.pinned or entry.is_session or entry.is_index:
        return False
    return use is not None and use.when is not None


# -- where a section expires to ------------------------------------------------------------------


def expiry_target(entry: catalog.Entry) -> tuple[str, str]:
    """The wiki topic of a ``kind=decision|fact`` section (its ``topic=``, else ``decisions``), else
    the agent's archive; the name is "" when the topic is not a valid name (see :func:`bad_topic`)."""
    if entry.kind not in ("decision", "fact"):
        return "archive", entry.name
    try:
        return "wiki", check_name(entry.section.flags.topic or DEFAULT_TOPIC, "topic")
    except SquadmemError:
        return "wiki", ""


def bad_topic(entry: catalog.Entry) -> str:
    """The warning for a section that stays because its ``topic=`` is not a valid name."""
    topic = entry.section.flags.topic or DEFAULT_TOPIC
    return f"{entry.id} stays in cold: topic={topic!r} is not a valid topic name"


# -- the rules -----------------------------------------------------------------------------------


def expiry(entry: catalog.Entry, facts: Facts) -> Target | None:
    """A cold section unused for more than ``cold.ttl_days``: to the wiki or the archive."""
    delta = facts.age(entry)
    if not ruled(entry, facts.use(entry)) or delta is None:
        return None
    return past_ttl(entry, delta, facts)


def past_ttl(entry: catalog.Entry, delta: dt.timedelta, facts: Facts) -> Target | None:
    """Where a section unused for ``delta`` expires to: the wiki or the archive (None if it is not
    past ``cold.ttl_days``, or its topic is bad)."""
    limit = facts.settings.cold.ttl_days
    if _days(delta) <= limit:
        return None
    tier, name = facts.expires_to(entry)
    if not name:
        return None
    days = budget.days_text(_days(delta), limit)
    where = f"the wiki ({name})" if tier == "wiki" else "the archive"
    why = f"unused {days} d > {number(limit)} d (cold.ttl_days): to {where}"
    return Target(tier, name, "ttl", f"ttl {days}d > {number(limit)}d", why)


def stale(entry: catalog.Entry, facts: Facts) -> Target | None:
    """A hot section unused for more than ``hot.stale_days``: to cold, or straight to where it would
    expire to from there."""
    limit = facts.settings.hot.stale_days
    delta = facts.age(entry)
    if not ruled(entry, facts.use(entry)) or delta is None or _days(delta) <= limit:
        return None
    expired = past_ttl(entry, delta, facts)
    if expired is not None:
        return expired
    days = budget.days_text(_days(delta), limit)
    why = f"unused {days} d > {number(limit)} d (hot.stale_days)"
    return Target("cold", entry.name, "stale", f"stale {days}d > {number(limit)}d", why)


def new_tier(delta: dt.timedelta, settings: Settings) -> str:
    """The tier a new section unused for ``delta`` lands in, as the rules would leave it: hot up to
    ``hot.stale_days``, cold up to ``cold.ttl_days``, the archive after."""
    if _days(delta) <= settings.hot.stale_days:
        return "hot"
    return "cold" if _days(delta) <= settings.cold.ttl_days else "archive"


def promotion(entry: catalog.Entry, facts: Facts) -> Target | str | None:
    """A cold or archive section used within the promote window: back to hot; a sentence instead
    when ``second-use`` holds it back. The caller checks that it fits
    (:mod:`squadmem.engine.planning.fit`)."""
    use = facts.use(entry)
    if (
        not ruled(entry, use)
        or not recently_used(use, facts.now, facts.settings)
        or demoted_since(entry, facts)
    ):
        return None
    promote = facts.settings.promote
    if not used_twice(entry, facts):
        return (
            f"{entry.id} stays in {entry.tier}: used once; second-use promotion waits for a second "
            f"use (promote.rule, within {number(promote.repeat_days)} d)"
        )
    delta = facts.age(entry)
    assert delta is not None
    window = number(promote.window_hours)
    why = f"used {ago(delta)} ago, within the {window} h promote window (promote.window_hours)"
    if promote.rule == "second-use":
        why += ", and used before that (promote.rule second-use)"
    return Target("hot", entry.name, "used", f"used {ago(delta)} ago", why)


def used_twice(entry: catalog.Entry, facts: Facts) -> bool:
    """Does the promotion rule let this recent use promote? Always under ``first-use``; under
    ``second-use`` only if the use before it came at most ``promote.repeat_days`` earlier (and
    after any demotion by hand)."""
    promote, use = facts.settings.promote, facts.use(entry)
    if promote.rule != "second-use":
        return True
    before = facts.previous.get(entry.id)
    if before is None or use is None or use.when is None:
        return False
    demoted = facts.demoted.get(entry.id)
    if demoted is not None and before <= demoted:
        return False
    return _days(use.when - before) <= promote.repeat_days


def demoted_since(entry: catalog.Entry, facts: Facts) -> bool:
    """Moved out of hot by hand at or after its last use: a use from before does not bring it back."""
    when, use = facts.demoted.get(entry.id), facts.use(entry)
    return when is not None and use is not None and use.when is not None and use.when <= when


def evictable(entry: catalog.Entry, facts: Facts, recent: bool = False) -> bool:
    """May the budget pass send this hot section out (moves made or refused aside)? First those not
    used within the promote window; only when they are all out, the recently used ones (``recent``):
    the promotion rule does not bring them back, since a promotion must fit the budget they broke."""
    use = facts.use(entry)
    if not ruled(entry, use):
        return False
    return recent or not recently_used(use, facts.now, facts.settings)


def evict_key(entry: catalog.Entry, facts: Facts) -> tuple[float, dt.datetime, int, str, int]:
    """The order in which the budget pass sends out a hot file's sections not used within the
    promote window: least recently used first (``hot.evict = "least-recent"``), or under
    ``"age-bytes"`` the largest (days unused + 1) x bytes first, so a large section goes before a
    small one of about the same age; ties by :meth:`Facts.tie_key`."""
    delta = facts.age(entry)
    cost = 0.0
    if facts.settings.hot.evict == "age-bytes" and delta is not None:
        cost = -(_days(delta) + 1) * entry.bytes
    return (cost, *facts.tie_key(entry))


def where_out(entry: catalog.Entry, facts: Facts) -> tuple[str, str]:
    """Where the budget pass would send ``entry``: cold, or where it expires to."""
    delta = facts.age(entry)
    if delta is not None and _days(delta) > facts.settings.cold.ttl_days:
        tier, name = facts.expires_to(entry)
        if name:
            return tier, name
    return "cold", entry.name


def budget_out(entry: catalog.Entry, facts: Facts, over: str) -> Target:
    """The budget pass's move of a hot file's least recently used section: to cold, or straight to
    where it expires to."""
    rel = entry.file  # the hot file it leaves
    delta = facts.age(entry)
    unused = f"unused {budget.days_text(_days(delta))} d" if delta is not None else "age unknown"
    why = f"{rel} is over budget ({over}); this is its least recently used section ({unused})"
    expired = past_ttl(entry, delta, facts) if delta is not None else None
    return expired or Target("cold", entry.name, "budget", f"over budget {over}", why)

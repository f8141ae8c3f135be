"""Does hot hold what agents use? squadmem's rules against the optimum, LRU, ``squad nap`` and memory-tiers.

Replays the drifting workload of ``bench/workload.py`` (8 agents, 180 days,
seed 13) through squadmem's policy in memory (``bench/replay.py``: the code
``squadmem maintain`` runs) and through the yardsticks of
``bench/yardsticks.py`` at the same byte budget, and prints Markdown tables:

- per policy: hot hit rate (share of uses whose section was in the spawn
  payload), cold hits, misses that needed recall, bytes loaded, moves and
  ping-pongs per day;
- squadmem per agent;
- ``--sweep``: squadmem's thresholds one at a time around the defaults, or
  around ``--sweep-base`` (``--sweep-agents`` agents, for time: agents are
  independent);
- ``--compare``: the same workload through the real tool too (real
  repository, commits, hooks, ``context``/``touch``/``recall``/``maintain``),
  checking that every row and every tier file agrees with the model;
- ``--sweep-second-use``: ``promote.rule = "second-use"`` with each
  ``promote.repeat_days`` of REPEAT_DAYS, beside the default rule;
- ``--candidates``: rules the seeds do not have (second-use promotion,
  frequency-aware demotion) against LRU, at the same budget;
- ``--nightly train|held-out``: the nightly rule against LRU on the train or
  the held-out seeds (``bench/nightly.py``: every rule sketched, then the
  ``tiers.toml`` rules through squadmem's policy);
- ``--rows PATH``: every policy's rows (day, agent, uses, hits, cold hits,
  recalls, bytes, moves, ping-pongs) as CSV;
- ``--plot PATH``: a PNG of hit rate and bytes over the days for every policy
  (needs matplotlib: ``pip install '.[bench]'``).

    python -m bench.hit_rate [--agents 8] [--days 180] [--seed 13] [--sweep] [--sweep-second-use] [--compare]
                             [--plot docs/hit-rate.png]

Deterministic: the same arguments print the same tables. Asserts nothing but
the agreement asked for with --compare.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import dataclasses
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from bench import nightly, replay, yardsticks
from bench import workload as wl
from bench.harness import Stopwatch, heading, line, markdown, options
from squadmem.model.settings import Settings

SQUADMEM = "squadmem"
SMOOTH_DAYS = 7


@dataclasses.dataclass(frozen=True)
class Summary:
    name: str
    uses: int
    hot: int
    cold: int
    recall: int
    payload_mean: float
    payload_max: int
    moves_per_day: float
    pingpong_per_day: float

    @property
    def rate(self) -> float:
        return self.hot / self.uses if self.uses else 0.0


def summarize(name: str, rows: Sequence[replay.Row], days: int) -> Summary:
    return Summary(
        name,
        sum(r.uses for r in rows),
        sum(r.hot for r in rows),
        sum(r.cold for r in rows),
        sum(r.recall for r in rows),
        sum(r.payload for r in rows) / len(rows),
        max(r.payload for r in rows),
        sum(r.moves for r in rows) / days,
        sum(r.pingpong for r in rows) / days,
    )


def series(rows: Sequence[replay.Row], days: int) -> tuple[list[float], list[float]]:
    """Per day: hit rate over the last SMOOTH_DAYS days (all agents), and mean bytes loaded per agent."""
    uses, hits, size, count = [0] * (days + 1), [0] * (days + 1), [0] * (days + 1), [0] * (days + 1)
    for r in rows:
        uses[r.day] += r.uses
        hits[r.day] += r.hot
        size[r.day] += r.payload
        count[r.day] += 1
    rates = []
    for day in range(1, days + 1):
        window = range(max(1, day - SMOOTH_DAYS + 1), day + 1)
        used = sum(uses[d] for d in window)
        rates.append(sum(hits[d] for d in window) / used if used else 0.0)
    return rates, [size[d] / count[d] for d in range(1, days + 1)]


def policies(
    work: wl.Workload, settings: Settings, variants: Sequence[tuple[str, Settings]] = ()
) -> dict[str, list[replay.Row]]:
    """Every policy's rows: squadmem's model first (and its variants), then the yardsticks."""
    found = {SQUADMEM: replay.model(work, settings)[0]}
    for label, changed in variants:
        found[f"{SQUADMEM}, {label}"] = replay.model(work, changed)[0]
    for kind in yardsticks.KINDS:
        found[kind.name] = list(yardsticks.run(kind, work, settings))
    return found


def pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "-"


def table(results: dict[str, list[replay.Row]], days: int) -> str:
    sums = {name: summarize(name, rows, days) for name, rows in results.items()}
    best = sums["belady"].rate
    rows = []
    for s in sums.values():
        tiered = s.name.startswith(SQUADMEM) or s.name == "memory-tiers"
        cold = pct(s.cold, s.uses) if tiered else "-"
        recall = pct(s.recall, s.uses) if tiered else pct(s.uses - s.hot, s.uses)
        churn = ("-", "-") if s.name == "ceiling" else (f"{s.moves_per_day:.1f}", f"{s.pingpong_per_day:.1f}")
        rows.append(
            (
                s.name,
                pct(s.hot, s.uses),
                pct(s.rate, best),
                cold,
                recall,
                f"{s.payload_mean:.0f} / {s.payload_max}",
                *churn,
            )
        )
    head = ("policy", "hot hit rate", "of Belady", "cold hits", "recall misses", "bytes loaded, mean / max")
    return markdown((*head, "moves / day", "ping-pong / day"), rows, right=7)


def per_agent(rows: Sequence[replay.Row], days: int) -> str:
    out = []
    for agent in dict.fromkeys(r.agent for r in rows):
        s = summarize(agent, [r for r in rows if r.agent == agent], days)
        hits = (pct(s.hot, s.uses), pct(s.cold, s.uses), pct(s.recall, s.uses))
        out.append((agent, s.uses, *hits, s.payload_max, f"{s.moves_per_day:.1f}"))
    head = ("agent", "uses", "hot hit rate", "cold hits", "recall misses", "max bytes", "moves / day")
    return markdown(head, out, right=6)


SWEEP: tuple[tuple[str, str, float], ...] = (
    ("hot", "index_max_entries", 5),
    ("hot", "index_max_entries", 0),
    ("hot", "stale_days", 14),
    ("hot", "stale_days", 3),
    ("promote", "window_hours", 48),
    ("hot", "max_bytes", 6144),
    ("hot", "max_bytes", 3072),
)


REPEAT_DAYS = (3, 7, 14)


def second_use_runs(base: Settings) -> list[tuple[str, Settings]]:
    """The rule of ``base``, then second-use promotion with each of REPEAT_DAYS."""
    runs = [(f"promote.rule = {base.promote.rule}", base)]
    for days in REPEAT_DAYS:
        changed = base.replace(promote={"rule": "second-use", "repeat_days": days})
        runs.append((f"second-use, promote.repeat_days = {days}", changed))
    return runs


def sweep_runs(base: Settings) -> list[tuple[str, Settings]]:
    """The defaults, then each setting of SWEEP changed alone."""
    runs = [("starting point", base)]
    for table_name, key, value in SWEEP:
        number = value if key in ("stale_days", "window_hours") else int(value)
        runs.append((f"{table_name}.{key} = {value:g}", base.replace(**{table_name: {key: number}})))
    return runs


def sweep(work: wl.Workload, runs: Sequence[tuple[str, Settings]]) -> Iterator[str]:
    """The sweep's table, a line at a time (each line costs one replay of the workload)."""
    head = ("setting", "hot hit rate", "Belady at that budget", "of Belady", "of informed", "recall misses")
    yield heading((*head, "bytes loaded, mean / max", "moves / day", "ping-pong / day"), right=8)
    for label, settings in runs:
        s = summarize(SQUADMEM, replay.model(work, settings)[0], work.days)
        belady = summarize("belady", list(yardsticks.run(yardsticks.Belady, work, settings)), work.days)
        informed = summarize("informed", list(yardsticks.run(yardsticks.Informed, work, settings)), work.days)
        yield line(
            (
                *(label, pct(s.hot, s.uses), pct(belady.hot, belady.uses), pct(s.rate, belady.rate)),
                *(
                    pct(s.rate, informed.rate),
                    pct(s.recall, s.uses),
                    f"{s.payload_mean:.0f} / {s.payload_max}",
                ),
                *(f"{s.moves_per_day:.1f}", f"{s.pingpong_per_day:.1f}"),
            )
        )


def candidates(work: wl.Workload, settings: Settings) -> str:
    out = []
    for kind in yardsticks.CANDIDATES:
        s = summarize(kind.name, list(yardsticks.run(kind, work, settings)), work.days)
        out.append((s.name, pct(s.hot, s.uses), f"{s.moves_per_day:.1f}", f"{s.pingpong_per_day:.1f}"))
    return markdown(("rule", "hot hit rate", "moves / day", "ping-pong / day"), out, right=3)


def compare(work: wl.Workload, settings: Settings) -> str:
    """Replay through the real tool and the model; raise unless every row and tier file agrees."""
    clock = Stopwatch()
    modelled, model_texts = replay.model(work, settings)
    model_s = clock.seconds()
    with tempfile.TemporaryDirectory(prefix="squadmem-hit-rate-") as tmp:
        clock = Stopwatch()
        real_rows, real_texts = replay.real(work, settings, Path(tmp) / "repo")
        real_s = clock.seconds()
    differ = [(m, r) for m, r in zip(modelled, real_rows, strict=True) if m != r]
    if differ:
        raise SystemExit(f"model and real tool disagree first at {differ[0][0]} vs {differ[0][1]}")
    if model_texts != real_texts:
        raise SystemExit("model and real tool end with different tier files")
    return (
        f"real tool and model agree on all {len(real_rows)} agent-days (payload, hot set, hits, moves) "
        f"and on all {len(real_texts)} tier files at the end; real {real_s:.0f} s, model {model_s:.1f} s"
    )


def write_rows(results: dict[str, list[replay.Row]], path: Path) -> None:
    """One CSV line per policy, day and agent (the held ids left out)."""
    fields = [f.name for f in dataclasses.fields(replay.Row) if f.name != "held"]
    with path.open("w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["policy", *fields])
        for name, rows in results.items():
            for row in rows:
                out.writerow([name, *(getattr(row, f) for f in fields)])


def plot(results: dict[str, list[replay.Row]], days: int, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 7.5), sharex=True)
    xs = list(range(1, days + 1))
    for name, rows in results.items():
        rates, sizes = series(rows, days)
        width = 2.4 if name.startswith(SQUADMEM) else 1.2
        top.plot(xs, [100 * r for r in rates], label=name, linewidth=width)
        bottom.plot(xs, sizes, label=name, linewidth=width)
    top.set_ylabel(f"hot hit rate, %\n({SMOOTH_DAYS}-day window)")
    top.set_ylim(0, 105)
    top.legend(ncol=4, fontsize=8, loc="lower right")
    top.grid(alpha=0.3)
    bottom.set_ylabel("bytes loaded at spawn\n(mean per agent)")
    bottom.set_xlabel("day")
    bottom.grid(alpha=0.3)
    fig.suptitle("Drifting workload, 8 agents x 180 days: squadmem's hot tier against the yardsticks")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def changed(settings: Settings, assignment: str) -> Settings:
    """``settings`` with one ``table.key=value`` changed."""
    name, _, value = assignment.partition("=")
    table_name, _, key = name.partition(".")
    parsed: float | str = value
    with contextlib.suppress(ValueError):  # else a word: promote.rule=second-use
        parsed = float(value) if "." in value else int(value)
    return settings.replace(**{table_name: {key: parsed}})


def changed_all(settings: Settings, assignments: str) -> Settings:
    """``settings`` with each of the comma-separated ``table.key=value`` changed."""
    for assignment in assignments.split(","):
        settings = changed(settings, assignment.strip())
    return settings


def print_nightly(split: str, settings: Settings, picked: Sequence[str]) -> None:
    """``--nightly``: on the train seeds the sketches, then the rules; on the held-out seeds the rules."""
    seeds = nightly.TRAIN_SEEDS if split == "train" else nightly.HELD_OUT_SEEDS
    print(f"{split} seeds {', '.join(map(str, seeds))}: {nightly.AGENTS} agents x 180 days each\n")
    if split == "train":
        for text in nightly.sketch_table(seeds, settings):
            print(text, flush=True)
        print()
    rules = [(v, changed_all(settings, v)) for v in picked] or [
        (label, changed_all(settings, v)) for label, v in nightly.RULES
    ]
    for text in nightly.rule_table(seeds, settings, rules):
        print(text, flush=True)


def arguments() -> argparse.ArgumentParser:
    parser = options(__doc__, seed=13, days=180, agents=8)
    parser.add_argument("--sweep", action="store_true", help="sweep squadmem's thresholds")
    parser.add_argument("--sweep-agents", type=int, default=4, help="agents in the sweep (default 4)")
    parser.add_argument(
        "--sweep-second-use",
        action="store_true",
        help="sweep promote.repeat_days under promote.rule = second-use (sweep agents, from the defaults)",
    )
    parser.add_argument("--compare", action="store_true", help="also replay through the real tool")
    parser.add_argument("--plot", type=Path, help="write a PNG of hit rate and bytes per day")
    parser.add_argument("--candidates", action="store_true", help="rules the seeds do not have, vs LRU")
    parser.add_argument(
        "--nightly",
        choices=("train", "held-out"),
        help="the nightly rule against LRU on the train or held-out seeds (--nightly-rule adds one)",
    )
    parser.add_argument(
        "--nightly-rule",
        action="append",
        default=[],
        metavar="TABLE.KEY=VALUE",
        help="with --nightly: only these rules through squadmem (repeatable; commas join changes)",
    )
    parser.add_argument("--rows", type=Path, help="write every policy's per-day, per-agent rows as CSV")
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="TABLE.KEY=VALUE",
        help="also replay squadmem with these settings changed (repeatable; commas join changes), "
        "e.g. hot.index_max_entries=20 or promote.rule=second-use,promote.repeat_days=3",
    )
    parser.add_argument(
        "--base",
        action="append",
        default=[],
        metavar="TABLE.KEY=VALUE",
        help="replay squadmem (and --compare) with this setting changed from the defaults (repeatable)",
    )
    parser.add_argument(
        "--sweep-base",
        action="append",
        default=[],
        metavar="TABLE.KEY=VALUE",
        help="the sweep's starting point: the defaults with this changed (repeatable)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> None:
    args = arguments().parse_args(argv)
    settings = Settings()
    for assignment in args.base:
        settings = changed(settings, assignment)
    if args.nightly:
        print_nightly(args.nightly, settings, args.nightly_rule)
        return
    params = wl.Params(agents=args.agents, days=args.days, seed=args.seed)
    work = wl.build(params)
    print(f"workload: {wl.summary(work)}\n")
    if args.compare:
        print(compare(work, settings) + "\n")
    results = policies(work, settings, [(v, changed_all(settings, v)) for v in args.variant])
    print(table(results, work.days) + "\n")
    print("squadmem per agent:\n\n" + per_agent(results[SQUADMEM], work.days) + "\n")
    if args.rows:
        write_rows(results, args.rows)
        print(f"rows: {args.rows}\n")
    if args.plot:
        plot(results, work.days, args.plot)
        print(f"plot: {args.plot}\n")
    if args.candidates:
        print("rules the seeds do not have, at the same budget, no Index:\n")
        print(candidates(work, settings) + "\n")
    sweeps(args, params, settings)


def sweeps(args: argparse.Namespace, params: wl.Params, settings: Settings) -> None:
    """``--sweep`` and ``--sweep-second-use``, each on ``--sweep-agents`` agents."""
    if args.sweep:
        small = wl.build(dataclasses.replace(params, agents=min(args.sweep_agents, args.agents)))
        print(f"sweep ({wl.summary(small)}), one setting at a time:\n")
        base = settings
        for assignment in args.sweep_base:
            base = changed(base, assignment)
        for text in sweep(small, sweep_runs(base)):
            print(text, flush=True)
    if args.sweep_second_use:
        small = wl.build(dataclasses.replace(params, agents=min(args.sweep_agents, args.agents)))
        print(f"\nsecond-use promotion ({wl.summary(small)}):\n")
        for text in sweep(small, second_use_runs(settings)):
            print(text, flush=True)


if __name__ == "__main__":
    main()

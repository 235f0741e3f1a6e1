"""What an experiment of ``phonkit experiment unimorph`` cost, read from its directory: the
training throughput of each variant (forms per second, the median over a run's epochs),
the wall time of each language, and the time the same settings would take on the full
tables, scaled from what was measured.

    python benchmarks/experiment_cost.py experiments/unimorph-5k --data-dir ../shared/data

The projection multiplies each run's measured wall time by (entries of the full table /
entries the run used) x (epoch limit / epochs the run took): linear in data and in epochs,
which holds for the training and evaluation passes (both linear in forms). It is a
projection from measurements, not a measurement: a run on full data may stop earlier or
later than the epoch limit.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import torch

from phonkit.corpora import CorpusRequest
from phonkit.experiments.runner import finished_runs, read_outcomes, read_plan
from phonkit.plugins import lookup


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("experiment", type=Path)
    parser.add_argument("--data-dir", type=Path, help="to count the full tables (projection)")
    args = parser.parse_args()
    outcomes = read_outcomes(args.experiment)
    rows = []
    order = list(read_plan(args.experiment))
    runs = finished_runs(args.experiment)
    for name, run in sorted(runs.items(), key=lambda item: order.index(item[0])):
        config = run.config
        history = run.load_torch("checkpoint.pt")["history"]
        split = config["split"]
        rows.append(
            {
                "lang": config["lang"],
                "corpus": config["corpus"],
                "variant": config["variant"],
                "entries": split["train"] + split["dev"] + split["test"],
                "train": split["train"],
                "epochs": len(history),
                "limit": config["training"]["epochs"],
                "forms_per_s": statistics.median(r["forms_per_second"] for r in history),
                "seconds": outcomes[name].seconds if name in outcomes else float("nan"),
            }
        )
    if not rows:
        sys.exit(f"{args.experiment}: no finished runs")
    full = _full_sizes(rows, args.data_dir) if args.data_dir else {}
    _report(rows, full)


def _full_sizes(rows: list[dict], data_dir: Path) -> dict[str, int]:
    sizes = {}
    for lang, corpus in sorted({(row["lang"], row["corpus"]) for row in rows}):
        sizes[lang] = len(lookup("corpora", corpus).read(CorpusRequest(lang, data_dir)))
    return sizes


def _report(rows: list[dict], full: dict[str, int]) -> None:
    variants = list(dict.fromkeys(row["variant"] for row in rows))
    print("| variant | runs | training forms/s (median over runs) | range |")
    print("|---|---:|---:|---|")
    for variant in variants:
        speeds = [row["forms_per_s"] for row in rows if row["variant"] == variant]
        print(
            f"| `{variant}` | {len(speeds)} | {statistics.median(speeds):,.0f} | "
            f"{min(speeds):,.0f}–{max(speeds):,.0f} |"
        )
    print()
    header = ["language", "entries used", *(f"{v} s" for v in variants), "all variants s"]
    if full:
        header += ["full entries", "projected full, all variants"]
    print("| " + " | ".join(header) + " |")
    print("|---|" + "---:|" * (len(header) - 1))
    total = projected_total = 0.0
    for lang in dict.fromkeys(row["lang"] for row in rows):
        mine = {row["variant"]: row for row in rows if row["lang"] == lang}
        seconds = sum(row["seconds"] for row in mine.values())
        total += seconds
        cells = [lang, f"{max(r['entries'] for r in mine.values()):,}"]
        cells += [f"{mine[v]['seconds']:.0f}" if v in mine else "" for v in variants]
        cells.append(f"{seconds:.0f}")
        if full:
            projected = sum(
                row["seconds"] * full[lang] / row["entries"] * row["limit"] / row["epochs"]
                for row in mine.values()
            )
            projected_total += projected
            cells += [f"{full[lang]:,}", _hours(projected)]
        print("| " + " | ".join(cells) + " |")
    print()
    print(f"total wall time of the finished runs: {_hours(total)}")
    if full:
        print(f"projected for the full tables at the same settings: {_hours(projected_total)}")


def _hours(seconds: float) -> str:
    hours, rest = divmod(round(seconds), 3600)
    return f"{hours} h {rest // 60} min" if hours else f"{rest // 60} min {rest % 60} s"


if __name__ == "__main__":
    torch.set_num_threads(1)
    main()

"""What an experiment of ``phonkit experiment unimorph`` cost, read from its directory (or
its record, ``phonkit experiment export``): the training throughput of each variant (forms per
second, the median over a run's epochs), the wall time of each finished run, and a projection
of the runs the plan has not finished yet.

A run's wall time is the outcome's (the whole attempt: loading, epochs, test scoring), or the
sum of its epochs' times in ``history.tsv`` where that is larger: a run that was interrupted
and resumed has the outcome of its last attempt only, while its history times every epoch.

    python benchmarks/experiment_cost.py /work/exp/table/unimorph --data-dir ../shared/data

The projection gives an unfinished run (language, variant) the median cost per training
form and epoch of the variant's finished runs, times the language's training forms (80% of
its entries), times the median number of epochs those runs took. It is a projection from
measurements, not a measurement: runs differ in epochs and in speed.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
from pathlib import Path

import torch

from phonkit.data.corpora import CorpusRequest
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
        history = _history(run)
        split = config.counts
        rows.append(
            {
                "lang": config.lang,
                "corpus": config.data.corpus,
                "variant": config.variant,
                "entries": split["train"] + split["dev"] + split["test"],
                "train": split["train"],
                "epochs": len(history),
                "forms_per_s": statistics.median(r["forms_per_second"] for r in history),
                "seconds": max(
                    outcomes[name].seconds if name in outcomes else 0.0,
                    sum(r.get("seconds", 0.0) for r in history),
                ),
            }
        )
    if not rows:
        print(f"{args.experiment}: no finished runs", file=sys.stderr)
        sys.exit(2)  # bad input, as phonkit's commands end on it
    planned = read_plan(args.experiment)
    langs = dict.fromkeys(labels["lang"] for labels in planned.values())
    full = _full_sizes(langs, args.data_dir) if args.data_dir else {}
    _report(rows, planned, full)


def _history(run) -> list[dict[str, float]]:
    """Per-epoch figures from ``history.tsv`` (or, for runs made before it, the checkpoint)."""
    path = run.path / "history.tsv"
    if path.is_file():
        with path.open(encoding="utf-8") as handle:
            return [
                {k: float(v) for k, v in row.items()}
                for row in csv.DictReader(handle, delimiter="\t")
            ]
    return run.load_torch("checkpoint.pt")["history"]


def _full_sizes(langs, data_dir: Path) -> dict[str, int]:
    from phonkit.experiments.unimorph import source

    return {
        lang: len(lookup("corpora", corpus).read(CorpusRequest(lang, data_dir)))
        for lang in langs
        if (corpus := source(lang, data_dir))
    }


def _report(rows: list[dict], planned: dict[str, dict], full: dict[str, int]) -> None:
    variants = list(dict.fromkeys(labels["variant"] for labels in planned.values()))
    print("| variant | runs | training forms/s (median over runs) | range | epochs (median) |")
    print("|---|---:|---:|---|---:|")
    cost, epochs = {}, {}
    for variant in variants:
        mine = [row for row in rows if row["variant"] == variant]
        if not mine:
            continue
        speeds = [row["forms_per_s"] for row in mine]
        epochs[variant] = statistics.median(row["epochs"] for row in mine)
        cost[variant] = statistics.median(
            row["seconds"] / (row["train"] * row["epochs"]) for row in mine
        )
        print(
            f"| `{variant}` | {len(speeds)} | {statistics.median(speeds):,.0f} | "
            f"{min(speeds):,.0f}–{max(speeds):,.0f} | {epochs[variant]:.0f} |"
        )
    print()
    print("| language | entries | " + " | ".join(f"{v} s" for v in variants) + " |")
    print("|---|---:|" + "---:|" * len(variants))
    done = {(row["lang"], row["variant"]): row for row in rows}
    measured = projected = 0.0
    guessed = unprojected = 0
    for lang in dict.fromkeys(labels["lang"] for labels in planned.values()):
        cells = [lang, f"{full[lang]:,}" if lang in full else ""]
        for variant in variants:
            if (lang, variant) in done:
                seconds = done[(lang, variant)]["seconds"]
                measured += seconds
                cells.append(f"{seconds:,.0f}")
            elif variant in cost and lang in full:
                guess = cost[variant] * 0.8 * full[lang] * epochs[variant]
                projected += guess
                guessed += 1
                cells.append(f"({guess:,.0f})")
            else:
                unprojected += 1
                cells.append("")
        print("| " + " | ".join(cells) + " |")
    print()
    print(f"run time of the finished runs (measured): {_hours(measured)}")
    if guessed:
        print(f"run time of the {guessed} others (projected, in parentheses): {_hours(projected)}")
    if not guessed and not unprojected:
        print("every planned run is finished")
    if unprojected:
        print(
            f"not projected: {unprojected} unfinished runs (their variant has no finished run, "
            "or their table was not counted: pass --data-dir)"
        )


def _hours(seconds: float) -> str:
    hours, rest = divmod(round(seconds), 3600)
    return f"{hours} h {rest // 60} min" if hours else f"{rest // 60} min {rest % 60} s"


if __name__ == "__main__":
    torch.set_num_threads(1)
    main()

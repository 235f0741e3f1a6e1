"""How many epochs each finished run spent after its kept checkpoint, and what an earlier
stop would have kept, read from the runs' ``history.tsv``.

    python benchmarks/epoch_waste.py RUN_DIR_OR_EXPERIMENT_DIR... [--floors 1e-4,3e-5]

For every run: the epochs it ran, the epoch whose checkpoint it kept (best dev loss, or dev
accuracy with --select acc) and the epochs after it; then, for each learning-rate floor F,
the epoch at which training would have stopped with ``min_lr = F`` (the first epoch whose
halving took the rate below F), the dev loss and accuracy of the checkpoint it would have
kept, and the share of the run's time it would have taken. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path


def histories(paths: list[Path]) -> dict[str, list[dict[str, float]]]:
    """``history.tsv`` of each run directory, or of each run of an experiment directory."""
    found = {}
    for path in paths:
        runs = sorted((path / "runs").iterdir()) if (path / "runs").is_dir() else [path]
        for run in runs:
            if (run / "history.tsv").is_file() and (run / "metrics.json").is_file():
                with (run / "history.tsv").open(encoding="utf-8") as handle:
                    rows = list(csv.DictReader(handle, delimiter="\t"))
                name = f"{path.name}/{run.name}" if run != path else run.name
                found[name] = [{k: float(v) for k, v in row.items()} for row in rows]
    return found


def kept(rows: list[dict[str, float]], select: str) -> dict[str, float]:
    """The epoch a run keeps: lowest dev loss, or highest dev accuracy then lowest loss."""
    if select == "acc":
        return min(rows, key=lambda row: (-row["dev_acc"], row["dev_loss"]))
    return min(rows, key=lambda row: row["dev_loss"])


def stopped_at(rows: list[dict[str, float]], floor: float) -> int:
    """How many epochs a run with ``min_lr = floor`` would have run: until the rate of the
    next epoch falls below the floor (the rate after an epoch is the next epoch's ``lr``)."""
    for number, row in enumerate(rows[1:], start=1):
        if row["lr"] < floor:
            return number
    return len(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--floors", default="1e-4,3e-5", help="earlier learning-rate floors")
    parser.add_argument("--select", default="loss", help="loss or acc: what the runs keep")
    args = parser.parse_args()
    floors = [float(value) for value in args.floors.split(",")]
    header = ["run", "epochs", "kept epoch", "dev loss", "dev ACC", "epochs after"]
    for floor in floors:
        header += [f"min_lr {floor:g}: epochs", "dev loss", "dev ACC", "time"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for name, rows in histories(args.paths).items():
        best = kept(rows, args.select)
        total = sum(row["seconds"] for row in rows)
        cells = [name, len(rows), int(best["epoch"]), f"{best['dev_loss']:.4f}"]
        cells += [f"{best['dev_acc']:.1f}", len(rows) - int(best["epoch"])]
        for floor in floors:
            epochs = stopped_at(rows, floor)
            early = kept(rows[:epochs], args.select)
            share = sum(row["seconds"] for row in rows[:epochs]) / total if total else 1.0
            cells += [epochs, f"{early['dev_loss']:.4f}", f"{early['dev_acc']:.1f}"]
            cells.append(f"{100 * share:.0f}%")
        print("| " + " | ".join(str(cell) for cell in cells) + " |")


if __name__ == "__main__":
    main()

"""How long one copy model takes to train on each paradigm table of a folder.

    python benchmarks/copy_speed.py FOLDER [--seed 1]

For every table in FOLDER (as ``phonkit experiment tables`` finds them), trains one copy
model (:mod:`phonkit.model.copying`, the settings of its size) on all of the table's known
forms, in this process on one CPU thread, as ``phonkit fill`` trains each of its two beside
the model. Prints a row per table (forms, cells, the longest form, updates, seconds) and the
total. Say what else ran on the machine when quoting it.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from phonkit.data.lexicon import segment
from phonkit.data.table import read_table
from phonkit.errors import InputError
from phonkit.experiments.paradigm_tables import tables
from phonkit.tables.copy_training import train_copy_model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    try:  # every table read before any training: a bad one is one line, at once
        found = {name: read_table(path) for name, path in tables(args.folder).items()}
    except InputError as error:
        parser.exit(2, f"copy_speed.py: {error}\n")
    print("| table | forms | cells | longest | updates | seconds |\n|---|---:|---:|---:|---:|---:|")
    total = 0.0
    for name, table in found.items():
        paradigms: dict[str, dict[str, tuple[str, ...]]] = {}
        for entry in table.entries():
            paradigms.setdefault(entry.lemma, {})[entry.bundle] = segment(entry.form)
        start = time.perf_counter()
        model = train_copy_model(paradigms, args.seed)
        seconds = time.perf_counter() - start
        total += seconds
        forms = [form for paradigm in paradigms.values() for form in paradigm.values()]
        print(
            f"| {name} | {len(forms)} | {len(table.cells)} | {max(map(len, forms))} "
            f"| {model.config.steps} | {seconds:.2f} |",
            flush=True,
        )
    print(f"| total | | | | | {total:.1f} |")


if __name__ == "__main__":
    main()

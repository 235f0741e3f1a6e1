"""How often the gold form is among a held-out cell's analogy candidates.

    python benchmarks/candidate_coverage.py ../shared/data/textbook [--seed 1]

For every table of the folder and the held-out cells of its five folds (those of
``phonkit experiment tables``), the candidates ``model.candidates = analogy`` lets the model
choose among (:meth:`phonkit.tables.candidates.Rewrites.candidates`, learnt on the fold's
training cells): the share of cells whose gold form is one of them (the best a model that
only chooses can do), and the mean number of candidates. Prints a Markdown table and the
means over tables. No training: seconds.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from phonkit.data.encoding import Example
from phonkit.data.lexicon import segment
from phonkit.data.table import FOLDS, fold_split, read_table
from phonkit.experiments.paradigm_tables import tables
from phonkit.tables.candidates import Rewrites


def coverage(path: Path, seed: int) -> tuple[int, int, int]:
    """Held-out cells, those whose gold form is a candidate, and candidates in all."""
    entries = read_table(path).entries()
    cells = covered = offered = 0
    for fold in range(1, FOLDS + 1):
        split = fold_split(entries, fold, seed)
        rewrites = Rewrites([Example(e, segment(e.form), ()) for e in split.train])
        for entry in split.test:
            found = rewrites.candidates(entry.lemma, entry.bundle)
            cells += 1
            covered += segment(entry.form) in found
            offered += len(found)
    return cells, covered, offered


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print("| table | held-out cells | gold among the candidates (%) | candidates per cell |")
    print("|---|---:|---:|---:|")
    shares, sizes = [], []
    for name, path in tables(args.folder).items():
        cells, covered, offered = coverage(path, args.seed)
        if not cells:  # no stem with enough known cells to hold one out
            print(f"| {name} | 0 | | |")
            continue
        shares.append(100 * covered / cells)
        sizes.append(offered / cells)
        print(f"| {name} | {cells} | {shares[-1]:.1f} | {sizes[-1]:.2f} |")
    print(f"| mean over {len(shares)} tables | | {sum(shares) / len(shares):.1f} | "
          f"{sum(sizes) / len(sizes):.2f} |")


if __name__ == "__main__":
    main()

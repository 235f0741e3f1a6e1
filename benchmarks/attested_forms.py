"""Test cells with more than one attested form, and the accuracy when any of them counts.

    python benchmarks/attested_forms.py results/unimorph --data-dir ../shared/data [--variants pi]

Some UniMorph tables give two forms to one cell (a lemma and a feature bundle): the Danish
table lists each definite genitive singular under NOM as well (*abbedens* N;DEF;NOM;SG beside
*abbeden*). Both entries are test cells, or one is trained on and the other tested, and a
model gives one form per cell, so exact-match accuracy cannot reach 100 on such a table.

For every finished run of an experiment directory or record (or a single run directory),
this reads the run's corpus again as its ``config.json`` names it (``--data-dir`` replaces
the data directory recorded there), collects every attested surface form of each cell, and
reads the run's per-cell test predictions. It prints a Markdown table: the test cells, the
share whose cell has more than one attested form, ACC as scored (exact match with the
cell's gold form), ACC on the cells with one form and on the others, and ACC counting a
prediction right when it is any attested form of its cell.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

from phonkit.data.corpora import CorpusRequest
from phonkit.data.tsv import read_rows
from phonkit.errors import InputError
from phonkit.plugins import lookup
from phonkit.run.config import located_path
from phonkit.run.directory import Run
from phonkit.tasks.corpus import surface_examples


def attested_forms(run: Run, data_dir: Path | None) -> dict[tuple[str, str], set[str]]:
    """Every attested surface form of each cell (lemma, bundle) of the run's corpus."""
    config = run.config
    data = config.data
    recorded_dir = located_path(data.data_dir, run.path)  # stored relative to the run
    path = located_path(data.path, run.path)
    request = CorpusRequest(
        data.lang,
        data_dir or recorded_dir,
        str(path) if path is not None else data.path,  # a dataset's name: as stored
        data.columns,
        dict(data.options),
    )
    lexicon = lookup("corpora", data.corpus).read(request)
    joiner = run.transcriber().joiner
    forms = defaultdict(set)
    for example in surface_examples(lexicon, config.transcriber, data.lang, config.morphemes):
        forms[example.entry.lemma, example.entry.bundle].add(joiner.join(example.surface))
    return forms


def predictions(run: Run) -> list[tuple[str, str, str, str]]:
    """(lemma, bundle, gold, prediction) of every test cell."""
    path = run.path / "predictions.tsv"
    rows = read_rows(path if path.is_file() else path.with_suffix(".tsv.xz"))
    next(rows, None)
    return [(row[0], row[1], row[2], row[3]) for _, row in rows]


def percent(right: int, total: int) -> str:
    return f"{100 * right / total:.1f}" if total else "–"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path, help="an experiment directory, its record, or a run")
    parser.add_argument("--data-dir", type=Path, help="where the corpora are (default: recorded)")
    parser.add_argument("--variants", help="only these variants (comma-separated)")
    args = parser.parse_args()
    folder = args.path / "runs"
    paths = sorted(folder.iterdir()) if folder.is_dir() else [args.path]
    runs = [Run(path) for path in paths if (path / "metrics.json").is_file()]
    if args.variants:
        runs = [run for run in runs if run.config.variant in args.variants.split(",")]
    if not runs:
        fail(f"{args.path}: no finished run (a run directory, or an experiment's runs/)")
    try:
        report(runs, args.data_dir)
    except InputError as error:
        fail(str(error))


def fail(message: str) -> None:
    """One line on stderr and exit code 2, as phonkit's commands end on bad input."""
    print(message, file=sys.stderr)
    sys.exit(2)


def report(runs: list[Run], data_dir: Path | None) -> None:
    """Print the table of the docstring, one row per run."""
    print(
        "| run | test cells | cells with more than one form | ACC | ACC, one form "
        "| ACC, more than one | ACC, any attested form |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for run in runs:
        forms = attested_forms(run, data_dir)
        cells = predictions(run)
        several = [cell for cell in cells if len(forms[cell[0], cell[1]]) > 1]
        single = [cell for cell in cells if len(forms[cell[0], cell[1]]) <= 1]

        def exact(part):
            return sum(gold == predicted for _, _, gold, predicted in part)

        attested = sum(predicted in forms[lemma, bundle] for lemma, bundle, _, predicted in cells)
        print(
            f"| {run.path.name} | {len(cells):,} | {percent(len(several), len(cells))}% "
            f"| {percent(exact(cells), len(cells))} | {percent(exact(single), len(single))} "
            f"| {percent(exact(several), len(several))} | {percent(attested, len(cells))} |"
        )


if __name__ == "__main__":
    main()

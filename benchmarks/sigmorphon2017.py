"""The shared task's baseline on CoNLL–SIGMORPHON 2017 task 2, beside phonkit's rows.

    python benchmarks/sigmorphon2017.py baseline --data-dir DIR --out RECORD
        [--langs dutch,turkish] [--sizes low,medium,high]

Completes every covered dev and test file with the shared task's baseline
(:mod:`conll2017_baseline`: every gap from its lemma) and scores it as the task's scorer does
(:mod:`phonkit.tasks.completion`); the rows, system ``baseline``, go into ``RECORD/results.tsv``
(test) and ``RECORD/dev.tsv`` (dev) beside the rows of other systems there (``phonkit
experiment sigmorphon2017`` writes phonkit's into the same files, keeping these). ``seconds``
is the time to learn the rules and complete both files. The data directory holds
``[sigmorphon/]conll2017/task2``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from conll2017_baseline import Baseline

from phonkit.data.cells import read_cells
from phonkit.data.tsv import format_rows, open_bytes, write_atomic
from phonkit.experiments.sigmorphon import (
    FIELDS,
    HEADER,
    SIZES,
    SPLITS,
    Row,
    chosen_languages,
    merged,
    task2_folder,
    task_file,
)
from phonkit.tasks.completion import forms_of, score_completion

SYSTEM = "baseline"


def triples(path: Path) -> list[tuple[str, str, str]]:
    """(lemma, form, features) of each row, each field stripped of spaces at its ends."""
    with open_bytes(path) as stream:
        cells = read_cells(stream, str(path), FIELDS)
    fields = (cell.fields() for cell in cells)  # lemma, features, form
    return [(lemma.strip(), form.strip(), features.strip()) for lemma, features, form in fields]


def baseline_rows(folder: Path, language: str, size: str) -> dict[str, Row]:
    """The baseline's dev and test rows of ``language`` trained on its ``size`` file."""
    began = time.perf_counter()
    train = task_file(folder, language, f"train-{size}")
    assert train is not None
    system = Baseline(triples(train))
    guessed = {}
    for split in SPLITS:
        covered = task_file(folder, language, f"covered-{split}")
        assert covered is not None
        guessed[split] = {
            (lemma, features): form or system.inflect(lemma, features)
            for lemma, form, features in triples(covered)
        }
    seconds = time.perf_counter() - began
    rows = {}
    for split in SPLITS:
        gold, covered = (task_file(folder, language, f"{kind}-{split}") for kind in
                         ("uncovered", "covered"))  # fmt: skip
        assert gold is not None and covered is not None
        with open_bytes(gold) as stream:
            answers = forms_of(read_cells(stream, str(gold), FIELDS))
        with open_bytes(covered) as stream:
            given = forms_of(read_cells(stream, str(covered), FIELDS))
        scores = score_completion(guessed[split], answers, given)
        rows[split] = Row(language, size, SYSTEM, scores, seconds)
    return rows


def baseline(arguments: argparse.Namespace) -> None:
    folder = task2_folder(arguments.data_dir)
    sizes = [size for size in arguments.sizes.split(",") if size]
    found: dict[str, list[Row]] = {split: [] for split in SPLITS}
    for language in chosen_languages(folder, arguments.langs):
        for size in sizes:
            if task_file(folder, language, f"train-{size}") is None:
                continue
            for split, row in baseline_rows(folder, language, size).items():
                found[split].append(row)
            test = found["test"][-1].scores
            assert test is not None
            print(f"{language} {size}: test ACC {test.acc:.2f}", file=sys.stderr)
    for split, name in (("test", "results.tsv"), ("dev", "dev.tsv")):
        path = arguments.out / name
        rows = merged(path, found[split])
        write_atomic(path, format_rows([HEADER, *(row.values() for row in rows)]))
    for size in sizes:
        accs = [row.scores.acc for row in found["test"] if row.setting == size and row.scores]
        if accs:
            mean = sum(accs) / len(accs)
            print(f"mean {size}: {mean:.2f} over {len(accs)} languages", file=sys.stderr)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("baseline", help="The shared task's baseline on task 2.")
    run.add_argument("--data-dir", type=Path, required=True)
    run.add_argument("--out", type=Path, required=True, help="The record's folder.")
    run.add_argument("--langs", default="all")
    run.add_argument("--sizes", default=",".join(SIZES))
    arguments = parser.parse_args(argv)
    if arguments.command == "baseline":
        baseline(arguments)


if __name__ == "__main__":
    main()

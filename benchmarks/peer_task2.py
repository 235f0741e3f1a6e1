"""The peer, yoyodyne, on CoNLL–SIGMORPHON 2017 task 2, framed as its users would frame it.

    python benchmarks/peer_task2.py --data-dir DIR --work DIR --yoyodyne PATH --out RECORD
        [--langs dutch,...] [--sizes low,medium] [--architecture pointer] [--sources 1]
        [--seed 1] [--patience 20] [--patience-steps 200] [--max-epochs 200] [--jobs 1]
        [SETTINGS]

SETTINGS are those of ``benchmarks/peers.py`` (``--embedding-size 64 --hidden-size 64
--dropout 0.3 --batch-size 16 --tag tuned``: the tuned peer of results/peers).

A source form and its cell, the target cell, the target form: each training paradigm gives,
for every cell t, the pair lemma -> t and ``--sources`` pairs s -> t from other cells s drawn
at random (seeded), the features ``S:f`` for each feature f of s (``S:LEMMA`` for the lemma)
and ``T:f`` for each of t. yoyodyne validates on the covered dev file's gaps, each read from
its lemma (its checkpoint and early stopping on ``val_accuracy``, patience ``max(--patience
epochs, --patience-steps batches)``; read from every given cell too, Albanian low's 2,338
gaps made 46,140 pairs, and an epoch took five minutes, nearly all of it validation). Its best
checkpoint then predicts every (source, gap) pair of the dev and test files; a gap takes the
prediction of the source whose kind (the lemma, or the source's cell) was most often right
for the gap's cell on dev (the lemma where dev tells nothing, then the first given cell).
The completed files are scored as the task's scorer scores them
(:mod:`phonkit.tasks.completion`); a row per language and size goes into
``RECORD/results.tsv`` (test) and ``RECORD/dev.tsv`` (dev), system
``yoyodyne-ARCHITECTURE[-TAG]``, beside the other systems' rows there; ``seconds`` is the
training and prediction wall time. A row already there is not run again; a training stopped
mid-way goes on from its last resume checkpoint (see peers.py).
"""

from __future__ import annotations

import argparse
import random
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from peers import MODELS, PeerFailed, fit_and_predict, named, settings

from phonkit.data.cells import read_cells
from phonkit.data.tsv import format_rows, open_bytes, read_rows, write_atomic
from phonkit.experiments.sigmorphon import (
    FIELDS,
    HEADER,
    SIZES,
    Row,
    chosen_languages,
    merged,
    task2_folder,
    task_file,
)
from phonkit.tasks.completion import forms_of, score_completion

LEMMA = "LEMMA"  # the source kind of the lemma


def triples(path: Path) -> list[tuple[str, str, str]]:
    """(lemma, form, features) of each row."""
    with open_bytes(path) as stream:
        cells = read_cells(stream, str(path), FIELDS)
    return [(lemma.strip(), form.strip(), features.strip())
            for lemma, features, form in (cell.fields() for cell in cells)]  # fmt: skip


def features(source: str, target: str) -> str:
    """The features of a pair: the source cell's (``S:``), then the target cell's (``T:``)."""
    own = ["S:LEMMA"] if source == LEMMA else [f"S:{f}" for f in source.split(";")]
    return ";".join(own + [f"T:{f}" for f in target.split(";")])


def line(source_form: str, target_form: str, source: str, target: str) -> str:
    return f"{source_form}\t{target_form}\t{features(source, target)}\n"


def paradigms(rows: list[tuple[str, str, str]]) -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    for lemma, form, bundle in rows:
        if form:
            found.setdefault(lemma, {})[bundle] = form
    return found


def gaps(covered: list[tuple[str, str, str]]) -> list[tuple[str, str, list[str]]]:
    """Each gap (lemma, cell) with its sources: the lemma, then the paradigm's given cells."""
    given = paradigms(covered)
    return [(lemma, bundle, [LEMMA, *given.get(lemma, {})])
            for lemma, form, bundle in covered if not form]  # fmt: skip


def run_language(args, folder: Path, language: str, size: str) -> dict[str, Row]:
    """Train the peer on ``language``'s ``size`` file, complete its covered dev and test
    files; the dev and test rows."""
    train = task_file(folder, language, f"train-{size}")
    assert train is not None
    rng = random.Random(f"{args.seed}:{language}:{size}")
    training = []
    for lemma, cells in paradigms(triples(train)).items():
        for target, form in cells.items():
            training.append(line(lemma, form, LEMMA, target))
            others = [cell for cell in cells if cell != target]
            for source in rng.sample(others, min(args.sources, len(others))):
                training.append(line(cells[source], form, source, target))
    files = {}
    for split in ("dev", "test"):
        covered = task_file(folder, language, f"covered-{split}")
        gold = task_file(folder, language, f"uncovered-{split}")
        assert covered is not None and gold is not None
        files[split] = (triples(covered), forms_of(_cells(gold)), forms_of(_cells(covered)))
    answers = files["dev"][1]
    asked = {
        split: [
            (lemma, bundle, source) for lemma, bundle, sources in gaps(rows) for source in sources
        ]  # fmt: skip
        for split, (rows, _, _) in files.items()
    }
    given = {split: paradigms(rows) for split, (rows, _, _) in files.items()}

    def source_form(split: str, lemma: str, source: str) -> str:
        return lemma if source == LEMMA else given[split][lemma][source]

    dev = "".join(line(lemma, answers[lemma, bundle], LEMMA, bundle)
                  for lemma, bundle, _ in gaps(files["dev"][0]))  # fmt: skip
    read = [(source_form(split, lemma, source), source, bundle)
            for split in ("dev", "test") for lemma, bundle, source in asked[split]]  # fmt: skip
    # the target column of the predict file is ignored: the source fills it
    predict = "".join(line(form, form, source, bundle) for form, source, bundle in read)
    system = named(args.architecture, args).removeprefix("yoyodyne-")
    work = args.work / f"{language}-{size}-{system}"
    fitted = fit_and_predict(args, work, args.architecture, "".join(training), dev, predict)
    guesses = iter(fitted["guesses"])
    predicted = {split: {key: next(guesses) for key in asked[split]} for split in ("dev", "test")}
    right: dict[tuple[str, str], list[bool]] = {}
    for (lemma, bundle, source), guess in predicted["dev"].items():
        right.setdefault((source, bundle), []).append(guess == answers[lemma, bundle])

    def rank(source: str, bundle: str, order: int) -> tuple[float, int]:
        shown = right.get((source, bundle))
        return (-sum(shown) / len(shown) if shown else 1.0, order)

    seconds = fitted["fit_seconds"] + fitted["predict_seconds"]
    rows = {}
    for split, (covered, gold, given_forms) in files.items():
        guess = dict(given_forms)
        for lemma, bundle, sources in gaps(covered):
            best = min(enumerate(sources), key=lambda pair: rank(pair[1], bundle, pair[0]))[1]
            guess[lemma, bundle] = predicted[split][lemma, bundle, best]
        scores = score_completion(guess, gold, given_forms)
        rows[split] = Row(language, size, named(args.architecture, args), scores, seconds)
    return rows


def _cells(path: Path):
    with open_bytes(path) as stream:
        return read_cells(stream, str(path), FIELDS)


def done_rows(record: Path, system: str) -> set[tuple[str, str]]:
    path = record / "results.tsv"
    if not path.is_file():
        return set()
    return {(fields[0], fields[1]) for _, fields in list(read_rows(path))[1:]
            if len(fields) > 2 and fields[2] == system}  # fmt: skip


def record(out: Path, rows: dict[str, Row]) -> None:
    """Add a language's rows to the record beside every row already there (``merged`` alone
    puts a system's rows in place of all its rows: the languages finished before)."""
    order = {size: number for number, size in enumerate(SIZES)}
    for split, name in (("test", "results.tsv"), ("dev", "dev.tsv")):
        path, row = out / name, rows[split]
        kept = [old for old in merged(path, []) if old.values()[:3] != row.values()[:3]]
        kept = sorted([*kept, row], key=lambda r: (r.language, order.get(r.setting, 9), r.system))
        write_atomic(path, format_rows([HEADER, *(one.values() for one in kept)]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--yoyodyne", default="yy-venv/bin/yoyodyne")
    parser.add_argument("--out", type=Path, required=True, help="the record's folder")
    parser.add_argument("--langs", default="all")
    parser.add_argument("--sizes", default="low,medium")
    parser.add_argument("--architecture", choices=sorted(MODELS), default="pointer")
    parser.add_argument("--sources", type=int, default=1, help="cells per target, and the lemma")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--patience", type=int, default=20)
    parser.add_argument("--patience-steps", type=int, default=200)
    parser.add_argument("--max-epochs", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=1)
    settings(parser)
    args = parser.parse_args()
    args.work = args.work.resolve()
    folder = task2_folder(args.data_dir)
    system = named(args.architecture, args)
    done = done_rows(args.out, system)
    todo = [(language, size) for language in chosen_languages(folder, args.langs)
            for size in args.sizes.split(",")
            if task_file(folder, language, f"train-{size}")
            and (language, size) not in done]  # fmt: skip

    def one(job: tuple[str, str]) -> tuple[str, str, dict[str, Row]]:
        return (*job, run_language(args, folder, *job))

    try:
        with ThreadPoolExecutor(args.jobs) as pool:  # the work is in yoyodyne's processes
            for language, size, rows in pool.map(one, todo):
                record(args.out, rows)
                test = rows["test"].scores
                assert test is not None
                print(f"{language} {size}: test ACC {test.acc:.2f}", file=sys.stderr, flush=True)
    except PeerFailed as error:
        parser.exit(1, f"peer_task2.py: {error}\n")


if __name__ == "__main__":
    main()

"""Filling paradigm gaps: read predict TSV, check it against the model, decode the gaps."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import IO

import torch

from phonkit.decoding import decode
from phonkit.encoding import encode_morphemes
from phonkit.errors import InputError, at
from phonkit.lexicon import Entry, parse_features, parse_lemma
from phonkit.rundir import Run
from phonkit.tsv import read_rows

GAP = ("", "--")


@dataclass
class Cell:
    """One predict row: a lemma and features, a known form or a gap, and extra columns."""

    line: int
    entry: Entry  # form is "" for a gap
    extra: list[str]

    @property
    def gap(self) -> bool:
        return self.entry.form == ""


def read_cells(stream: IO[bytes], name: str) -> list[Cell]:
    """``lemma<TAB>features[<TAB>form[<TAB>extra...]]``; rows wider than 3 columns must all
    have the width of the first row, so extra columns line up."""
    cells: list[Cell] = []
    width = None
    for number, row in read_rows(None, name, stream):
        where = at(name, number)
        if width is None:
            width = len(row) if len(row) > 3 else None
        if (width and len(row) != width) or (not width and len(row) not in (2, 3)):
            expected = f"{width} (as on the first line)" if width else "2 or 3"
            raise InputError(f"expected {expected} tab-separated columns, found {len(row)}", where)
        form = row[2].strip() if len(row) > 2 else ""
        entry = Entry(
            parse_lemma(row[0], where), parse_features(row[1], where), "" if form in GAP else form
        )
        cells.append(Cell(number, entry, row[3:]))
    return cells


def check_known(cells: Iterable[Cell], run: Run, name: str) -> None:
    """Every morpheme must be in the model: name the first unknown one and how many there are."""
    morphemes = run.vocabularies().morphemes
    unknown = [(cell, m) for cell in cells for m in cell.entry.morphemes if m not in morphemes]
    if unknown:
        cell, first = unknown[0]
        kind, _, value = first.partition(":")
        kind = "lemma" if kind == "lemma" else "feature"
        others = len({m for _, m in unknown}) - 1
        more = f" (and {others} more unknown lemmas/features)" if others else ""
        raise InputError(
            f"{kind} {value!r} is not in the model {run.path}{more}; "
            "phonkit predicts only for lemmas and features seen in training",
            at(name, cell.line),
        )


def fill(
    run: Run, cells: list[Cell], every: bool, device: torch.device, precision: str = "auto"
) -> list[list[str]]:
    """The output rows: input columns with the gaps (or, with ``every``, all forms) predicted."""
    todo = [cell for cell in cells if every or cell.gap]
    vocabularies = run.vocabularies()
    joiner = run.transcriber().joiner
    predicted: dict[int, str] = {}
    if todo:
        model = run.load_model(device)
        morphemes = encode_morphemes([cell.entry for cell in todo], vocabularies)
        outputs = decode(model, morphemes, run.config["max_length"], precision=precision)
        for cell, ids in zip(todo, outputs, strict=False):
            predicted[id(cell)] = joiner.join(vocabularies.symbols.decode(ids))
    return [
        [cell.entry.lemma, cell.entry.bundle, predicted.get(id(cell), cell.entry.form), *cell.extra]
        for cell in cells
    ]

"""Scoring completed paradigms as the CoNLL–SIGMORPHON 2017 shared task scores its task 2
(Cotterell et al. 2017): a file of guesses against a file of gold forms, both with a row per
cell, the cells empty in the covered file (the input a system completed) scored.

As the task's scorer ``evalm.py`` does: a cell is a (lemma, features) pair as written; where
a file has a cell twice its last row counts; a cell the guesses lack (or leave empty) is
guessed as the empty form. ACC is the share of the scored cells guessed exactly, in %; LEV
their mean Levenshtein distance in characters; paradigm ACC the share of the gold file's
lemmas whose every cell is guessed exactly, the covered file's given cells included, in %.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from rapidfuzz.distance import Levenshtein

from phonkit.data.cells import DEFAULT_LAYOUT, Cell, Layout, iter_cells
from phonkit.data.tsv import open_bytes
from phonkit.errors import InputError, at

Key = tuple[str, str]  # a cell: its lemma and features as written


@dataclass(frozen=True)
class CompletionScores:
    acc: float  # exact match over the scored cells, %
    lev: float  # mean Levenshtein distance over the scored cells, characters
    paradigm_acc: float  # lemmas with every cell right, %
    cells: int  # cells scored: the gold cells not given in the covered file
    unguessed: int  # scored cells with no guess (or an empty one)
    paradigms: int  # lemmas of the gold file

    def rows(self) -> list[tuple[str, str]]:
        """``metric, value`` rows, as ``phonkit evaluate`` writes them."""
        return [
            ("acc", f"{self.acc:.6g}"),
            ("lev", f"{self.lev:.6g}"),
            ("paradigm_acc", f"{self.paradigm_acc:.6g}"),
            ("cells", str(self.cells)),
            ("unguessed", str(self.unguessed)),
            ("paradigms", str(self.paradigms)),
        ]


def forms_of(cells: Iterable[Cell]) -> dict[Key, str]:
    """Each cell's form (``""`` for a gap) by (lemma, features) as written, the last row of a
    cell written twice counting."""
    found: dict[Key, str] = {}
    for cell in cells:
        lemma, features, form = (field.strip() for field in cell.fields())
        found[lemma, features] = "" if cell.gap else form
    return found


def read_forms(
    path: Path | None,
    layout: Layout = DEFAULT_LAYOUT,
    gold: bool = False,
    stream: IO[bytes] | None = None,
) -> dict[Key, str]:
    """The forms of a guess, gold or covered file (or of ``stream``, read as standard input)
    by cell (see :func:`forms_of`); in a ``gold`` file every cell must have its form."""
    name = str(path) if path is not None else "<stdin>"
    with open_bytes(path) if path is not None else nullcontext(stream) as opened:
        assert opened is not None
        cells = list(iter_cells(opened, name, layout=layout))
    if not cells:
        raise InputError("no rows (the file is empty)", name)
    if gold and (gaps := [cell for cell in cells if cell.gap]):
        raise InputError("no gold form in this row of the gold file", at(name, gaps[0].line))
    return forms_of(cells)


def score_completion(
    guesses: Mapping[Key, str], gold: Mapping[Key, str], covered: Mapping[Key, str] | None = None
) -> CompletionScores:
    """The scores of ``guesses`` against ``gold`` on the cells ``covered`` leaves empty (all
    of gold's without a covered file)."""
    given = {key for key, form in (covered or {}).items() if form}
    scored = [key for key in gold if key not in given]
    if not scored:
        raise InputError("no cell to score: the covered file gives every gold cell")
    hits = sum(guesses.get(key, "") == gold[key] for key in scored)
    distance = sum(Levenshtein.distance(guesses.get(key, ""), gold[key]) for key in scored)
    lemmas: dict[str, bool] = {}
    for (lemma, features), form in gold.items():
        lemmas[lemma] = lemmas.get(lemma, True) and guesses.get((lemma, features), "") == form
    return CompletionScores(
        100.0 * hits / len(scored),
        distance / len(scored),
        100.0 * sum(lemmas.values()) / len(lemmas),
        len(scored),
        sum(not guesses.get(key) for key in scored),
        len(lemmas),
    )

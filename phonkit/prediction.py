"""Filling paradigm gaps: read predict TSV, fit the UFs of new lemmas, decode the gaps.

A lemma the model has never seen gets an underlying form fitted to its known cells
(:mod:`phonkit.fitting`); features must be known to the model."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import torch

from phonkit.decoding import autocast, decode, decode_nbest, total_nll
from phonkit.encoding import Example, Vocabularies, encode, encode_morphemes
from phonkit.errors import InputError, at
from phonkit.fitting import FitConfig, fit_lemmas
from phonkit.lexicon import LEMMA, Decomposition, Entry, parse_features, parse_lemma
from phonkit.plugins import lookup
from phonkit.progress import say
from phonkit.rundir import Run
from phonkit.tsv import open_bytes, read_rows

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


def check_known(cells: Iterable[Cell], run: Run, name: str, skip_lemmas: bool = False) -> None:
    """Every morpheme (with ``skip_lemmas``, every feature) must be in the model: name the
    first unknown one and how many there are."""
    morphemes, decomposition = run.vocabularies().morphemes, run.decomposition()
    unknown = [
        (cell, m)
        for cell in cells
        for m in decomposition.morphemes(cell.entry)[skip_lemmas:]
        if m not in morphemes
    ]
    if unknown:
        cell, first = unknown[0]
        others = len({m for _, m in unknown}) - 1
        more = f" (and {others} more unknown lemmas/features)" if others else ""
        raise InputError(
            f"{describe(first)} is not in the model {run.path}{more}; "
            "evaluate scores lemmas and features seen in training (new lemmas: --unseen-lemmas)",
            at(name, cell.line),
        )


def describe(morpheme: str) -> str:
    """``lemma 'kitap'``, ``feature 'PL'`` or ``feature bundle 'N;PL'`` for a morpheme name."""
    kind, _, value = morpheme.partition(":")
    if kind + ":" == LEMMA:
        return f"lemma {value!r}"
    return f"feature bundle {value!r}" if ";" in value else f"feature {value!r}"


def read_gold(
    path: Path, run: Run, new_lemmas: bool, transcriber: str | None = None
) -> list[Example]:
    """Scored cells from ``lemma<TAB>features<TAB>gold form``, transcribed like the run's
    forms (or by ``transcriber``). Every morpheme must be known, except, with ``new_lemmas``,
    the lemmas, which must then be new: cells of lemmas the model knows are left out, with a
    count."""
    name = str(path)
    with open_bytes(path) as stream:
        cells = read_cells(stream, name)
    gaps = [cell for cell in cells if cell.gap]
    if gaps:
        raise InputError("no gold form to score against", at(name, gaps[0].line))
    if new_lemmas:
        lemmas = run.vocabularies().morphemes
        seen = [cell for cell in cells if LEMMA + cell.entry.lemma in lemmas]
        if seen:
            say(f"left out {len(seen):,} cells of lemmas the model has seen")
        cells = [cell for cell in cells if LEMMA + cell.entry.lemma not in lemmas]
        check_known(cells, run, name, skip_lemmas=True)
    else:
        check_known(cells, run, name)
    chosen = lookup("transcribers", transcriber) if transcriber else run.transcriber()
    surfaces = chosen.transcribe(run.config["lang"] or "", [cell.entry.form for cell in cells])
    decomposition = run.decomposition()
    return [
        Example(cell.entry, surface, decomposition.morphemes(cell.entry))
        for cell, surface in zip(cells, surfaces, strict=True)
    ]


@dataclass
class PredictOptions:
    every: bool = False  # predict known cells too, not only gaps
    beam: int = 1  # 1: greedy
    nbest: int = 1  # hypotheses written per predicted cell (rank and log-probability columns)
    score: bool = False  # add a column with the surprisal of each output form
    skip_unknown: bool = False  # leave unpredictable cells empty instead of failing
    precision: str = "auto"
    fit: FitConfig = field(default_factory=FitConfig)


@dataclass
class Evidence:
    """What the known cells tell: the examples a new lemma's UF is fitted to, and the cells
    that cannot be predicted (unknown feature, or a new lemma with nothing to fit to)."""

    examples: list[Example]
    unpredictable: list[tuple[Cell, str]]  # the cell and why


def gather_evidence(cells: Sequence[Cell], run: Run, surfaces: dict[int, tuple[str, ...]]):
    """Sort the cells into evidence for new lemmas and unpredictable cells; warn about known
    forms with unseen symbols (left out of the fit) and conflicting known cells (kept)."""
    vocabularies, decomposition = run.vocabularies(), run.decomposition()
    morphemes, symbols = vocabularies.morphemes, vocabularies.symbols
    unknown_features = {
        id(cell): unknown[0]
        for cell in cells
        if (unknown := [m for m in decomposition.morphemes(cell.entry)[1:] if m not in morphemes])
    }
    examples, unseen_symbols = [], 0
    forms: dict[tuple[str, str], set[str]] = defaultdict(set)
    for cell in cells:
        if cell.gap or id(cell) in unknown_features:
            continue
        forms[cell.entry.lemma, cell.entry.bundle].add(cell.entry.form)
        if LEMMA + cell.entry.lemma in morphemes:
            continue
        if all(symbol in symbols for symbol in surfaces[id(cell)]):
            word = decomposition.morphemes(cell.entry)
            examples.append(Example(cell.entry, surfaces[id(cell)], word))
        else:
            unseen_symbols += 1
    if unseen_symbols:
        say(
            f"warning: {unseen_symbols:,} known forms of new lemmas have symbols the model "
            "never saw; their lemmas' underlying forms are fitted on the other known forms"
        )
    conflicts = sum(len(f) > 1 for f in forms.values())
    if conflicts:
        say(
            f"warning: {conflicts:,} lemma and feature pairs have different known forms; "
            "all of them are kept as evidence"
        )
    fitted = {example.entry.lemma for example in examples}
    unpredictable = []
    for cell in cells:
        if id(cell) in unknown_features:
            why = f"{describe(unknown_features[id(cell)])} is not in the model {run.path}"
            unpredictable.append((cell, why))
        elif LEMMA + cell.entry.lemma not in morphemes and cell.entry.lemma not in fitted:
            why = (
                f"lemma {cell.entry.lemma!r} is not in the model {run.path} and has no known "
                "form (with symbols the model knows) to fit its underlying form to"
            )
            unpredictable.append((cell, why))
    return Evidence(examples, unpredictable)


def check_predictable(evidence: Evidence, name: str, skip: bool) -> set[int]:
    """Fail on the first unpredictable cell, or with ``skip``, count them and return their ids."""
    if not evidence.unpredictable:
        return set()
    cell, why = evidence.unpredictable[0]
    if not skip:
        others = len(evidence.unpredictable) - 1
        more = f" ({others:,} more such rows)" if others else ""
        raise InputError(
            f"{why}{more}; use --skip-unknown to leave such rows empty", at(name, cell.line)
        )
    say(f"skipped {len(evidence.unpredictable):,} rows that cannot be predicted, e.g. {why}")
    return {id(cell) for cell, _ in evidence.unpredictable}


def fill(
    run: Run, cells: list[Cell], name: str, device: torch.device, options: PredictOptions
) -> list[list[object]]:
    """The output rows: input columns with the gaps (or, with ``every``, all forms) predicted;
    with ``nbest`` > 1, one row per hypothesis with its rank and log-probability; with
    ``score``, the surprisal of each output form last."""
    transcriber = run.transcriber()
    known = [cell for cell in cells if not cell.gap]
    transcribed = transcriber.transcribe(run.config["lang"] or "", [c.entry.form for c in known])
    surfaces = {id(cell): surface for cell, surface in zip(known, transcribed, strict=True)}
    evidence = gather_evidence(cells, run, surfaces)
    skipped = check_predictable(evidence, name, options.skip_unknown)
    todo = [c for c in cells if (options.every or c.gap) and id(c) not in skipped]
    needed = {cell.entry.lemma for cell in todo}
    model = run.load_model(device)
    with autocast(device, options.precision):
        vocabularies = _fit(
            model,
            run.vocabularies(),
            [example for example in evidence.examples if example.entry.lemma in needed],
            options.fit,
        )
    hypotheses = _hypotheses(
        model, vocabularies, todo, run.decomposition(), run.config["max_length"], options
    )
    outputs: list[tuple[Cell, tuple[str, ...] | None, object]] = []
    for cell in cells:
        if id(cell) in hypotheses:
            outputs.extend(
                (cell, symbols, rank) for rank, symbols in enumerate(hypotheses[id(cell)], 1)
            )
        else:
            outputs.append((cell, surfaces.get(id(cell)), "given" if not cell.gap else ""))
    scored = options.score or options.nbest > 1
    scores = (
        _nll(model, vocabularies, outputs, run.decomposition(), options.precision)
        if scored
        else [None] * len(outputs)
    )
    rows = []
    for (cell, symbols, rank), nll in zip(outputs, scores, strict=True):
        form = cell.entry.form if rank == "given" else transcriber.joiner.join(symbols or ())
        row: list[object] = [cell.entry.lemma, cell.entry.bundle, form, *cell.extra]
        if options.nbest > 1:
            row += [rank, "" if nll is None else f"{-nll[0]:.4f}"]
        if options.score:
            row.append("" if nll is None else f"{nll[1]:.4f}")
        rows.append(row)
    return rows


def _fit(model, vocabularies: Vocabularies, examples: list[Example], config: FitConfig):
    if not examples:
        return vocabularies
    began = time.perf_counter()
    extended = fit_lemmas(model, vocabularies, examples, config)
    new = len(extended.morphemes) - len(vocabularies.morphemes)
    say(
        f"fitted the underlying forms of {new:,} new lemma{'s' * (new != 1)} to "
        f"{len(examples):,} known form{'s' * (len(examples) != 1)} ({config.steps} steps, "
        f"{time.perf_counter() - began:.1f} s)"
    )
    return extended


def _hypotheses(
    model,
    vocabularies,
    todo: list[Cell],
    decomposition: Decomposition,
    max_length: int,
    options: PredictOptions,
):
    """The predicted symbol sequences of each cell to predict, best first."""
    if not todo:
        return {}
    words = [decomposition.morphemes(cell.entry) for cell in todo]
    morphemes = encode_morphemes(words, vocabularies)
    if max(options.beam, options.nbest) == 1:
        best = decode(model, morphemes, max_length, precision=options.precision)
        found = [[ids] for ids in best]
    else:
        width = max(options.beam, options.nbest)
        beams = decode_nbest(model, morphemes, max_length, width, precision=options.precision)
        found = [[ids for ids, _ in beam[: options.nbest]] for beam in beams]
    return {
        id(cell): [tuple(vocabularies.symbols.decode(ids)) for ids in ids_list]
        for cell, ids_list in zip(todo, found, strict=True)
    }


def _nll(
    model, vocabularies, outputs, decomposition: Decomposition, precision: str
) -> list[tuple[float, float] | None]:
    """``(-log p, -log p / (length + 1))`` of each output form the model can score."""
    morphemes = vocabularies.morphemes
    words = [decomposition.morphemes(cell.entry) for cell, _, _ in outputs]
    scorable = [
        number
        for number, (_, symbols, _) in enumerate(outputs)
        if symbols is not None and all(m in morphemes for m in words[number])
    ]
    result: list[tuple[float, float] | None] = [None] * len(outputs)
    if scorable:
        examples = [Example(outputs[n][0].entry, outputs[n][1], words[n]) for n in scorable]
        data = encode(examples, vocabularies)
        totals = total_nll(model, data, precision=precision)
        for n, total, length in zip(scorable, totals.tolist(), data.lengths.tolist(), strict=True):
            result[n] = (total, total / length)
    return result

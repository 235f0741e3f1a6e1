"""Filling paradigm gaps: read predict TSV, fit the UFs of new lemmas, decode the gaps.

A lemma the model has never seen gets an underlying form fitted to its known cells
(:mod:`phonkit.model.fitting`); features must be known to the model."""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

import torch

from phonkit.data.cells import PREDICT_COLUMNS, Cell, Layout, in_rows_form, read_cells
from phonkit.data.encoding import encode, encode_morphemes
from phonkit.data.lexicon import (
    LEMMA,
    RUN_MARK,
    Decomposition,
    Entry,
    Example,
    Vocabularies,
)
from phonkit.data.tsv import open_bytes
from phonkit.errors import InputError, at
from phonkit.model.decoding import best, total_nll
from phonkit.model.device import autocast
from phonkit.model.fitting import fit_lemmas
from phonkit.model.phonology import Model
from phonkit.plugins import lookup
from phonkit.progress import say
from phonkit.run.directory import Run
from phonkit.run.factory import load_model
from phonkit.settings import FitConfig
from phonkit.tables.candidates import Rewrites, known_forms
from phonkit.tables.judges import Judgement
from phonkit.tables.rewrites import Paradigm


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
            "evaluate scores lemmas and features seen in training (new lemmas: unseen_lemmas)",
            at(name, cell.line),
            "unseen_lemmas",
        )


def describe(morpheme: str) -> str:
    """``lemma 'kitap'``, ``feature 'PL'`` or ``feature bundle 'N;PL'`` for a morpheme name."""
    kind, _, value = morpheme.partition(":")
    if kind + ":" == LEMMA:
        return f"lemma {value!r}"
    return f"feature bundle {value!r}" if ";" in value else f"feature {value!r}"


def read_gold(
    path: Path,
    run: Run,
    new_lemmas: bool,
    transcriber: str | None = None,
    columns: str = PREDICT_COLUMNS,
) -> list[Example]:
    """Scored cells from ``lemma<TAB>features<TAB>gold form`` (or the ``columns`` given),
    transcribed like the run's forms (or by ``transcriber``). Every morpheme must be known,
    except, with ``new_lemmas``, the lemmas, which must then be new: cells of lemmas the
    model knows are left out, with a count."""
    name = str(path)
    with open_bytes(path) as stream:
        cells = read_cells(stream, name, Layout.parse(columns))
    return gold_examples(cells, name, run, new_lemmas, transcriber)


def gold_examples(
    cells: list[Cell], name: str, run: Run, new_lemmas: bool, transcriber: str | None = None
) -> list[Example]:
    """The scored cells of :func:`read_gold`, from cells already read (``name``: where
    from, for the messages)."""
    if not cells:
        raise InputError("no rows to score (the file is empty)", name)
    gaps = [cell for cell in cells if cell.gap]
    if gaps:
        raise InputError("no gold form to score against", at(name, gaps[0].line))
    if new_lemmas:
        lemmas = run.vocabularies().morphemes
        seen = [cell for cell in cells if LEMMA + cell.entry.lemma in lemmas]
        if seen:
            say(f"left out {len(seen):,} cells of lemmas the model has seen")
        cells = [cell for cell in cells if LEMMA + cell.entry.lemma not in lemmas]
        if not cells:
            raise InputError("no cells of lemmas new to the model to score", name)
        check_known(cells, run, name, skip_lemmas=True)
    else:
        check_known(cells, run, name)
    chosen = lookup("transcribers", transcriber) if transcriber else run.transcriber()
    surfaces = chosen.transcribe(run.config.lang or "", [cell.entry.form for cell in cells])
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
    strict: bool = False  # fail on a cell that cannot be predicted, not leave it unfilled
    precision: str = "auto"
    fit: FitConfig = field(default_factory=FitConfig)


def by_run(cells: Iterable[Cell], morphemes) -> Iterator[tuple[Cell, Entry]]:
    """Each cell with the entry the model sees for it. A lemma the model lacks is named apart for
    each run of consecutive rows it has (``lemma<TAB>line of the run's first row``): its UF
    is fitted to the known cells of that run alone, so the result does not depend on where
    streamed input happens to be cut into chunks."""
    previous, first = None, 0
    for cell in cells:
        lemma = cell.entry.lemma
        if lemma != previous:
            previous, first = lemma, cell.line
        if LEMMA + lemma in morphemes:
            yield cell, cell.entry
        else:
            yield cell, replace(cell.entry, lemma=f"{lemma}{RUN_MARK}{first}")


@dataclass
class Evidence:
    """What the known cells tell: the examples a new lemma's UF is fitted to, the cells that
    cannot be predicted (unknown feature, or a new lemma with nothing to fit to) with why,
    and counts for the warnings."""

    examples: list[Example]
    unpredictable: list[tuple[int, str]]  # the cell's index and why
    unseen_symbols: int = 0  # known forms of new lemmas with symbols the model never saw
    conflicts: int = 0  # lemma and feature pairs with different known forms
    first_unseen: tuple[int, str] | None = None  # the first such form's line and symbol
    unknown_cells: int = 0  # cells a reading model spells with features it never saw
    first_unknown: tuple[int, str] | None = None  # the first such cell's line and feature


def gather_evidence(
    cells: Sequence[Cell],
    entries: Sequence[Entry],
    vocabularies: Vocabularies,
    surfaces: dict[int, tuple[str, ...]],
    model_name: object,
    decomposition: Decomposition,
    reads: bool = False,
    every: bool = False,
) -> Evidence:
    """Sort the cells (seen by the model as ``entries``, see :func:`by_run`) into evidence
    for new lemmas and unpredictable cells, counting known forms with unseen symbols (left out
    of the fit) and conflicting known cells (kept). A model that ``reads`` (the amortized
    one) reads every known form and a new lemma's spelling, and spells a cell from the
    features it knows of it, from the prior mean of an unseen morpheme's UF (0) where it
    knows none: it leaves no cell unpredictable (the cells it predicts with an unknown
    feature are counted: the gaps, and with ``every`` the known cells too)."""
    morphemes, symbols = vocabularies.morphemes, vocabularies.symbols
    unknown = {
        number: missing[0]
        for number, cell in enumerate(cells)
        if (missing := [m for m in decomposition.morphemes(cell.entry)[1:] if m not in morphemes])
    }
    unknown_features = {} if reads else unknown
    examples, unseen_symbols, first_unseen = [], 0, None
    forms: dict[tuple[str, str], set[str]] = defaultdict(set)
    for number, cell in enumerate(cells):
        if cell.gap or number in unknown_features:
            continue
        forms[cell.entry.lemma, cell.entry.bundle].add(cell.entry.form)
        entry = entries[number]
        if LEMMA + entry.lemma in morphemes:
            continue
        if reads or all(symbol in symbols for symbol in surfaces[number]):
            examples.append(Example(entry, surfaces[number], decomposition.morphemes(entry)))
        else:
            unseen_symbols += 1
            if first_unseen is None:
                symbol = next(s for s in surfaces[number] if s not in symbols)
                first_unseen = (cell.line, symbol)
    fitted = {example.entry.lemma for example in examples}
    unpredictable = []
    for number, cell in enumerate(cells):
        if number in unknown_features:
            why = f"{describe(unknown_features[number])} is not in the model {model_name}"
            unpredictable.append((number, why))
        elif (
            not reads
            and LEMMA + entries[number].lemma not in morphemes
            and entries[number].lemma not in fitted
        ):
            why = (
                f"lemma {cell.entry.lemma!r} is not in the model {model_name} and has no known "
                "form (with symbols the model knows) in its rows to fit its underlying form to "
                "(the known cells of a new lemma must be in the rows next to its gaps)"
            )
            unpredictable.append((number, why))
    conflicts = sum(len(f) > 1 for f in forms.values())
    spelled = [number for number in unknown if reads and (every or cells[number].gap)]
    first_unknown = (cells[spelled[0]].line, unknown[spelled[0]]) if spelled else None
    return Evidence(
        examples, unpredictable, unseen_symbols, conflicts, first_unseen, len(spelled),
        first_unknown,
    )  # fmt: skip


def check_predictable(
    evidence: Evidence, cells: Sequence[Cell], name: str, strict: bool
) -> set[int]:
    """The indices of the cells that cannot be predicted, left unfilled; with ``strict``,
    fail on the first of them instead."""
    if not evidence.unpredictable:
        return set()
    number, why = evidence.unpredictable[0]
    if strict:
        others = len(evidence.unpredictable) - 1
        more = f" ({others:,} more such rows)" if others else ""
        raise InputError(
            f"{why}{more}; without strict such rows are left unfilled",
            at(name, cells[number].line),
            "strict",
        )
    return {number for number, _ in evidence.unpredictable}


@dataclass
class Tally:
    """What the messages at the end report, summed over the chunks of a stream."""

    rows_out: int = 0
    last_line: int = 0
    unseen_symbols: int = 0
    unseen_example: str = ""  # FILE:LINE and symbol of the first of them
    conflicts: int = 0
    unknown_cells: int = 0  # cells spelled with features the model never saw
    unknown_example: str = ""  # FILE:LINE and feature of the first of them
    unfilled: int = 0  # rows that cannot be predicted, left as they were
    first_unfilled: str = ""  # FILE:LINE and why, of the first of them
    fitted_lemmas: int = 0
    fitted_forms: int = 0
    fit_seconds: float = 0.0


@dataclass(frozen=True)
class Reading:
    """What a model read of a chunk of cells (:meth:`Predictor._reading`): the entry it sees
    for each cell, the known cells' symbols (by index), the evidence, the cells skipped and
    those to predict (``todo``), the vocabularies with the new lemmas, and each cell to
    predict as a word with its lemma's known forms (what the candidates are made from)."""

    entries: list[Entry]
    surfaces: dict[int, tuple[str, ...]]
    evidence: Evidence
    skipped: set[int]
    todo: list[int]
    vocabularies: Vocabularies
    words: list[tuple[Example, Paradigm | None]]


@dataclass(frozen=True)
class Filled:
    """One output of :meth:`Predictor.predict`: the index of its cell, the symbols of its
    form (None for a gap left empty), its rank among a cell's hypotheses (from 1; ``given``
    for a known form passed through, ``""`` for a cell left as it is), and ``(-log p, -log p
    per symbol)`` where scored."""

    index: int
    symbols: tuple[str, ...] | None
    rank: int | str
    nll: tuple[float, float] | None


class Predictor:
    """A run loaded once, filling the gaps of one chunk of predict rows after another."""

    def __init__(
        self,
        run: Run,
        device: torch.device,
        options: PredictOptions,
        model: Model | None = None,
    ):
        self.run = run
        self.options = options
        self.device = device
        self.transcriber = run.transcriber()
        self.vocabularies = run.vocabularies()
        self.decomposition = run.decomposition()
        self.lang = run.config.lang or ""
        self.max_length = run.config.max_length
        self.model = model if model is not None else load_model(run, device)
        self.trained_lemmas = self.model.lemmas()
        self.rewrites = Rewrites.of(run)
        self.tally = Tally()

    def knows(self, lemma: str) -> bool:
        return LEMMA + lemma in self.vocabularies.morphemes

    def read_input(self, cells: Iterable[Cell]) -> None:
        """Read the known forms of the new lemmas of a whole input (``cells``, as read
        before its gaps are predicted): a run that ranks candidates counts its rewrites over
        them beside the training paradigms (:meth:`Rewrites.read`) until the next input is
        read. The output then depends on the whole input, not on where it is cut into
        chunks."""
        if self.rewrites is None:
            return
        given = [
            (entry, cell.entry.form)
            for cell, entry in by_run(cells, self.vocabularies.morphemes)
            if not cell.gap and not self.knows(cell.entry.lemma)
        ]
        forms = [form for _, form in given]
        surfaces = self.transcriber.transcribe(self.lang, forms) if forms else []
        pairs = zip(given, surfaces, strict=True)
        self.rewrites.read([Example(entry, tuple(surface), ()) for (entry, _), surface in pairs])

    @contextmanager
    def _reading(self, cells: Sequence[Cell], name: str) -> Iterator[Reading]:
        """What the model reads of ``cells``: the new lemmas' underlying forms from their
        known cells, for the cells to predict (the gaps, or with ``every`` all); the model
        forgets those lemmas again on leaving (the next chunk's lemmas are others)."""
        options = self.options
        entries = [entry for _, entry in by_run(cells, self.vocabularies.morphemes)]
        known = [number for number, cell in enumerate(cells) if not cell.gap]
        transcribed = (  # a transcriber may read its cache from disk: not for nothing
            self.transcriber.transcribe(self.lang, [cells[number].entry.form for number in known])
            if known
            else []
        )
        surfaces = dict(zip(known, transcribed, strict=True))
        evidence = gather_evidence(
            cells,
            entries,
            self.vocabularies,
            surfaces,
            self.run.path,
            self.decomposition,
            self.model.reads,
            options.every,
        )
        skipped = check_predictable(evidence, cells, name, options.strict)
        todo = [n for n, c in enumerate(cells) if (options.every or c.gap) and n not in skipped]
        needed = {entries[number].lemma for number in todo}
        try:
            with autocast(self.device, options.precision):
                vocabularies = self._fit(
                    [example for example in evidence.examples if example.entry.lemma in needed],
                    [LEMMA + lemma for lemma in needed if not self.knows(lemma)],
                )
            given = known_forms([Example(cells[n].entry, surfaces[n], ()) for n in known])
            words = [
                (
                    Example(entries[number], (), self.decomposition.morphemes(entries[number])),
                    given.get(cells[number].entry.lemma),
                )
                for number in todo
            ]
            yield Reading(entries, surfaces, evidence, skipped, todo, vocabularies, words)
        finally:
            self.model.restore(self.trained_lemmas)

    def predict(self, cells: Sequence[Cell], name: str) -> list[Filled]:
        """The outputs of ``cells``, in order: each gap (or, with ``every``, each cell)
        predicted, with ``nbest`` > 1 one output per hypothesis, best first; the other cells
        as they are; with ``score`` (or ``nbest`` > 1), the log-probability and surprisal of
        each output form the model can score."""
        options, tally = self.options, self.tally
        with self._reading(cells, name) as read:
            hypotheses = self._hypotheses(read.vocabularies, read.todo, read.entries)
            if self.rewrites is not None:
                found = self.rewrites.ranked(
                    self.model, read.vocabularies, read.words, options.precision
                )
                for number, ranked in zip(read.todo, found, strict=True):
                    if ranked:  # the model's own hypotheses after the candidates, up to nbest
                        chosen = ranked[: options.nbest]
                        own = [h for h in hypotheses[number] if h not in chosen]
                        hypotheses[number] = (chosen + own)[: options.nbest]
            outputs: list[tuple[int, tuple[str, ...] | None, int | str]] = []
            for number, cell in enumerate(cells):
                if number in hypotheses:
                    outputs.extend(
                        (number, symbols, rank)
                        for rank, symbols in enumerate(hypotheses[number], 1)
                    )
                else:
                    given = read.surfaces.get(number)
                    outputs.append((number, given, "given" if not cell.gap else ""))
            scored = options.score or options.nbest > 1
            scores = [None] * len(outputs)
            if scored:
                scores = self._nll(read.vocabularies, read.entries, outputs)
        evidence, skipped = read.evidence, read.skipped
        tally.rows_out += len(outputs)
        tally.last_line = cells[-1].line if cells else tally.last_line
        tally.unseen_symbols += evidence.unseen_symbols
        if evidence.first_unseen and not tally.unseen_example:
            line, symbol = evidence.first_unseen
            tally.unseen_example = f"{name}:{line}: {symbol!r}"
        tally.conflicts += evidence.conflicts
        tally.unknown_cells += evidence.unknown_cells
        if evidence.first_unknown and not tally.unknown_example:
            line, morpheme = evidence.first_unknown
            tally.unknown_example = f"{name}:{line}: {describe(morpheme)}"
        if skipped:
            tally.unfilled += len(skipped)
            if not tally.first_unfilled:
                number, why = evidence.unpredictable[0]
                tally.first_unfilled = f"{name}:{cells[number].line}: {why}"
        return [
            Filled(number, symbols, rank, nll)
            for (number, symbols, rank), nll in zip(outputs, scores, strict=True)
        ]

    def judgements(self, cells: Sequence[Cell], name: str) -> list[tuple[int, Judgement]]:
        """The judgement of each gap of ``cells`` (its index, its candidates with every
        judge's -log p), as :meth:`predict` ranks them; none for a run that ranks no
        candidates."""
        if self.rewrites is None:
            return []
        with self._reading(cells, name) as read:
            found = self.rewrites.judged(
                self.model, read.vocabularies, read.words, self.options.precision
            )
            return list(zip(read.todo, found, strict=True))

    def fill(self, cells: Sequence[Cell], name: str) -> list[list[object]]:
        """The output rows of ``cells`` (see :meth:`predict`): input columns as written with
        the gaps (or, with ``every``, all forms) predicted; with ``nbest`` > 1, one row per
        hypothesis with its rank and log-probability; with ``score``, the surprisal of each
        output form last."""
        return [row for _, row in self._rows(cells, name)]

    def text(self, cells: Sequence[Cell], name: str) -> str:
        """The output rows of ``cells`` (:meth:`fill`) as TSV text, each where its input row
        was: after what came before that row (blank lines, a byte-order mark), with its
        line ending (between one row's hypotheses too, or a newline where it has none)."""
        rows, text = self._rows(cells, name), []
        for position, (index, row) in enumerate(rows):
            cell = cells[index]
            first = not position or rows[position - 1][0] != index
            last = position + 1 == len(rows) or rows[position + 1][0] != index
            text += [cell.before if first else "", "\t".join(str(value) for value in row)]
            text.append(cell.ending if last else cell.ending or "\n")
        return "".join(text)

    def _rows(self, cells: Sequence[Cell], name: str) -> list[tuple[int, list[object]]]:
        """Each output row with the index of its cell in ``cells``."""
        options, rows = self.options, []
        for filled in self.predict(cells, name):
            cell, nll = cells[filled.index], filled.nll
            form = (
                cell.fields()[2]
                if filled.rank in ("given", "")  # a known form, or a gap left unfilled
                else in_rows_form(self.transcriber.joiner.join(filled.symbols or ()), cell)
            )
            row: list[object] = list(cell.row(form))
            if options.nbest > 1:
                row += [filled.rank, "" if nll is None else f"{-nll[0]:.4f}"]
            if options.score:
                row.append("" if nll is None else f"{nll[1]:.4f}")
            rows.append((filled.index, row))
        return rows

    def report(self) -> None:
        """The warnings and counts of everything filled so far, on stderr."""
        tally, fit = self.tally, self.options.fit
        if tally.unseen_symbols:
            say(
                f"warning: {tally.unseen_symbols:,} known forms of new lemmas have symbols the "
                "model never saw; their lemmas' underlying forms are fitted on the other known "
                f"forms (the first: {tally.unseen_example})"
            )
        if tally.conflicts:
            say(
                f"warning: {tally.conflicts:,} lemma and feature pairs have different known "
                "forms; all of them are kept as evidence"
            )
        if tally.unknown_cells:
            many = tally.unknown_cells != 1
            rows = f"{tally.unknown_cells:,} row{'s' * many}"
            say(
                f"warning: {rows} ask{'s' * (not many)} for a cell with a feature the model "
                f"never saw; {'they are' if many else 'it is'} spelled from the features of "
                "the cell it knows, from its lemma alone where it knows none (the first: "
                f"{tally.unknown_example})"
            )
        if tally.unfilled:
            rows = f"{tally.unfilled:,} row{'s' * (tally.unfilled != 1)}"
            say(
                f"warning: left {rows} unfilled that cannot be predicted; the first: "
                f"{tally.first_unfilled}"
            )
        if tally.fitted_lemmas:
            new, known = tally.fitted_lemmas, tally.fitted_forms
            lemmas, forms = f"{new:,} new lemma{'s' * (new != 1)}", f"{known:,} known form"
            forms += "s" * (known != 1)
            say(
                f"read the underlying forms of {lemmas} from their spellings and {forms} "
                f"({tally.fit_seconds:.1f} s)"
                if self.model.reads
                else f"fitted the underlying forms of {lemmas} to {forms} ({fit.steps} steps, "
                f"{tally.fit_seconds:.1f} s)"
            )

    def _fit(self, examples: list[Example], wanted: list[str]) -> Vocabularies:
        """The new lemmas' underlying forms, fitted to their known ``examples`` (the model
        that reads, the amortized one, reads them and the ``wanted`` lemmas' spellings)."""
        if not examples and not (self.model.reads and wanted):
            return self.vocabularies
        began = time.perf_counter()
        extended = fit_lemmas(self.model, self.vocabularies, examples, self.options.fit, wanted)
        self.tally.fitted_lemmas += len(extended.morphemes) - len(self.vocabularies.morphemes)
        self.tally.fitted_forms += len(examples)
        self.tally.fit_seconds += time.perf_counter() - began
        return extended

    def _hypotheses(self, vocabularies: Vocabularies, todo: list[int], entries: list[Entry]):
        """The predicted symbol sequences of the cells ``todo``, best first, by index."""
        if not todo:
            return {}
        options = self.options
        chosen = [self.decomposition.morphemes(entries[number]) for number in todo]
        morphemes = encode_morphemes(chosen, vocabularies).to(self.device)
        found = best(
            self.model, morphemes, self.max_length, options.beam, options.nbest, options.precision
        )
        return {
            number: [tuple(vocabularies.symbols.decode(ids)) for ids in ids_list]
            for number, ids_list in zip(todo, found, strict=True)
        }

    def _nll(self, vocabularies: Vocabularies, entries: list[Entry], outputs):
        """``(-log p, -log p / (length + 1))`` of each output form the model can score."""
        morphemes, split = vocabularies.morphemes, self.decomposition.morphemes
        words = {number: split(entries[number]) for number, _, _ in outputs}
        scorable = [
            position
            for position, (number, symbols, _) in enumerate(outputs)
            if symbols is not None and all(m in morphemes for m in words[number])
        ]
        result: list[tuple[float, float] | None] = [None] * len(outputs)
        if scorable:
            examples = [
                Example(entries[outputs[p][0]], outputs[p][1], words[outputs[p][0]])
                for p in scorable
            ]
            data = encode(examples, vocabularies)
            totals = total_nll(self.model, data, precision=self.options.precision)
            lengths = data.lengths.tolist()
            for position, total, length in zip(scorable, totals.tolist(), lengths, strict=True):
                result[position] = (total, total / length)
        return result


def fill(
    run: Run, cells: list[Cell], name: str, device: torch.device, options: PredictOptions
) -> list[list[object]]:
    """The output rows of ``cells`` as one chunk (see :class:`Predictor`), with the messages
    about them on stderr."""
    predictor = Predictor(run, device, options)
    rows = predictor.fill(cells, name)
    predictor.report()
    return rows

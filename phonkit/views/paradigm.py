"""``phonkit paradigm``: one lemma's paradigm as a table — every feature bundle of its part
of speech seen in training, the gold form where the run or the user knows it and where from,
the model's form, and how surprised the model is by each. A lemma new to the model gets an
underlying form fitted to its known cells first (:mod:`phonkit.model.fitting`), as in
``predict``."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import torch

from phonkit.data.cells import Cell
from phonkit.data.encoding import encode, encode_morphemes
from phonkit.data.lexicon import LEMMA, Entry, Example
from phonkit.errors import InputError, at, closest
from phonkit.model.decoding import best, surprisal
from phonkit.model.device import autocast
from phonkit.model.fitting import fit_lemmas
from phonkit.run.directory import SPLITS, Run
from phonkit.run.factory import load_model
from phonkit.settings import FitConfig
from phonkit.tables.candidates import Rewrites
from phonkit.tasks.predict import gather_evidence
from phonkit.views.pos import lemma_classes

KNOWN = "known"  # the source of a gold form given with --known


@dataclass(frozen=True)
class Gold:
    """An attested form of a cell and where it comes from (a split of the run, or known)."""

    surface: tuple[str, ...]
    source: str


@dataclass
class ParadigmCell:
    features: tuple[str, ...]
    golds: list[Gold]
    prediction: tuple[str, ...] = ()
    surprisal: float = math.nan  # of the prediction, nats per symbol (EOS included)
    gold_surprisal: float | None = None  # of the most probable gold form

    @property
    def bundle(self) -> str:
        return ";".join(self.features)

    @property
    def correct(self) -> bool | None:
        """Whether the prediction is one of the gold forms; None where no gold is known."""
        if not self.golds:
            return None
        return any(gold.surface == self.prediction for gold in self.golds)

    @property
    def sources(self) -> list[str]:
        return list(dict.fromkeys(gold.source for gold in self.golds))


@dataclass
class Paradigm:
    lemma: str
    pos: str  # the lemma's part of speech (class), "-" for none
    fitted: bool  # new to the model: its underlying form was fitted to the known cells
    cells: list[ParadigmCell] = field(default_factory=list)

    def tally(self, sources: Sequence[str]) -> tuple[int, int]:
        """(right, scored) over the cells whose gold comes from one of ``sources``."""
        scored = [c for c in self.cells if c.golds and set(c.sources) & set(sources)]
        return sum(bool(c.correct) for c in scored), len(scored)


@dataclass
class Attested:
    """What the run and the user know: gold forms by lemma and bundle, and the bundles that
    training saw for each part of speech."""

    golds: dict[str, dict[tuple[str, ...], list[Gold]]]
    class_bundles: dict[str, set[tuple[str, ...]]]
    entries: dict[str, list[Entry]]  # every known entry of each lemma (for its class)


def attested(run: Run, known: Sequence[Cell], known_surfaces: dict[int, tuple[str, ...]]):
    golds: dict[str, dict[tuple[str, ...], list[Gold]]] = {}
    entries: dict[str, list[Entry]] = {}
    training: list[Entry] = []
    for split in SPLITS:
        for example in run.examples(split):
            entry = example.entry
            cells = golds.setdefault(entry.lemma, {})
            cells.setdefault(entry.features, []).append(Gold(example.surface, split))
            entries.setdefault(entry.lemma, []).append(entry)
            if split == "train":
                training.append(entry)
    for cell in known:
        entries.setdefault(cell.entry.lemma, []).append(cell.entry)
        cells = golds.setdefault(cell.entry.lemma, {})
        bucket = cells.setdefault(cell.entry.features, [])
        if not cell.gap:
            bucket.append(Gold(known_surfaces[id(cell)], KNOWN))
    classes = lemma_classes(training)
    class_bundles: dict[str, set[tuple[str, ...]]] = {}
    for entry in training:
        class_bundles.setdefault(classes[entry.lemma], set()).add(entry.features)
    return Attested(golds, class_bundles, entries)


def lay_out(
    run: Run,
    lemmas: Sequence[str],
    known: Sequence[Cell],
    known_name: str,
    device: torch.device,
    fit: FitConfig | None = None,
    precision: str = "auto",
    beam: int = 1,
) -> list[Paradigm]:
    """The paradigms of ``lemmas`` with the model's forms. ``known`` are cells given by the
    user (predict format): gold forms shown as ``known``, and the evidence that the
    underlying forms of lemmas new to the model are fitted to. A lemma that is neither in
    the model nor in ``known`` is an error naming the closest lemmas of the model."""
    vocabularies = run.vocabularies()
    in_model = {m[len(LEMMA) :] for m in vocabularies.morphemes.items if m.startswith(LEMMA)}
    wanted = list(dict.fromkeys(lemmas))
    given = {cell.entry.lemma for cell in known}
    for lemma in wanted:
        if lemma not in in_model and lemma not in given:
            raise InputError(_unknown(lemma, run, in_model), setting="known_cells")
    known = [cell for cell in known if cell.entry.lemma in wanted]
    filled = [cell for cell in known if not cell.gap]
    transcribed = run.transcriber().transcribe(
        run.config.lang or "", [cell.entry.form for cell in filled]
    )
    surfaces = {id(cell): surface for cell, surface in zip(filled, transcribed, strict=True)}
    evidence = gather_evidence(
        known,
        [cell.entry for cell in known],
        vocabularies,
        {number: surfaces[id(cell)] for number, cell in enumerate(known) if not cell.gap},
        run.path,
        run.decomposition(),
    )
    if evidence.unpredictable:
        number, why = evidence.unpredictable[0]
        raise InputError(why, at(known_name, known[number].line))
    facts = attested(run, known, surfaces)
    paradigms = []
    for lemma in wanted:
        pos = lemma_classes(facts.entries[lemma])[lemma] if lemma in facts.entries else "-"
        own = facts.golds.get(lemma, {})
        bundles = sorted(facts.class_bundles.get(pos, set()) | set(own), key=";".join)
        cells = [ParadigmCell(features, list(own.get(features, []))) for features in bundles]
        paradigms.append(Paradigm(lemma, pos, lemma not in in_model, cells))
    model = load_model(run, device)
    with autocast(device, precision):
        vocabularies = fit_lemmas(model, vocabularies, evidence.examples, fit)
    _predict(run, model, vocabularies, paradigms, precision, beam)
    return paradigms


def _choose(model, vocabularies, decomposition, paradigms, rewrites: Rewrites, precision):
    """The model's form of each cell where analogy rewrites of the lemma's training forms
    and its known cells (``--known``) propose candidates: the one it finds most probable."""
    words, chosen = [], []
    for paradigm in paradigms:
        given = {
            cell.bundle: gold.surface
            for cell in paradigm.cells
            for gold in cell.golds
            if gold.source == KNOWN
        }
        for cell in paradigm.cells:
            entry = Entry(paradigm.lemma, cell.features, "")
            word = Example(entry, (), decomposition.morphemes(entry))
            words.append((word, given))
            chosen.append(cell)
    found = rewrites.ranked(model, vocabularies, words, precision)
    for cell, forms in zip(chosen, found, strict=True):
        if forms:
            cell.prediction = forms[0]


def _unknown(lemma: str, run: Run, in_model: set[str]) -> str:
    held_out = any(
        example.entry.lemma == lemma for split in ("dev", "test") for example in run.examples(split)
    )
    if held_out:
        return (
            f"lemma {lemma!r} is a held-out lemma of {run.path}, never seen in training; "
            "give some of its cells with known_cells=FILE to fit its underlying form"
        )
    return (
        f"lemma {lemma!r} is not in the model {run.path} (give its known cells with "
        f"known_cells=FILE to fit it); closest: {', '.join(closest(lemma, sorted(in_model)))}"
    )


def _predict(run: Run, model, vocabularies, paradigms, precision: str, beam: int) -> None:
    """Fill in each cell's prediction (on runs that rank analogy candidates, as predict fills
    a gap: the candidate the model ranks first, where there is one) and the surprisals of the
    prediction and the gold."""
    cells = [(paradigm.lemma, cell) for paradigm in paradigms for cell in paradigm.cells]
    if not cells:
        return
    decomposition, rewrites = run.decomposition(), Rewrites.of(run)
    entries = [Entry(lemma, cell.features, "") for lemma, cell in cells]
    words = [decomposition.morphemes(entry) for entry in entries]
    morphemes = encode_morphemes(words, vocabularies)
    found = best(model, morphemes, run.config.max_length, beam, 1, precision)
    for (_, cell), ids in zip(cells, found, strict=True):
        cell.prediction = tuple(vocabularies.symbols.decode(ids[0]))
    if rewrites is not None:
        _choose(model, vocabularies, decomposition, paradigms, rewrites, precision)
    scored = [
        Example(entry, cell.prediction, word)
        for entry, word, (_, cell) in zip(entries, words, cells, strict=True)
    ]
    owners = [cell for _, cell in cells]
    for entry, word, (_, cell) in zip(entries, words, cells, strict=True):
        scored += [Example(entry, gold.surface, word) for gold in cell.golds]
        owners += [cell] * len(cell.golds)
    values = surprisal(model, encode(scored, vocabularies), precision=precision).tolist()
    for number, (cell, value) in enumerate(zip(owners, values, strict=True)):
        if number < len(cells):
            cell.surprisal = value
        else:
            lowest = cell.gold_surprisal
            cell.gold_surprisal = value if lowest is None else min(lowest, value)

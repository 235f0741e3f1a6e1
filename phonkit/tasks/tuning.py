"""A run's judges' weights chosen on completed paradigms of new lemmas.

A run that ranks candidates chooses the weights of its judges (the reliability beside the
model's posterior, and the model's temperature) on its dev cells, where it has some
(:func:`phonkit.tables.judges.chosen`). A run trained on everything (``split all``, as on
CoNLL–SIGMORPHON 2017 task 2) has none, and keeps the defaults. Here it chooses them as
that rule does, on the gaps of a covered file (rows as ``predict`` reads them: new lemmas
with some cells given) whose gold forms another file gives, such as the task's covered and
uncovered dev files; the gaps are judged as ``predict`` judges them. The weights are stored
in the run (``judges.json``), which ranks with them from then on.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from phonkit.data.cells import Layout, iter_cells
from phonkit.data.tsv import open_bytes
from phonkit.errors import InputError
from phonkit.model.device import cpu_threads
from phonkit.tables.judges import Judgement, Weights, chosen, contested, right
from phonkit.tables.rewrites import Symbols
from phonkit.tasks.completion import read_forms
from phonkit.tasks.predict import Predictor
from phonkit.tasks.streaming import ReadAhead, chunks, read_first


@dataclass(frozen=True)
class Choice:
    """The weights chosen, those the run had, and on how many gaps: ``gaps`` with a gold
    form, ``contested`` of them with two candidates or more, the gold among them (the only
    ones that tell weights apart), ranked right first by the old weights and the new."""

    weights: Weights
    before: Weights
    gaps: int
    contested: int
    right_before: int
    right: int

    def rows(self) -> list[tuple[str, str]]:
        """``name, value`` rows, as ``phonkit tune`` writes them."""
        return [
            ("reliability", f"{self.weights.reliability:g}"),
            ("temperature", f"{self.weights.temperature:g}"),
            ("gaps", str(self.gaps)),
            ("contested", str(self.contested)),
            ("right_before", str(self.right_before)),
            ("right", str(self.right)),
        ]


def judged_gaps(
    predictor: Predictor, covered: Path, gold: Path, layout: Layout
) -> tuple[list[Judgement], list[Symbols]]:
    """The judgement of every gap of ``covered`` that ``gold`` has a form for, and those
    forms (transcribed as the run's forms), read as ``predict`` reads: whole first, then chunk
    by chunk."""
    forms = read_forms(gold, layout, gold=True)
    name = str(covered)
    judgements: list[Judgement] = []
    golds: list[str] = []
    with (
        open_bytes(covered) as opened,
        read_first(predictor, opened, name, layout) as stream,
        cpu_threads(predictor.device),
    ):
        rows = ReadAhead(iter_cells(stream, name, layout=layout))
        try:
            for chunk in chunks(rows, lambda lemma: not predictor.knows(lemma), name):
                for index, judgement in predictor.judgements(chunk, name):
                    lemma, features, _ = (field.strip() for field in chunk[index].fields())
                    if form := forms.get((lemma, features)):
                        judgements.append(judgement)
                        golds.append(form)
        finally:
            rows.close()
    transcribed = predictor.transcriber.transcribe(predictor.lang, golds) if golds else []
    return judgements, [tuple(symbols) for symbols in transcribed]


def tune(predictor: Predictor, covered: Path, gold: Path, layout: Layout) -> Choice:
    """Choose the judges' weights of ``predictor``'s run on the gaps of ``covered`` scored
    against ``gold`` (:func:`~phonkit.tables.judges.chosen`), rank with them from now on and
    store them in the run with its context width (``judges.json``)."""
    rewrites = predictor.rewrites
    if rewrites is None:
        raise InputError(
            f"{predictor.run.path} ranks no candidates (model.candidates "
            f"{predictor.run.config.model.candidates!r}): it has no judges' weights to choose"
        )
    judgements, golds = judged_gaps(predictor, covered, gold, layout)
    if not judgements:
        raise InputError(f"no gap of {covered} has a form in {gold}: nothing to choose on")
    before = rewrites.weights
    weights = chosen(judgements, golds, rewrites.default_weights)
    contest = contested(judgements, golds)
    rewrites.weights = weights
    predictor.run.write_judges(asdict(weights) | {"width": rewrites.width})
    return Choice(
        weights, before, len(judgements), len(contest), right(contest, before),
        right(contest, weights),
    )  # fmt: skip

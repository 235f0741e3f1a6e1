"""Candidates by analogy, chosen by the model: ``model.candidates = analogy | analogy+copy``.

A small table teaches a rewrite between two cells from a handful of stems, but not which of
several rewrites a stem takes (``-lar`` or ``-ler``, a voiced or a voiceless stop): that
depends on the stem, which is what its underlying form encodes. So a gap's candidates are
the affix rewrites of the stem's known forms into the gap's cell (every rewrite the
analogy baseline counted between the two cells, :class:`~phonkit.tasks.baseline.
AnalogyBaseline`), and the model chooses: candidates ranked by their log-probability given
the word's underlying form. A gap with no candidate (no rewrite applies) gets the model's
own decoding.

With ``analogy+copy`` two more judges join: copy models (:mod:`phonkit.model.copying`),
which read the stem's known forms. Each judge's -log p becomes a posterior over the gap's
candidates; the candidates are ranked by the mean of the three, and a gap with no candidate
gets the first copy model's greedy form. docs/small-data.md measures both.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from phonkit.data.encoding import Example, Vocabularies, encode
from phonkit.model.copying import CopyModel
from phonkit.model.decoding import total_nll
from phonkit.model.phonology import Phonology
from phonkit.run.directory import Run
from phonkit.tasks.baseline import AnalogyBaseline, Paradigm, Symbols, apply

EXCEPTIONLESS = 2  # stems a rewrite must hold for, without exception, to be taken as it is


class Rewrites:
    """The affix rewrites between every two cells, counted over known paradigms."""

    def __init__(self, examples: Sequence[Example], copies: Sequence[CopyModel] = ()):
        self.paradigms = dict(known_forms(examples))
        self.analogy = AnalogyBaseline(self.paradigms)
        self.copies = list(copies)

    @classmethod
    def of(cls, run: Run) -> Rewrites | None:
        """The rewrites of a run whose model ranks them (``model.candidates`` is not
        ``model``), counted over its training forms, with the run's copy models where it
        has them; None for a model that decodes on its own."""
        if run.config.model.candidates == "model":
            return None
        return cls(run.examples("train"), run.copy_models())

    def known(self, lemma: str, given: Paradigm | None = None) -> Paradigm:
        """The known forms of ``lemma``: its training paradigm and ``given``."""
        return {**self.paradigms.get(lemma, {}), **(given or {})}

    def candidates(self, lemma: str, bundle: str, known: Paradigm | None = None) -> list[Symbols]:
        """The forms of ``lemma`` in ``bundle`` that the rewrites make from its known forms
        (its training paradigm and ``known``), most often seen rewrite first, without
        repeats. Where a known cell goes to ``bundle`` by one rewrite without exception (on
        at least :data:`EXCEPTIONLESS` stems), its forms are the only candidates: the table
        leaves nothing to choose."""
        forms = self.known(lemma, known)
        found: dict[Symbols, None] = {}
        certain: dict[Symbols, None] = {}
        for source, form in forms.items():
            if source == bundle:
                continue
            rules = self.analogy.rules.get((source, bundle), [])
            for rule, count in rules:
                rewritten = apply(rule, form)
                if rewritten:
                    found.setdefault(rewritten)
                    if len(rules) == 1 and count >= EXCEPTIONLESS:
                        certain.setdefault(rewritten)
        return list(certain or found)

    def ranked(
        self,
        model: Phonology,
        vocabularies: Vocabularies,
        words: Sequence[tuple[Example, Paradigm | None]],
        precision: str = "auto",
    ) -> list[list[Symbols]]:
        """For each (word, its known forms beside the training ones): its candidates, most
        probable first (the model's -log p in one batch; with copy models, the mean of every
        judge's posterior), or the first copy model's greedy form where there is no
        candidate (nothing without copy models)."""
        found = [(word, self.known(word.entry.lemma, given)) for word, given in words]
        candidates = [
            self.candidates(word.entry.lemma, word.entry.bundle, known) for word, known in found
        ]
        judged = scored_by(model, vocabularies, [word for word, _ in words], candidates, precision)
        result = []
        for (word, known), scored in zip(found, judged, strict=True):
            forms = [form for form, _ in scored]
            if len(forms) > 1:
                forms = self._by_every_judge(scored, known, word.entry.bundle)
            elif not forms and self.copies:
                guess = self.copies[0].greedy(known, word.entry.bundle)
                forms = [guess] if guess else []
            result.append(forms)
        return result

    def _by_every_judge(self, scored, known: Paradigm, bundle: str) -> list[Symbols]:
        """The forms of ``scored`` (form, the model's -log p) by the mean of the posteriors
        of the model and of every copy model that can read the stem."""
        forms = [form for form, _ in scored]
        judged = [copy.nll(known, bundle, forms) for copy in self.copies]
        posteriors = [posterior(nlls) for nlls in [[n for _, n in scored], *judged] if nlls]
        mean = [sum(column) for column in zip(*posteriors, strict=True)]
        return [form for _, form in sorted(zip(mean, forms, strict=True), key=lambda p: -p[0])]


def posterior(nlls: Sequence[float]) -> list[float]:
    """The distribution over candidates whose -log p are ``nlls``."""
    best = min(nlls)
    weights = [math.exp(best - nll) for nll in nlls]
    return [weight / sum(weights) for weight in weights]


def scored_by(
    model: Phonology,
    vocabularies: Vocabularies,
    words: Sequence[Example],
    candidates: Sequence[Sequence[Symbols]],
    precision: str = "auto",
) -> list[list[tuple[Symbols, float]]]:
    """For each word: its candidates with their -log p given the word's morphemes, most
    probable first (one batch for all). A symbol the model never saw reads as ``<unk>``,
    which makes a candidate improbable rather than impossible."""
    flat = [
        Example(word.entry, candidate, word.morphemes)
        for word, forms in zip(words, candidates, strict=True)
        for candidate in forms
    ]
    if not flat:
        return [[] for _ in words]
    totals = total_nll(model, encode(flat, vocabularies), precision=precision).tolist()
    result, position = [], 0
    for forms in candidates:
        scored = list(zip(forms, totals[position : position + len(forms)], strict=True))
        position += len(forms)
        result.append(sorted(scored, key=lambda pair: pair[1]))
    return result


def known_forms(examples: Sequence[Example]) -> Mapping[str, Paradigm]:
    """Known forms by lemma and bundle, as evidence for :meth:`Rewrites.candidates`."""
    forms: dict[str, Paradigm] = {}
    for example in examples:
        forms.setdefault(example.entry.lemma, {}).setdefault(example.entry.bundle, example.surface)
    return forms

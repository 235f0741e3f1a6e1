"""Candidates by analogy, chosen by the model: the ``candidates = analogy`` model setting.

A small table teaches a rewrite between two cells from a handful of stems, but not which of
several rewrites a stem takes (``-lar`` or ``-ler``, a voiced or a voiceless stop): that
depends on the stem, which is what its underlying form encodes. So a gap's candidates are
the affix rewrites of the stem's known forms into the gap's cell (every rewrite the
analogy baseline counted between the two cells, :class:`~phonkit.tasks.baseline.
AnalogyBaseline`), and the model chooses: candidates ranked by their log-probability given
the word's underlying form. A gap with no candidate (no rewrite applies) gets the model's
own decoding. docs/small-data.md measures it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from phonkit.data.encoding import Example, Vocabularies, encode
from phonkit.model.decoding import total_nll
from phonkit.model.phonology import Phonology
from phonkit.run.directory import Run
from phonkit.tasks.baseline import AnalogyBaseline, Paradigm, Symbols, apply

EXCEPTIONLESS = 2  # stems a rewrite must hold for, without exception, to be taken as it is


class Rewrites:
    """The affix rewrites between every two cells, counted over known paradigms."""

    def __init__(self, examples: Sequence[Example]):
        self.paradigms = dict(known_forms(examples))
        self.analogy = AnalogyBaseline(self.paradigms)

    @classmethod
    def of(cls, run: Run) -> Rewrites | None:
        """The rewrites of a run whose model ranks them (``model.candidates = analogy``),
        counted over its training forms; None for a model that decodes on its own."""
        if run.config.model.candidates != "analogy":
            return None
        return cls(run.examples("train"))

    def candidates(self, lemma: str, bundle: str, known: Paradigm | None = None) -> list[Symbols]:
        """The forms of ``lemma`` in ``bundle`` that the rewrites make from its known forms
        (its training paradigm and ``known``), most often seen rewrite first, without
        repeats. Where a known cell goes to ``bundle`` by one rewrite without exception (on
        at least :data:`EXCEPTIONLESS` stems), its forms are the only candidates: the table
        leaves nothing to choose."""
        forms = {**self.paradigms.get(lemma, {}), **(known or {})}
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
    model: Phonology,
    vocabularies: Vocabularies,
    words: Sequence[tuple[Example, Sequence[Symbols]]],
    precision: str = "auto",
) -> list[list[tuple[Symbols, float]]]:
    """For each (word, candidates): the candidates with their -log p given the word's
    morphemes, most probable first (one batch for all). A symbol the model never saw reads
    as ``<unk>``, which makes a candidate improbable rather than impossible."""
    flat = [
        Example(word.entry, candidate, word.morphemes)
        for word, candidates in words
        for candidate in candidates
    ]
    if not flat:
        return [[] for _ in words]
    totals = total_nll(model, encode(flat, vocabularies), precision=precision).tolist()
    result, position = [], 0
    for _, candidates in words:
        scored = list(zip(candidates, totals[position : position + len(candidates)], strict=True))
        position += len(candidates)
        result.append(sorted(scored, key=lambda pair: pair[1]))
    return result


def known_forms(examples: Sequence[Example]) -> Mapping[str, Paradigm]:
    """Known forms by lemma and bundle, as evidence for :meth:`Rewrites.candidates`."""
    forms: dict[str, Paradigm] = {}
    for example in examples:
        forms.setdefault(example.entry.lemma, {}).setdefault(example.entry.bundle, example.surface)
    return forms

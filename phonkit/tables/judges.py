"""The judges of a gap's candidates: the run's model and its copy models, and beside them the
table's own count of how reliable each candidate's rewrite is.

Each judge's -log p over a gap's candidates becomes a posterior over them, and the candidates
are ranked by the sum of the judges' posteriors and of the rewrites' reliability, normalised
over the candidates and weighted as much as the judges together (docs/small-data.md,
"Judges", measures this rule against the others tried, on the 33 tables and on tables never
tuned on).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from phonkit.data.encoding import Example, Vocabularies, encode
from phonkit.model.copying import CopyModel
from phonkit.model.decoding import total_nll
from phonkit.model.phonology import Phonology
from phonkit.tables.rewrites import Paradigm, Symbols
from phonkit.tables.sizes import RELIABILITY


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


def by_every_judge(
    scored: Sequence[tuple[Symbols, float]],
    copies: Sequence[CopyModel],
    known: Paradigm,
    bundle: str,
    reliability: Sequence[float] = (),
) -> list[Symbols]:
    """The forms of ``scored`` (form, the model's -log p) by the mean of the posteriors of
    the model and of every copy model that can read the stem, plus ``reliability`` (a
    distribution over the forms, :meth:`~phonkit.tables.candidates.Rewrites.reliability`)
    weighted :data:`~phonkit.tables.sizes.RELIABILITY` times the judges' mean."""
    forms = [form for form, _ in scored]
    judged = [copy.nll(known, bundle, forms) for copy in copies]
    posteriors = [posterior(nlls) for nlls in [[n for _, n in scored], *judged] if nlls]
    if reliability:
        posteriors.append([RELIABILITY * len(posteriors) * r for r in reliability])
    mean = [sum(column) for column in zip(*posteriors, strict=True)]
    return [form for _, form in sorted(zip(mean, forms, strict=True), key=lambda p: -p[0])]

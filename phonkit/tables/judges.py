"""The judges of a gap's candidates: the run's model and its copy models, and beside them the
table's own count of how reliable each candidate's rewrite is.

Each judge's -log p over a gap's candidates becomes a posterior over them, and the candidates
are ranked by the sum of the judges' posteriors and of the rewrites' reliability, normalised
over the candidates and weighted as much as the judges together where copy models judge
(docs/results/tables.md, "Judges", measures this rule against the others tried, on the 33
tables and on tables never tuned on). Where the model judges alone (the default model), the
reliability decides and the model's posterior, tempered, breaks its ties
(docs/results/task2.md, "The judges' weights"). A run with dev cells chooses the weight of
the reliability and the judges' temperature on them (:class:`Weights`, :func:`chosen`;
docs/results/tables.md, "Weights chosen on dev"); a run without keeps its defaults, or
has them chosen on new lemmas' completed paradigms (:mod:`phonkit.tasks.tuning`, ``phonkit
tune``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from phonkit.data.encoding import encode
from phonkit.data.lexicon import Example, Vocabularies
from phonkit.model.copying import CopyModel
from phonkit.model.decoding import total_nll
from phonkit.model.phonology import Model
from phonkit.tables.rewrites import Paradigm, Symbols
from phonkit.tables.sizes import (
    JUDGES_TEMPERATURES,
    RELIABILITIES,
    RELIABILITY,
    RELIABILITY_ALONE,
    TEMPERATURE_ALONE,
)


def posterior(nlls: Sequence[float], temperature: float = 1.0) -> list[float]:
    """The distribution over candidates whose -log p are ``nlls``, at ``temperature``."""
    best = min(nlls)
    weights = [math.exp((best - nll) / temperature) for nll in nlls]
    return [weight / sum(weights) for weight in weights]


def scored_by(
    model: Model,
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


@dataclass(frozen=True)
class Weights:
    """How a gap's judges are combined: each judge's -log p divided by ``temperature``
    before it becomes a posterior, and the rewrites' reliability weighted ``reliability``
    times the judges' mean."""

    reliability: float = RELIABILITY
    temperature: float = 1.0

    @classmethod
    def default(cls, copies: bool) -> Weights:
        """The weights of a run that chose none on dev cells: those above where copy models
        judge beside the model; where the model judges alone, the reliability decides and
        the model breaks its ties (:data:`~phonkit.tables.sizes.RELIABILITY_ALONE`,
        :data:`~phonkit.tables.sizes.TEMPERATURE_ALONE`)."""
        return cls() if copies else cls(RELIABILITY_ALONE, TEMPERATURE_ALONE)

    def distance(self) -> float:
        """How far these weights are from equal weights (the reliability as much as the
        judges, their -log p as they are), in factors of two."""
        equal = Weights()
        return abs(math.log2(self.reliability / equal.reliability)) + abs(
            math.log2(self.temperature / equal.temperature)
        )


@dataclass(frozen=True)
class Judgement:
    """A gap's candidates (the model's most probable first), with each judge's -log p over
    them (the model's, then every copy model's that can read the stem) and the rewrites'
    reliability; none for a gap with one candidate or none, which has nothing to judge."""

    forms: list[Symbols]
    nlls: list[list[float]] = field(default_factory=list)
    reliability: list[float] = field(default_factory=list)

    def ranked(self, weights: Weights = Weights()) -> list[Symbols]:
        """The forms by the mean of the judges' posteriors plus the reliability (a
        distribution over the forms, :meth:`~phonkit.tables.candidates.Rewrites.reliability`)
        weighted ``weights.reliability`` times the judges' mean."""
        if not self.nlls:
            return self.forms
        posteriors = [posterior(nlls, weights.temperature) for nlls in self.nlls]
        if self.reliability:
            share = weights.reliability * len(posteriors)
            posteriors.append([share * r for r in self.reliability])
        mean = [sum(column) for column in zip(*posteriors, strict=True)]
        ranking = sorted(zip(mean, self.forms, strict=True), key=lambda p: -p[0])
        return [form for _, form in ranking]


def judged(
    scored: Sequence[tuple[Symbols, float]],
    copies: Sequence[CopyModel],
    known: Paradigm,
    bundle: str,
    reliability: Sequence[float] = (),
) -> Judgement:
    """The judgement of the forms of ``scored`` (form, the model's -log p) by the model and
    every copy model that can read the stem, with the rewrites' ``reliability``."""
    forms = [form for form, _ in scored]
    judges = [[nll for _, nll in scored], *(copy.nll(known, bundle, forms) for copy in copies)]
    return Judgement(forms, [nlls for nlls in judges if nlls], list(reliability))


Contest = list[tuple[Judgement, Symbols]]  # judgements with their gold forms


def contested(judgements: Sequence[Judgement], golds: Sequence[Symbols]) -> Contest:
    """The judgements (with their gold forms) that weights can tell apart: two candidates
    or more (judged), the gold among them."""
    return [
        (judgement, gold)
        for judgement, gold in zip(judgements, golds, strict=True)
        if judgement.nlls and gold in judgement.forms
    ]


def right(contest: Contest, weights: Weights) -> int:
    """How many of ``contest`` rank their gold form first under ``weights``."""
    return sum(judgement.ranked(weights)[0] == gold for judgement, gold in contest)


def chosen(
    judgements: Sequence[Judgement], golds: Sequence[Symbols], default: Weights = Weights()
) -> Weights:
    """The weights (``default``, :data:`~phonkit.tables.sizes.RELIABILITIES` by
    :data:`~phonkit.tables.sizes.JUDGES_TEMPERATURES`) under which the most judgements rank
    their gold form first; of those that tie, the nearest to equal weights (so equal weights
    stay unless others do strictly better); ``default`` where no judgement is contested."""
    contest = contested(judgements, golds)
    if not contest:
        return default
    grid = sorted(
        {default, *(Weights(r, t) for r in RELIABILITIES for t in JUDGES_TEMPERATURES)},
        key=lambda weights: (weights.distance(), weights.reliability, weights.temperature),
    )
    return max(grid, key=lambda weights: right(contest, weights))

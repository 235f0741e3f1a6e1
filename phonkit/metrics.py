"""What a metric is: a score over predicted and gold surface forms."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Scored:
    """One held-out cell: the 1-best prediction, the gold form and the gold form's surprisal."""

    prediction: tuple[str, ...]
    gold: tuple[str, ...]
    nll: float  # -log p(gold) / (len(gold) + 1), in nats, with the underlying form at its mean


class Metric:
    """Base class of metrics. A metric scores each item (``item_scores``); its score over a
    set of items is always the mean of those item scores. That one rule keeps the figures
    that are computed apart consistent: ``metrics.json`` and ``evaluate`` give the mean, and
    ``predictions.tsv``, ``compare`` and the permutation tests work on the item scores. A
    rate over a whole set (errors per segment) is therefore defined per item (errors per
    segment of that item) and averaged."""

    name: str = ""
    description: str = ""
    higher_is_better: bool = True

    def item_scores(self, items: Sequence[Scored]) -> list[float]:
        raise NotImplementedError

    def score(self, items: Sequence[Scored]) -> float:
        """The mean item score: a convenience for a plugin's own tests; phonkit itself
        always takes the mean of ``item_scores``, so a metric cannot disagree with it."""
        return mean(self.item_scores(items))


def mean(scores: Sequence[float]) -> float:
    return sum(scores) / len(scores) if scores else float("nan")

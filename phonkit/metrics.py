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
    """Base class of metrics. ``score`` defaults to the mean of ``item_scores``."""

    name: str = ""
    description: str = ""
    higher_is_better: bool = True

    def item_scores(self, items: Sequence[Scored]) -> list[float]:
        raise NotImplementedError

    def score(self, items: Sequence[Scored]) -> float:
        return mean(self.item_scores(items))


def mean(scores: Sequence[float]) -> float:
    return sum(scores) / len(scores) if scores else float("nan")


def summarize(metric: Metric, items: Sequence[Scored], item_scores: Sequence[float]) -> float:
    """A metric's score over ``items`` whose item scores are known: their mean, unless the
    metric defines a score of its own (such as corpus-level chrF)."""
    if type(metric).score is Metric.score:
        return mean(item_scores)
    return metric.score(items)

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
        scores = self.item_scores(items)
        return sum(scores) / len(scores) if scores else float("nan")

"""Built-in metrics: accuracy, mean edit distance, surprisal and chrF."""

from __future__ import annotations

from collections.abc import Sequence

from rapidfuzz.distance import Levenshtein

from phonkit.hookspecs import hookimpl
from phonkit.metrics import Metric, Scored


class Accuracy(Metric):
    name = "acc"
    description = "exact-match accuracy of the 1-best form, in %"

    def item_scores(self, items: Sequence[Scored]) -> list[float]:
        return [100.0 * (item.prediction == item.gold) for item in items]


class MeanEditDistance(Metric):
    name = "mld"
    description = "mean Levenshtein distance of the 1-best to the gold form, in symbols"
    higher_is_better = False

    def item_scores(self, items: Sequence[Scored]) -> list[float]:
        return [float(Levenshtein.distance(item.prediction, item.gold)) for item in items]


class Surprisal(Metric):
    name = "nll"
    description = "-log p(gold form) / (length + 1), in nats per symbol"
    higher_is_better = False

    def item_scores(self, items: Sequence[Scored]) -> list[float]:
        return [item.nll for item in items]


class ChrF(Metric):
    name = "chrf"
    description = "chrF (sacrebleu) of each 1-best form against its gold form, averaged"

    def item_scores(self, items: Sequence[Scored]) -> list[float]:
        from sacrebleu.metrics import CHRF

        chrf = CHRF()
        return [
            chrf.sentence_score("".join(item.prediction), ["".join(item.gold)]).score
            for item in items
        ]


@hookimpl
def register_metrics(register):
    for metric in (Accuracy(), MeanEditDistance(), Surprisal(), ChrF()):
        register(metric)

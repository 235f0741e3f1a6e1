"""Phonologically aware errors and natural classes for phonkit, from panphon's articulatory
features (David R. Mortensen et al., "PanPhon", COLING 2016).

An edit that swaps [p] for [b] changes one feature (voice) and costs little; [p] for [a]
changes most of them and costs much more. Plain edit distance (phonkit's ``mld``) charges
both the same. The same features name the contexts of ``phonkit uf processes`` as natural
classes (``b → p / _[-son]``).
"""

from __future__ import annotations

import csv
import importlib.util
import unicodedata
from collections.abc import Sequence
from functools import cache, cached_property, lru_cache
from pathlib import Path

from phonkit.plugin import FeatureTable, Metric, Scored, hookimpl


class PanPhonMetric(Metric):
    higher_is_better = False

    @cached_property
    def table(self):
        """The feature table of the distance's (building another took as long again: 0.9
        s, in every process that scores a run)."""
        return _distance().fm

    def item_scores(self, items: Sequence[Scored]) -> list[float]:
        """Feature edit distance of each prediction to its gold form (IPA symbols)."""
        return [feature_edit_distance("".join(i.prediction), "".join(i.gold)) for i in items]


@lru_cache(maxsize=1 << 18)
def feature_edit_distance(prediction: str, gold: str) -> float:
    """Remembered: panphon's distance is slow (a Python loop over feature vectors), and ``fed``
    and ``fer`` score the same pairs, as do repeated evaluations of one run."""
    return _distance().feature_edit_distance(prediction, gold)


@cache
def _distance():
    import panphon.distance

    return panphon.distance.Distance()


class FeatureEditDistance(PanPhonMetric):
    name = "fed"
    description = "mean feature-weighted edit distance to the gold IPA form (panphon)"


class FeatureErrorRate(PanPhonMetric):
    name = "fer"
    description = "feature edit distance per gold IPA segment, averaged over forms (panphon)"

    def item_scores(self, items: Sequence[Scored]) -> list[float]:
        """Each form's feature edit distance divided by its number of gold segments (at least
        one: a gold form panphon finds no IPA segment in counts as one)."""
        distances = super().item_scores(items)
        return [
            distance / max(1, len(self.table.ipa_segs("".join(item.gold))))
            for distance, item in zip(distances, items, strict=True)
        ]


SPELLED_OUT = {
    "ʧ": "t͡ʃ", "ʤ": "d͡ʒ", "ʦ": "t͡s", "ʣ": "d͡z", "ʨ": "t͡ɕ", "ʥ": "d͡ʑ", "g": "ɡ",
}  # fmt: skip


class PanPhonFeatures(FeatureTable):
    name = "panphon"
    description = "panphon's 24 articulatory features of IPA segments (+, - or 0)"

    @cached_property
    def values(self) -> dict[str, dict[str, str]]:
        """Every segment of panphon's table (NFD, as panphon looks segments up) with its
        values: read from the table's file, ``data/ipa_all.csv`` of the panphon package,
        in milliseconds, where panphon's ``FeatureTable`` takes seconds to build it (pandas,
        and a pattern of every segment that ``features`` does not need); from that class
        where the file is not found."""
        spec = importlib.util.find_spec("panphon")
        folders = spec.submodule_search_locations if spec is not None else None
        path = Path(list(folders)[0]) / "data" / "ipa_all.csv" if folders else None
        if path is None or not path.is_file():
            import panphon.featuretable

            table = panphon.featuretable.FeatureTable()
            return {
                ipa: {name: "+" if v > 0 else "-" if v < 0 else "0" for name, v in found.items()}
                for ipa, found in table.seg_dict.items()
            }  # fmt: skip
        with path.open(encoding="utf-8", newline="") as handle:
            return {
                unicodedata.normalize("NFD", row.pop("ipa")): row
                for row in csv.DictReader(handle)
            }

    def features(self, segment: str) -> dict[str, str] | None:
        """The segment's values (None for what panphon does not read as one IPA segment).
        The IPA's ligatures for affricates (``ʧ``) and the Latin ``g``, which tables often
        write and panphon does not read, are read as what they stand for (``t͡ʃ``, ``ɡ``)."""
        spelled = "".join(SPELLED_OUT.get(c, c) for c in segment)
        found = self.values.get(unicodedata.normalize("NFD", spelled))
        return dict(found) if found else None


@hookimpl
def register_feature_tables(register):
    register(PanPhonFeatures())


@hookimpl
def register_metrics(register):
    register(FeatureEditDistance())
    register(FeatureErrorRate())

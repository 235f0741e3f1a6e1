"""Reference points: for inflecting lemmas, the most frequent edit per feature bundle; for
filling a paradigm table, the affix-rewrite analogy and copying the nearest known form.

The edits are :mod:`phonkit.tables.rewrites`'s: the rewrite of a lemma into its form around
their longest common substring (``werken -> gewerkt``: prefix ``'' -> 'ge'``, suffix
``'en' -> 't'``). A new lemma in a bundle gets the most frequent edit of that bundle whose
prefix and suffix it has; with none, it stays as it is.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

from phonkit.tables.rewrites import CellRewrites, Edit, Paradigm, Symbols, apply, cell_pairs, edit


class EditBaseline:
    """Most frequent lemma -> form edit per feature bundle, learned from training pairs."""

    def __init__(self, pairs: Iterable[tuple[str, Symbols, Symbols]]):
        """``pairs``: (bundle, lemma symbols, form symbols)."""
        counts: dict[str, Counter[Edit]] = defaultdict(Counter)
        for bundle, lemma, form in pairs:
            counts[bundle][edit(lemma, form)] += 1
        self.edits = {bundle: [rule for rule, _ in c.most_common()] for bundle, c in counts.items()}

    def inflect(self, bundle: str, lemma: Symbols) -> Symbols:
        for rule in self.edits.get(bundle, ()):
            form = apply(rule, lemma)
            if form is not None:
                return form
        return lemma

    def inflect_all(self, cells: Sequence[tuple[str, Symbols]]) -> list[Symbols]:
        return [self.inflect(bundle, lemma) for bundle, lemma in cells]


class AnalogyBaseline(CellRewrites):
    """The affix-rewrite analogy of a paradigm table: a stem's b-form comes from the known
    cell a whose most frequent applicable rewrite (:class:`CellRewrites`) is most reliable
    (the largest share of the training stems with both cells), ties going to the cell met
    first."""

    def candidates(self, known: Paradigm, target: str) -> list[tuple[float, Symbols]]:
        """(reliability, form) from each known cell's best applicable rewrite, best first."""
        found = []
        for source, form in known.items():
            between = self.between(source, target)
            for rule, count in between.rules:
                rewritten = apply(rule, form)
                if rewritten is not None:
                    found.append((count / between.stems, rewritten))
                    break
        return sorted(found, key=lambda candidate: -candidate[0])

    def fill(self, known: Paradigm, target: str) -> Symbols:
        found = self.candidates(known, target)
        return found[0][1] if found else NearestFormBaseline.first(known)


class NearestFormBaseline:
    """Copy the stem's known form from the cell nearest the target: the cell whose forms
    differ least from the target cell's (mean edit distance over the training stems that
    have both)."""

    def __init__(self, paradigms: dict[str, Paradigm]):
        from rapidfuzz.distance import Levenshtein

        distances: dict[tuple[str, str], list[int]] = defaultdict(list)
        for source, target, source_form, target_form in cell_pairs(paradigms):
            distances[source, target].append(Levenshtein.distance(source_form, target_form))
        self.distance = {pair: sum(d) / len(d) for pair, d in distances.items()}

    def fill(self, known: Paradigm, target: str) -> Symbols:
        ranked = sorted(known, key=lambda cell: self.distance.get((cell, target), float("inf")))
        return known[ranked[0]] if ranked else ()

    @staticmethod
    def first(known: Paradigm) -> Symbols:
        return next(iter(known.values()), ())


TABLE_BASELINES: dict[str, type[AnalogyBaseline | NearestFormBaseline]] = {
    "analogy": AnalogyBaseline,
    "nearest": NearestFormBaseline,
}

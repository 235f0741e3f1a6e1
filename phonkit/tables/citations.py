"""The lemma as a known form: a gap's stem is named by its citation form, and a corpus's
lemma is one of the paradigm's forms (UniMorph's: a Dutch verb's infinitive, an adjective's
bare form, a noun's singular).

A *citation cell* is one whose training forms are their lemma, all of them or all but a few
(:data:`~phonkit.tables.sizes.CITATION_SHARE`, on at least
:data:`~phonkit.tables.sizes.EXCEPTIONLESS` forms). A gap in a citation cell of its stem's
paradigm (a cell that some training paradigm shows beside one of the stem's known cells) is
the lemma, spelled as the run spells forms. The lemma is not a source of other cells'
candidates: taken as one more known form it lowered new Dutch lemmas from 82.9 to 70.3 %
(an infinitive hides the vowel length that the revealed cell shows: *bedaren* made *bedar*
for *bedaar*; docs/results/tables.md#citation-forms). A table whose stems are numbered, or
named by a gloss, has no citation cell, and nothing changes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence

from phonkit.data.lexicon import Example, as_written
from phonkit.tables.rewrites import Symbols
from phonkit.tables.sizes import CITATION_SHARE, EXCEPTIONLESS

Spell = Callable[[Sequence[str]], list[Symbols]]  # lemmas as the run spells forms


class Citations:
    """The citation cells of a set of training examples, and the lemmas' spellings."""

    def __init__(self, examples: Sequence[Example], spell: Spell | None = None):
        forms: Counter[str] = Counter()
        as_lemma: Counter[str] = Counter()
        cells: dict[str, set[str]] = {}
        self.spelled: dict[str, Symbols] = {}
        for example in examples:
            entry = example.entry
            forms[entry.bundle] += 1
            cells.setdefault(entry.lemma, set()).add(entry.bundle)
            if entry.form == entry.lemma:
                as_lemma[entry.bundle] += 1
                self.spelled[entry.lemma] = example.surface
        self.cells = sorted(
            bundle
            for bundle, total in forms.items()
            if total >= EXCEPTIONLESS and as_lemma[bundle] >= CITATION_SHARE * total
        )
        self.beside: dict[str, set[str]] = {cell: set() for cell in self.cells}
        for bundles in cells.values():
            for cell in self.cells:
                if cell in bundles:
                    self.beside[cell] |= bundles
        self.spell = spell

    def form(self, lemma: str, bundle: str, forms: Mapping[str, Symbols]) -> Symbols | None:
        """The lemma, spelled as forms are, where ``bundle`` is a citation cell of the
        paradigm whose known ``forms`` lack it; else None."""
        if (
            bundle not in self.beside
            or bundle in forms
            or not any(known in self.beside[bundle] for known in forms)
        ):
            return None
        written = as_written(lemma)  # a new lemma of predict's is named apart by its rows
        spelled = self.spelled.get(written)
        if spelled is None and self.spell is not None:
            spelled = self.spelled[written] = self.spell([written])[0]
        return spelled

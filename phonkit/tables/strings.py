"""A run's underlying strings: inferred from its training forms, written to its directory and
read back, shown as a table of morphemes, and used to spell out and judge a stem's forms.

Each lemma of the training split is a stem whose known forms are its training forms, by
cell (feature bundle). The strings are inferred once (:func:`phonkit.tables.underlying.infer`:
a search) and stored; read back, the processes are counted again from the stored strings,
which takes no search. A stem the run never saw gets the string its given forms make
cheapest under those processes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from phonkit.data.features import Features
from phonkit.data.lexicon import Example
from phonkit.data.tsv import format_rows
from phonkit.run.directory import Run
from phonkit.tables.segments import Alphabet
from phonkit.tables.spellout import cost, spell
from phonkit.tables.underlying import infer

Symbols = tuple[str, ...]
Paradigm = Mapping[str, Symbols]
HEADER = ("morpheme", "kind", "underlying", "score", "surface")
NULL = "∅"  # an empty affix


@dataclass(frozen=True)
class Morpheme:
    """A row of ``phonkit uf strings``: a stem or a cell, its underlying string (a cell's:
    its most frequent affix, ``-suffix``, ``prefix-`` or both), how sure the table is of it
    (a stem's: the string's probability among its candidates; a cell's: the share of its
    forms with that affix), and how it surfaces (a stem's stretches in its forms, a cell's
    affixes), most frequent first."""

    name: str
    kind: str
    underlying: str
    score: float
    surface: tuple[str, ...]

    def row(self) -> list[str]:
        return [self.name, self.kind, self.underlying, f"{self.score:.4f}", ", ".join(self.surface)]


class UnderlyingStrings:
    """The underlying strings of the lemmas of a set of training examples."""

    def __init__(
        self,
        examples: Sequence[Example],
        stored: Mapping[str, tuple[Symbols, float]] | None = None,
        features: Features | None = None,
    ):
        """Infer the strings of ``examples``' lemmas, or, with ``stored`` (lemma: its string
        as symbols, and its score), count the processes of those strings; ``features`` gives
        a segment's phonological features (a plugin's feature table), with which a
        substitution is counted as the features it changes."""
        self.alphabet = Alphabet()
        paradigms: dict[str, dict[str, str]] = {}
        for example in examples:
            known = paradigms.setdefault(example.entry.lemma, {})
            known.setdefault(example.entry.bundle, self.alphabet.string(example.surface))
        self.lemmas = list(paradigms)
        rows = [paradigms[lemma] for lemma in self.lemmas]
        by_character = None
        if features is not None:
            by_character = lambda c: features(self.alphabet.symbols_of(c)[0])  # noqa: E731
        if stored is None:
            self.inference = infer(rows, features=by_character)
        else:
            fixed = [
                (self.alphabet.string(stored[lemma][0]), stored[lemma][1])
                if lemma in stored else None
                for lemma in self.lemmas
            ]  # fmt: skip
            self.inference = infer(rows, fixed, by_character)
        self.row_of = {lemma: number for number, lemma in enumerate(self.lemmas)}

    # -- the table of morphemes ----------------------------------------------------------------
    def morphemes(self, join: str = "") -> list[Morpheme]:
        """The stems, then the cells, as ``phonkit uf strings`` lists them; symbols are joined
        by ``join`` (the transcriber's joiner)."""
        text = lambda string: join.join(self.alphabet.symbols_of(string))  # noqa: E731
        inference = self.inference
        found = []
        affixes: dict[str, Counter[tuple[str, str]]] = {}
        for lemma, number in self.row_of.items():
            string, stem = inference.strings[number], inference.stems[number]
            if stem is None:
                continue
            shown: Counter[str] = Counter()
            for cell, analysis in inference.chosen[number].items():
                form = stem.known[cell]
                shown[form[len(analysis.prefix) : len(form) - len(analysis.suffix)]] += 1
                affixes.setdefault(cell, Counter())[analysis.prefix, analysis.suffix] += 1
            surface = tuple(text(s) for s, _ in shown.most_common())
            found.append(Morpheme(lemma, "stem", text(string), inference.scores[number], surface))
        for cell, counted in affixes.items():
            (prefix, suffix), times = counted.most_common(1)[0]
            shapes = tuple(affix(text(p), text(s)) for (p, s), _ in counted.most_common())
            found.append(
                Morpheme(cell, "cell", affix(text(prefix), text(suffix)),
                         times / sum(counted.values()), shapes)
            )  # fmt: skip
        return found

    # -- spelling out and judging ---------------------------------------------------------------
    def string_of(self, lemma: str, given: Paradigm | None = None) -> str | None:
        """The string of ``lemma``: the inferred one, or for a lemma the run never saw, the
        cheapest of those its ``given`` forms make (None without any)."""
        number = self.row_of.get(lemma)
        if number is not None and self.inference.stems[number] is not None:
            return self.inference.strings[number]
        if not given:
            return None
        known = {cell: self.alphabet.string(form) for cell, form in given.items()}
        return self.inference.fit(known)

    def spell(
        self, lemma: str, cell: str, given: Paradigm | None = None, nbest: int = 1
    ) -> list[tuple[Symbols, float]]:
        """The ``nbest`` most probable forms of ``lemma`` in ``cell``, with their costs."""
        string = self.string_of(lemma, given)
        if string is None:
            return []
        inference = self.inference
        return [
            (self.alphabet.symbols_of(spelled.form), spelled.cost)
            for spelled in spell(string, cell, inference.evidence, inference.processes, nbest)
        ]

    def costs(
        self, lemma: str, cell: str, forms: Iterable[Symbols], given: Paradigm | None = None
    ) -> list[float] | None:
        """-log p of each of ``forms`` in ``cell`` from ``lemma``'s string (None without
        a string)."""
        string = self.string_of(lemma, given)
        if string is None:
            return None
        inference = self.inference
        number = self.row_of.get(lemma)
        stem = inference.stems[number] if number is not None else None
        core = stem.core if stem is not None else ""
        return [
            cost(string, self.alphabet.string(form), cell, core, inference.reach,
                 inference.evidence, inference.processes)
            for form in forms
        ]  # fmt: skip


def affix(prefix: str, suffix: str) -> str:
    """A cell's affix as a linguist writes it: ``-lar``, ``ku-``, ``ku-…-a``, ``∅``."""
    if prefix and suffix:
        return f"{prefix}-…-{suffix}"
    if prefix:
        return f"{prefix}-"
    return f"-{suffix}" if suffix else NULL


def save_strings(run: Run, strings: UnderlyingStrings) -> None:
    """Write the strings to the run directory (``strings.tsv``), symbols joined as the run's
    transcriber joins them."""
    joiner = run.transcriber().joiner
    run.write_strings(format_rows([HEADER, *(m.row() for m in strings.morphemes(joiner))]))


def keep_strings(run: Run) -> None:
    """Infer and store the run's strings unless it has them: ``fill`` keeps its table's (a
    second or less, while the copy models finish), which ``uf strings`` and the ``ur``
    candidates then read back; another run's are inferred when asked for, so that training
    never waits for them."""
    if run.strings() is None:
        save_strings(run, UnderlyingStrings(run.examples("train"), features=run.features()))


def stem_strings(run: Run) -> dict[str, str]:
    """Each stem's underlying string, as ``phonkit uf strings`` writes it: read back where
    the run stored them, else inferred."""
    rows = run.strings()
    if rows is None:
        joiner = run.transcriber().joiner
        rows = [list(HEADER), *(m.row() for m in strings_of(run).morphemes(joiner))]
    return {row[0]: row[2] for row in rows[1:] if row[1] == "stem"}


def strings_of(run: Run) -> UnderlyingStrings:
    """The run's underlying strings: read back where it stored them, else inferred from its
    training split (a search: seconds on a table, minutes on a whole UniMorph language)."""
    rows = run.strings()
    examples = run.examples("train")
    if rows is None:
        return UnderlyingStrings(examples, features=run.features())
    split = run.transcriber().split
    stored = {row[0]: (split(row[2]), float(row[3])) for row in rows[1:] if row[1] == "stem"}
    return UnderlyingStrings(examples, stored, run.features())

"""Candidates by analogy: a gap's forms that the table's rewrites make from the stem's known
forms (``model.candidates = analogy | analogy+copy``).

A small table teaches a rewrite between two cells from a handful of stems, but not which of
several rewrites a stem takes (``-lar`` or ``-ler``, a voiced or a voiceless stop): that
depends on the stem, which is what its underlying form encodes. So a gap's candidates are
the affix rewrites of the stem's known forms into the gap's cell (every rewrite the table
shows between the two cells, :class:`~phonkit.tables.rewrites.CellRewrites`), and judges
choose (:mod:`phonkit.tables.judges`), the table's count of how reliable each rewrite is
among them. Where a feature table is installed (``phonkit-panphon``), the rewrites also apply
by proportion (:mod:`phonkit.tables.proportions`: *pukul → məmukul* makes *kirim → məŋirim*),
and such a candidate's reliability is read over the other stems the rewrite reaches by
proportion. A gap with no candidate (no rewrite applies) gets the model's own decoding, or
the first copy model's greedy form where the run has copy models.

With ``model.candidates = ur`` a gap's forms are instead those its stem's underlying string
spells out (:mod:`phonkit.tables.strings`), most probable first, and nothing else: what the
strings alone carry (docs/results/underlying-forms.md). Either way, a gap in a cell whose forms are
their lemma is the lemma (:mod:`phonkit.tables.citations`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from functools import cache, cached_property
from typing import TypeVar

from phonkit.data.features import Features
from phonkit.data.lexicon import Example, Vocabularies, as_written
from phonkit.model.copying import CopyModel
from phonkit.model.phonology import Model
from phonkit.plugins import lookup
from phonkit.run.directory import Run
from phonkit.run.factory import load_copy_models
from phonkit.tables.citations import Citations, Spell
from phonkit.tables.judges import Judgement, Weights, chosen, judged, scored_by
from phonkit.tables.proportions import Proportions
from phonkit.tables.rewrites import CellRewrites, Edit, Paradigm, Symbols, affixes, apply
from phonkit.tables.sizes import EXCEPTIONLESS, SPELLED, WIDEST_CONTEXT
from phonkit.tables.strings import UnderlyingStrings, strings_of

LEMMA_CELL = "\tlemma"  # the lemma's spelling as a form (no bundle an input names has a tab)
Counts = tuple[int, int]  # on how many forms a rewrite applies, on how many it is right
Context = tuple[Symbols | None, Symbols | None]  # the symbols beside an affix (:func:`beside`)
Wide = tuple[int, Context]  # a context and its width
Tally = tuple[Counts, dict[Wide, Counts], Counts]  # in all, by context, by proportion
#: The context width and the judges' weights are chosen on at most this many cells, drawn at
#: random where there are more: each cell costs a pass over the table's stems, and a draw
#: this large chooses what all cells chose on every task-2 file it cuts
#: (docs/results/speed.md, "Choices on a sample").
CHOSEN_ON = 10_000
T = TypeVar("T")


def drawn(items: Sequence[T], limit: int = CHOSEN_ON) -> list[T]:
    """``items`` as they are, or ``limit`` of them drawn at random (the same each time)."""
    return list(items) if len(items) <= limit else random.Random(0).sample(list(items), limit)


class Rewrites:
    """The affix rewrites between every two cells, counted over known paradigms."""

    def __init__(
        self,
        examples: Sequence[Example],
        copies: Sequence[CopyModel] = (),
        strings: UnderlyingStrings | None = None,
        spell: Spell | None = None,
        features: Features | None = None,
        weights: Weights | None = None,
        width: int | None = None,
        from_lemmas: bool = False,
    ):
        self.citations = Citations(examples, spell)  # ``spell``: lemmas as forms are spelled
        self.spell = spell
        self.spellings: dict[str, Symbols] = {}
        self.features = features
        self.from_lemmas = from_lemmas  # the model reads lemmas: rewrites from them too
        symbols = {symbol for example in examples for symbol in example.surface}
        self.trained = dict(known_forms(examples)), symbols
        self.count(*self.trained)
        self.copies = list(copies)
        self.strings = strings  # with them, the candidates are their spell-outs alone
        self.default_weights = Weights.default(bool(self.copies))
        self.weights = weights or self.default_weights  # how the judges are combined
        if width is not None:  # chosen before (judges.json), else when first read
            self.width = width

    def count(self, paradigms: dict[str, Paradigm], symbols: set[str]) -> None:
        """Count the rewrites between every two cells over ``paradigms`` (and, for a model
        that reads lemmas, from each lemma's spelling into every cell), their forms' symbols
        the inventory of the proportions."""
        self.paradigms, self.symbols = paradigms, symbols
        self.proportions = Proportions(self.features, symbols) if self.features else None
        self.analogy = CellRewrites(paradigms)
        self.from_lemma = (
            CellRewrites(self.with_lemmas(paradigms), sources={LEMMA_CELL})
            if self.from_lemmas
            else None
        )
        self.tallies: dict[tuple[str, str, Edit], Tally] = {}

    def read(self, given: Sequence[Example]) -> None:
        """Count the rewrites over the training paradigms and the ``given`` ones (an input's
        new lemmas with their known forms, each lemma named apart as ``predict`` names it):
        what an input shows of its cells is evidence for every gap in it, as the training
        paradigms are. Each read replaces the last; the context width and the judges'
        weights stay as they were chosen."""
        if self.strings is not None:
            return
        self.width = self.width  # chosen on the training paradigms alone, if not yet
        paradigms, symbols = self.trained
        found = {symbol for example in given for symbol in example.surface}
        read = {**paradigms, **known_forms(given)}, symbols | found
        if read != (self.paradigms, self.symbols):  # the same input again (tune, then
            self.count(*read)  # predict) keeps what was counted over it

    @classmethod
    def of(cls, run: Run) -> Rewrites | None:
        """The rewrites of a run whose model ranks them (``model.candidates`` is not
        ``model``), counted over its training forms, with the run's copy models where it
        has them, the installed feature table's proportions, the judges' weights the run
        chose on its dev cells and the context width chosen with them (``judges.json``), or
        its underlying strings (``ur``); None for a model that decodes on its own."""
        candidates = run.config.model.candidates
        if candidates == "model":
            return None
        spell = cache(run.transcriber)

        def spelled(lemmas: Sequence[str]) -> list[Symbols]:
            return spell().transcribe(run.config.lang or "", list(lemmas))

        if candidates == "ur":
            return cls(run.examples("train"), strings=strings_of(run), spell=spelled)
        copies = load_copy_models(run)
        stored = dict(run.judges(WIDEST_CONTEXT) or {})
        width = stored.pop("width", None)
        return cls(
            run.examples("train"),
            copies,
            spell=spelled,
            features=run.features(),
            weights=Weights(**stored) if stored else None,
            width=int(width) if width else None,
            from_lemmas=getattr(lookup("models", run.config.variant), "reads", False),
        )

    def spelling(self, lemmas: Sequence[str]) -> list[Symbols]:
        """The lemmas as the run spells forms (each spelled once); nothing without ``spell``."""
        if self.spell is None:
            return [() for _ in lemmas]
        new = [lemma for lemma in dict.fromkeys(lemmas) if lemma not in self.spellings]
        if new:
            self.spellings.update(zip(new, self.spell(new), strict=True))
        return [self.spellings[lemma] for lemma in lemmas]

    def with_lemmas(self, paradigms: Mapping[str, Paradigm]) -> dict[str, Paradigm]:
        """``paradigms`` with each lemma's spelling as one more form, in :data:`LEMMA_CELL`."""
        spelled = self.spelling([as_written(lemma) for lemma in paradigms])
        pairs = zip(paradigms.items(), spelled, strict=True)
        return {lemma: {LEMMA_CELL: spelling, **forms} if spelling else dict(forms)
                for (lemma, forms), spelling in pairs}  # fmt: skip

    def known(self, lemma: str, given: Paradigm | None = None) -> Paradigm:
        """The known forms of ``lemma``: its training paradigm and ``given``."""
        return {**self.paradigms.get(lemma, {}), **(given or {})}

    def candidates(self, lemma: str, bundle: str, known: Paradigm | None = None) -> list[Symbols]:
        """The forms of ``lemma`` in ``bundle`` that the rewrites make from its known forms
        (its training paradigm and ``known``), most often seen rewrite first, then those they
        make up to their alternants and by proportion (:func:`~phonkit.tables.rewrites.apply`),
        without repeats; where none does and the model reads lemmas, the forms that the
        rewrites of lemmas into ``bundle`` make of its spelling. Where a known cell goes to
        ``bundle`` by one rewrite without exception (on at least
        :data:`~phonkit.tables.sizes.EXCEPTIONLESS` stems), its forms are the only
        candidates: the table leaves nothing to choose."""
        forms = {cell: form for cell, form in self.known(lemma, known).items() if cell != bundle}
        found: dict[Symbols, None] = {}
        certain: dict[Symbols, None] = {}
        for source, form in forms.items():
            rules = self.analogy.between(source, bundle).rules
            for rule, count in rules:
                rewritten = apply(rule, form)
                if rewritten:
                    found.setdefault(rewritten)
                    if len(rules) == 1 and count >= EXCEPTIONLESS:
                        certain.setdefault(rewritten)
        if certain:
            return list(certain)
        for source, form in forms.items():
            between = self.analogy.between(source, bundle)
            alternants = between.alternants
            if not alternants and self.proportions is None:
                continue
            for rule, _ in between.rules:
                rewritten = apply(rule, form, alternants, self.proportions)
                if rewritten:
                    found.setdefault(rewritten)
        if not found and self.from_lemma is not None:  # the lemma's spelling may
            (spelled,) = self.spelling([as_written(lemma)])
            between = self.from_lemma.between(LEMMA_CELL, bundle)
            for rule, _ in between.rules:
                rewritten = (
                    apply(rule, spelled, between.alternants, self.proportions) if spelled else None
                )
                if rewritten:
                    found.setdefault(rewritten)
        return list(found)

    def ranked(
        self,
        model: Model,
        vocabularies: Vocabularies,
        words: Sequence[tuple[Example, Paradigm | None]],
        precision: str = "auto",
    ) -> list[list[Symbols]]:
        """For each (word, its known forms beside the training ones): its candidates, most
        probable first (:meth:`judged`, ranked by the run's :class:`Weights`)."""
        judgements = self.judged(model, vocabularies, words, precision)
        return [judgement.ranked(self.weights) for judgement in judgements]

    def choose_weights(
        self,
        model: Model,
        vocabularies: Vocabularies,
        examples: Sequence[Example],
        precision: str = "auto",
    ) -> Weights:
        """The judges' weights that rank the most of ``examples`` (held-out cells with gold
        forms, the run's dev split) right (:func:`~phonkit.tables.judges.chosen`), from now
        on those of these rewrites; on at most :data:`CHOSEN_ON` of them."""
        examples = drawn(examples)
        judgements = self.judged(model, vocabularies, [(e, None) for e in examples], precision)
        golds = [example.surface for example in examples]
        self.weights = chosen(judgements, golds, self.default_weights)
        return self.weights

    def judged(
        self,
        model: Model,
        vocabularies: Vocabularies,
        words: Sequence[tuple[Example, Paradigm | None]],
        precision: str = "auto",
    ) -> list[Judgement]:
        """For each (word, its known forms beside the training ones): its candidates, judged
        by every judge (the model's -log p in one batch and the copy models' where the run
        has them, with the rewrites' reliability beside them), or the first copy model's
        greedy form where there is no candidate (nothing without copy models); with
        underlying strings, their spell-outs. A gap in a citation cell of its paradigm is
        the lemma (:mod:`~phonkit.tables.citations`)."""
        found = [(word, self.known(word.entry.lemma, given)) for word, given in words]
        cited = [
            self.citations.form(word.entry.lemma, word.entry.bundle, known) for word, known in found
        ]
        if self.strings is not None:
            spelled = (
                self.spelled(word.entry.lemma, word.entry.bundle, known) for word, known in found
            )
            return [Judgement([form] if form else forms)
                    for form, forms in zip(cited, spelled, strict=True)]  # fmt: skip
        candidates = [
            [form] if form else self.candidates(word.entry.lemma, word.entry.bundle, known)
            for (word, known), form in zip(found, cited, strict=True)
        ]
        scored = scored_by(model, vocabularies, [word for word, _ in words], candidates, precision)
        result = []
        for (word, known), ranked in zip(found, scored, strict=True):
            forms = [form for form, _ in ranked]
            lemma, bundle = word.entry.lemma, word.entry.bundle
            if len(forms) > 1:
                reliable = self.reliability(lemma, bundle, forms, known)
                result.append(judged(ranked, self.copies, known, bundle, reliable))
            elif not forms and self.copies:
                guess = self.copies[0].greedy(known, bundle)
                result.append(Judgement([guess] if guess else []))
            else:
                result.append(Judgement(forms))
        return result

    def reliability(
        self, lemma: str, bundle: str, forms: Sequence[Symbols], known: Paradigm
    ) -> list[float]:
        """How reliable the table finds the rewrite that makes each of ``forms`` from
        ``lemma``'s ``known`` forms, with the stems like it read up to the context width
        the table chose (:attr:`width`): :meth:`reliabilities`."""
        return self.reliabilities(lemma, bundle, forms, known, self.width)[-1]

    def reliabilities(
        self, lemma: str, bundle: str, forms: Sequence[Symbols], known: Paradigm, widest: int
    ) -> list[list[float]]:
        """How reliable the table finds the rewrite that makes each of ``forms`` from
        ``lemma``'s ``known`` forms (up to its alternants), for each width of context from 1
        to ``widest``: over the other stems whose form in the rewrite's source cell it
        applies to, the share r it rewrites into their form in ``bundle``, (right + ½) /
        (applies + 1); then over those of them like this one, (right' + r) / (applies' + 1),
        so that the stems like it decide as far as there are any: those whose form has the
        same symbol beside the rewritten affix (:func:`beside`: English *catch* takes *-əz*
        where most stems take *-z*), then those with the same two symbols, smoothed toward
        that share in turn, and so on (Dutch plurals in *-re* do not take the *-r* of most
        comparatives: *herkenbare*, *herkenbaarder*); or, for a form the rewrite makes by
        proportion alone, those the rewrite reaches by proportion too. The best over the
        rewrites that make the form, normalised over ``forms``."""
        best = [[0.0] * len(forms) for _ in range(widest)]
        place = {form: number for number, form in enumerate(forms)}
        lengths = {len(form) for form in forms}  # a rewrite makes a form of a known length
        own = self.paradigms.get(lemma, {})  # not evidence for its own gap
        for source, form in known.items():
            between = self.analogy.between(source, bundle)
            for rule, _ in between.rules:
                old_prefix, new_prefix, old_suffix, new_suffix = rule
                made_length = len(form) + len(new_prefix) + len(new_suffix)
                if made_length - len(old_prefix) - len(old_suffix) not in lengths:
                    continue
                made = apply(rule, form, between.alternants, self.proportions)
                if made not in place:
                    continue
                counts, by_context, by_proportion = self.tally(source, bundle, rule)
                proportional = apply(rule, form, between.alternants) is None
                mine = own.get(source) if bundle in own else None
                exact, theirs = self.applied(rule, mine) if mine is not None else (None, None)
                hit = (exact or theirs) == own.get(bundle)
                applies, right = counts
                if exact is not None:
                    applies, right = applies - 1, right - hit
                share = (right + 0.5) / (applies + 1)
                if proportional:
                    like, like_right = by_proportion
                    if theirs is not None:
                        like, like_right = like - 1, like_right - hit
                    shares = [(like_right + share) / (like + 1)] * widest
                else:
                    shares = []
                    for width in range(1, widest + 1):
                        context = beside(rule, form, width)
                        like, like_right = by_context.get((width, context), (0, 0))
                        if exact is not None and beside(rule, mine or (), width) == context:
                            like, like_right = like - 1, like_right - hit
                        share = (like_right + share) / (like + 1)
                        shares.append(share)
                for scores, share in zip(best, shares, strict=True):
                    scores[place[made]] = max(scores[place[made]], share)
        return [[score / total for score in scores] if (total := sum(scores)) else []
                for scores in best]  # fmt: skip

    @cached_property
    def width(self) -> int:
        """The width of context (up to :data:`~phonkit.tables.sizes.WIDEST_CONTEXT`) under which
        the reliability alone ranks the most training cells' own forms first, each cell left
        out in turn (:meth:`reliabilities` reads no stem's own forms as evidence for it): the
        table's stems decide how far alike stems are alike. Of widths that tie, the
        narrowest. On at most :data:`CHOSEN_ON` cells."""
        right = [0] * WIDEST_CONTEXT
        cells = [(lemma, bundle) for lemma, forms in self.paradigms.items() for bundle in forms]
        for lemma, bundle in drawn(cells):
            paradigm = self.paradigms[lemma]
            gold = paradigm[bundle]
            forms = self.candidates(lemma, bundle)
            if len(forms) < 2 or gold not in forms:
                continue
            others = {cell: form for cell, form in paradigm.items() if cell != bundle}
            scores_by_width = self.reliabilities(lemma, bundle, forms, others, WIDEST_CONTEXT)
            for width, scores in enumerate(scores_by_width):
                if scores and forms[scores.index(max(scores))] == gold:
                    right[width] += 1
        return 1 + right.index(max(right))  # the first of the best: the narrowest

    def applied(self, rule: Edit, form: Symbols) -> tuple[Symbols | None, Symbols | None]:
        """``form`` rewritten by ``rule`` as it is, and, where it is not, by proportion."""
        exact = apply(rule, form)
        if exact is not None or self.proportions is None:
            return exact, None
        return None, apply(rule, form, proportions=self.proportions)

    def tally(self, source: str, bundle: str, rule: Edit) -> Tally:
        """For ``rule``, a rewrite from ``source`` to ``bundle``: over the stems with both
        cells, on how many forms it applies and on how many it gives their form in ``bundle``,
        in all and by the symbols beside the rewritten affix; and the same over the forms it
        applies to by proportion alone. Counted when first asked for: a gap asks for the few
        rewrites that make its candidates."""
        found = self.tallies.get((source, bundle, rule))
        if found is None:
            found = self.tallies[source, bundle, rule] = self.counted(rule, source, bundle)
        return found

    def counted(self, rule: Edit, source: str, bundle: str) -> Tally:
        """The :meth:`tally` of ``rule`` from ``source`` to ``bundle``. What the rule makes
        of a form depends on the form's affixes as long as the rule's alone (the stem between
        them stays), so it is read once for each such pair of affixes."""
        counts, by_proportion = [0, 0], [0, 0]
        by_context: dict[Wide, list[int]] = {}
        start, end = len(rule[0]), len(rule[2])
        made_of: dict[tuple[Symbols, Symbols], tuple[tuple[Symbols, Symbols] | None, bool]] = {}
        for paradigm in self.paradigms.values():
            old, new = paradigm.get(source), paradigm.get(bundle)
            if old is None or new is None or len(old) < start + end:
                continue
            found = old[:start], old[len(old) - end :]
            if found not in made_of:
                made, exact = affixes(rule, *found), True
                if made is None and self.proportions is not None:
                    made, exact = affixes(rule, *found, proportions=self.proportions), False
                made_of[found] = made, exact
            made, exact = made_of[found]
            if made is None:
                continue
            tallied = [by_proportion]
            if exact:
                tallied = [counts] + [
                    by_context.setdefault((width, beside(rule, old, width)), [0, 0])
                    for width in range(1, WIDEST_CONTEXT + 1)
                ]
            right = made[0] + old[start : len(old) - end] + made[1] == new
            for tally in tallied:
                tally[0] += 1
                tally[1] += right
        return (
            (counts[0], counts[1]),
            {context: (a, r) for context, (a, r) in by_context.items()},
            (by_proportion[0], by_proportion[1]),
        )

    def spelled(self, lemma: str, bundle: str, known: Paradigm) -> list[Symbols]:
        """The :data:`~phonkit.tables.sizes.SPELLED` most probable forms of ``lemma`` in
        ``bundle`` that its underlying string spells out (the string its ``known`` forms
        make, for a stem the run never saw)."""
        assert self.strings is not None
        return [form for form, _ in self.strings.spell(lemma, bundle, known, SPELLED)]


def keep_width(run: Run) -> None:
    """Choose and store (``judges.json``) the context width of a run that ranks analogy
    candidates, unless it has one: it reads the training forms alone, so training chooses it
    while the copy models finish, where the dev cells' weights or ``fill``'s gaps would wait
    for it after them."""
    if run.config.model.candidates not in ("analogy", "analogy+copy"):
        return
    if "width" not in (run.judges(WIDEST_CONTEXT) or {}):
        run.write_judges({"width": Rewrites(run.examples("train"), features=run.features()).width})


def beside(rule: Edit, form: Symbols, width: int = 1) -> Context:
    """The ``width`` symbols of ``form`` beside the affixes ``rule`` rewrites: after its
    prefix where the rule changes the prefix, before its suffix where it changes the suffix
    (None where it does not, or where nothing stands between them; fewer where the stem
    between them is shorter)."""
    old_prefix, new_prefix, old_suffix, new_suffix = rule
    start, end = len(old_prefix), len(form) - len(old_suffix)
    if end <= start:
        return None, None
    return (
        form[start : min(end, start + width)] if old_prefix != new_prefix else None,
        form[max(start, end - width) : end] if old_suffix != new_suffix else None,
    )


def known_forms(examples: Sequence[Example]) -> Mapping[str, Paradigm]:
    """Known forms by lemma and bundle, as evidence for :meth:`Rewrites.candidates`."""
    forms: dict[str, Paradigm] = {}
    for example in examples:
        forms.setdefault(example.entry.lemma, {}).setdefault(example.entry.bundle, example.surface)
    return forms

"""The phonology of underlying strings: how a stem's underlying string and a cell's affix
become a surface form, as local changes in context, counted over a table's stems.

An analysis of a surface form from an underlying string (:func:`analyses`) takes the
stem's core — the part all its known forms share, which every candidate string keeps — as
copied, and aligns what lies around it: the surface material beyond the string is the
cell's prefix and suffix, and each symbol of the string is copied, substituted or deleted,
with symbols inserted between. Every choice is an *event* with its contexts, from the most
specific to the most general, and :class:`Processes` counts them:

- the suffix's shape (its consonants, its vowels as ``V``) by the cell and the string's last
  symbol, and each of its vowels by the string's last vowel (harmony); the prefix alike. In a
  slot whose vowels the table describes in fewer nats as harmony (:func:`harmonic_slots`),
  a vowel is what it makes of the string's vowel: the same (``=``), or the features that
  change, so a stem vowel never seen in the cell still takes its harmonising suffix. Between
  the string's vowel and the slot alone, a vowel is read by the one feature of the string's
  vowel that tells most about the slot (:func:`feature_classes`: backness in Hungarian's
  *-nak*/*-nek*), so a stem vowel never seen in the cell takes the suffix of the vowels that
  share that feature's value;
- whether a symbol is copied, deleted or substituted, by whether the faithful output would
  make a pair or triple of symbols the table's surface forms never show though they would
  were its parts independent (the change then has a reason:
  :class:`~phonkit.tables.segments.Phonotactics`), the classes around it, whether it
  doubles its neighbour, whether it stands in a closed syllable (:func:`in_closed_syllable`:
  a long vowel that shortens there, a stop that weakens) and, most specific, where one
  tells, a feature of the symbol before it and one of the symbol after it
  (:func:`feature_classes`: Bukusu's voicing after its nasal prefix);
- which symbol a substitution gives, preferring the table's attested alternations, counted
  as the features it changes (``[-voi]``) where a feature table knows both symbols, so that
  one change of several segments (final devoicing of b, d, ɡ) is one pattern; a symbol
  that becomes the one before it or after it (total assimilation: Finnish *nt* → *nn*,
  *lt* → *ll*) is one outcome, ``=<`` or ``=>``, whatever the symbols. It is read by the
  symbol and the class of the symbol before it (a stop that voices after a vowel and
  assimilates after a consonant) and, where they tell, by a feature of each neighbour as
  above;
- whether a symbol is inserted, by the same reasons and, where one tells, a feature of the
  symbol before or after the gap (:func:`feature_classes`: sonority in Turkish's
  epenthesis), and which (by the last vowel).

A count's probability is interpolated from the specific context to the general (Witten-Bell),
down to a prior that favours copying. The model is small on purpose: it cannot memorise a
stem, so the analysis that explains a stem's forms best is the one the other stems share.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from phonkit.tables.segments import EDGE, Phonotactics, kind, last_vowel

COPY, DELETE, SUBSTITUTE, INSERT = "=", "-", "~", "+"
Context = tuple
Event = tuple[tuple[Context, ...], str]  # (contexts, most specific first), outcome
Counted = int  # an event's number in its processes' table of events (:meth:`Processes.counted`)
Numbered = tuple[tuple[int, ...], str, float]  # context ids (general first), outcome, prior
Keyed = tuple[tuple[tuple[int, int], ...], float]  # (context id, key id) by context, prior
Slot = tuple[str, str, int]  # an affix's vowel: the affix's side, its cell, its place
OP, SUB, GAP = "op", "sub", "gap"  # events read by a class: what happens to a symbol, what
# a substituted symbol becomes, an insertion
Classes = Mapping[tuple[Hashable, str], str]  # (events, a symbol's place): the feature read
Tally = tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]  # key/context, times


@dataclass(frozen=True)
class Analysis:
    """How a surface form comes from an underlying string in a cell: the cell's prefix and
    suffix, what happens to each symbol of the string (``=`` copied, ``-`` deleted, or the
    symbol it becomes), what is inserted before each symbol (and after the last), and the
    events of all of it (their numbers in ``table``, the processes' table of events)."""

    prefix: str
    suffix: str
    ops: tuple[str, ...]
    inserted: tuple[str, ...]
    events: tuple[Counted, ...]
    table: list[Keyed] = field(compare=False, repr=False)

    @cached_property
    def tally(self) -> Tally:
        """The events as :meth:`Processes.add` counts them: each key (a context and an
        outcome) with how many of the events it counts, and each context with how many
        (computed once: an analysis is added and taken back many times in a search)."""
        pairs: Counter[int] = Counter()
        contexts: Counter[int] = Counter()
        for event in self.events:
            keys, _ = self.table[event]
            for context, key in keys:
                pairs[key] += 1
                contexts[context] += 1
        return tuple(pairs.items()), tuple(contexts.items())


def align(source: str, target: str) -> tuple[float, list[str], list[str]]:
    """A cheapest alignment of ``source`` to ``target``: its cost, the operation on each
    source symbol and the string inserted before each (and after the last). A substitution
    within a class (consonant for consonant) costs less than one across classes, so a vowel
    is not aligned with a consonant; of equal alignments, the one that deletes later wins."""
    n, m = len(source), len(target)
    table = [[0.0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        table[i][0] = float(i)
    for j in range(1, m + 1):
        table[0][j] = float(j)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            table[i][j] = min(
                table[i - 1][j - 1] + _substitution(source[i - 1], target[j - 1]),
                table[i - 1][j] + 1,
                table[i][j - 1] + 1,
            )
    ops = [COPY] * n
    inserted = [""] * (n + 1)
    i, j = n, m
    while i or j:
        if i and table[i][j] == table[i - 1][j] + 1:
            ops[i - 1] = DELETE
            i -= 1
        elif i and j and table[i][j] == table[i - 1][j - 1] + _substitution(
            source[i - 1], target[j - 1]
        ):
            ops[i - 1] = COPY if source[i - 1] == target[j - 1] else target[j - 1]
            i, j = i - 1, j - 1
        else:
            inserted[i] = target[j - 1] + inserted[i]
            j -= 1
    return table[n][m], ops, inserted


def _substitution(a: str, b: str) -> float:
    if a == b:
        return 0.0
    return 0.6 if kind(a) == kind(b) else 1.4


class Evidence:
    """What the events of a table read beside an analysis: its phonotactics, its attested
    alternations (symbol pairs that stand at the same place of one stem in two of its forms),
    its segments' features where known, its vowels, the affix vowel slots it reads by
    harmony (:func:`harmonic_slots`), and which events it reads by a feature of a symbol
    beside them (:func:`feature_classes`)."""

    def __init__(
        self,
        phonotactics: Phonotactics,
        alternations: set[tuple[str, str]],
        features: Mapping[str, frozenset[tuple[str, str]]] | None = None,
        harmonic: frozenset[Slot] = frozenset(),
        classes: Classes | None = None,
    ):
        self.phonotactics = phonotactics
        self.alternations = alternations
        self.features = features or {}
        self.harmonic = harmonic
        self.classes = classes or {}
        self.values = {symbol: dict(found) for symbol, found in self.features.items()}
        self.vowels = sorted(symbol for symbol in phonotactics.firsts if kind(symbol) == "V")

    def value(self, symbol: str, name: str) -> str | None:
        """The value of feature ``name`` for ``symbol`` (None where the table lacks it)."""
        found = self.values.get(symbol)
        return None if found is None else found.get(name)

    def refined(
        self, contexts: tuple[Context, ...], events: Hashable, symbols: Mapping[str, str]
    ) -> tuple[Context, ...]:
        """``contexts`` (most specific first) of one of ``events``, with a more specific one
        first where the table reads those events by a feature of one of ``symbols`` (by
        their place: ``left``, ``right``; :func:`feature_classes`): that feature's value."""
        for place, symbol in symbols.items():
            name = self.classes.get((events, place))
            if name is not None:
                contexts = ((*contexts[0], place, name, self.value(symbol, name)), *contexts)
        return contexts

    def change(self, symbol: str, into: str) -> str:
        """What a substitution of ``symbol`` by ``into`` changes: the features whose values
        differ (``[+voi]``, sorted), where the feature table knows both, else ``into``."""
        before, after = self.features.get(symbol), self.features.get(into)
        if before is None or after is None or before == after:
            return into
        return "[" + ",".join(sorted(f"{v}{name}" for name, v in after - before)) + "]"


def affix_events(
    underlying: str, affix: str, side: str, cell: str, evidence: Evidence
) -> list[Event]:
    """The events of a cell's suffix (``side`` ``s``) or prefix (``p``): its shape, by the
    string's edge symbol, and each of its vowels, by the string's nearest vowel."""
    edge = (underlying[-1:] if side == "s" else underlying[:1]) or EDGE
    shape = "".join("V" if kind(s) == "V" else s for s in affix)
    found: list[Event] = [
        ((("k" + side, cell, edge), ("k" + side, cell, kind(edge)), ("k" + side, cell)), shape)
    ]
    nearest = nearest_vowel(underlying, side)
    vowels = [symbol for symbol in affix if kind(symbol) == "V"]
    for slot, symbol in enumerate(vowels):
        found.append(affix_vowel_event(nearest, symbol, (side, cell, slot), evidence))
    return found


def nearest_vowel(underlying: str, side: str) -> str:
    """The string's vowel nearest to a suffix (``side`` ``s``) or a prefix (``p``)."""
    return last_vowel(underlying if side == "s" else reversed(underlying))


def harmony(nearest: str, vowel: str, evidence: Evidence) -> str:
    """An affix's ``vowel`` as harmony makes it of the string's ``nearest`` vowel: ``=`` (the
    same vowel), the features that change (``[+hi]``, where a feature table knows both), or
    the vowel itself."""
    if vowel == nearest:
        return COPY
    return evidence.change(nearest, vowel) if nearest != EDGE else vowel


def affix_vowel_event(nearest: str, vowel: str, slot: Slot, evidence: Evidence) -> Event:
    """The event of an affix's vowel in its ``slot`` (side, cell, and its place among the
    affix's vowels from its start), by the string's nearest vowel: the vowel, or in a slot
    the table reads by harmony, what harmony makes of the nearest vowel."""
    side, cell, place = slot
    outcome = harmony(nearest, vowel, evidence) if slot in evidence.harmonic else vowel
    name = evidence.classes.get((slot, "nearest"))
    if name is None:
        return (("v" + side, cell, place, nearest), ("v" + side, cell, place)), outcome
    return (
        ("v" + side, cell, place, nearest),
        ("v" + side, cell, place, name, evidence.value(nearest, name)),
        ("v" + side, cell, place),
    ), outcome


def harmonic_slots(
    readings: Iterable[tuple[str, Analysis, str]], evidence: Evidence
) -> frozenset[Slot]:
    """The affix vowel slots that harmony describes in fewer nats than the vowels do: over
    the analyses (underlying string, analysis, cell), the outcomes of each slot's vowels
    read as themselves and as :func:`harmony` makes them, each reading's cost the entropy
    of its counts. A suffix whose vowel is the stem's (Kera *ɡun-um*, *kol-on*) is then
    one outcome however many vowels the stems have, and a stem vowel the table never showed
    in the cell takes the suffix it harmonises with."""
    as_vowels: dict[Slot, Counter[str]] = {}
    as_harmony: dict[Slot, Counter[str]] = {}
    for underlying, analysis, cell in readings:
        for side, affix in (("s", analysis.suffix), ("p", analysis.prefix)):
            nearest = nearest_vowel(underlying, side)
            vowels = [symbol for symbol in affix if kind(symbol) == "V"]
            for place, vowel in enumerate(vowels):
                slot = (side, cell, place)
                as_vowels.setdefault(slot, Counter())[vowel] += 1
                as_harmony.setdefault(slot, Counter())[harmony(nearest, vowel, evidence)] += 1
    return frozenset(
        slot for slot in as_vowels if _nats(as_harmony[slot]) < _nats(as_vowels[slot]) - 1e-9
    )


def feature_classes(
    readings: Iterable[tuple[str, Analysis, str]], evidence: Evidence
) -> Classes:
    """Which events the table reads by a feature of a symbol beside them, by (events, the
    symbol's place): for each, the feature whose values, beside the events' own most
    specific context, leave the fewest nats of their outcomes over the analyses (underlying
    string, analysis, cell), where that is fewer than without it. For each affix vowel slot
    (:data:`Slot`), a feature of the string's ``nearest`` vowel, a level between that vowel
    and the slot alone (backness for Hungarian's *-nak*/*-nek*), so that a vowel no stem
    shows in the cell takes the outcome of those that share its value; for what happens to
    a symbol (:data:`OP`), for what a substituted symbol becomes (:data:`SUB`) and for an
    insertion (:data:`GAP`), a feature of the symbol to the ``left`` and one of the symbol
    to the ``right``, each a context more specific than the others (for Turkish's epenthesis
    *bojun*, *bojnu*, the sonority of the next symbol)."""
    observed: dict[tuple[Hashable, str], Counter[Observed]] = {}

    def add(events: Hashable, context: Context, outcome: str, **symbols: str) -> None:
        for place, symbol in symbols.items():
            observed.setdefault((events, place), Counter())[context, symbol, outcome] += 1

    for underlying, analysis, cell in readings:
        for side, affix in (("s", analysis.suffix), ("p", analysis.prefix)):
            nearest = nearest_vowel(underlying, side)
            for number, vowel in enumerate(s for s in affix if kind(s) == "V"):
                slot = (side, cell, number)
                add(slot, (), affix_vowel_event(nearest, vowel, slot, evidence)[1], nearest=nearest)
        around = padded(underlying, analysis.prefix, analysis.suffix)
        for at, op in enumerate(analysis.ops):  # what happens to it, and what it becomes
            found = op_events(around, at, op, evidence)  # a substitution's second
            for events, (contexts, outcome) in zip((OP, SUB), found, strict=False):
                add(events, contexts[0], outcome, left=around[at], right=around[at + 2])
        for gap, inserted in enumerate(analysis.inserted):
            (contexts, outcome), *_ = insertion_events(around, gap, inserted, evidence)
            add(GAP, contexts[0], outcome, left=around[gap], right=around[gap + 1])
    return {key: name for key, seen in observed.items() if (name := _most_telling(seen, evidence))}


Observed = tuple[Context, str, str]  # an event's context, a symbol beside it, its outcome


def _most_telling(observed: Counter[Observed], evidence: Evidence) -> str | None:
    """The feature of the symbols beside the events whose values, beside each event's
    context, leave the fewest nats of the outcomes (each observed so many times), if fewer
    than the context alone."""

    def nats(name: str) -> float:
        groups: dict[tuple, Counter[str]] = {}
        for (context, symbol, outcome), times in observed.items():
            groups.setdefault((context, evidence.value(symbol, name)), Counter())[outcome] += times
        return sum(_nats(counts) for counts in groups.values())

    names = sorted({name for _, symbol, _ in observed for name in evidence.values.get(symbol, ())})
    alone = nats("")
    best = min(((nats(name), name) for name in names), default=(alone, ""))
    return best[1] if best[0] < alone - 1e-9 else None


def _nats(counts: Counter[str]) -> float:
    total = sum(counts.values())
    return -sum(n * math.log(n / total) for n in counts.values())


def padded(underlying: str, prefix: str, suffix: str) -> str:
    """The string between what stands next to it: the prefix's last symbol (or the word's
    edge), and the suffix and the word's edge."""
    return (prefix[-1:] or EDGE) + underlying + suffix + EDGE


def op_events(around: str, at: int, op: str, evidence: Evidence) -> list[Event]:
    """The events of what happens to the string's symbol ``at`` (``around``: the string
    :func:`padded`): copied, deleted, or substituted by ``op``."""
    left, symbol, right = around[at], around[at + 1], around[at + 2]
    closed = in_closed_syllable(around, at + 1)
    tactics = evidence.phonotactics
    reasons = (tactics.unseen_pair(symbol, right), tactics.unseen_triple(left, symbol, right))
    what = op if op in (COPY, DELETE) else SUBSTITUTE
    contexts: tuple[Context, ...] = (
        ("o", symbol, left == symbol, *reasons, kind(right), closed),
        ("o", symbol, left == symbol, *reasons, kind(right)),
        ("o", kind(symbol), left == symbol, *reasons, kind(right)),
        ("o", *reasons), ("o",),
    )  # fmt: skip
    contexts = evidence.refined(contexts, OP, {"left": left, "right": right})
    found: list[Event] = [(contexts, what)]
    if what == SUBSTITUTE:
        known = (symbol, op) in evidence.alternations
        change = (
            "=<" if op == left else "=>" if op == right else evidence.change(symbol, op)
        )  # total assimilation, to the symbol before or after
        which = (("y", symbol, known, kind(left)), ("y", symbol, known),
                 ("y", known, kind(symbol) == kind(op)))  # fmt: skip
        found.append((evidence.refined(which, SUB, {"left": left, "right": right}), change))
    return found


def in_closed_syllable(word: str, at: int) -> bool:
    """Whether the symbol ``at`` of ``word`` (edges included) stands in a closed syllable:
    a vowel followed by a consonant that no vowel follows (another consonant, or the word's
    edge); a consonant before a vowel is that vowel's onset, any other consonant a coda. A
    modifier (``ː``, ``ʰ``) goes with the symbol before it."""

    def next_(i: int) -> int:  # the next symbol that is not a modifier
        i += 1
        while i < len(word) - 1 and kind(word[i]) == "M":
            i += 1
        return i

    while at > 0 and kind(word[at]) == "M":
        at -= 1
    if kind(word[at]) == "C":
        after = next_(at)
        if kind(word[after]) != "V":
            return True  # a coda
        at = after
    if kind(word[at]) != "V":
        return False
    after = next_(at)
    return kind(word[after]) == "C" and kind(word[next_(after)]) != "V"


def insertion_events(around: str, gap: int, inserted: str, evidence: Evidence) -> list[Event]:
    """The events of what is inserted before the string's symbol ``gap`` (after the last
    for the last gap), by what stands around the gap and the nearest vowel before it."""
    left, right = around[gap], around[gap + 1]
    after = around[gap + 2] if gap + 2 < len(around) else EDGE
    tactics = evidence.phonotactics
    reasons = (tactics.unseen_pair(left, right), tactics.unseen_triple(left, right, after))
    contexts: tuple[Context, ...] = (
        ("n", *reasons, kind(left), kind(right), kind(after)), ("n", *reasons), ("n",)
    )  # fmt: skip
    contexts = evidence.refined(contexts, GAP, {"left": left, "right": right})
    found: list[Event] = [(contexts, INSERT if inserted else "")]
    vowel = last_vowel(around[1 : gap + 1])
    for symbol in inserted:
        found.append(
            (
                (("w", kind(left), kind(right), vowel), ("w", vowel),
                 ("w", kind(left), kind(right)), ("w",)),
                symbol,
            )
        )  # fmt: skip
    return found


def events(
    underlying: str, prefix: str, suffix: str, ops: Sequence[str], inserted: Sequence[str],
    cell: str, evidence: Evidence,
) -> list[Event]:  # fmt: skip
    """The events of one analysis."""
    around = padded(underlying, prefix, suffix)
    found = affix_events(underlying, suffix, "s", cell, evidence)
    found += affix_events(underlying, prefix, "p", cell, evidence)
    for at, op in enumerate(ops):
        found += op_events(around, at, op, evidence)
    for gap, added in enumerate(inserted):
        found += insertion_events(around, gap, added, evidence)
    return found


def analyses(
    underlying: str, form: str, cell: str, core: str, reach: tuple[int, int], evidence: Evidence,
    processes: Processes, slack: float = 1.0,
) -> list[Analysis]:  # fmt: skip
    """The analyses of ``form`` from ``underlying`` in ``cell`` that change at most ``slack``
    more than the cheapest: the stem's ``core`` is copied; around it, the surface material
    up to ``reach`` (prefix, suffix) symbols from the edges may be the cell's affix."""
    inside, outside = underlying.find(core), form.find(core)
    head, tail = underlying[:inside], underlying[inside + len(core) :]
    before, after = form[:outside], form[outside + len(core) :]
    lefts = [
        (cost, before[:i], ops, inserted)
        for i in range(min(reach[0], len(before)) + 1)
        for cost, ops, inserted in [align(head, before[i:])]
    ]
    rights = [
        (cost, after[j:], ops, inserted)
        for j in range(max(0, len(after) - reach[1]), len(after) + 1)
        for cost, ops, inserted in [align(tail, after[:j])]
    ]
    best = min(cost for cost, *_ in lefts) + min(cost for cost, *_ in rights)
    found = []
    for left_cost, prefix, left_ops, left_inserted in lefts:
        for right_cost, suffix, right_ops, right_inserted in rights:
            if left_cost + right_cost > best + slack:
                continue
            ops = (*left_ops, *[COPY] * len(core), *right_ops)
            if core:
                inserted = (*left_inserted, *[""] * (len(core) - 1), *right_inserted)
            else:
                joined = left_inserted[-1] + right_inserted[0]
                inserted = (*left_inserted[:-1], joined, *right_inserted[1:])
            found.append(
                (
                    left_cost + right_cost + 0.01 * (len(prefix) + len(suffix)),
                    Analysis(
                        prefix, suffix, ops, inserted,
                        tuple(
                            processes.counted(event)
                            for event in events(
                                underlying, prefix, suffix, ops, inserted, cell, evidence
                            )
                        ),
                        processes.table,
                    ),
                )
            )  # fmt: skip
    found.sort(key=lambda pair: pair[0])
    return [analysis for _, analysis in found]


PRIORS = {  # the probability of an outcome before any count
    "o": {COPY: 0.9, DELETE: 0.05, SUBSTITUTE: 0.05},
    "n": {"": 0.95, INSERT: 0.05},
}


class Numbering:
    """The numbers that processes made by :meth:`Processes.empty` share: of contexts, of
    keys (a context and an outcome: which context each is of, and which outcome), and of
    events (their keys and prior, :attr:`table`)."""

    def __init__(self) -> None:
        self.contexts: dict[Context, int] = {}
        self.keys: dict[tuple[int, str], int] = {}
        self.key_contexts: list[int] = []
        self.key_outcomes: list[str] = []
        self.table: list[Keyed] = []
        self.events: dict[Numbered, int] = {}

    def key(self, context: int, outcome: str) -> int:
        found = self.keys.get((context, outcome))
        if found is None:
            found = self.keys[context, outcome] = len(self.key_contexts)
            self.key_contexts.append(context)
            self.key_outcomes.append(outcome)
        return found


class Processes:
    """Counts of events by context, and the cost (-log probability) of an event. Contexts,
    keys and events are numbered once (:meth:`counted`, :class:`Numbering`), so that
    counting and costing are lookups in lists by small integers; processes made by
    :meth:`empty` share the numbers, and their lists grow as the numbers do."""

    def __init__(self, alphabet: int, numbering: Numbering | None = None):
        self.alphabet = max(2, alphabet)
        self.numbering = Numbering() if numbering is None else numbering
        self.table = self.numbering.table
        self.counts: list[int] = []  # by key
        self.totals: list[int] = []  # by context
        self.types: list[int] = []  # outcomes seen in each context
        self.outcomes: dict[int, set[str]] = {}  # which, once seen
        self._grow()

    def _grow(self) -> None:
        """Room in the lists for every context and key numbered so far (a new context comes
        with a new key, so the keys tell when to grow)."""
        keys, contexts = len(self.numbering.key_contexts), len(self.numbering.contexts)
        self.counts += [0] * (keys - len(self.counts))
        self.totals += [0] * (contexts - len(self.totals))
        self.types += [0] * (contexts - len(self.types))

    def empty(self) -> Processes:
        """Processes with no count that number contexts and events as these do."""
        return Processes(self.alphabet, self.numbering)

    def counted(self, event: Event) -> Counted:
        """The event's number: in :attr:`table`, its keys in the counts (each context's
        number, most general first, with its key's) and its prior."""
        contexts, outcome = event
        numbering = self.numbering
        numbers = []
        for context in reversed(contexts):
            number = numbering.contexts.get(context)
            if number is None:
                number = numbering.contexts[context] = len(numbering.contexts)
            numbers.append(number)
        numbered = (tuple(numbers), outcome, self.prior(contexts[0][0], outcome))
        found = numbering.events.get(numbered)
        if found is None:
            found = numbering.events[numbered] = len(self.table)
            keys = tuple((number, numbering.key(number, outcome)) for number in numbers)
            self.table.append((keys, numbered[2]))
        return found

    def seen(self, context: Context) -> list[str]:
        """The outcomes counted in ``context`` (now), in a fixed order."""
        number = self.numbering.contexts.get(context)
        if number is None:
            return []
        keys = self.numbering.keys
        return sorted(
            o for o in self.outcomes.get(number, ()) if self.counts[keys[number, o]] > 0
        )

    def prior(self, kind_: str, outcome: str) -> float:
        if kind_ in PRIORS:
            return PRIORS[kind_].get(outcome, 0.0) or 1e-6
        if kind_ in ("y", "w", "vs", "vp"):
            return 1 / self.alphabet
        return 0.5 * self.alphabet ** -len(outcome)  # an affix's shape

    def add(self, analysis: Analysis, times: int = 1) -> None:
        """Count the analysis's events ``times`` times (-1 takes them back)."""
        if len(self.counts) < len(self.numbering.key_contexts):
            self._grow()
        counts, totals = self.counts, self.totals
        pairs, contexts = analysis.tally
        for key, many in pairs:
            before = counts[key]
            after = counts[key] = before + many * times
            if (after > 0) != (before > 0):  # the outcome is seen anew, or no longer
                self._seen(key, after > 0)
        for number, many in contexts:
            totals[number] += many * times

    def _seen(self, key: int, now: bool) -> None:
        number = self.numbering.key_contexts[key]
        self.types[number] += 1 if now else -1
        if now:
            self.outcomes.setdefault(number, set()).add(self.numbering.key_outcomes[key])

    def cost(self, event: Counted) -> float:
        if len(self.counts) < len(self.numbering.key_contexts):
            self._grow()
        keys, p = self.table[event]
        counts, totals, types = self.counts, self.totals, self.types
        for number, key in keys:
            total = totals[number]
            if total > 0:
                seen = types[number]
                p = (counts[key] + seen * p) / (total + seen)
        return -math.log(p)

    def costs(self, found: Iterable[Counted], known: dict[Counted, float] | None = None) -> float:
        """The cost of events; ``known``: costs already computed under these same counts."""
        if known is None:
            return sum(self.cost(event) for event in found)
        total = 0.0
        for event in found:
            cost = known.get(event)
            if cost is None:
                cost = known[event] = self.cost(event)
            total += cost
        return total


def alternations(stems: Iterable[tuple[str, Sequence[str]]]) -> set[tuple[str, str]]:
    """The symbol pairs that stand at the same place, next to the core, in two forms of one
    stem: (core, forms) of each stem. The two stretches beside the core are aligned with the
    core's side last, where :func:`align` settles ties, so that of *nim-i* and *nim-eæ* the
    pair is i and e, not i and æ."""
    found: set[tuple[str, str]] = set()
    for core, forms in stems:
        edges = [(f[: f.find(core)], f[f.find(core) + len(core) :]) for f in forms]
        for a, (left_a, right_a) in enumerate(edges):
            for left_b, right_b in edges[a + 1 :]:
                for x, y in ((right_a[::-1], right_b[::-1]), (left_a, left_b)):
                    _, ops, _ = align(x, y)
                    for symbol, op in reversed(list(zip(x, ops, strict=True))):
                        if op not in (COPY, DELETE):
                            found.update({(symbol, op), (op, symbol)})
                            break
    return found


def pieces(analysis: Analysis, underlying: str) -> Iterator[tuple[int, str, str]]:
    """The changes of an analysis: (position in the string, what stood there, what came out:
    a symbol, ``""`` for a deletion, or the inserted string before the position)."""
    for at, op in enumerate(analysis.ops):
        if analysis.inserted[at]:
            yield at, "", analysis.inserted[at]
        if op == DELETE:
            yield at, underlying[at], ""
        elif op != COPY:
            yield at, underlying[at], op
    if analysis.inserted[len(underlying)]:
        yield len(underlying), "", analysis.inserted[len(underlying)]

"""Affix rewrites: the edit of one form into another around their longest common substring,
and the rewrites between two cells of a table, counted over its stems.

From a pair of forms it keeps their longest common substring, the stem, and rewrites what is
before and after it (``werken -> gewerkt``: prefix ``'' -> 'ge'``, suffix ``'en' -> 't'``).
Two rewrites between the same two cells that differ in one symbol alone (``ı -> ın`` and
``i -> in``) make that symbol pair *alternants* there, and a rewrite applies up to them: a
stem whose form shows the rewrite's affix with the other alternant is rewritten too
(``kitabı -> kitap`` makes ``sebebi -> sebep``, though no stem of the table shows ``bi -> p``).
Where a feature table is installed, a rewrite also applies by proportion: a symbol of its
old affix that it changes may stand for another that differs from it only in features the
change leaves alone, and becomes what the change makes of that one
(:mod:`phonkit.tables.proportions`: ``pukul -> məmukul`` makes ``kirim -> məŋirim``).
The candidates of a gap (:mod:`phonkit.tables.candidates`) and the analogy baseline
(:mod:`phonkit.tasks.baseline`) both read the rewrites a table shows between its cells.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Container, Iterable, Iterator
from typing import NamedTuple

Symbols = tuple[str, ...]
Edit = tuple[Symbols, Symbols, Symbols, Symbols]  # old prefix, new prefix, old suffix, new suffix
Paradigm = dict[str, Symbols]  # a stem's known forms by cell
Alternants = frozenset[tuple[str, str]]  # symbol pairs a rewrite may take one for the other
Proportion = Callable[[str, str, str], str | None]  # (a, b, c): what is to c as b is to a


def edit(source: Symbols, target: Symbols) -> Edit:
    """The rewrite of ``source`` into ``target`` around their longest common substring (of
    the longest, the one that starts first in ``source``, then first in ``target``)."""
    a, b = "".join(source), "".join(target)
    if len(a) != len(source) or len(b) != len(target):  # a symbol of several code points
        a, b = _letters(source), _letters(target)
    start, size = 0, 0
    for place in range(len(a)):
        while place + size < len(a) and a[place : place + size + 1] in b:
            start, size = place, size + 1
    if size == 0:
        return source, target, (), ()
    found = b.find(a[start : start + size])
    return (
        source[:start],
        target[:found],
        source[start + size :],
        target[found + size :],
    )


_LETTERS: dict[str, str] = {}  # each symbol, as :func:`_letters` reads it


def _letters(form: Symbols) -> str:
    """``form`` as a string of one letter a symbol, so that string search finds its parts:
    each symbol read as a letter of Unicode's private use planes kept for it."""
    return "".join(_LETTERS.setdefault(symbol, chr(0xF0000 + len(_LETTERS))) for symbol in form)


def apply(
    rule: Edit,
    form: Symbols,
    alternants: Alternants = frozenset(),
    proportions: Proportion | None = None,
) -> Symbols | None:
    """``form`` rewritten by ``rule``, or None when it lacks the rule's prefix or suffix. With
    ``alternants``, also where its prefix or suffix differs from the rule's only by symbols
    that stand for their alternants, each alternant then taking its symbol's place in the new
    affix too (*evi* by the rule *ı → ın* of *kitabı → kitabın*: *evin*). With
    ``proportions``, also where a symbol of its prefix or suffix stands for one of the rule's
    that the rule changes, in proportion (*p* : *m* :: *k* : *ŋ*): the rule's new symbol
    facing it (the prefixes aligned at their end, the suffixes at their start) then becomes
    what the proportion makes (*kirim* by the rule *p → məm* of *pukul → məmukul*:
    *məŋirim*)."""
    start, end = len(rule[0]), len(form) - len(rule[2])
    if end < start:
        return None
    made = affixes(rule, form[:start], form[end:], alternants, proportions)
    return None if made is None else made[0] + form[start:end] + made[1]


def affixes(
    rule: Edit,
    prefix: Symbols,
    suffix: Symbols,
    alternants: Alternants = frozenset(),
    proportions: Proportion | None = None,
) -> tuple[Symbols, Symbols] | None:
    """The new prefix and suffix that ``rule`` makes of a form whose ``prefix`` and ``suffix``
    are as long as the rule's old ones (:func:`apply`: what it makes of the form depends on
    them alone, the stem between them stays), or None where it does not apply."""
    old_prefix, new_prefix, old_suffix, new_suffix = rule
    if prefix == old_prefix and suffix == old_suffix:
        return new_prefix, new_suffix
    if not alternants and proportions is None:
        return None
    made_prefix = _rewritten(old_prefix, prefix, new_prefix, alternants, proportions, True)
    made_suffix = _rewritten(old_suffix, suffix, new_suffix, alternants, proportions, False)
    if made_prefix is None or made_suffix is None:
        return None
    return made_prefix, made_suffix


def _rewritten(
    old: Symbols,
    found: Symbols,
    new: Symbols,
    alternants: Alternants,
    proportions: Proportion | None = None,
    prefix: bool = False,
) -> Symbols | None:
    """``new`` where ``found`` is ``old`` up to ``alternants``, each alternant in place of its
    symbol in ``new`` too, or up to ``proportions`` (``prefix``: the affixes are aligned at
    their end); None where it is not."""
    if found == old:
        return new
    swaps: dict[str, str] = {}
    shifted: dict[int, str] = {}
    for place, (ours, theirs) in enumerate(zip(old, found, strict=True)):
        if ours == theirs:
            continue
        if (ours, theirs) in alternants and swaps.setdefault(ours, theirs) == theirs:
            continue
        if proportions is None:
            return None
        facing = place - len(old) + len(new) if prefix else place
        if not 0 <= facing < len(new):
            return None
        made = None if new[facing] == ours else proportions(ours, new[facing], theirs)
        if made is None:
            return None
        shifted[facing] = made
    return tuple(shifted.get(place, swaps.get(symbol, symbol)) for place, symbol in enumerate(new))


def alternants_of(rules: Iterable[Edit]) -> Alternants:
    """The symbol pairs that tell two of ``rules`` (rewrites between the same two cells)
    apart alone: their old affixes differ by that pair only, and swapping it in the one's
    new affixes gives the other's (*ı → ın* and *i → in*: ı and i)."""
    by_shape: dict[tuple[int, int], list[Edit]] = defaultdict(list)
    for rule in rules:
        by_shape[len(rule[0]), len(rule[2])].append(rule)
    found: set[tuple[str, str]] = set()
    for same_shape in by_shape.values():
        for number, one in enumerate(same_shape):
            for other in same_shape[number + 1 :]:
                if pair := _one_swap(one, other):
                    found.update({pair, pair[::-1]})
    return frozenset(found)


def _one_swap(one: Edit, other: Edit) -> tuple[str, str] | None:
    """The symbol pair whose swap turns rewrite ``one`` into ``other``, if one does."""
    olds = zip(one[0] + one[2], other[0] + other[2], strict=True)
    differ = {(a, b) for a, b in olds if a != b}
    if len(differ) != 1:
        return None
    ((a, b),) = differ
    swapped = [tuple(b if symbol == a else symbol for symbol in new) for new in (one[1], one[3])]
    return (a, b) if swapped == [other[1], other[3]] else None


def cell_pairs(
    paradigms: dict[str, Paradigm], sources: Container[str] | None = None
) -> Iterator[tuple[str, str, Symbols, Symbols]]:
    """(source cell, target cell, source form, target form) of every ordered pair of known
    cells of every paradigm (of the source cells ``sources`` only, where given)."""
    for forms in paradigms.values():
        for source, source_form in forms.items():
            if sources is not None and source not in sources:
                continue
            for target, target_form in forms.items():
                if source != target:
                    yield source, target, source_form, target_form


class Between(NamedTuple):
    """The rewrites of a cell's forms into another's, counted over the stems with both."""

    rules: list[tuple[Edit, int]]  # (rewrite, on how many stems), most frequent first
    stems: int  # the stems with both cells
    alternants: Alternants  # the symbol pairs those rewrites tell apart alone


NOTHING_BETWEEN = Between([], 0, frozenset())


class CellRewrites:
    """For each ordered pair of cells (a, b), the rewrites of the a-form into the b-form,
    counted over the stems that have both (:meth:`between`; of the source cells ``sources``
    only, where given), with the symbol pairs those rewrites tell apart alone
    (:func:`alternants_of`). A pair's rewrites are counted when first asked for: a table of
    hundreds of cells asks for few of its pairs."""

    def __init__(self, paradigms: dict[str, Paradigm], sources: Container[str] | None = None):
        self.paradigms = paradigms
        self.sources = sources
        self.found: dict[tuple[str, str], Between] = {}

    def between(self, source: str, target: str) -> Between:
        """The rewrites of ``source``'s forms into ``target``'s."""
        if source == target or (self.sources is not None and source not in self.sources):
            return NOTHING_BETWEEN
        found = self.found.get((source, target))
        if found is None:
            counts = Counter(
                edit(forms[source], forms[target])
                for forms in self.paradigms.values()
                if source in forms and target in forms
            )
            found = self.found[source, target] = Between(
                counts.most_common(), counts.total(), alternants_of(counts)
            )
        return found

"""Affix rewrites: the edit of one form into another around their longest common substring,
and the rewrites between two cells of a table, counted over its stems.

From a pair of forms it keeps their longest common substring, the stem, and rewrites what is
before and after it (``werken -> gewerkt``: prefix ``'' -> 'ge'``, suffix ``'en' -> 't'``).
The candidates of a gap (:mod:`phonkit.tables.candidates`) and the analogy baseline
(:mod:`phonkit.tasks.baseline`) both read the rewrites a table shows between its cells.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator
from difflib import SequenceMatcher

Symbols = tuple[str, ...]
Edit = tuple[Symbols, Symbols, Symbols, Symbols]  # old prefix, new prefix, old suffix, new suffix
Paradigm = dict[str, Symbols]  # a stem's known forms by cell


def edit(source: Symbols, target: Symbols) -> Edit:
    """The rewrite of ``source`` into ``target`` around their longest common substring."""
    match = SequenceMatcher(None, source, target, autojunk=False).find_longest_match(
        0, len(source), 0, len(target)
    )
    if match.size == 0:
        return source, target, (), ()
    return (
        source[: match.a],
        target[: match.b],
        source[match.a + match.size :],
        target[match.b + match.size :],
    )


def apply(rule: Edit, form: Symbols) -> Symbols | None:
    """``form`` rewritten by ``rule``, or None when it lacks the rule's prefix or suffix."""
    old_prefix, new_prefix, old_suffix, new_suffix = rule
    start, end = len(old_prefix), len(form) - len(old_suffix)
    if end < start or form[:start] != old_prefix or form[end:] != old_suffix:
        return None
    return new_prefix + form[start:end] + new_suffix


def cell_pairs(paradigms: dict[str, Paradigm]) -> Iterator[tuple[str, str, Symbols, Symbols]]:
    """(source cell, target cell, source form, target form) of every ordered pair of known
    cells of every paradigm."""
    for forms in paradigms.values():
        for source, source_form in forms.items():
            for target, target_form in forms.items():
                if source != target:
                    yield source, target, source_form, target_form


class CellRewrites:
    """For each ordered pair of cells (a, b), the rewrites of the a-form into the b-form,
    counted over the stems that have both: ``rules[a, b]``, most frequent first, and
    ``pairs[a, b]``, the number of such stems."""

    def __init__(self, paradigms: dict[str, Paradigm]):
        counts: dict[tuple[str, str], Counter[Edit]] = defaultdict(Counter)
        for source, target, source_form, target_form in cell_pairs(paradigms):
            counts[source, target][edit(source_form, target_form)] += 1
        self.rules = {pair: c.most_common() for pair, c in counts.items()}
        self.pairs = {pair: sum(c.values()) for pair, c in counts.items()}

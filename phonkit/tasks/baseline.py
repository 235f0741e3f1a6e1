"""A reference point for inflecting lemmas: the most frequent edit per feature bundle.

From each training pair (lemma, form) it takes the edit that keeps their longest common
substring, the stem, and rewrites what is before and after it (``werken -> gewerkt``:
prefix ``'' -> 'ge'``, suffix ``'en' -> 't'``). A new lemma in a bundle gets the most
frequent edit of that bundle whose prefix and suffix it has; with none, it stays as it is.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from difflib import SequenceMatcher

Symbols = tuple[str, ...]
Edit = tuple[Symbols, Symbols, Symbols, Symbols]  # old prefix, new prefix, old suffix, new suffix


def edit(lemma: Symbols, form: Symbols) -> Edit:
    """The rewrite of ``lemma`` into ``form`` around their longest common substring."""
    match = SequenceMatcher(None, lemma, form, autojunk=False).find_longest_match(
        0, len(lemma), 0, len(form)
    )
    if match.size == 0:
        return lemma, form, (), ()
    return (
        lemma[: match.a],
        form[: match.b],
        lemma[match.a + match.size :],
        form[match.b + match.size :],
    )


def apply(rule: Edit, lemma: Symbols) -> Symbols | None:
    """``lemma`` rewritten by ``rule``, or None when it lacks the rule's prefix or suffix."""
    old_prefix, new_prefix, old_suffix, new_suffix = rule
    start, end = len(old_prefix), len(lemma) - len(old_suffix)
    if end < start or lemma[:start] != old_prefix or lemma[end:] != old_suffix:
        return None
    return new_prefix + lemma[start:end] + new_suffix


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

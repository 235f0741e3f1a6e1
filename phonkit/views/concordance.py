"""``phonkit concordance``: the forms of a lexicon that match a regular expression, each
with its lemma and features, the match marked (key word in context: lemma on the left, the
form in the middle, the features on the right), sorted as a corpus linguist asks."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from phonkit.data.lexicon import Entry
from phonkit.errors import InputError
from phonkit.views.source import Part

SORTS = ("form", "lemma", "ending", "frequency", "corpus")


@dataclass(frozen=True)
class Line:
    """One matching entry, where in the form the (first) match is, and how frequent it is."""

    part: str  # the corpus, or the run's split
    entry: Entry
    start: int
    end: int
    frequency: float  # the entry's token count, or without counts, the form's cells

    @property
    def before(self) -> str:
        return self.entry.form[: self.start]

    @property
    def match(self) -> str:
        return self.entry.form[self.start : self.end]

    @property
    def after(self) -> str:
        return self.entry.form[self.end :]


def concordance(parts: Sequence[Part], pattern: re.Pattern, sort: str = "form") -> list[Line]:
    """Every entry whose written form matches ``pattern``, sorted by ``sort``: ``form``,
    ``lemma``, ``ending`` (a tergo: by the reversed form, so forms with one ending stand
    together), ``frequency`` (most frequent first) or ``corpus`` (as read)."""
    if sort not in SORTS:
        raise InputError(f"unknown sort {sort!r}; use {', '.join(SORTS)}")
    counted = any(part.has_counts for part in parts)
    cells = Counter(example.entry.form for part in parts for example in part.examples)
    lines = []
    for part in parts:
        for example in part.examples:
            entry = example.entry
            found = pattern.search(entry.form)
            if found is None:
                continue
            frequency = (entry.count or 0.0) if counted else cells[entry.form]
            lines.append(Line(part.name, entry, found.start(), found.end(), frequency))
    keys = {
        "form": lambda line: (line.entry.form, line.entry.lemma, line.entry.bundle),
        "lemma": lambda line: (line.entry.lemma, line.entry.form, line.entry.bundle),
        "ending": lambda line: (line.entry.form[::-1], line.entry.lemma, line.entry.bundle),
        "frequency": lambda line: (-line.frequency, line.entry.form, line.entry.lemma),
    }
    if sort in keys:
        lines.sort(key=keys[sort])
    return lines

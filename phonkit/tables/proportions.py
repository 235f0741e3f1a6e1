"""Proportions between segments: the segment that is to ``c`` what ``b`` is to ``a``
(*p* : *m* :: *k* : *ŋ*), by the features of a feature table (``phonkit-panphon``).

A rewrite learnt from one stem changes a symbol of its old affix into one of its new affix
(Indonesian *pukul → məmukul*: *p* becomes *m*). The same change applies to another segment
where that segment differs from the rewrite's only in features the change leaves alone
(*k*, in its place of articulation), and makes the segment of the table that differs from
the new one in those features alone (*ŋ*): *kirim → məŋirim*, though no stem of the table
with *k* shows it. A proportion is exact: the segments are a table's own symbols, and where
no symbol of the table, or more than one, has the features it makes, there is none.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from phonkit.data.features import Features


class Proportions:
    """The proportions among the symbols of ``inventory`` (a table's segments), by
    ``features``: call with (a, b, c) for the segment that is to c what b is to a."""

    def __init__(self, features: Features, inventory: Iterable[str]):
        self.features: dict[str, Mapping[str, str]] = {}
        having: dict[frozenset[tuple[str, str]], list[str]] = {}
        for symbol in inventory:
            found = features(symbol)
            if found:
                self.features[symbol] = found
                having.setdefault(frozenset(found.items()), []).append(symbol)
        self.segment = {values: symbols[0] for values, symbols in having.items()
                        if len(symbols) == 1}  # fmt: skip
        self.solved: dict[tuple[str, str, str], str | None] = {}

    def __call__(self, a: str, b: str, c: str) -> str | None:
        """The segment that is to ``c`` what ``b`` is to ``a``; None where ``c`` differs from
        ``a`` in a feature that ``a → b`` changes, where the table does not know one of the
        three, and where no one symbol of the table has the features the proportion makes."""
        key = (a, b, c)
        if key not in self.solved:
            self.solved[key] = self._solve(a, b, c)
        return self.solved[key]

    def _solve(self, a: str, b: str, c: str) -> str | None:
        first, second, third = (self.features.get(symbol) for symbol in (a, b, c))
        if first is None or second is None or third is None:
            return None
        changed = {name for name, value in first.items() if second.get(name) != value}
        if any(third.get(name) != first[name] for name in changed):
            return None
        made = {**third, **{name: second[name] for name in changed if name in second}}
        return self.segment.get(frozenset(made.items()))

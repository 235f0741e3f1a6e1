"""What the underlying strings know of symbols: vowel, consonant or modifier, and the table's
surface phonotactics.

The classes come from the symbols themselves: a vowel is a symbol whose base letter is a
vowel letter of the IPA or of the Latin alphabet (``a``, ``ɨ``, ``ø``, ``á``...), a modifier
is a modifier letter or mark (``ː``, ``ʰ``, ``ʲ``, a combining accent), anything else is a
consonant. The phonotactics are the table's own: the pairs and triples of symbols its
surface forms show, word edges (``#``) included.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable
from functools import cache

from phonkit.tables.sizes import EXPECTED_GAP

EDGE = "#"  # a word's edge, and a context beyond the string
VOWEL_LETTERS = frozenset("aeiouyæøœɑɒɐəɘɚɛɜɝɞɤɨɪɯɵɶʉʊʌʏɔ")
MODIFIER_CATEGORIES = frozenset(("Lm", "Mn", "Sk"))
# A symbol of several characters (an IPA segment such as ``tʃ``) stands for one character
# of the private use area while strings are compared, from the block of its kind.
PRIVATE = {"V": 0xE000, "M": 0xE800, "C": 0xF000}
BLOCK = 0x800


@cache
def kind(symbol: str) -> str:
    """``V`` (vowel), ``M`` (modifier), ``C`` (consonant), or ``#`` for the edge."""
    if symbol == EDGE:
        return EDGE
    for name, start in PRIVATE.items():
        if len(symbol) == 1 and start <= ord(symbol) < start + BLOCK:
            return name
    base = unicodedata.normalize("NFD", symbol)[0].lower()
    if base in VOWEL_LETTERS:
        return "V"
    return "M" if unicodedata.category(symbol[0]) in MODIFIER_CATEGORIES else "C"


def last_vowel(symbols: Iterable[str]) -> str:
    """The last vowel of ``symbols`` (:data:`EDGE` if none): what a harmonising affix reads."""
    found = EDGE
    for symbol in symbols:
        if kind(symbol) == "V":
            found = symbol
    return found


class Phonotactics:
    """The symbol pairs and triples a table's surface forms show, word edges included, and
    which of those they never show are *missing*: a pair or triple is missing where the
    forms never show it though, by how often its parts occur, they would show it at least
    :data:`~phonkit.tables.sizes.EXPECTED_GAP` times were its parts independent (a pair's
    two symbols; a triple's first pair and last pair, given its middle symbol). A pair a
    small table lacks by chance is no reason for a change."""

    def __init__(self, forms: Iterable[str]):
        self.pairs: Counter[tuple[str, str]] = Counter()
        self.triples: Counter[tuple[str, str, str]] = Counter()
        for form in forms:
            word = EDGE + form + EDGE
            self.pairs.update(zip(word, word[1:], strict=False))
            self.triples.update(zip(word, word[1:], word[2:], strict=False))
        self.firsts: Counter[str] = Counter()
        self.seconds: Counter[str] = Counter()
        for (a, b), count in self.pairs.items():
            self.firsts[a] += count
            self.seconds[b] += count
        self.total = max(1, sum(self.pairs.values()))
        self.middles: Counter[str] = Counter()  # triples, by their middle symbol
        for (_, middle, _), count in self.triples.items():
            self.middles[middle] += count

    def unseen_pair(self, a: str, b: str) -> bool:
        if (a, b) in self.pairs:
            return False
        return self.firsts[a] * self.seconds[b] / self.total >= EXPECTED_GAP

    def unseen_triple(self, a: str, b: str, c: str) -> bool:
        if (a, b, c) in self.triples:
            return False
        middle = self.middles[b]
        return middle > 0 and self.pairs[a, b] * self.pairs[b, c] / middle >= EXPECTED_GAP


class Alphabet:
    """Symbols as single characters, so that forms are strings: a one-character symbol is
    itself, a longer one a private character of its kind (:data:`PRIVATE`)."""

    def __init__(self) -> None:
        self.characters: dict[str, str] = {}
        self.symbols: dict[str, str] = {}
        self.used = dict.fromkeys(PRIVATE, 0)

    def string(self, symbols: Iterable[str]) -> str:
        return "".join(self.character(symbol) for symbol in symbols)

    def character(self, symbol: str) -> str:
        if len(symbol) == 1:
            return symbol
        found = self.characters.get(symbol)
        if found is None:
            group = kind(symbol)
            if self.used[group] == BLOCK:
                raise ValueError(f"more than {BLOCK} segments of one kind")
            found = chr(PRIVATE[group] + self.used[group])
            self.used[group] += 1
            self.characters[symbol], self.symbols[found] = found, symbol
        return found

    def symbols_of(self, string: str) -> tuple[str, ...]:
        return tuple(self.symbols.get(character, character) for character in string)

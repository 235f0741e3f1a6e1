"""The CoNLL–SIGMORPHON 2017 shared task's baseline (Cotterell et al. 2017), written anew from
its description (the task repository's ``baseline/README.md``), for task 2.

Learning: each training pair (lemma, form) is aligned by Levenshtein distance, substitutions
costing 1.1 so that insertions and deletions are preferred; the columns before the first and
after the last where either string has a gap are the prefix and suffix, the rest the stem.
Every suffix of stem + suffix (``en$ > t$``, ``len$ > lt$``...) is a suffix rule of the pair's
feature bundle, and the prefix change followed by each prefix of the form's stem a prefix
rule; each rule counts the pairs that show it. A language whose lemmas and forms differ more
at their start than at their end (by a Hamming alignment) is read right to left throughout.

Generation: a lemma takes the longest suffix rule of its bundle that occurs in it (ties: the
most frequent, then the longest output), then the most frequent prefix rule that occurs; a
bundle with no rules leaves the lemma as it is. In task 2 every gap is generated from the
lemma; the given cells are not read.

Two details decide ties the description leaves open, and the figures the task reports depend
on them; both are reproduced here so that this baseline gives the task's own figures (mean
test accuracy 50.87 / 68.73 / 80.81 over the 28 languages of the paper; the task reports
50.87 / 68.73 / 80.80): the alignment's costs are summed in floating point along the
recursion's order of visits, memoised by the rest of both strings, and rules of equal rank
are taken in the order the original program's Python 2.7 dictionaries and sets hold them
(:class:`Python2Order`, string and tuple hashes with the 2.7 probing and resizing).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

MASK = (1 << 64) - 1
Rule = tuple[str, str]


def _signed(value: int) -> int:
    value &= MASK
    return value - (1 << 64) if value >> 63 else value


def string_hash(text: str) -> int:
    """Python 2.7's hash of a unicode string on a 64-bit build (no hash randomisation)."""
    if not text:
        return 0
    value = ord(text[0]) << 7
    for character in text:
        value = _signed(1000003 * value) ^ ord(character)
    value = _signed(value ^ len(text))
    return -2 if value == -1 else value


def pair_hash(rule: Rule) -> int:
    """Python 2.7's hash of a tuple of two unicode strings."""
    value, multiplier, left = 0x345678, 1000003, len(rule)
    for item in rule:
        left -= 1
        value = _signed((value ^ string_hash(item)) * multiplier)
        multiplier = _signed(multiplier + 82520 + 2 * left)
    value = _signed(value + 97531)
    return -2 if value == -1 else value


class Python2Order:
    """Rules in the order a Python 2.7 set or dict (no deletions) iterates over them: open
    addressing from ``hash & mask`` with the perturbed probe, a table of 8 slots growing to
    the first power of two above four times the entries once it is two thirds full."""

    def __init__(self, rules: Iterable[Rule] = ()):
        self.slots: list[tuple[Rule, int] | None] = [None] * 8
        self.used = 0
        for rule in rules:
            self.add(rule)

    @staticmethod
    def _place(slots: list[tuple[Rule, int] | None], rule: Rule, hashed: int) -> bool:
        mask = len(slots) - 1
        perturb = hashed & MASK
        probe = perturb & mask
        slot = probe
        while (held := slots[slot]) is not None:
            if held[0] == rule:
                return False
            probe = (5 * probe + perturb + 1) & MASK
            slot = probe & mask
            perturb >>= 5
        slots[slot] = (rule, hashed)
        return True

    def add(self, rule: Rule) -> None:
        if not self._place(self.slots, rule, pair_hash(rule)):
            return
        self.used += 1
        if 3 * self.used >= 2 * len(self.slots):
            size = 8
            while size <= 4 * self.used:
                size <<= 1
            old, self.slots = self.slots, [None] * size
            for held in old:
                if held is not None:
                    self._place(self.slots, *held)

    def __iter__(self) -> Iterator[Rule]:
        return (held[0] for held in self.slots if held is not None)


def hamming_alignment(lemma: str, form: str) -> tuple[str, str]:
    """The two strings shifted against each other (``_`` padding) with the fewest mismatches,
    columns where both are padding dropped; the first best shift wins."""
    shifts = [
        ("_" * pad + lemma + "_" * (len(form) - pad), "_" * len(lemma) + form)
        for pad in range(len(form) + 1)
    ] + [
        ("_" * len(form) + lemma, "_" * (len(lemma) - pad) + form + "_" * pad)
        for pad in range(len(lemma) + 1)
    ]
    best, fewest = shifts[0], len(lemma) + len(form) + 1
    for upper, lower in shifts:
        mismatches = sum(a != b for a, b in zip(upper, lower, strict=True))
        if mismatches < fewest:
            best, fewest = (upper, lower), mismatches
    columns = [(a, b) for a, b in zip(*best, strict=True) if a != "_" or b != "_"]
    return "".join(a for a, _ in columns), "".join(b for _, b in columns)


def edit_alignment(lemma: str, form: str, substitution: float = 1.1) -> tuple[str, str]:
    """The Levenshtein alignment of ``lemma`` and ``form`` (gaps as ``_``): at each step a
    match or substitution, then an insertion, then a deletion, the first of least cost. Each
    rest of the two strings is solved once, by the first path that reaches it, and its cost
    stored as that path's total less its cost so far (floating point, as the original)."""
    solved: dict[tuple[int, int], tuple[str, str, float]] = {}

    def solve(i: int, j: int, cost: float) -> tuple[str, str, float]:
        if (i, j) not in solved:
            if i == len(lemma):
                upper, lower, total = "_" * (len(form) - j), form[j:], cost + (len(form) - j)
            elif j == len(form):
                upper, lower, total = lemma[i:], "_" * (len(lemma) - i), cost + (len(lemma) - i)
            else:
                step = 0 if lemma[i] == form[j] else substitution
                a, b, c = solve(i + 1, j + 1, cost + step)
                options = [(lemma[i] + a, form[j] + b, c)]
                a, b, c = solve(i, j + 1, cost + 1)
                options.append(("_" + a, form[j] + b, c))
                a, b, c = solve(i + 1, j, cost + 1)
                options.append((lemma[i] + a, "_" + b, c))
                upper, lower, total = min(options, key=lambda option: option[2])
            solved[i, j] = (upper, lower, total - cost)
        upper, lower, rest = solved[i, j]
        return upper, lower, cost + rest

    upper, lower, _ = solve(0, 0, 0.0)
    return upper, lower


def _lead(text: str) -> int:
    return len(text) - len(text.lstrip("_"))


def _trail(text: str) -> int:
    return len(text) - len(text.rstrip("_"))


def rules_of(lemma: str, form: str) -> tuple[list[Rule], list[Rule]]:
    """The prefix and suffix rules of one pair, each list in the original's set order."""
    upper, lower = edit_alignment(lemma, form)
    lead = max(_lead(upper), _lead(lower))
    end = len(upper) - max(_trail(upper), _trail(lower))
    old_prefix, old_rest = upper[:lead], upper[lead:end] + upper[end:]
    new_prefix, new_stem, new_rest = lower[:lead], lower[lead:end], lower[lead:end] + lower[end:]
    old, new = old_rest + ">", new_rest + ">"
    raw = Python2Order((old[i:], new[i:]) for i in range(min(len(old), len(new))))
    suffixes = Python2Order((a.replace("_", ""), b.replace("_", "")) for a, b in raw)
    prefixes = Python2Order()
    for i in range(len(new_stem)):  # the original rebuilds the set after each addition
        prefixes.add(("<" + old_prefix + new_stem[:i], "<" + new_prefix + new_stem[:i]))
        prefixes = Python2Order((a.replace("_", ""), b.replace("_", "")) for a, b in prefixes)
    return list(prefixes), list(suffixes)


class Counts:
    """Rules of one bundle with how many pairs show each, in the original's dict order."""

    def __init__(self) -> None:
        self.order = Python2Order()
        self.count: dict[Rule, int] = {}

    def add(self, rule: Rule) -> None:
        if rule not in self.count:
            self.order.add(rule)
        self.count[rule] = self.count.get(rule, 0) + 1

    def items(self) -> Iterator[tuple[Rule, int]]:
        return ((rule, self.count[rule]) for rule in self.order)


class Baseline:
    """The baseline learned from (lemma, form, features) triples."""

    def __init__(self, triples: Iterable[tuple[str, str, str]]):
        triples = list(triples)
        prefixing = suffixing = 0
        for lemma, form, _ in triples:
            upper, lower = hamming_alignment(lemma, form)
            if not any(mark in text for mark in " -" for text in (upper, lower)):
                prefixing += _lead(upper) + _lead(lower)
                suffixing += _trail(upper) + _trail(lower)
        self.reversed = prefixing > suffixing
        self.prefixes: dict[str, Counts] = {}
        self.suffixes: dict[str, Counts] = {}
        for lemma, form, features in triples:
            if self.reversed:
                lemma, form = lemma[::-1], form[::-1]
            found = rules_of(lemma, form)
            for table, rules in zip((self.prefixes, self.suffixes), found, strict=True):
                if rules:
                    counts = table.setdefault(features, Counts())
                    for rule in rules:
                        counts.add(rule)

    def inflect(self, lemma: str, features: str) -> str:
        if self.reversed:
            return self._inflect(lemma[::-1], features)[::-1]
        return self._inflect(lemma, features)

    def _inflect(self, lemma: str, features: str) -> str:
        if features not in self.prefixes and features not in self.suffixes:
            return lemma
        word = "<" + lemma + ">"
        if features in self.suffixes:
            found = [(a, b, n) for (a, b), n in self.suffixes[features].items() if a in word]
            if found:
                old, new, _ = max(found, key=lambda rule: (len(rule[0]), rule[2], len(rule[1])))
                word = word.replace(old, new)
        if features in self.prefixes:
            found = [(a, b, n) for (a, b), n in self.prefixes[features].items() if a in word]
            if found:
                old, new, _ = max(found, key=lambda rule: rule[2])
                word = word.replace(old, new)
        return word.replace("<", "").replace(">", "")

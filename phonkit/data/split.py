"""Train/dev/test splits: paradigm completion (held-out cells of seen paradigms) and unseen
lemmas (held-out whole paradigms), both shuffled 80/10/10 with a seed; the k-sample of the
CELEX learning curve (k training entries drawn by token frequency); the folds of a paradigm
table (no dev split: a small table cannot spare one); and ``all`` (everything trains, as
``phonkit fill`` does)."""

from __future__ import annotations

import heapq
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from phonkit.data.lexicon import Entry, Example, paradigms
from phonkit.data.table import fold_split
from phonkit.errors import InputError


@dataclass
class Split:
    train: list[Example]
    dev: list[Example]
    test: list[Example]
    moved: int  # held-out entries moved to train because a morpheme of theirs was unseen
    protocol: str = "paradigms"
    uncovered: int = 0  # k-sample: entries left out because a morpheme of theirs was not drawn

    def counts(self) -> dict[str, int]:
        counts = {
            "train": len(self.train),
            "dev": len(self.dev),
            "test": len(self.test),
            "moved_to_train": self.moved,
        }
        if self.protocol == "sample":
            counts["uncovered"] = self.uncovered
        return counts


def _covered(held_out: dict[str, list[Example]], train: list[Example]) -> tuple[dict, int]:
    """Move every held-out example with a morpheme absent from train into train."""
    seen = {morpheme for example in train for morpheme in example.morphemes}
    kept: dict[str, list[Example]] = {}
    moved = 0
    for name, part in held_out.items():
        kept[name] = []
        for example in part:
            if seen.issuperset(example.morphemes):
                kept[name].append(example)
            else:
                train.append(example)
                moved += 1
    return kept, moved


def paradigm_completion(
    examples: Sequence[Example], seed: int, fractions: tuple[float, float] = (0.8, 0.1)
) -> Split:
    """Shuffle with ``seed`` and split train/dev/test; any dev/test entry with a morpheme
    (lemma or feature) absent from train moves to train, so test cells belong to paradigms
    whose other cells were seen."""
    shuffled = list(examples)
    random.Random(seed).shuffle(shuffled)
    n_train = round(len(shuffled) * fractions[0])
    n_dev = round(len(shuffled) * fractions[1])
    train = shuffled[:n_train]
    held_out = {"dev": shuffled[n_train : n_train + n_dev], "test": shuffled[n_train + n_dev :]}
    kept, moved = _covered(held_out, train)
    return Split(train, kept["dev"], kept["test"], moved)


def unseen_lemmas(
    examples: Sequence[Example], seed: int, fractions: tuple[float, float] = (0.8, 0.1)
) -> Split:
    """Hold out whole paradigms for test: the lemmas are shuffled with ``seed`` and the last
    ``1 - sum(fractions)`` of them are test lemmas, never seen in training. The cells of the
    other lemmas are split train/dev by :func:`paradigm_completion`, so the dev set that
    guides training measures what training can learn (the cells of known lemmas). A test
    lemma with a feature absent from train moves to train whole."""
    grouped = paradigms(examples, lambda example: example.entry.lemma)
    lemmas = list(grouped)
    random.Random(seed).shuffle(lemmas)
    n_known = round(len(lemmas) * sum(fractions))
    known = [example for lemma in lemmas[:n_known] for example in grouped[lemma]]
    share = fractions[0] / sum(fractions)
    split = paradigm_completion(known, seed, (share, 1 - share))
    train, dev = split.train, split.dev + split.test  # the remainder is rounding: dev
    features = {m for example in train for m in example.morphemes[1:]}
    test: list[Example] = []
    moved = split.moved
    for lemma in lemmas[n_known:]:
        paradigm = grouped[lemma]
        needed = {m for example in paradigm for m in example.morphemes[1:]}
        if features.issuperset(needed):
            test.extend(paradigm)
        else:
            train.extend(paradigm)
            moved += len(paradigm)
    return Split(train, dev, test, moved, "lemmas")


def has_counts(examples: Sequence[Example]) -> bool:
    return any(example.entry.count for example in examples)


def drawable(entries: Sequence[Entry], k: int, name: str = "") -> list[int]:
    """The indices of the entries a k-sample draws from — those with a positive count, or
    all when no entry has a count — after checking that there are at least ``k``."""
    weighted = any(entry.count for entry in entries)
    usable = [i for i, e in enumerate(entries) if not weighted or (e.count or 0) > 0]
    if k > len(usable):
        what = "entries with a positive count" if weighted else "entries"
        of = f" of {name}" if name else ""
        raise InputError(
            f"split.k={k} is more than the {len(usable):,} {what}{of} there are to draw",
            setting="split.k",
        )
    return usable


def frequency_sample(examples: Sequence[Example], seed: int, k: int, draw: int = 1) -> Split:
    """The learning-curve protocol of the CELEX experiment: ``k`` training entries drawn
    without replacement with probability proportional to their token count (uniformly when
    no entry has a count; an entry with count 0 is never drawn when others have counts).
    Dev and test are the two halves of the remaining entries whose morphemes all occur in
    the k, shuffled; the rest are left out. Draw ``draw`` of ``seed`` has its own random
    stream, so every (seed, draw) is repeatable and the draws are independent."""
    rng = random.Random(f"k-sample:{seed}:{draw}")
    weighted = has_counts(examples)
    usable = drawable([example.entry for example in examples], k)
    # Efraimidis & Spirakis (2006): the k largest keys u^(1/w) are a weighted draw without
    # replacement; log keys keep tiny weights from underflowing to 0.
    keys = (
        (math.log(1.0 - rng.random()) / (examples[i].entry.count or 1.0 if weighted else 1.0), i)
        for i in usable
    )
    drawn = {i for _, i in heapq.nlargest(k, keys)}
    train = [examples[i] for i in sorted(drawn)]
    seen = {morpheme for example in train for morpheme in example.morphemes}
    rest = [e for i, e in enumerate(examples) if i not in drawn]
    covered = [e for e in rest if seen.issuperset(e.morphemes)]
    rng.shuffle(covered)
    half = len(covered) // 2
    return Split(train, covered[:half], covered[half:], 0, "sample", len(rest) - len(covered))


def stem_folds(examples: Sequence[Example], seed: int, fold: int) -> Split:
    """Fold ``fold`` of the cross-validation over stems (:func:`phonkit.data.table.fold_split`):
    its test cells, and everything else for training; no dev split."""
    held_out = set(fold_split([example.entry for example in examples], fold, seed).test)
    train = [example for example in examples if example.entry not in held_out]
    test = [example for example in examples if example.entry in held_out]
    kept, moved = _covered({"test": test}, train)
    return Split(train, [], kept["test"], moved, "folds")


def everything(examples: Sequence[Example], seed: int) -> Split:
    """Every example trains; nothing is held out (``phonkit fill`` fills the gaps)."""
    return Split(list(examples), [], [], 0, "all")


PROTOCOLS: dict[str, Callable[..., Split]] = {
    "paradigms": paradigm_completion,
    "lemmas": unseen_lemmas,
    "sample": frequency_sample,
    "folds": stem_folds,
    "all": everything,
}
HOLDS_NO_DEV = ("folds", "all")  # protocols without a dev split: checkpoints by training loss

"""The paradigm-completion split: shuffled 80/10/10, every held-out morpheme seen in training."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from phonkit.encoding import Example


@dataclass
class Split:
    train: list[Example]
    dev: list[Example]
    test: list[Example]
    moved: int  # held-out entries moved to train because a morpheme of theirs was unseen

    def counts(self) -> dict[str, int]:
        return {
            "train": len(self.train),
            "dev": len(self.dev),
            "test": len(self.test),
            "moved_to_train": self.moved,
        }


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
    seen = {morpheme for example in train for morpheme in example.entry.morphemes}
    kept: dict[str, list[Example]] = {}
    moved = 0
    for name, part in held_out.items():
        kept[name] = []
        for example in part:
            if seen.issuperset(example.entry.morphemes):
                kept[name].append(example)
            else:
                train.append(example)
                moved += 1
    return Split(train, kept["dev"], kept["test"], moved)

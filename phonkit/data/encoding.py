"""From examples to tensors: vocabularies, padded id matrices and length-bucketed batches."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

from phonkit.data.lexicon import BOS_ID, EOS_ID, PAD_ID, Example, Vocabularies


@dataclass
class Encoded:
    """A data set as tensors: morpheme ids ``(N, M)`` and ``BOS s_1..s_n EOS`` ``(N, L)``."""

    morphemes: Tensor
    symbols: Tensor
    lengths: Tensor  # n + 1: the number of predicted symbols, EOS included

    def __len__(self) -> int:
        return self.morphemes.shape[0]

    def to(self, device: torch.device) -> Encoded:
        return Encoded(self.morphemes.to(device), self.symbols.to(device), self.lengths.to(device))

    def batch(self, index: Tensor, width: int | None = None) -> tuple[Tensor, Tensor, Tensor]:
        """Morphemes, decoder inputs and targets of the rows ``index``, trimmed to their length
        (``width``, the longest target; pass it to spare a GPU a synchronisation)."""
        width = width or int(self.lengths[index].max())
        symbols = self.symbols[index, : width + 1]
        morphemes = self.morphemes[index]
        return morphemes, symbols[:, :-1], symbols[:, 1:]


def pad(rows: Sequence[Sequence[int]]) -> Tensor:
    width = max((len(row) for row in rows), default=0)
    out = torch.full((len(rows), max(width, 1)), PAD_ID, dtype=torch.long)
    for number, row in enumerate(rows):
        out[number, : len(row)] = torch.tensor(row, dtype=torch.long)
    return out


def encode_morphemes(words: Sequence[Sequence[str]], vocabularies: Vocabularies) -> Tensor:
    """The morpheme ids of each word ``(N, M)``, padded with 0."""
    return pad([vocabularies.morphemes.encode(morphemes) for morphemes in words])


def encode(examples: Sequence[Example], vocabularies: Vocabularies) -> Encoded:
    symbols = [
        [BOS_ID, *vocabularies.symbols.encode(example.surface), EOS_ID] for example in examples
    ]
    return Encoded(
        encode_morphemes([example.morphemes for example in examples], vocabularies),
        pad(symbols),
        torch.tensor([len(row) - 1 for row in symbols], dtype=torch.long),
    )


def bucketed_batches(
    lengths: Tensor, batch_size: int, generator: torch.Generator | None = None
) -> Iterator[Tensor]:
    """Batches of row indices of similar length (little padding); shuffled when a generator
    is given, in length order otherwise."""
    if generator is not None:
        jitter = torch.rand(len(lengths), generator=generator)
        order = torch.argsort(lengths.cpu().float() + jitter, stable=True)
    else:
        order = torch.argsort(lengths.cpu(), stable=True)
    chunks = list(order.split(batch_size))
    if generator is not None:
        chunks = [chunks[i] for i in torch.randperm(len(chunks), generator=generator).tolist()]
    yield from chunks

"""A model variant for phonkit: the word's underlying form is a *learned weighted sum* of its
morphemes' vectors, ``u = sum_i a_i m_i + eps`` with ``a_i = softmax_i(w . m_i)``.

The position-independent model averages the morphemes; this one lets each morpheme's vector
say how much it weighs (a stem can outweigh an uninformative feature). Like ``pi``, every
symbol is emitted from ``[h_t; u]``; only the composition differs.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from phonkit.plugin import PAD_ID, ModelConfig, Phonology, hookimpl


class WeightedSum(Phonology):
    name = "wsum"
    description = "underlying form as a learned weighted sum of morpheme vectors (plugin)"

    def __init__(self, n_symbols: int, n_morphemes: int, config: ModelConfig):
        super().__init__(n_symbols, n_morphemes, config)
        self.salience = nn.Linear(config.dim, 1, bias=False)

    def weights(self, morphemes: Tensor, vectors: Tensor) -> Tensor:
        """``a_i``: a distribution over each word's morphemes ``(batch, M)``."""
        scores = self.salience(vectors).squeeze(-1)
        return scores.masked_fill(morphemes == PAD_ID, float("-inf")).softmax(-1)

    def context(self, morphemes: Tensor) -> Tensor:
        vectors = self.morpheme_vectors(morphemes)
        underlying_form = torch.einsum("bm,bmd->bd", self.weights(morphemes, vectors), vectors)
        underlying_form = underlying_form + self.noise(underlying_form)
        return self.from_form(underlying_form)[:, None, :]

    def emit(self, states: Tensor, context: Tensor) -> Tensor:
        return self.output(self.hidden(states, context)).log_softmax(-1)


@hookimpl
def register_models(register):
    register(WeightedSum)

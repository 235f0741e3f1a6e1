"""The three model variants of the paper (registered by :mod:`phonkit.default_plugins.models`)."""

from __future__ import annotations

import torch
from torch import Tensor, nn

from phonkit.data.lexicon import PAD_ID
from phonkit.model.phonology import Phonology
from phonkit.settings import ModelConfig


class PositionIndependent(Phonology):
    """``u = mean_i(m_i) + eps``; every symbol is emitted from ``[h_t; u]``."""

    name = "pi"
    description = "position-independent underlying form (the paper's best)"

    def context(self, morphemes: Tensor) -> Tensor:
        mask = (morphemes != PAD_ID).unsqueeze(-1)
        vectors = self.morpheme_vectors(morphemes) * mask
        underlying_form = vectors.sum(1) / mask.sum(1).clamp(min=1)
        underlying_form = underlying_form + self.noise(underlying_form)
        return self.from_form(underlying_form)[:, None, :]

    def emit(self, states: Tensor, context: Tensor) -> Tensor:
        return self.output(self.hidden(states, context)).log_softmax(-1)


class Attending(Phonology):
    """A variant that attends over a word's morphemes at every position."""

    def __init__(self, n_symbols: int, n_morphemes: int, config: ModelConfig):
        super().__init__(n_symbols, n_morphemes, config)
        self.bilinear = nn.Linear(config.dim, config.dim, bias=False)  # T

    def log_attention(self, states: Tensor, vectors: Tensor, mask: Tensor) -> Tensor:
        """``log alpha_ti``, ``alpha_ti = softmax_i(h_t^T T m_i)``: ``(batch, time, M)``."""
        scores = torch.einsum("btd,bmd->btm", self.bilinear(states), vectors)
        return scores.masked_fill(~mask[:, None, :], float("-inf")).log_softmax(-1)


class PositionDependent(Attending):
    """``u_t = sum_i alpha_ti m_i + eps``, attention ``alpha_ti = softmax_i(h_t^T T m_i)``."""

    name = "pd"
    description = "position-dependent underlying form (attention over morphemes)"

    def context(self, morphemes: Tensor) -> tuple[Tensor, Tensor, Tensor | float]:
        vectors = self.morpheme_vectors(morphemes)
        eps = self.noise(vectors[:, :1, :])  # one draw per word, shared by all its positions
        return vectors, morphemes != PAD_ID, eps

    def emit(self, states: Tensor, context: tuple[Tensor, Tensor, Tensor | float]) -> Tensor:
        vectors, mask, eps = context
        alpha = self.log_attention(states, vectors, mask).exp()
        underlying_forms = torch.einsum("btm,bmd->btd", alpha, vectors) + eps
        return self.output(self.hidden(states, self.from_form(underlying_forms))).log_softmax(-1)


class Joint(Attending):
    """No underlying form: ``p(s_t) = sum_i alpha_ti softmax(f([h_t; m_i]))``."""

    name = "joint"
    description = "joint model without underlying form (hard-attention mixture over morphemes)"

    def context(self, morphemes: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        vectors = self.morpheme_vectors(morphemes)
        vectors = vectors + self.noise(vectors)
        return vectors, morphemes != PAD_ID, self.from_form(vectors)

    def emit(self, states: Tensor, context: tuple[Tensor, Tensor, Tensor]) -> Tensor:
        vectors, mask, projected = context
        log_alpha = self.log_attention(states, vectors, mask)  # (B, T, M)
        hidden = torch.tanh(self.from_state(states)[:, :, None, :] + projected[:, None, :, :])
        per_morpheme = self.output(hidden).log_softmax(-1)  # (B, T, M, |Sigma|)
        return (per_morpheme + log_alpha[..., None]).logsumexp(2)

"""An emission that generates a symbol or copies the one it is aligned to.

From alignment position j at output step t:

    p(y | t, j) = (1 - g_tj) softmax(a_t + b_j)[y] + g_tj [s_j = y]

``a_t`` reads the decoder's state, ``b_j`` the encoder's state at j (so that what is
generated depends on what is read, as Wu & Cotterell's emission does), ``g_tj`` is the
chance of copying ``s_j`` (a generation probability as in See et al.'s pointer-generator),
and nothing is copied where a position has no symbol. The sum of ``a_t + b_j`` over the
symbols factorises, so no ``(steps, positions, symbols)`` tensor is made. A copied symbol
needs no output unit: symbols the model never saw are copied, not refused.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from phonkit.data.lexicon import PAD_ID
from phonkit.model.modules.alignment import Read


@dataclass
class Scores:
    """The emission's parts at each step and position."""

    state: Tensor  # (B, T, V) a_t
    memory: Tensor  # (B, P, V) b_j
    log_norm: Tensor  # (B, T, P) log sum_v exp(a_tv + b_jv), in float64
    gate: Tensor  # (B, T, P) g_tj, 0 where nothing can be copied

    def step(self, t: int) -> Scores:
        return Scores(self.state[:, t : t + 1], self.memory, self.log_norm[:, t : t + 1],
                      self.gate[:, t : t + 1])  # fmt: skip

    def select(self, rows: Tensor) -> Scores:
        return Scores(self.state[rows], self.memory[rows], self.log_norm[rows], self.gate[rows])


class CopyingEmission(nn.Module):
    """Sizes: ``state`` of what the decoder gives at a step, ``memory`` of the encoder's
    states, ``symbols`` of the symbols it generates."""

    def __init__(self, state: int, memory: int, symbols: int):
        super().__init__()
        self.from_state = nn.Linear(state, symbols)
        self.from_memory = nn.Linear(memory, symbols, bias=False)
        self.gate_state = nn.Linear(state, 1)
        self.gate_memory = nn.Linear(memory, 1, bias=False)

    def scores(self, states: Tensor, read: Read) -> Scores:
        """The emission's parts for decoder states ``(B, T, S)``."""
        a = self.from_state(states).float()
        b = self.from_memory(read.states).float()
        top_a, top_b = a.amax(-1, keepdim=True), b.amax(-1, keepdim=True)
        summed = torch.bmm((a - top_a).double().exp(), (b - top_b).double().exp().transpose(1, 2))
        log_norm = summed.clamp(min=1e-300).log() + top_a.double() + top_b.double().transpose(1, 2)
        gate = self.gate_state(states) + self.gate_memory(read.states).transpose(1, 2)
        copyable = (read.symbols != PAD_ID) & read.mask
        return Scores(a, b, log_norm, torch.sigmoid(gate.float()) * copyable[:, None, :])

    @staticmethod
    def of(scores: Scores, symbols: Tensor, read: Read) -> Tensor:
        """``p(y_t | t, j)`` ``(B, T, P)`` for the symbols ``y`` ``(B, T)`` (any id: one the
        generator lacks is only copied)."""
        generated_ids = symbols.clamp(max=scores.state.shape[-1] - 1)
        known = (symbols < scores.state.shape[-1]).float()
        a = scores.state.gather(-1, generated_ids[..., None])  # (B, T, 1)
        b = scores.memory.gather(-1, generated_ids[:, None, :].expand(-1, read.mask.shape[1], -1))
        generated = (a + b.transpose(1, 2) - scores.log_norm).exp().float() * known[..., None]
        copied = (read.symbols[:, None, :] == symbols[..., None]).float()
        return (1 - scores.gate) * generated + scores.gate * copied

    @staticmethod
    def distribution(scores: Scores, predicted: Tensor, read: Read, size: int) -> Tensor:
        """``log p_t(v)`` ``(B, T, size)`` of every symbol id below ``size`` at each step,
        the alignment at step t being ``predicted`` ``(B, T, P)``."""
        a, b = scores.state.double(), scores.memory.double()
        top_a, top_b = a.amax(-1, keepdim=True), b.amax(-1, keepdim=True)
        # each position's share of generating, times exp(top_a + top_b - log_norm)
        share = predicted.double() * (1 - scores.gate.double())
        share = share * (top_a + top_b.transpose(1, 2) - scores.log_norm).clamp(max=80).exp()
        generated = torch.bmm(share, (b - top_b).exp()) * (a - top_a).exp()  # (B, T, V)
        total = torch.zeros(*predicted.shape[:2], size, dtype=torch.float64,
                            device=predicted.device)  # fmt: skip
        total[..., : generated.shape[-1]] = generated
        copied = (predicted * scores.gate).double()
        symbols = read.symbols[:, None, :].expand(-1, predicted.shape[1], -1)
        total = total.scatter_add(-1, symbols, copied)
        return total.clamp(min=1e-30).log().float()

"""A bidirectional LSTM over padded sequences of vectors."""

from __future__ import annotations

import torch
from torch import Tensor, nn


class SequenceEncoder(nn.Module):
    """Two LSTMs reading padded sequences ``(batch, length, dim)`` forwards and backwards:
    states ``(batch, length, 2 * hidden)``, zero at the padding.

    The backward LSTM reads each row reversed in place (its own positions first, then the
    padding), so it starts at the row's last position whatever the padding: the LSTM's fused
    kernel over the whole batch, where packed sequences take a step at a time."""

    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.forward_lstm = nn.LSTM(dim, hidden, batch_first=True)
        self.backward_lstm = nn.LSTM(dim, hidden, batch_first=True)

    def encode(self, inputs: Tensor, present: Tensor) -> Tensor:
        """``inputs`` ``(batch, length, dim)``, ``present`` ``(batch, length)``: which
        positions hold something (each row's first ones)."""
        width = inputs.shape[1]
        lengths = present.sum(-1, keepdim=True)
        position = torch.arange(width, device=inputs.device)[None, :]
        mirror = torch.where(position < lengths, lengths - 1 - position, position)
        forward, _ = self.forward_lstm(inputs)
        reversed_inputs = inputs.gather(1, mirror[..., None].expand(-1, -1, inputs.shape[-1]))
        backward, _ = self.backward_lstm(reversed_inputs)
        backward = backward.gather(1, mirror[..., None].expand(-1, -1, backward.shape[-1]))
        return torch.cat([forward, backward], -1) * present[..., None]

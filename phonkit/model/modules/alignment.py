"""A monotonic alignment over the forms a word reads: a hidden Markov model whose states are
the positions of those forms, one after another, marginalised exactly by the forward
algorithm (after Wu & Cotterell, "Exact hard monotonic attention for character-level
transduction", ACL 2019, over several sources as Kann, Cotterell & Schütze's multi-source
reinflection reads several forms, EACL 2017).

From position i the alignment moves to j with weight ``M[i, j] = exp(shift[offset])``: the
offsets -3..+5 within a form, one weight for a move to another form (its weights depend on
the target cell, the ``condition``); and at output step t every position weighs as much as
its content fits the decoder's state, ``exp(q_t . k_j)``:

    p(a_t = j | a_{t-1} = i) = M[i, j] c_t(j) / sum_j' M[i, j'] c_t(j')

A form's first position is its tag (what it is: the cell, or the lemma); the alignment starts
on the tags.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

BACK, AHEAD = 3, 5  # moves -3..+5 within a form
MOVES = BACK + AHEAD + 2  # and one to another form
#: The moves' weights before training (log): favour "one position on", then "stay".
START = (-1.0, -1.0, -1.0, 0.0, 2.0, -0.5, -1.0, -1.0, -1.0, -2.0)
TINY = 1e-15  # a probability this small is none (its square stays a float)


@dataclass
class Read:
    """What a batch of words reads, packed: the positions of each word's forms one after
    another, then padding."""

    states: Tensor  # (B, P, E) the encoder's state at each position
    symbols: Tensor  # (B, P) the symbol at each position (PAD where there is none to copy)
    form: Tensor  # (B, P) which of the word's forms each position is in
    place: Tensor  # (B, P) its place in that form (0: the form's tag)
    mask: Tensor  # (B, P) a position, not padding

    def select(self, rows: Tensor) -> Read:
        return Read(*(part[rows] for part in (self.states, self.symbols, self.form,
                                               self.place, self.mask)))  # fmt: skip


class MonotonicAlignment(nn.Module):
    """The alignment's moves and content (sizes: ``condition`` of the target cell's vector,
    ``memory`` of the encoder's states, ``query`` of the decoder's, ``hidden`` of keys)."""

    def __init__(self, condition: int, memory: int, query: int, hidden: int):
        super().__init__()
        self.shift = nn.Parameter(torch.tensor(START))
        self.shift_condition = nn.Linear(condition, MOVES)
        nn.init.zeros_(self.shift_condition.weight)
        nn.init.zeros_(self.shift_condition.bias)
        self.key = nn.Linear(memory, hidden, bias=False)
        self.query = nn.Linear(query, hidden)

    def moves(self, read: Read, condition: Tensor) -> Tensor:
        """``M`` ``(B, P, P)``: the weight of each move i -> j, for the target cells'
        ``condition`` ``(B, C)``; 0 to padding and beyond the window within a form."""
        offset = read.place[:, None, :] - read.place[:, :, None]  # [b, i, j]: j - i
        inside = (offset >= -BACK) & (offset <= AHEAD)
        same = read.form[:, None, :] == read.form[:, :, None]
        kind = torch.where(same, (offset + BACK).clamp(0, MOVES - 2), MOVES - 1)
        # normalised over the moves (each step normalises again): never more than 1
        weights = (self.shift + self.shift_condition(condition)).float().softmax(-1)
        chosen = weights.gather(1, kind.flatten(1)).view_as(offset.float())
        allowed = (inside | ~same) & read.mask[:, None, :] & read.mask[:, :, None]
        return chosen * allowed

    @staticmethod
    def start(read: Read) -> Tensor:
        """The alignment before the first output symbol ``(B, P)``: on the forms' tags."""
        tags = ((read.place == 0) & read.mask).float()
        return tags / tags.sum(-1, keepdim=True).clamp(min=1)

    def keys(self, read: Read) -> Tensor:
        return self.key(read.states)

    def content(self, keys: Tensor, queries: Tensor, read: Read) -> Tensor:
        """``c_t(j)`` ``(B, T, P)`` for decoder queries ``(B, T, Q)``, scaled so that each
        step's largest is 1; 0 at padding."""
        scores = torch.einsum("bth,bph->btp", self.query(queries), keys).float()
        scores = scores.masked_fill(~read.mask[:, None, :], float("-inf"))
        return (scores - scores.amax(-1, keepdim=True)).exp()

    @staticmethod
    def normaliser(moves: Tensor, content: Tensor) -> Tensor:
        """``sum_j M[i, j] c_t(j)`` ``(B, T, P)``: what the moves from each position weigh."""
        return torch.bmm(content, moves.transpose(1, 2))

    @staticmethod
    def predict(posterior: Tensor, moves: Tensor, content: Tensor, norm: Tensor) -> Tensor:
        """Where the alignment is at the next step ``(B, P)``, from where it was after the
        last (its ``posterior``), with that step's ``content`` and ``norm`` ``(B, P)``."""
        flow = torch.bmm((posterior / norm.clamp(min=TINY))[:, None, :], moves)[:, 0]
        return content * flow

    @staticmethod
    def observe(predicted: Tensor, emitted: Tensor) -> tuple[Tensor, Tensor]:
        """Once a symbol is emitted with probability ``emitted`` ``(B, P)`` from each
        position: the alignment's posterior ``(B, P)`` and the symbol's probability
        ``(B,)``."""
        joint = predicted * emitted
        probability = joint.sum(-1)
        return joint / probability[:, None].clamp(min=TINY), probability

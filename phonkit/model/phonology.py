"""What a model variant is (:class:`Model`), and the generative phonology of the paper's three
(Wu, Ponti & Cotterell, :class:`Phonology`).

Each morpheme has an underlying-form vector; an LSTM reads the previous surface symbol and an
output layer ``f(x) = V tanh(W x)`` turns its state and the word's underlying form into the next
symbol's distribution. A variant of the paper's decides how the morphemes' vectors condition
that output: it implements :meth:`Phonology.context` and :meth:`Phonology.emit`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from phonkit.data.lexicon import BOS_ID, PAD_ID, Example, Vocabularies
from phonkit.settings import ModelConfig


@dataclass
class DecoderState:
    """The LSTM's hidden and cell states during decoding, and its input-gate table."""

    hidden: Tensor
    cell: Tensor
    table: Tensor

    def select(self, rows: Tensor) -> DecoderState:
        return DecoderState(self.hidden[rows], self.cell[rows], self.table)


def select(context: Any, rows: Tensor) -> Any:
    """The rows of a variant's decoding context (tensors with the batch first, in tuples, or
    an object that selects its own rows)."""
    if isinstance(context, Tensor):
        return context[rows]
    if isinstance(context, tuple):
        return tuple(select(part, rows) for part in context)
    if hasattr(context, "select"):
        return context.select(rows)
    return context


class Model(nn.Module):
    """What phonkit asks of a model variant (the base class ``register_models`` checks):
    the log-probability of each next surface symbol given a word's morphemes (``forward``,
    teacher-forced), decoding one symbol at a time (``start``, ``step``), the morphemes'
    underlying-form vectors (``morphemes``, under the N(0, I) prior), and what lemmas new to
    it change (``lemmas``, ``restore``). Subclasses set ``name`` and ``description``."""

    name: str = ""
    description: str = ""
    morphemes: nn.Embedding  # the morphemes' vectors (``weight``), by id
    #: It reads a lemma's spelling and any known form (symbols it never saw too), so that a
    #: new lemma needs nothing fitted and no known form.
    reads: bool = False
    #: The largest norm of a training step's gradient (None: unclipped, as the paper's).
    clip: float | None = None

    def __init__(self, n_symbols: int, n_morphemes: int, config: ModelConfig):
        super().__init__()
        self.config = config

    def forward(self, morphemes: Tensor, inputs: Tensor) -> Tensor:
        """Log-probabilities ``(batch, time, |Sigma|)`` of each next symbol after ``inputs``
        ``(batch, time)`` (BOS first), for the words ``morphemes`` ``(batch, M)``."""
        raise NotImplementedError

    def start(self, morphemes: Tensor) -> tuple[Tensor, Any, Any]:
        """The first input (BOS), the context and the state of decoding ``morphemes``."""
        raise NotImplementedError

    def step(self, previous: Tensor, context: Any, state: Any) -> tuple[Tensor, Any]:
        """The next symbol's log-probabilities ``(batch, |Sigma|)`` after the ``previous``
        symbols ``(batch,)``, and the new state (``state.select(rows)`` keeps some rows)."""
        raise NotImplementedError

    def augmented(
        self, examples: Sequence[Example], vocabularies: Vocabularies, seed: int
    ) -> tuple[list[Example], Vocabularies]:
        """The examples it trains on (numbered by the vocabularies returned): ``examples``
        themselves, unless the variant adds its own (the amortized one's hallucinated
        stems)."""
        return list(examples), vocabularies

    @torch.no_grad()
    def underlying_vectors(self) -> Tensor:
        """Every morpheme's underlying form as the model uses it (what ``phonkit uf``
        shows): its vector, unless the variant infers some from more."""
        return self.morphemes.weight.detach()

    def lemmas(self) -> Any:
        """What the underlying forms of lemmas new to it change (see ``restore``)."""
        return self.morphemes

    def restore(self, lemmas: Any) -> None:
        """Forget the lemmas new to it since ``lemmas`` was taken."""
        self.morphemes = lemmas


class Phonology(Model):
    """Base class of the paper's variants (and of plugins' that decode as they do)."""

    def __init__(self, n_symbols: int, n_morphemes: int, config: ModelConfig):
        super().__init__(n_symbols, n_morphemes, config)
        d = config.dim
        self.morphemes = nn.Embedding(n_morphemes, d, padding_idx=PAD_ID)
        self.symbols = nn.Embedding(n_symbols, d, padding_idx=PAD_ID)
        self.decoder = nn.LSTM(d, d, batch_first=True)
        # W [h; u] written as W_h h + W_u u, so a variant can apply W_u once per morpheme.
        self.from_state = nn.Linear(d, 2 * d)
        self.from_form = nn.Linear(d, 2 * d, bias=False)
        self.output = nn.Linear(2 * d, n_symbols)
        nn.init.normal_(self.morphemes.weight, std=config.init_scale)
        with torch.no_grad():
            self.morphemes.weight[PAD_ID].zero_()

    # -- what a variant implements ---------------------------------------------------------
    def context(self, morphemes: Tensor) -> Any:
        """What the output layer needs from the word's morphemes ``(batch, M)``, padded with 0."""
        raise NotImplementedError

    def emit(self, states: Tensor, context: Any) -> Tensor:
        """Log-probabilities ``(batch, time, |Sigma|)`` of the next symbol given LSTM states."""
        raise NotImplementedError

    # -- shared machinery --------------------------------------------------------------------
    def morpheme_vectors(self, morphemes: Tensor) -> Tensor:
        """The morphemes' underlying forms ``(batch, M, d)``, with dropout when training."""
        return self.dropout(self.morphemes(morphemes))

    def dropout(self, embeddings: Tensor) -> Tensor:
        """Inverted dropout while training. The mask comes from ``rand_like``, which is twice
        as fast on the CPU as ``nn.Dropout``'s Bernoulli sampling (dropout was a tenth of a
        training step)."""
        rate = self.config.dropout
        if not self.training or rate == 0:
            return embeddings
        return embeddings * (torch.rand_like(embeddings) >= rate) / (1 - rate)

    def noise(self, like: Tensor) -> Tensor | float:
        """Reparameterised Gaussian noise while training; the mean (zero) otherwise."""
        if self.training and self.config.sigma > 0:
            return torch.randn_like(like) * self.config.sigma
        return 0.0

    def hidden(self, states: Tensor, projected_form: Tensor) -> Tensor:
        """``tanh(W [h; u])`` from the states' and the (projected) form's parts."""
        return torch.tanh(self.from_state(states) + projected_form)

    def forward(self, morphemes: Tensor, inputs: Tensor) -> Tensor:
        """Teacher-forced log-probabilities of each next symbol: ``(batch, time, |Sigma|)``."""
        context = self.context(morphemes)
        states, _ = self.decoder(self.dropout(self.symbols(inputs)))
        return self.emit(states, context)

    def start(self, morphemes: Tensor) -> tuple[Tensor, Any, DecoderState]:
        """The first input (BOS), the context and the initial LSTM state of decoding."""
        batch, device = morphemes.shape[0], morphemes.device
        first = torch.full((batch,), BOS_ID, dtype=torch.long, device=device)
        zeros = torch.zeros(batch, self.config.dim, device=device)
        return first, self.context(morphemes), DecoderState(zeros, zeros, self.input_gates())

    def input_gates(self) -> Tensor:
        """``W_ih e_s + b_ih + b_hh`` for every symbol s: at evaluation (no dropout) the LSTM's
        input side is a table lookup, which halves the work of a decoding step."""
        lstm = self.decoder
        weights, bias = cast(Tensor, lstm.weight_ih_l0), cast(Tensor, lstm.bias_ih_l0)
        return F.linear(self.symbols.weight, weights, bias) + cast(Tensor, lstm.bias_hh_l0)

    def step(self, previous: Tensor, context: Any, state: DecoderState) -> tuple[Tensor, Any]:
        """One decoding step from the previous symbols ``(batch,)``: the LSTM cell (gate order
        i, f, g, o, as in ``nn.LSTM``) and the variant's output distribution."""
        recurrent = cast(Tensor, self.decoder.weight_hh_l0)
        gates = torch.addmm(state.table[previous], state.hidden, recurrent.T)
        i, f, g, o = gates.chunk(4, dim=-1)
        cell = torch.sigmoid(f) * state.cell + torch.sigmoid(i) * torch.tanh(g)
        hidden = torch.sigmoid(o) * torch.tanh(cell)
        return self.emit(hidden[:, None], context)[:, 0], DecoderState(hidden, cell, state.table)

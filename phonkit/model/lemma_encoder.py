"""The lemma encoder: a model setting that lets the spelling of a lemma inform its word forms.

With ``lemma_encoder`` on, a bidirectional LSTM reads the lemma's symbols (transcribed like
the surface forms; a symbol the model never saw reads as ``<unk>``) and does two things
(equations in docs/method.md, "The lemma encoder"):

- **amortised prior.** The lemma's underlying form is ``mu(lemma) + r``: ``mu`` is a linear
  map of the encoder's mean state, ``r`` the lemma's own residual vector, under the same
  N(0, I) prior as every morpheme vector. A new lemma starts from ``mu`` (``r = 0``) and the
  fit to its known forms moves ``r``. Training drops a word's residual now and then, so the
  encoder alone has to carry the lemma.
- **copy.** Each output distribution mixes the variant's own with a pointer over the lemma's
  symbols, ``p(s) = (1 - g) p_gen(s) + g sum_j a_j [c_j = s]``, so a stem the decoder has
  never spelled can be copied rather than spelled from a vector.

The variant itself (``pi``, ``pd``, ``joint`` or a plugin's) is unchanged: the setting
subclasses it (:func:`with_lemma_encoder`), and runs without the setting read as off.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeGuard, cast

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from phonkit.data.encoding import pad
from phonkit.data.lexicon import LEMMA, PAD_ID, UNK_ID, Vocabulary
from phonkit.model.modules.encoders import SequenceEncoder
from phonkit.model.phonology import Phonology
from phonkit.settings import ModelConfig

RESIDUAL_DROPOUT = 0.25  # training words whose lemma is read from its spelling alone
UNKNOWN_RATE = 0.03  # encoder inputs replaced by <unk> in training, so <unk> means something
COPY_STATE_LAYERS = ("copy_query", "copy_gate_state")  # read only decoder states (fit caches)

Speller = Callable[[Sequence[str]], list[tuple[str, ...]]]  # lemmas -> their symbols


class Amortised(Protocol):
    """What a model built with the lemma encoder adds to its variant."""

    speller: Speller | None

    def spell(self, morphemes: Vocabulary, symbols: Vocabulary) -> None: ...

    def underlying_vectors(self) -> Tensor: ...


class LemmaEncoder(SequenceEncoder):
    """Embeddings and a BiLSTM over the symbols of lemmas: states ``(batch, L, 2d)``."""

    def __init__(self, n_symbols: int, dim: int):
        super().__init__(dim, dim)
        self.symbols = nn.Embedding(n_symbols, dim, padding_idx=PAD_ID)

    def forward(self, spelling: Tensor) -> Tensor:
        return self.encode(self.symbols(spelling), spelling != PAD_ID)


def with_lemma_encoder(variant: type[Phonology]) -> type[Phonology]:
    """``variant`` with the lemma encoder: the same name, the same context and emission,
    plus the amortised prior mean of lemma UFs and the copy distribution."""

    class Spelled(variant):  # type: ignore[valid-type, misc]
        amortised = True  # new lemmas start from the prior mean: residual 0 (fitting)
        spellings: Tensor

        def __init__(self, n_symbols: int, n_morphemes: int, config: ModelConfig):
            super().__init__(n_symbols, n_morphemes, config)
            d = config.dim
            self.lemma_encoder = LemmaEncoder(n_symbols, d)
            self.prior_mean = nn.Linear(2 * d, d)
            self.copy_keys = nn.Linear(2 * d, d, bias=False)
            self.copy_query = nn.Linear(d, d)
            self.copy_gate_state = nn.Linear(d, 1)
            self.copy_gate_read = nn.Linear(2 * d, 1, bias=False)
            self.copy_gate_form = nn.Linear(d, 1, bias=False)
            # The lemma symbols of every morpheme id (empty rows for feature morphemes):
            # derived from the vocabulary, so not saved with the weights.
            self.register_buffer(
                "spellings", torch.zeros(n_morphemes, 1, dtype=torch.long), persistent=False
            )
            self.speller: Speller | None = None
            self._reading: tuple[Tensor, tuple[Tensor, Tensor, Tensor]] | None = None
            self._vectors: tuple[Tensor, Tensor] | None = None

        # -- spellings ---------------------------------------------------------------------
        def spell(self, morphemes: Vocabulary, symbols: Vocabulary) -> None:
            """Give every lemma morpheme of ``morphemes`` its symbol ids (unknown: <unk>)."""
            if self.speller is None:
                raise RuntimeError("the lemma encoder has no speller (attach_speller)")
            lemmas = [item[len(LEMMA) :] for item in morphemes.items if item.startswith(LEMMA)]
            spelled = dict(zip(lemmas, self.speller(lemmas), strict=True))
            rows = [
                symbols.encode(spelled.get(item[len(LEMMA) :], ()))
                if item.startswith(LEMMA)
                else []
                for item in morphemes.items
            ]
            self.spellings = pad(rows).to(self.spellings.device)
            self._reading = None

        def read_lemmas(self, morphemes: Tensor) -> tuple[Tensor, Tensor, Tensor]:
            """The lemma symbols ``(B, L)``, encoder states ``(B, L, 2d)`` and whether the
            lemma has any symbol ``(B,)``, for the words ``morphemes``. Remembered for the
            last batch (by identity): the context and the UFs read the same encoding, and
            the fit of new lemmas feeds the same batch at every step."""
            if self._reading is not None and self._reading[0] is morphemes:
                return self._reading[1]
            spelling = self.spellings[morphemes[:, 0]]
            # Trimmed to the batch's longest lemma: the table is as wide as the longest of all.
            spelling = spelling[:, : max(int((spelling != PAD_ID).sum(-1).max()), 1)]
            shown = spelling
            if self.training and UNKNOWN_RATE > 0:
                hide = (torch.rand(spelling.shape, device=spelling.device) < UNKNOWN_RATE) & (
                    spelling != PAD_ID
                )
                shown = spelling.masked_fill(hide, UNK_ID)
            states = self.lemma_encoder(shown)
            reading = (spelling, states, (spelling != PAD_ID).any(-1))
            self._reading = (morphemes, reading)
            return reading

        # -- the amortised prior -------------------------------------------------------------
        def morpheme_vectors(self, morphemes: Tensor) -> Tensor:
            """``m_i`` for feature morphemes; ``mu(lemma) + r`` for the lemma (slot 0)."""
            spelling, states, spelled = self.read_lemmas(morphemes)
            lengths = (spelling != PAD_ID).sum(-1, keepdim=True).clamp(min=1)
            mean = self.prior_mean(states.sum(1) / lengths) * spelled[:, None]
            vectors = self.morphemes(morphemes)
            lemma = vectors[:, 0]
            if self.training and RESIDUAL_DROPOUT > 0:
                keep = torch.rand(lemma.shape[0], 1, device=lemma.device) >= RESIDUAL_DROPOUT
                lemma = lemma * keep
            vectors = self.dropout(torch.cat([(lemma + mean)[:, None], vectors[:, 1:]], 1))
            self._vectors = (morphemes, vectors)
            return vectors

        @torch.no_grad()
        def underlying_vectors(self) -> Tensor:
            """Every morpheme's vector as the model uses it (no dropout): ``mu(lemma) + r``
            for lemmas, ``m_i`` for features; what ``phonkit uf`` shows."""
            ids = torch.arange(self.spellings.shape[0], device=self.spellings.device)
            return torch.cat(
                [self.morpheme_vectors(chunk[:, None])[:, 0] for chunk in ids.split(1024)]
            )

        # -- the copy distribution ------------------------------------------------------------
        def context(self, morphemes: Tensor) -> Any:
            spelling, states, spelled = self.read_lemmas(morphemes)
            self._vectors = None
            own = super().context(morphemes)
            # The gate reads the same draw of the vectors (dropout) as the variant did.
            if self._vectors is not None and self._vectors[0] is morphemes:
                vectors = self._vectors[1]
            else:
                vectors = self.morpheme_vectors(morphemes)
            self._vectors = None
            mask = (morphemes != PAD_ID)[..., None]
            form = (vectors * mask).sum(1) / mask.sum(1).clamp(min=1)
            return own, (
                self.copy_keys(states),
                states,
                spelling,
                self.copy_gate_form(form)[:, None, :],
                spelled,
            )

        def emit(self, states: Tensor, context: Any) -> Tensor:
            own, (keys, values, spelling, gate_form, spelled) = context
            generated = super().emit(states, own).float()
            scores = torch.einsum("btd,bld->btl", self.copy_query(states), keys).float()
            # A lemma without symbols gets uniform (unused) attention rather than NaNs.
            blank = (spelling == PAD_ID) & spelled[:, None]
            attention = scores.masked_fill(blank[:, None, :], float("-inf")).softmax(-1)
            read = torch.einsum("btl,bld->btd", attention.to(values.dtype), values)
            gate = (self.copy_gate_state(states) + self.copy_gate_read(read) + gate_form).float()
            copied = torch.zeros_like(generated).scatter_add_(
                -1, spelling[:, None, :].expand(-1, attention.shape[1], -1), attention
            )
            with_copy = torch.logaddexp(
                F.logsigmoid(-gate) + generated,
                F.logsigmoid(gate) + copied.clamp_min(1e-30).log(),
            )
            return torch.where(spelled[:, None, None], with_copy, generated)

    Spelled.__name__ = Spelled.__qualname__ = f"{variant.__name__}WithLemmaEncoder"
    Spelled.description = f"{variant.description}, with the lemma encoder"
    return Spelled


def attach_speller(
    model: Phonology, speller: Speller, morphemes: Vocabulary, symbols: Vocabulary
) -> None:
    """Give a model built with the lemma encoder its way to spell lemmas, and spell the
    lemmas of ``morphemes``. Spellings are remembered, so a stream of new lemmas transcribes
    each lemma once."""
    known: dict[str, tuple[str, ...]] = {}

    def remembered(lemmas: Sequence[str]) -> list[tuple[str, ...]]:
        new = [lemma for lemma in dict.fromkeys(lemmas) if lemma not in known]
        if new:
            known.update(zip(new, speller(new), strict=True))
        return [known[lemma] for lemma in lemmas]

    encoder = cast(Amortised, model)
    encoder.speller = remembered
    encoder.spell(morphemes, symbols)


def has_lemma_encoder(model: object) -> TypeGuard[Amortised]:
    return getattr(model, "amortised", False)

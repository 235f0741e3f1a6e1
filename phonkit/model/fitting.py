"""Underlying forms for lemmas the model has never seen, fitted to the forms that are known.

The trained phonology and the feature UFs stay fixed. Each new lemma's vector is its MAP
estimate under the model's N(0, I) prior: gradient descent (Adam) on

    sum over its known cells of -log p(form | u)  +  prior_weight / 2 * ||m_lemma||^2

batched over all new lemmas at once (their losses are independent, so one optimiser serves
them all). The decoder's LSTM reads only surface symbols, never the UF, so its states on the
known forms are computed once; each step runs only the variant's context and output layers.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from phonkit.data.encoding import Encoded, bucketed_batches, encode
from phonkit.data.lexicon import LEMMA, PAD_ID, Example, Vocabularies
from phonkit.model.adam import single
from phonkit.model.amortized import Amortized
from phonkit.model.lemma_encoder import COPY_STATE_LAYERS, has_lemma_encoder
from phonkit.model.phonology import Model, Phonology
from phonkit.settings import FitConfig

CHUNK = 2048  # known cells per forward pass: bounds memory, whatever the input size


class ExtendedMorphemes(nn.Module):
    """The trained morpheme table, frozen, followed by trainable rows for new morphemes."""

    trained: Tensor  # a buffer

    def __init__(self, trained: Tensor, start: Tensor, new: int):
        super().__init__()
        self.register_buffer("trained", trained.detach())
        self.new = nn.Parameter(start.detach().expand(new, -1).clone())

    @property
    def weight(self) -> Tensor:
        return torch.cat([self.trained, self.new])

    def forward(self, ids: Tensor) -> Tensor:
        return F.embedding(ids, self.weight, padding_idx=PAD_ID)


class Remembering(nn.Module):
    """A frozen layer that remembers its output for the last inputs it saw (by identity).

    The fit feeds the output layers the same LSTM states at every step; the layers that
    read only the states (``from_state``, an attention's ``bilinear``) then run once, not at
    every step, which more than halves the work of a step."""

    def __init__(self, layer: nn.Module):
        super().__init__()
        self.layer = layer
        self.memory: dict[int, tuple[Tensor, Tensor]] = {}

    def forward(self, inputs: Tensor) -> Tensor:
        seen = self.memory.get(id(inputs))
        if seen is None or seen[0] is not inputs:
            seen = self.memory[id(inputs)] = (inputs, self.layer(inputs))
        return seen[1]


# Layers of Phonology, Attending and the lemma encoder's copy that are fed only the states.
STATE_LAYERS = ("from_state", "bilinear", *COPY_STATE_LAYERS)


def new_lemmas(examples: Sequence[Example], vocabularies: Vocabularies) -> list[str]:
    """The lemma morphemes of ``examples`` that the model has no vector for, in input order."""
    lemmas = (example.morphemes[0] for example in examples)
    return [m for m in dict.fromkeys(lemmas) if m not in vocabularies.morphemes]


def fit_lemmas(
    model: Model,
    vocabularies: Vocabularies,
    evidence: Sequence[Example],
    config: FitConfig | None = None,
    wanted: Sequence[str] = (),
) -> Vocabularies:
    """Give every lemma of ``evidence`` that ``vocabularies`` lacks a UF fitted to its examples.

    ``model`` gets the new vectors in place (after the trained ones); the returned
    vocabularies number the new lemmas. Every feature and symbol of ``evidence`` must be
    known to the model. Returns ``vocabularies`` unchanged when there is nothing to fit.

    A model that reads (the amortized one) fits nothing: it reads each new lemma of
    ``evidence`` and ``wanted`` (lemma morphemes without known forms) from its spelling and
    known forms, and the vocabularies returned number their symbols too."""
    if isinstance(model, Amortized):
        return model.read_lemmas(vocabularies, evidence, wanted)
    assert isinstance(model, Phonology)
    return fit_vectors(model, vocabularies, evidence, config or FitConfig())


def held_out_lemmas(
    model: Model, vocabularies: Vocabularies, examples: Sequence[Example]
) -> Vocabularies:
    """The vocabularies that number the lemmas of held-out ``examples`` (their dev and test
    lemmas, where whole paradigms are held out): a model that reads reads each new one from
    its spelling alone; any other model meets them as the unknown lemma (unchanged)."""
    if not isinstance(model, Amortized):
        return vocabularies
    return model.read_lemmas(vocabularies, [], [e.morphemes[0] for e in examples])


def fit_vectors(
    model: Phonology, vocabularies: Vocabularies, evidence: Sequence[Example], config: FitConfig
) -> Vocabularies:
    """The gradient fit of :func:`fit_lemmas`."""
    lemmas = new_lemmas(evidence, vocabularies)
    if not lemmas:
        return vocabularies
    extended = Vocabularies(vocabularies.symbols, vocabularies.morphemes.extended(lemmas))
    trained = model.morphemes.weight.detach()
    lemma_ids = [n for item, n in vocabularies.morphemes.index.items() if item.startswith(LEMMA)]
    start = trained[lemma_ids].mean(0)  # a typical lemma
    if has_lemma_encoder(model):
        # The vector is a residual on the prior mean read from the lemma's spelling: start
        # from that mean (residual 0, which training also shows the model).
        model.spell(extended.morphemes, extended.symbols)
        start = torch.zeros_like(start)
    device = trained.device
    table = ExtendedMorphemes(trained, start, len(lemmas)).to(device)
    model.morphemes = table  # type: ignore[assignment]  # an embedding: weight and forward
    model.eval()
    for parameter in model.parameters():
        parameter.requires_grad_(parameter is table.new)
    chunks = _known_states(model, encode(evidence, extended).to(device))
    frozen = {name: getattr(model, name) for name in STATE_LAYERS if hasattr(model, name)}
    for name, layer in frozen.items():
        setattr(model, name, Remembering(layer))
    adam = single(table.new, config.lr)
    for _ in range(config.steps):
        table.new.grad = None
        for morphemes, states, targets in chunks:
            log_probs = model.emit(states, model.context(morphemes)).float()
            nll = -log_probs.gather(-1, targets[..., None]).squeeze(-1)
            nll.masked_fill(targets == PAD_ID, 0.0).sum().backward()
        prior = 0.5 * config.prior_weight * table.new.float().pow(2).sum()
        prior.backward()
        adam.step()
    for name, layer in frozen.items():
        setattr(model, name, layer)
    table.new.requires_grad_(False)
    return extended


@torch.no_grad()
def _known_states(model: Phonology, data: Encoded) -> list[tuple[Tensor, Tensor, Tensor]]:
    """Morphemes, LSTM states and targets of the known forms, in chunks of similar length."""
    chunks = []
    for index in bucketed_batches(data.lengths, CHUNK):
        morphemes, inputs, targets = data.batch(index.to(data.morphemes.device))
        states, _ = model.decoder(model.symbols(inputs))
        chunks.append((morphemes, states, targets))
    return chunks

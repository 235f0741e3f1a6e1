"""The one place models are built: a registered variant with its settings and vocabulary
sizes, a trained run's model with its kept weights, and the run's copy models.

The run directory (:class:`~phonkit.run.directory.Run`) stores files and builds nothing; the
model layer knows no run directory and no plugin registry. This module joins them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache

import torch

from phonkit.data.lexicon import Example, Vocabularies
from phonkit.errors import InputError
from phonkit.model.amortized import Amortized
from phonkit.model.copying import CopyModel
from phonkit.model.lemma_encoder import Speller, attach_speller, with_lemma_encoder
from phonkit.model.phonology import Model
from phonkit.plugins import lookup
from phonkit.run.directory import Run
from phonkit.settings import ModelConfig


def build_model(
    variant: str,
    settings: ModelConfig,
    vocabularies: Vocabularies,
    speller: Speller | None = None,
    known: Callable[[], Sequence[Example]] | None = None,
) -> Model:
    """A new, untrained model of the registered variant ``variant``; with the lemma encoder
    on, ``speller`` gives the symbols of lemmas (transcribed like the surface forms); a
    model that reads (the amortized one) reads the ``known`` forms (the training cells) and
    their lemmas' spellings."""
    kind = lookup("models", variant)
    sizes = len(vocabularies.symbols), len(vocabularies.morphemes)
    if issubclass(kind, Amortized):
        if speller is None or known is None:
            raise ValueError("the amortized model needs a speller and the known forms")
        model = kind(*sizes, settings)
        model.know(known(), vocabularies, speller)
        return model
    if not settings.lemma_encoder:
        return kind(*sizes, settings)
    if speller is None:
        raise ValueError("a model with the lemma encoder needs a speller")
    model = with_lemma_encoder(kind)(*sizes, settings)
    attach_speller(model, speller, vocabularies.morphemes, vocabularies.symbols)
    return model


def run_model(run: Run) -> Model:
    """A new, untrained model with the settings and vocabularies of ``run``; lemmas are
    spelled by the run's transcriber (made only when the lemma encoder asks for it), and a
    model that reads reads the run's training cells."""
    config = run.config
    transcriber = cache(run.transcriber)

    def speller(lemmas: Sequence[str]) -> list[tuple[str, ...]]:
        return transcriber().transcribe(config.lang or "", list(lemmas))

    return build_model(
        config.variant, config.model, run.vocabularies(), speller, lambda: run.examples("train")
    )


def load_model(run: Run, device: torch.device) -> Model:
    """The trained model of ``run`` (its best weights, ``model.pt``), ready to decode; weights
    of another shape are one clear error."""
    model = run_model(run)
    state, where = run.load_weights()
    try:
        model.load_state_dict(state)
    except (RuntimeError, TypeError, AttributeError) as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        raise InputError(
            f"the weights do not fit the model that config.json and vocab.json describe ({first})",
            where,
        ) from None
    return model.to(device).eval()


def load_copy_models(run: Run) -> list[CopyModel]:
    """The run's copy models trained so far (none for a run without them)."""
    return [CopyModel.from_state(state) for state in run.copy_model_states()]

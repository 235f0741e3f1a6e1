"""The one place models are built: a registered variant with its settings and vocabulary
sizes, and a trained run's model with its kept weights."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from phonkit.data.encoding import Vocabularies
from phonkit.errors import InputError
from phonkit.model.phonology import ModelConfig, Phonology
from phonkit.plugins import lookup

if TYPE_CHECKING:  # the run directory stores what this module builds
    from phonkit.run.directory import Run


def build_model(variant: str, settings: ModelConfig, vocabularies: Vocabularies) -> Phonology:
    """A new, untrained model of the registered variant ``variant``."""
    return lookup("models", variant)(
        len(vocabularies.symbols), len(vocabularies.morphemes), settings
    )


def with_weights(model: Phonology, state: Any, where: str) -> Phonology:
    """``model`` with the weights ``state``; weights of another shape are one clear error."""
    try:
        model.load_state_dict(state)
    except (RuntimeError, TypeError, AttributeError) as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        raise InputError(
            f"the weights do not fit the model that config.json and vocab.json describe ({first})",
            where,
        ) from None
    return model


def load_model(run: Run, device: torch.device) -> Phonology:
    """The trained model of ``run`` (its best weights, ``model.pt``), ready to decode."""
    config = run.config
    model = build_model(config.variant, config.model, run.vocabularies())
    state = run.load_torch("model.pt", weights_only=True)
    return with_weights(model, state, str(run.path / "model.pt")).to(device).eval()

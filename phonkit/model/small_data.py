"""Settings chosen by the size of the data, for the small tables phonologists work with.

Below :data:`SMALL` training forms the defaults of :class:`ModelConfig` and
:class:`TrainConfig` (chosen at the paper's scale, tens of thousands of forms) are replaced
by the rules of :func:`sized`; at or above it nothing changes. The rules depend on the number
of training forms only, never on a table's name or language (docs/small-data.md measures
them on the textbook tables).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from phonkit.errors import InputError
from phonkit.model.phonology import ModelConfig
from phonkit.model.training import SMALL, TrainConfig


def sized(forms: int) -> dict[str, Any]:
    """The settings for ``forms`` training forms that differ from the defaults."""
    if forms >= SMALL:
        return {}
    return {"candidates": "analogy", "dim": 128, "epochs": 60, "batch_size": 16}


def sized_settings(
    forms: int, given: Mapping[str, Any] | None = None
) -> tuple[ModelConfig, TrainConfig]:
    """The model and training settings for ``forms`` training forms: the sized rules, with
    the settings in ``given`` (by field name: ``dim``, ``epochs``, ``lr``...) on top."""
    chosen = sized(forms) | dict(given or {})
    parts: list[dict[str, Any]] = [{}, {}]
    fields = [{f.name for f in dataclasses.fields(kind)} for kind in (ModelConfig, TrainConfig)]
    for key, value in chosen.items():
        for number, names in enumerate(fields):
            if key in names:
                parts[number][key] = value
                break
        else:
            known = ", ".join(sorted(fields[0] | fields[1]))
            raise InputError(f"unknown setting {key!r}; settings: {known}", setting=key)
    return ModelConfig(**parts[0]), TrainConfig(**parts[1])

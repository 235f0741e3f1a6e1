"""Phonological feature tables: what a plugin registers with ``register_feature_tables``.

A feature table gives a segment's feature values (``+``, ``-`` or ``0`` by feature name),
from which ``phonkit uf processes`` names the contexts of a process as natural classes
(``[-son]``). phonkit has none of its own; ``phonkit-panphon`` registers panphon's.
"""

from __future__ import annotations

from collections.abc import Mapping


class FeatureTable:
    """Base class of feature tables."""

    name: str = ""
    description: str = ""

    def features(self, segment: str) -> Mapping[str, str] | None:
        """The feature values of ``segment`` (``+``, ``-`` or ``0`` by feature name), or
        None for a segment the table does not know."""
        raise NotImplementedError

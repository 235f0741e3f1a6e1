"""Phonological feature tables: what a plugin registers with ``register_feature_tables``.

A feature table gives a segment's feature values (``+``, ``-`` or ``0`` by feature name),
from which ``phonkit uf processes`` names the contexts of a process as natural classes
(``[-son]``), the underlying strings read natural classes and ``fill`` makes proportions
between segments (:mod:`phonkit.tables.proportions`). phonkit has none of its own;
``phonkit-panphon`` registers panphon's; :data:`Features` is a table's ``features`` method,
as :func:`phonkit.plugins.feature_table` gives it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

Features = Callable[[str], Mapping[str, str] | None]  # a segment's feature values, if known


class FeatureTable:
    """Base class of feature tables."""

    name: str = ""
    description: str = ""

    def features(self, segment: str) -> Mapping[str, str] | None:
        """The feature values of ``segment`` (``+``, ``-`` or ``0`` by feature name), or
        None for a segment the table does not know."""
        raise NotImplementedError

"""The built-in morpheme decompositions: one morpheme per feature, or one per bundle."""

from __future__ import annotations

from phonkit.data.lexicon import PerFeature, WholeBundle
from phonkit.hookspecs import hookimpl


@hookimpl
def register_decompositions(register):
    register(PerFeature())
    register(WholeBundle())

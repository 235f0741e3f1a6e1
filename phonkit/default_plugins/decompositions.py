"""The built-in morpheme decompositions: one morpheme per feature, or one per bundle."""

from __future__ import annotations

from phonkit.hookspecs import hookimpl
from phonkit.lexicon import PerFeature, WholeBundle


@hookimpl
def register_decompositions(register):
    register(PerFeature())
    register(WholeBundle())

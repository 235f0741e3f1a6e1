"""The built-in morpheme decompositions: one morpheme per feature, one per bundle, or the
bundle and each of its features."""

from __future__ import annotations

from phonkit.data.lexicon import BundleAndFeatures, PerFeature, WholeBundle
from phonkit.hookspecs import hookimpl


@hookimpl
def register_decompositions(register):
    register(PerFeature())
    register(WholeBundle())
    register(BundleAndFeatures())

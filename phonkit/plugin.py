"""What a plugin imports: the one module a phonkit plugin needs (docs/how-to/plugins.md).

The marker of hook implementations, the base class of every kind of registered thing, the
values they receive and return, and for launchers the pieces of an experiment run::

    from phonkit.plugin import Metric, hookimpl

A plugin that imports only from here (and ``phonkit``) keeps working when phonkit's modules
move. Names are imported on first use, so that loading a plugin stays light: a metric plugin
does not import torch.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

#: Public name -> the module that defines it.
EXPORTS = {
    # the hooks
    "hookimpl": "phonkit.hookspecs",
    "InputError": "phonkit.errors",
    "say": "phonkit.progress",
    # corpora, transcribers, decompositions
    "Corpus": "phonkit.data.corpora",
    "CorpusRequest": "phonkit.data.corpora",
    "unknown_language": "phonkit.data.corpora",
    "Lexicon": "phonkit.data.lexicon",
    "Entry": "phonkit.data.lexicon",
    "Decomposition": "phonkit.data.lexicon",
    "read_tsv": "phonkit.data.lexicon",
    "Transcriber": "phonkit.data.transcription",
    "FeatureTable": "phonkit.data.features",
    # model variants
    "Model": "phonkit.model.phonology",
    "Phonology": "phonkit.model.phonology",
    "ModelConfig": "phonkit.settings",
    "PAD_ID": "phonkit.data.lexicon",
    # metrics
    "Metric": "phonkit.metrics",
    "Scored": "phonkit.metrics",
    # launchers
    "Launcher": "phonkit.jobs",
    "Session": "phonkit.jobs",
    "Planned": "phonkit.jobs",
    "Outcome": "phonkit.jobs",
    "read_settings": "phonkit.jobs",
    "prepare": "phonkit.experiments.runner",
    "run_one": "phonkit.experiments.runner",
    "write_atomic": "phonkit.data.tsv",
    # the files of a run directory, in the order a copy writes them
    "WEIGHTS": "phonkit.run.directory",
    "CHECKPOINT": "phonkit.run.directory",
    "METRICS": "phonkit.run.directory",
    "PREDICTIONS": "phonkit.run.directory",
    "RECORD": "phonkit.run.directory",
    "COMPLETED": "phonkit.run.directory",
}

__all__ = list(EXPORTS)


def __getattr__(name: str) -> Any:
    if name in EXPORTS:
        return getattr(import_module(EXPORTS[name]), name)
    raise AttributeError(f"module 'phonkit.plugin' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)

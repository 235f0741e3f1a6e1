"""phonkit: differentiable generative phonology (Wu, Ponti & Cotterell), from the command line
and from Python.

The Python API (docs/how-to/python.md)::

    import phonkit

    model = phonkit.load("runs/sample-tur-amortized")  # a run directory made by phonkit train
    model.predict([("kitap", "N;PL", None)])
    model.underlying_forms()

Names are imported on first use, so that ``import phonkit`` (and the plugins that import
:mod:`phonkit.hookspecs`) stay light.
"""

from __future__ import annotations

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from typing import Any

try:
    __version__ = version("phonkit")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"

#: Public name -> the module that defines it.
API = {
    "load": "phonkit.api",
    "train": "phonkit.api",
    "fill": "phonkit.api",
    "experiment": "phonkit.api",
    "Launch": "phonkit.experiments.runner",
    "read_table": "phonkit.data.table",
    "FillRequest": "phonkit.tasks.fill",
    "Model": "phonkit.api",
    "Prediction": "phonkit.api",
    "UnderlyingForms": "phonkit.api",
    "corpus": "phonkit.api",
    "transcriber": "phonkit.api",
    "variant": "phonkit.api",
    "metric": "phonkit.api",
    "decomposition": "phonkit.api",
    "names": "phonkit.api",
    "TrainRequest": "phonkit.tasks.train",
    "CorpusRequest": "phonkit.data.corpora",
    "ModelConfig": "phonkit.settings",
    "TrainConfig": "phonkit.settings",
    "FitConfig": "phonkit.settings",
    "CopyConfig": "phonkit.settings",
    "SplitConfig": "phonkit.settings",
    "RunConfig": "phonkit.run.config",
    "InputError": "phonkit.errors",
}

__all__ = ["__version__", *API]


def __getattr__(name: str) -> Any:
    if name in API:
        return getattr(import_module(API[name]), name)
    raise AttributeError(f"module 'phonkit' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)

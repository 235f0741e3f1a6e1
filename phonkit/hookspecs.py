"""The plugin contract. A plugin is a module or object with functions marked
``@hookimpl`` (``from phonkit.plugin import hookimpl``; :mod:`phonkit.plugin` has every name a
plugin needs).

Each ``register_*`` hook receives a ``register`` callback; call it once per thing the plugin
provides. Names must be unique across plugins: registering a name that another plugin already
registered is an error that names both plugins.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    import typer

    from phonkit.data.corpora import Corpus
    from phonkit.data.features import FeatureTable
    from phonkit.data.lexicon import Decomposition
    from phonkit.data.transcription import Transcriber
    from phonkit.jobs import Launcher
    from phonkit.metrics import Metric
    from phonkit.model.phonology import Model

hookspec = pluggy.HookspecMarker("phonkit")
hookimpl = pluggy.HookimplMarker("phonkit")


@hookspec
def register_corpora(register: Callable[[Corpus], None]) -> None:
    """Register corpus readers (:class:`phonkit.data.corpora.Corpus`): objects with
    ``name``, ``description``, ``languages(request) -> list[str]`` (``phonkit corpora``),
    ``read(request) -> Lexicon`` (``train``, ``stats``...) and ``ipa_transcriber``, the
    name of the transcriber that gives the corpus's forms in IPA for ``train --ipa`` (None:
    epitran)."""


@hookspec
def register_transcribers(register: Callable[[Transcriber], None]) -> None:
    """Register G2P transcribers (:class:`phonkit.data.transcription.Transcriber`): objects
    with ``name``, ``description``, ``joiner`` (joins symbols when a form is written out),
    ``transcribe(lang, forms) -> list[tuple[str, ...]]`` and ``split(text) -> tuple[str,
    ...]`` (reads back a form written with ``joiner``: the run's split files, known cells
    of predict input)."""


@hookspec
def register_models(register: Callable[[type[Model]], None]) -> None:
    """Register model variants: subclasses of :class:`phonkit.model.phonology.Model` with a
    ``name`` and a ``description`` (most simply of :class:`phonkit.model.phonology.Phonology`,
    the paper's decoder, implementing ``context(morphemes)`` and ``emit(states,
    context)``); phonkit builds them as ``variant(n_symbols, n_morphemes, ModelConfig)``
    (:func:`phonkit.run.factory.build_model`)."""


@hookspec
def register_decompositions(register: Callable[[Decomposition], None]) -> None:
    """Register morpheme decompositions (:class:`phonkit.data.lexicon.Decomposition`):
    objects with ``name``, ``description`` and ``morphemes(entry) -> tuple[str, ...]``, the
    lemma's morpheme first."""


@hookspec
def register_metrics(register: Callable[[Metric], None]) -> None:
    """Register metrics (:class:`phonkit.metrics.Metric`): objects with ``name``,
    ``description``, ``higher_is_better`` (read by the experiments' significance tables to
    say which run is better) and ``item_scores(items) -> list[float]``, one score per held-out
    cell. The score over a set of cells is always the mean of the item scores (``score``,
    which the base class defines as that mean, is never called by phonkit)."""


@hookspec
def register_launchers(register: Callable[[Launcher], None]) -> None:
    """Register experiment launchers, where the runs of ``phonkit experiment`` train: objects
    with ``name``, ``description`` and ``start(settings, jobs) -> Session``, the session
    training the runs still to do (see :class:`phonkit.jobs.Launcher`)."""


@hookspec
def register_feature_tables(register: Callable[[FeatureTable], None]) -> None:
    """Register phonological feature tables (:class:`phonkit.data.features.FeatureTable`):
    objects with ``name``, ``description`` and ``features(segment) -> Mapping[str, str] |
    None`` (``+``, ``-`` or ``0`` by feature name; None for a segment it does not know).
    A run reads proportions with the first table installed when it is made, and records its
    name (``config.json``'s ``feature_table``); ``phonkit uf processes`` names a process's
    context as a natural class of the first table installed."""


@hookspec
def register_commands(app: typer.Typer) -> None:
    """Add subcommands to the Typer ``app`` (``phonkit plugins`` lists them by plugin)."""

"""The plugin contract. A plugin is a module or object with functions marked ``@phonkit.hookimpl``.

Each ``register_*`` hook receives a ``register`` callback; call it once per thing the plugin
provides. Names must be unique across plugins: registering a name that another plugin already
registered is an error that names both plugins.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pluggy

hookspec = pluggy.HookspecMarker("phonkit")
hookimpl = pluggy.HookimplMarker("phonkit")


@hookspec
def register_corpora(register: Callable[[Any], None]) -> None:
    """Register corpus readers: objects with ``name``, ``description``,
    ``languages(request) -> list[str]`` and ``read(request) -> Lexicon``
    (see :class:`phonkit.data.corpora.Corpus`)."""


@hookspec
def register_transcribers(register: Callable[[Any], None]) -> None:
    """Register G2P transcribers: objects with ``name``, ``description``, ``joiner`` and
    ``transcribe(lang, forms) -> list[tuple[str, ...]]``
    (see :class:`phonkit.data.transcription.Transcriber`)."""


@hookspec
def register_models(register: Callable[[Any], None]) -> None:
    """Register model variants: subclasses of :class:`phonkit.model.phonology.Phonology` with a
    ``name`` and a ``description``."""


@hookspec
def register_decompositions(register: Callable[[Any], None]) -> None:
    """Register morpheme decompositions: objects with ``name``, ``description`` and
    ``morphemes(entry) -> tuple[str, ...]``, the lemma's morpheme first
    (see :class:`phonkit.data.lexicon.Decomposition`)."""


@hookspec
def register_metrics(register: Callable[[Any], None]) -> None:
    """Register metrics: objects with ``name``, ``description``, ``higher_is_better`` and
    ``score(items) -> float`` (see :class:`phonkit.tasks.metrics.Metric`)."""


@hookspec
def register_launchers(register: Callable[[Any], None]) -> None:
    """Register experiment launchers, where the runs of ``phonkit experiment`` train: objects
    with ``name``, ``description`` and ``start(settings, jobs) -> Session``, the session
    training the runs still to do (see :class:`phonkit.experiments.launchers.Launcher`)."""


@hookspec
def register_commands(app: Any) -> None:
    """Add subcommands to the Typer ``app``."""

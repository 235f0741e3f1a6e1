"""The plugin manager: built-in plugins first, then installed entry points of group ``phonkit``.

``PHONKIT_LOAD_PLUGINS`` (comma-separated entry-point names) restricts which installed plugins
load; set it to the empty string to load none. A plugin that fails to import is reported on
stderr and skipped.
"""

from __future__ import annotations

import importlib
import logging
import os
from dataclasses import dataclass
from functools import cache
from importlib.metadata import entry_points
from typing import Any

import pluggy

from phonkit import hookspecs
from phonkit.errors import InputError

DEFAULT_PLUGINS = (
    "phonkit.default_plugins.corpora.unimorph",
    "phonkit.default_plugins.corpora.conll2017",
    "phonkit.default_plugins.corpora.tsv",
    "phonkit.default_plugins.corpora.hf",
    "phonkit.default_plugins.corpora.sample",
    "phonkit.default_plugins.corpora.celex",
    "phonkit.default_plugins.transcribers",
    "phonkit.default_plugins.epitran_transcriber",
    "phonkit.default_plugins.decompositions",
    "phonkit.default_plugins.models",
    "phonkit.default_plugins.metrics",
    "phonkit.default_plugins.launchers",
)
KINDS = {
    "corpora": "corpus",
    "transcribers": "transcriber",
    "decompositions": "morpheme decomposition",
    "models": "model variant",
    "metrics": "metric",
    "launchers": "launcher",
}


@dataclass(frozen=True)
class PluginInfo:
    name: str
    version: str
    hooks: tuple[str, ...]


class PluginError(Exception):
    """A plugin broke the contract (for example, two plugins registered one name)."""


@cache
def manager() -> pluggy.PluginManager:
    pm = pluggy.PluginManager("phonkit")
    pm.add_hookspecs(hookspecs)
    for module in DEFAULT_PLUGINS:
        pm.register(importlib.import_module(module), name=module)
    _load_entry_points(pm)
    return pm


def _load_entry_points(pm: pluggy.PluginManager) -> None:
    allowed = os.environ.get("PHONKIT_LOAD_PLUGINS")
    names = None if allowed is None else {n.strip() for n in allowed.split(",") if n.strip()}
    for entry_point in entry_points(group="phonkit"):
        if names is not None and entry_point.name not in names:
            continue
        try:
            plugin = entry_point.load()
            pm.register(plugin, name=entry_point.name)
        except Exception as error:  # a broken plugin must never take the CLI down
            logging.getLogger("phonkit").warning(
                f"phonkit: plugin {entry_point.name!r} failed to load and was skipped: "
                f"{type(error).__name__}: {error}"
            )


def plugin_infos() -> list[PluginInfo]:
    """Every loaded plugin with its distribution version and the hooks it implements."""
    from phonkit import __version__

    pm = manager()
    versions = {ep.name: ep.dist.version if ep.dist else "" for ep in entry_points(group="phonkit")}
    infos = []
    for name, plugin in pm.list_name_plugin():
        hooks = tuple(sorted(caller.name for caller in pm.get_hookcallers(plugin) or []))
        version = __version__ if name in DEFAULT_PLUGINS else versions.get(name, "")
        infos.append(PluginInfo(name, version, hooks))
    return infos


@cache
def registry(kind: str) -> dict[str, Any]:
    """Everything registered through ``register_<kind>``, by name, in registration order."""
    found: dict[str, Any] = {}
    owners: dict[str, str] = {}
    hook = getattr(manager().hook, f"register_{kind}")
    for implementation in hook.get_hookimpls():  # in registration order
        owner = implementation.plugin_name

        def register(thing: Any, owner: str = owner) -> None:
            name = thing.name
            if name in found:
                raise PluginError(
                    f"{KINDS[kind]} {name!r} is registered by both plugin {owners[name]!r} "
                    f"and plugin {owner!r}; uninstall one of them"
                )
            found[name] = thing
            owners[name] = owner

        implementation.function(register=register)
    return found


def lookup(kind: str, name: str) -> Any:
    """The registered thing called ``name``, or a usage error listing the known names."""
    things = registry(kind)
    if name not in things:
        raise InputError(f"unknown {KINDS[kind]} {name!r}; available: {', '.join(things)}")
    return things[name]

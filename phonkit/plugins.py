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
from phonkit.data.features import Features
from phonkit.errors import InputError

DEFAULT_PLUGINS = (
    "phonkit.default_plugins.corpora.unimorph",
    "phonkit.default_plugins.corpora.conll2017",
    "phonkit.default_plugins.corpora.tsv",
    "phonkit.default_plugins.corpora.table",
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
    "feature_tables": "feature table",
}


@dataclass(frozen=True)
class PluginInfo:
    name: str
    version: str
    hooks: tuple[str, ...]
    registers: dict[str, list[str]]  # kind (or "commands") -> the names it registers


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
    """Every loaded plugin with its distribution version, the hooks it implements and what
    it registers through them, by kind."""
    from phonkit import __version__

    pm = manager()
    versions = {ep.name: ep.dist.version if ep.dist else "" for ep in entry_points(group="phonkit")}
    registered = {kind: owners(kind) for kind in KINDS}
    infos = []
    for name, plugin in pm.list_name_plugin():
        hooks = tuple(sorted(caller.name for caller in pm.get_hookcallers(plugin) or []))
        version = __version__ if name in DEFAULT_PLUGINS else versions.get(name, "")
        registers = {kind: found[name] for kind, found in registered.items() if found.get(name)}
        if COMMANDS.get(name):
            registers["commands"] = COMMANDS[name]
        infos.append(PluginInfo(name, version, hooks, registers))
    return infos


#: The commands each plugin added to the command line (filled by :func:`add_commands`).
COMMANDS: dict[str, list[str]] = {}


def add_commands(app: Any) -> None:
    """Let each plugin add its subcommands to the Typer ``app`` (``register_commands``,
    through pluggy, one plugin at a time in registration order), noting which it added."""
    pm = manager()
    for implementation in pm.hook.register_commands.get_hookimpls():
        before = command_names(app)
        others = [p for p in pm.get_plugins() if p is not implementation.plugin]
        pm.subset_hook_caller("register_commands", remove_plugins=others)(app=app)
        added = [name for name in command_names(app) if name not in before]
        COMMANDS[implementation.plugin_name] = added


def command_names(app: Any) -> list[str]:
    """The names of a Typer app's commands and command groups."""
    names = [
        info.name or info.callback.__name__.replace("_", "-")
        for info in app.registered_commands
        if info.name or info.callback
    ]
    return names + [info.name for info in app.registered_groups if info.name]


@cache
def registry(kind: str) -> dict[str, Any]:
    """Everything registered through ``register_<kind>``, by name, in registration order.

    The hook is called through pluggy once per plugin, in registration order (a subset
    caller: pluggy's tracing and monitoring see every call), so that a name registered twice
    is an error naming both plugins."""
    found: dict[str, Any] = {}
    owners: dict[str, str] = {}
    pm = manager()
    name = f"register_{kind}"
    plugins = [implementation.plugin for implementation in getattr(pm.hook, name).get_hookimpls()]
    for plugin in plugins:  # in registration order
        owner = pm.get_name(plugin) or repr(plugin)

        def register(thing: Any, owner: str = owner) -> None:
            name = thing.name
            if name in found:
                raise PluginError(
                    f"{KINDS[kind]} {name!r} is registered by both plugin {owners[name]!r} "
                    f"and plugin {owner!r}; uninstall one of them"
                )
            found[name] = thing
            owners[name] = owner

        others = [other for other in plugins if other is not plugin]
        pm.subset_hook_caller(name, remove_plugins=others)(register=register)
    return found


def owners(kind: str) -> dict[str, list[str]]:
    """The names each plugin registers of a kind, by plugin name."""
    registry(kind)  # the duplicate check first
    pm, found = manager(), {}
    for implementation in getattr(pm.hook, f"register_{kind}").get_hookimpls():
        names: list[str] = []
        others = [p for p in pm.get_plugins() if p is not implementation.plugin]
        pm.subset_hook_caller(f"register_{kind}", remove_plugins=others)(
            register=lambda thing, names=names: names.append(thing.name)
        )
        found[implementation.plugin_name] = names
    return found


#: The base class of each kind of registered thing: what phonkit calls on it.
BASES = {
    "corpora": "phonkit.data.corpora:Corpus",
    "transcribers": "phonkit.data.transcription:Transcriber",
    "decompositions": "phonkit.data.lexicon:Decomposition",
    "models": "phonkit.model.phonology:Model",
    "metrics": "phonkit.metrics:Metric",
    "launchers": "phonkit.jobs:Launcher",
    "feature_tables": "phonkit.data.features:FeatureTable",
}


def base_class(kind: str) -> type:
    module, _, name = BASES[kind].partition(":")
    return getattr(importlib.import_module(module), name)


def contract(kind: str) -> list[str]:
    """The attributes and methods phonkit uses of a registered thing of ``kind``: the public
    members its base class declares (for model variants, which are classes: the methods a
    variant implements, besides ``name`` and ``description``)."""
    if kind == "models":
        return ["name", "description", "forward", "start", "step"]
    base = base_class(kind)
    declared = {*vars(base), *getattr(base, "__annotations__", {})}
    return sorted(member for member in declared if not member.startswith("_"))


def breaches(kind: str, thing: Any) -> list[str]:
    """What a registered thing lacks of its kind's contract (empty when it satisfies it); a
    model variant must subclass the base and implement its methods, not inherit them."""
    base = base_class(kind)
    if kind == "models" and not (isinstance(thing, type) and issubclass(thing, base)):
        return [f"not a subclass of {base.__module__}.{base.__qualname__}"]
    missing = [
        member
        for member in contract(kind)
        if not hasattr(thing, member)
        or (
            kind == "models"
            and callable(getattr(base, member))
            and getattr(thing, member) is getattr(base, member)
        )
    ]
    if not isinstance(getattr(thing, "name", None), str) or not thing.name:
        missing.append("name (a non-empty string)")
    return missing


def lookup(kind: str, name: str) -> Any:
    """The registered thing called ``name``, or a usage error listing the known names."""
    things = registry(kind)
    if name not in things:
        raise InputError(f"unknown {KINDS[kind]} {name!r}; available: {', '.join(things)}")
    return things[name]


def installed_feature_table() -> str | None:
    """The name of the first feature table a plugin registers (``phonkit-panphon``'s
    ``panphon``), or None where none is installed."""
    return next(iter(registry("feature_tables")), None)


def feature_table(name: str | None = None) -> Features | None:
    """The features of a segment by the feature table called ``name`` (by default the first
    one installed), or None where there is none."""
    name = name or installed_feature_table()
    return None if name is None else lookup("feature_tables", name).features

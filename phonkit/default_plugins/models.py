"""The three model variants of the paper (:mod:`phonkit.model.variants`), registered as
model plugins. They are imported when the variants are first asked for, not when the plugin
loads: every command loads the plugins, and only those that build a model need torch."""

from __future__ import annotations

from phonkit.hookspecs import hookimpl


@hookimpl
def register_models(register):
    from phonkit.model.variants import Joint, PositionDependent, PositionIndependent

    for variant in (PositionIndependent, PositionDependent, Joint):
        register(variant)

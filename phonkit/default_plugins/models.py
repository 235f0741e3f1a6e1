"""The model variants that ship with phonkit, registered as model plugins: the paper's three
(:mod:`phonkit.model.variants`) and the amortized model (:mod:`phonkit.model.amortized`).
They are imported when the variants are first asked for, not when the plugin loads: every
command loads the plugins, and only those that build a model need torch."""

from __future__ import annotations

from phonkit.hookspecs import hookimpl


@hookimpl
def register_models(register):
    from phonkit.model.amortized import Amortized
    from phonkit.model.variants import Joint, PositionDependent, PositionIndependent

    for variant in (PositionIndependent, PositionDependent, Joint, Amortized):
        register(variant)

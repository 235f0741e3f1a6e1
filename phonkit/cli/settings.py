"""The commands' options for the declared settings (:mod:`phonkit.settings`), derived from
their declarations: ``--dim``, ``--lr``, ``--min-lr``, ``--lemma-encoder/--no-lemma-encoder``,
``--fit-steps``..., each with its help and default, in a help section of its group, plus
``--set KEY=VALUE`` for any of them.

A command decorated with :func:`setting_options` receives ``settings``: the settings the
user gave (on the command line or with ``--set``), by field name, typed and nothing else;
a setting left out keeps the default of whatever the command builds (the declared one, a
command's own, or one chosen by the data's size). Errors name a setting as ``training.lr``;
:func:`flag` gives the option that sets it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Annotated, Any

import typer

from phonkit.cli.options import gathered, key_values
from phonkit.errors import InputError
from phonkit.settings import GROUPS, Setting, declared, every, parse

PREFIX = {"model": "", "training": "", "fit": "fit-"}  # the fit's options: --fit-steps...
ANNOTATED: Any = Annotated  # subscripted with types known at run time only
SECTION = {"model": "Model settings", "training": "Training settings", "fit": "Fit settings"}


def flag(one: Setting) -> str:
    """The option of a setting: ``training.min_lr`` -> ``--min-lr``."""
    return "--" + PREFIX[one.group] + one.name.replace("_", "-")


def parameter(one: Setting) -> str:
    """The command's parameter name of a setting (``fit_steps`` for ``fit.steps``)."""
    return flag(one)[2:].replace("-", "_")


#: The other settings of a run or a command that a library error may name, each given by
#: the option of its last name (``data.max_entries``: ``--max-entries``).
NAMED = (
    "device", "data.lang", "data.path", "data.columns", "data.data_dir", "data.max_entries",
    "split.k", "split.fold", "transcriber", "ipa", "out", "force", "resume", "jobs", "langs",
    "column", "bundle", "skip_unknown", "unseen_lemmas",
)  # fmt: skip

#: The option that gives each setting a library error may name: the declared settings'
#: derived options, the settings of :data:`NAMED` and two options named otherwise; a
#: launcher's setting ``launcher.KEY`` is ``-L KEY`` (:func:`options`).
FLAGS = (
    {one.key: flag(one) for one in every()}
    | {name: "--" + name.rpartition(".")[2].replace("_", "-") for name in NAMED}
    | {"split.protocol": "--split", "known_cells": "--known"}
)


def options(settings: Sequence[str]) -> dict[str, str]:
    """The option of each of ``settings`` that the command line has one for."""
    prefix = "launcher."  # a launcher's setting launcher.KEY: -L KEY
    launcher = {s: "-L " + s.removeprefix(prefix) for s in settings if s.startswith(prefix)}
    return launcher | {setting: FLAGS[setting] for setting in settings if setting in FLAGS}


def in_flags(error: InputError) -> InputError:
    """A library error in the command line's words (:func:`in_options`); a ``where`` that is
    one of its settings (a value of it is at fault) becomes the option, and only the place:
    ``bundle: empty feature bundle`` -> ``--bundle: empty feature bundle``."""
    flags = options(error.settings)
    if not flags:
        return error
    where = flags.get(error.where or "", error.where)
    named = [setting for setting in error.settings if setting != error.where]
    return InputError(in_options(error.message, named), where)


def in_options(message: str, settings: Sequence[str]) -> str:
    """A library message in the command line's words: each of ``settings`` it names becomes
    the option that gives it (``training.lr must be ...`` -> ``--lr must be ...``), and a
    value written ``setting=VALUE`` becomes ``--option VALUE`` (``split.k=5`` -> ``--k 5``)."""
    flags = options(settings)
    if not flags:
        return message
    # One pass over every setting, longest first, so that a replacement is never replaced
    # again (``launcher.jobs`` -> ``-L jobs``, not ``-L --jobs``); a setting is a whole
    # name, not part of a longer one or of a path.
    names = "|".join(re.escape(name) for name in sorted(flags, key=len, reverse=True))
    pattern = re.compile(rf"(?<![\w./\\-])({names})(?![\w])(=?)")

    def option(match: re.Match[str]) -> str:
        flag = flags[match.group(1)]
        if not match.group(2):
            return flag
        return flag + ("=" if " " in flag else " ")  # ``--set min_lr=1``, ``--k 5``

    return pattern.sub(option, message)


def setting_options(
    *groups: str,
    defaults: Mapping[str, Any] | None = None,
    skip: Iterable[str] = (),
    with_set: bool = True,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give a command one option per setting of ``groups`` (``model``, ``training``,
    ``fit``), except the settings named in ``skip``, and ``--set`` (unless not
    ``with_set``); ``defaults`` are the command's own defaults, shown in the help. The
    command receives the given ones as ``settings`` (by field name; ``--set`` last)."""
    shown = defaults or {}
    chosen = [one for group in groups for one in declared(GROUPS[group]) if one.name not in skip]
    added = [_option(one, shown.get(one.name, one.default)) for one in chosen]
    if with_set:
        added.append(_set_option(groups))

    def given(_: dict[str, Any], **values: Any) -> dict[str, Any]:
        settings = {
            one.name: value for one in chosen if (value := values[parameter(one)]) is not None
        }
        for key, text in key_values(values.get("set", []), "--set").items():
            settings[key] = _parse_set(chosen, key, text)
        return settings

    return gathered("settings", added, given)


def _option(one: Setting, default: Any) -> tuple[str, Any, Any]:
    """The Typer option of one setting; None (its default) means "not given"."""
    shown = str(default).lower() if isinstance(default, bool) else default
    names = [flag(one)] if one.kind is not bool else [f"{flag(one)}/--no-{flag(one)[2:]}"]
    option = typer.Option(
        *names,
        help=f"{one.declaration.help} \\[default: {shown}]",
        rich_help_panel=SECTION[one.group],
        show_default=False,
    )
    return parameter(one), ANNOTATED[one.kind | None, option], None


def _set_option(groups: tuple[str, ...]) -> tuple[str, Any, Any]:
    option = typer.Option(
        "--set",
        metavar="KEY=VALUE",
        help=f"KEY=VALUE: any {' or '.join(groups)} setting by its name (as config.json "
        "writes it), e.g. --set min_lr=1e-6.",
        rich_help_panel=SECTION[groups[-1]],
    )
    return "set", Annotated[list[str], option], []


def _parse_set(chosen: list[Setting], key: str, text: str) -> Any:
    one = next((one for one in chosen if one.name == key), None)
    if one is None:
        known = ", ".join(one.name for one in chosen)
        raise InputError(f"--set: unknown setting {key!r}; settings: {known}")
    try:
        return parse(GROUPS[one.group], key, text)
    except InputError as error:
        raise InputError(f"--set {error.message}") from None

"""The commands' options for the declared settings (:mod:`phonkit.settings`), derived from
their declarations: ``--dim``, ``--lr``, ``--min-lr``, ``--lemma-encoder/--no-lemma-encoder``,
``--k``, ``--fit-steps``..., each with its help and default, in a help section of its group,
plus ``--set KEY=VALUE`` for any of them. The copy models' settings have no option of their
own (sixteen more would bury the others in ``--help``): ``--set copy.lr=0.01``.

A command decorated with :func:`setting_options` receives ``settings``: the settings the
user gave (on the command line or with ``--set``), by their shortest key (``dim``,
``copy.lr``), typed and nothing else; a setting left out keeps the default of whatever the
command builds (the declared one, a command's own, or one chosen by the data's size).
Errors name a setting as ``training.lr``; :func:`flag` gives the option that sets it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Annotated, Any

import typer

from phonkit.cli.options import gathered, key_values
from phonkit.errors import InputError
from phonkit.settings import GROUPS, Setting, declared, every, find, parse

PREFIX = {"model": "", "training": "", "split": "", "fit": "fit-"}  # --fit-steps...
ONLY_SET = ("copy",)  # groups without options of their own: --set copy.NAME=VALUE
RENAMED = {"split.protocol": "--split"}  # options not named after their setting
ANNOTATED: Any = Annotated  # subscripted with types known at run time only
SECTION = {
    "model": "Model settings",
    "training": "Training settings",
    "copy": "Copy models' settings",
    "split": "Split settings",
    "fit": "Fit settings",
}


def flag(one: Setting) -> str:
    """The option of a setting: ``training.min_lr`` -> ``--min-lr``, ``split.protocol`` ->
    ``--split``; for a setting without an option of its own, ``--set copy.lr``."""
    if one.group in ONLY_SET:
        return f"--set {one.short}"
    return RENAMED.get(one.key) or "--" + PREFIX[one.group] + one.name.replace("_", "-")


def parameter(one: Setting) -> str:
    """The command's parameter name of a setting (``fit_steps`` for ``fit.steps``)."""
    return flag(one)[2:].replace("-", "_")


#: The other settings of a run or a command that a library error may name, each given by
#: the option of its last name (``data.data_dir``: ``--data-dir``).
NAMED = (
    "device", "data.lang", "data.path", "data.columns", "data.data_dir", "transcriber", "ipa",
    "out", "force", "resume", "jobs", "langs", "column", "bundle", "strict", "columns",
    "unseen_lemmas",
)  # fmt: skip

#: The option that gives each setting a library error may name: the declared settings'
#: derived options, the settings of :data:`NAMED` and one option named otherwise; a
#: launcher's setting ``launcher.KEY`` is ``-L KEY`` (:func:`options`).
FLAGS = (
    {one.key: flag(one) for one in every()}
    | {name: "--" + name.rpartition(".")[2].replace("_", "-") for name in NAMED}
    | {"known_cells": "--known"}
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
    ``split``, ``fit``; ``copy`` has ``--set`` only), except the settings named in ``skip``
    (by key: ``seed``, ``split.k``), and ``--set`` for each of them (unless not
    ``with_set``); ``defaults`` are the command's own defaults, shown in the help. The
    command receives the given ones as ``settings`` (by shortest key; ``--set`` last)."""
    shown = defaults or {}
    skipped = set(skip)
    chosen = [
        one
        for group in groups
        for one in declared(GROUPS[group])
        if not {one.short, one.key} & skipped
    ]
    with_options = [one for one in chosen if one.group not in ONLY_SET]
    added = [_option(one, shown.get(one.short, one.default)) for one in with_options]
    if with_set:
        added.append(_set_option(groups))

    def given(_: dict[str, Any], **values: Any) -> dict[str, Any]:
        settings = {
            one.short: value
            for one in with_options
            if (value := values[parameter(one)]) is not None
        }
        for key, text in key_values(values.get("set", []), "--set").items():
            one = _set_setting(chosen, groups, key)
            settings[one.short] = _parse_set(one, key, text)
        return settings

    return gathered("settings", added, given)


def _option(one: Setting, default: Any) -> tuple[str, Any, Any]:
    """The Typer option of one setting; None (its default) means "not given"."""
    shown = str(default).lower() if isinstance(default, bool) else default
    names = [flag(one)] if one.kind is not bool else [f"{flag(one)}/--no-{flag(one)[2:]}"]
    option = typer.Option(
        *names,
        help=one.declaration.help + (f" \\[default: {shown}]" if default is not None else ""),
        rich_help_panel=SECTION[one.group],
        show_default=False,
    )
    return parameter(one), ANNOTATED[one.kind | None, option], None


def _set_option(groups: tuple[str, ...]) -> tuple[str, Any, Any]:
    copy = (
        " The copy models' settings take their group: --set copy.lr=0.01 (docs/results/tables.md)."
        if "copy" in groups
        else ""
    )
    option = typer.Option(
        "--set",
        metavar="KEY=VALUE",
        help=f"KEY=VALUE: any {', '.join(groups)} setting by its name (as config.json writes "
        f"it), or GROUP.NAME, e.g. --set min_lr=1e-6.{copy}",
        rich_help_panel=SECTION[groups[-1]],
    )
    return "set", Annotated[list[str], option], []


def _set_setting(chosen: list[Setting], groups: Sequence[str], key: str) -> Setting:
    """The setting ``--set KEY=...`` names among the command's (``chosen``)."""
    try:
        found: Setting | None = find(key, groups)
    except InputError:
        found = None
    if found is None or found not in chosen:
        known = ", ".join(one.short for one in chosen)
        raise InputError(f"--set: unknown setting {key!r}; settings: {known}")
    return found


def _parse_set(one: Setting, key: str, text: str) -> Any:
    try:
        return parse(GROUPS[one.group], one.name, text, key)
    except InputError as error:
        raise InputError(f"--set {error.message}") from None

"""The reference pages, written from the code itself: the commands from the command line's own
declaration (``--help`` says the same), the settings from their one declaration
(:mod:`phonkit.settings`), the hooks from their specifications (:mod:`phonkit.hookspecs`).

``python -m phonkit.cli.reference docs/reference`` writes ``cli.md``, ``settings.md`` and
``hooks.md`` there; a test fails when the committed pages and the code differ.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import typer

from phonkit import hookspecs, settings
from phonkit.cli.main import app, plain_flags

GENERATED = "<!-- Written by `python -m phonkit.cli.reference docs/reference`; do not edit. -->"


def cli_page() -> str:
    """Every built-in command (a plugin's commands are its own): usage, help, options."""
    root = plain_flags(typer.main.get_command(app))
    lines = [
        "# Command reference",
        "",
        GENERATED,
        "",
        "The built-in commands, as `phonkit COMMAND --help` gives them (a plugin's commands are",
        "listed by `phonkit plugins`). Settings not given follow the data's size:",
        "[settings.md](settings.md) lists their declared defaults.",
    ]
    for path, command in _commands(root, ("phonkit",)):
        lines += ["", f"## `{' '.join(path)}`", ""]
        context = command.context_class(command, info_name=path[-1])
        lines.append(f"`{' '.join(path)} {' '.join(command.collect_usage_pieces(context))}`")
        text = inspect.cleandoc(command.help or "").replace("\b\n", "")
        lines += ["", *(text.splitlines() if text else [])]
        params = command.get_params(context)
        records = list(filter(None, (param.get_help_record(context) for param in params)))
        rows = [_row(names, text) for names, text in records if not _setting(names, text)]
        given = [f"`{_first(names)}`" for names, text in records if _setting(names, text)]
        if given:
            rows.append(f"- the settings ([settings.md](settings.md)): {', '.join(given)}")
        if rows:
            lines += ["", *rows]
    return "\n".join(lines) + "\n"


def _settings_helps() -> dict[str, set[str]]:
    """The declared settings' helps by option name (``--dim``: the model's and the copy
    models')."""
    helps: dict[str, set[str]] = {}
    for one in settings.every():
        helps.setdefault("--" + one.name.replace("_", "-"), set()).add(one.declaration.help)
    return helps


SETTINGS = _settings_helps()


def _first(names: str) -> str:
    """An option's first name (``--dim`` of ``--dim <int>``, ``--ipa`` of ``--ipa / --no-ipa``)."""
    return names.split()[0].rstrip(",")


def _setting(names: str, text: str) -> bool:
    """Whether the option is a declared setting's: its name and its help are the setting's."""
    text = " ".join(text.split())
    helps = SETTINGS.get(_first(names), ())
    return any(text.startswith(" ".join(declared.split())) for declared in helps)


def _row(names: str, text: str) -> str:
    """One option or argument as ``--help`` gives it: its names and value, help and default
    (without the console's escapes)."""
    return f"- `{names}`: {' '.join(text.replace(chr(92) + '[', '[').split())}".rstrip(": ")


def _commands(command: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
    """``command`` and each of its subcommands, depth first, in the order ``--help`` lists."""
    yield path, command
    for name, subcommand in getattr(command, "commands", {}).items():
        if not getattr(subcommand, "hidden", False):
            yield from _commands(subcommand, (*path, name))


def settings_page() -> str:
    """Every declared setting by group: its key, type, default and what it must be."""
    lines = [
        "# Settings reference",
        "",
        GENERATED,
        "",
        "Every setting of a run, declared once in `phonkit/settings.py`. Commands take each as",
        "an option (`--dim 64`) or as `--set KEY=VALUE`; the Python API and the experiments",
        "take them by key. A setting not given follows the variant and the data's size",
        "([method.md](../method.md)): the default below is the declared one. A run's",
        "`config.json` records every value it used.",
    ]
    for group, kind in settings.GROUPS.items():
        lines += ["", f"## `{group}`", "", inspect.cleandoc(kind.__doc__ or ""), ""]
        lines += ["| key | type | default | allowed | what |", "|---|---|---|---|---|"]
        for one in settings.declared(kind):
            declaration = one.declaration
            allowed = (
                ", ".join(declaration.choices)
                if declaration.choices
                else (declaration.range.describe() if declaration.range else "")
            )
            if declaration.size:
                allowed = f"{declaration.size} numbers" + (f", each {allowed}" * bool(allowed))
            kind_name = one.kind.__name__ + (" or none" if one.optional else "")
            cells = (f"`{one.short}`", kind_name, f"`{one.default!r}`", allowed, declaration.help)
            lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines) + "\n"


def hooks_page() -> str:
    """Every hook a plugin can implement, with its signature and contract."""
    lines = ["# Hook reference", "", GENERATED, "", inspect.cleandoc(hookspecs.__doc__ or "")]
    for name, function in vars(hookspecs).items():  # in the order they are declared
        if not hasattr(function, "phonkit_spec"):
            continue
        signature = ", ".join(inspect.signature(function).parameters)
        lines += ["", f"## `{name}({signature})`", "", inspect.cleandoc(function.__doc__ or "")]
    return "\n".join(lines) + "\n"


PAGES: dict[str, Callable[[], str]] = {
    "cli.md": cli_page,
    "settings.md": settings_page,
    "hooks.md": hooks_page,
}


def write(folder: Path) -> None:
    """Write the reference pages into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, page in PAGES.items():
        (folder / name).write_text(page(), encoding="utf-8")


if __name__ == "__main__":
    write(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/reference"))

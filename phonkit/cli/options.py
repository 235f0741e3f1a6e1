"""Command-line options that several commands share, declared once, and the parsing of
list-valued options (``1,2,4``, ``KEY=VALUE``). The options of the model, training and fit
settings are derived from their declarations (:mod:`phonkit.cli.settings`)."""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from phonkit.data.corpora import CorpusRequest
from phonkit.errors import InputError
from phonkit.settings import TrainConfig, declared

RunDir = Annotated[
    Path, typer.Option("--model", "-m", help="A run directory made by phonkit train.")
]
OptionalRunDir = Annotated[
    Path | None, typer.Option("--model", "-m", help="A run directory made by phonkit train.")
]
DataDir = Annotated[
    Path | None,
    typer.Option("--data-dir", help="Data root (else $PHONKIT_DATA, else the user data dir)."),
]
Corpus = Annotated[str, typer.Option(help="Corpus reader (see phonkit corpora).")]
Lang = Annotated[str | None, typer.Option(help="ISO 639-3 language code.")]
# The precision of predicting takes the choices, and the help, of training's.
PRECISION = next(one for one in declared(TrainConfig) if one.name == "precision")
Precision = Annotated[str, typer.Option(help=PRECISION.declaration.help)]
Transcribers = Annotated[
    str,
    typer.Option(
        "--transcriber",
        help="G2P transcriber for surface symbols: none (orthography), epitran (IPA), "
        "segments (forms already written as space-separated segments), disc (CELEX DISC to "
        "IPA), or a plugin's.",
    ),
]
Ipa = Annotated[
    bool,
    typer.Option(
        "--ipa",
        help="Surface forms in IPA: the corpus's own IPA table (CELEX: DISC) or else epitran.",
    ),
]
Device = Annotated[str, typer.Option(help="auto, cpu or cuda.")]
Variant = Annotated[
    str, typer.Option(help="Model variant: amortized, pi, pd, joint, or a plugin's.")
]
Beam = Annotated[int, typer.Option(help="Beam width (1: greedy).")]
Metrics = Annotated[
    str | None,
    typer.Option(
        help="Metrics scored at the end, comma-separated \\[default: every installed one]."
    ),
]
Morphemes = Annotated[
    str,
    typer.Option(
        help="How words split into morphemes: features (the lemma and each feature), bundle "
        "(the lemma and the whole feature bundle as one affix), or a plugin's."
    ),
]
CorpusPath = Annotated[
    str | None, typer.Option("--path", help="File or dataset for the tsv and hf corpora.")
]
Columns = Annotated[str | None, typer.Option(help="Column spec, e.g. lemma,features,form,count.")]
PredictColumns = Annotated[
    str,
    typer.Option(
        help="The columns of each row, in file order: lemma,features,form (the form may be "
        "left off) or lemma,form,features (UniMorph, SIGMORPHON); an empty form is a cell "
        "to fill."
    ),
]
CorpusOptions = Annotated[
    list[str], typer.Option("--corpus-option", "-O", help="KEY=VALUE for the corpus reader.")
]
#: Where a command's corpus is, beside its --lang (:data:`corpus_request`): name, type, default.
WHERE: list[tuple[str, Any, Any]] = [
    ("data_dir", DataDir, None),
    ("path", CorpusPath, None),
    ("columns", Columns, None),
    ("corpus_option", CorpusOptions, []),
]


def gathered(
    name: str, options: list[tuple[str, Any, Any]], build: Callable[..., Any]
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A decorator that gives a command ``options`` (name, type, default) in the place of its
    parameter ``name``, which receives ``build(given, **values)``: the command's other
    arguments, and the values of ``options``."""

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        signature = inspect.signature(command)
        hints = typing.get_type_hints(command, include_extras=True)
        parameters: list[inspect.Parameter] = []
        for p in signature.parameters.values():
            if p.name != name:
                parameters.append(p.replace(annotation=hints.get(p.name, p.annotation)))
            else:
                parameters += [
                    inspect.Parameter(n, p.kind, annotation=a, default=d) for n, a, d in options
                ]

        @functools.wraps(command)
        def wrapper(**given: Any) -> Any:
            values = {option: given.pop(option) for option, _, _ in options}
            return command(**given, **{name: build(given, **values)})

        wrapper.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
        wrapper.__annotations__ = {p.name: p.annotation for p in parameters}
        return wrapper

    return decorate


def _request(given: dict[str, Any], data_dir, path, columns, corpus_option) -> CorpusRequest:
    options = key_values(corpus_option, "--corpus-option")
    return CorpusRequest(given["lang"], data_dir, path, columns, options)


#: Gives a command the options of :data:`WHERE` in the place of its parameter ``request``,
#: which receives them, with the command's ``lang``, as a :class:`CorpusRequest`.
corpus_request = gathered("request", WHERE, _request)


def figure_file(out: Path | None) -> None:
    """A figure to draw must be a .png, .svg or .pdf file."""
    if out is not None and out.suffix not in (".png", ".svg", ".pdf"):
        raise InputError(f"{out}: choose a .png, .svg or .pdf file")


def at_least_one(**options: int | None) -> None:
    """Each option given (not None) must be 1 or more: ``--max-entries 0`` is an error, not
    "no limit"."""
    bad = [name for name, value in options.items() if value is not None and value < 1]
    if bad:
        named = ", ".join("--" + name.replace("_", "-") for name in bad)
        raise InputError(f"{named} must be at least 1")


def key_values(pairs: list[str], option: str) -> dict[str, str]:
    """``KEY=VALUE`` pairs of a repeatable option."""
    found = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InputError(f"{option} expects KEY=VALUE, not {pair!r}")
        found[key.strip()] = value
    return found


def numbers(text: str, option: str) -> list[int]:
    """Positive whole numbers separated by commas (``1,2,4,8``)."""
    try:
        values = [int(part) for part in text.split(",")]
    except ValueError:
        values = []
    if not values or min(values) < 1:
        raise InputError(f"{option} takes positive whole numbers separated by commas, not {text!r}")
    return values


def names(text: str, option: str) -> list[str]:
    """Names separated by commas, in order, without repeats."""
    found = list(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    if not found:
        raise InputError(f"{option} needs at least one name")
    return found

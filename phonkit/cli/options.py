"""Command-line options that several commands share, declared once, and the parsing of
list-valued options (``1,2,4``, ``KEY=VALUE``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from phonkit.errors import InputError
from phonkit.model.phonology import ModelConfig
from phonkit.model.training import TrainConfig
from phonkit.run.config import parse_setting

RunDir = Annotated[
    Path, typer.Option("--model", "-m", help="A run directory made by phonkit train.")
]
DataDir = Annotated[
    Path | None,
    typer.Option("--data-dir", help="Data root (else $PHONKIT_DATA, else the user data dir)."),
]
Corpus = Annotated[str, typer.Option(help="Corpus reader (see phonkit corpora).")]
CorpusPath = Annotated[
    str | None, typer.Option("--path", help="File or dataset for the tsv and hf corpora.")
]
Columns = Annotated[str | None, typer.Option(help="Column spec, e.g. lemma,features,form,count.")]
CorpusOptions = Annotated[
    list[str], typer.Option("--corpus-option", "-O", help="KEY=VALUE for the corpus reader.")
]
Precision = Annotated[
    str,
    typer.Option(
        help="auto (bfloat16 where the device has native bfloat16 units: CUDA GPUs, CPUs "
        "with AVX-512 BF16 or AMX; else fp32), fp32, or bf16."
    ),
]
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
Epochs = Annotated[int, typer.Option(help="Maximum number of epochs.")]
BatchSize = Annotated[int, typer.Option(help="Forms per batch.")]
Patience = Annotated[int, typer.Option(help="Epochs without dev improvement before halving lr.")]
Dim = Annotated[int, typer.Option(help="Size d of underlying forms and the LSTM.")]
MaxEntries = Annotated[
    int | None,
    typer.Option(help="Keep at most this many entries of a corpus (whole paradigms, seeded)."),
]
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
Select = Annotated[
    str,
    typer.Option(help="The checkpoint kept: loss (best dev loss) or acc (best dev accuracy)."),
]
FitSteps = Annotated[int, typer.Option(help="Gradient steps fitting the UFs of new lemmas.")]
FitLr = Annotated[float, typer.Option(help="Adam learning rate of that fit.")]


#: The option (or words) that gives each setting a library error may name.
FLAGS = {
    "training.epochs": "--epochs",
    "training.batch_size": "--batch-size",
    "training.lr": "--lr",
    "training.min_lr": "--set min_lr",
    "training.patience": "--patience",
    "training.prior_weight": "--prior-weight",
    "training.uf_lr_scale": "--uf-lr-scale",
    "training.seed": "--seed",
    "model.dim": "--dim",
    "model.dropout": "--dropout",
    "model.sigma": "--sigma",
    "model.init_scale": "--init-scale",
    "fit.steps": "--fit-steps",
    "fit.lr": "--fit-lr",
    "fit.prior_weight": "the prior weight of the fit",
    "device": "--device",
    "data.lang": "--lang",
    "data.path": "--path",
    "data.columns": "--columns",
    "data.data_dir": "--data-dir",
    "data.max_entries": "--max-entries",
    "split.protocol": "--split",
    "split.k": "--k",
    "split.fold": "--fold",
    "transcriber": "--transcriber",
    "ipa": "--ipa",
    "out": "--out",
    "force": "--force",
    "resume": "--resume",
    "jobs": "--jobs",
    "launcher.jobs": "-L jobs",
    "langs": "--langs",
    "column": "--column",
    "bundle": "--bundle",
    "known_cells": "--known",
    "skip_unknown": "--skip-unknown",
    "unseen_lemmas": "--unseen-lemmas",
}


def in_flags(error: InputError) -> InputError:
    """A library error in the command line's words (:func:`in_options`); a ``where`` that is
    one of its settings (a value of it is at fault) becomes the option, and only the place:
    ``bundle: empty feature bundle`` -> ``--bundle: empty feature bundle``."""
    flags = {setting: FLAGS[setting] for setting in error.settings if setting in FLAGS}
    if not flags:
        return error
    where = flags.get(error.where or "", error.where)
    named = [setting for setting in error.settings if setting != error.where]
    return InputError(in_options(error.message, named), where)


def in_options(message: str, settings: Sequence[str]) -> str:
    """A library message in the command line's words: each of ``settings`` it names becomes
    the option that gives it (``training.lr must be ...`` -> ``--lr must be ...``), and a
    value written ``setting=VALUE`` becomes ``--option VALUE`` (``split.k=5`` -> ``--k 5``)."""
    flags = {setting: FLAGS[setting] for setting in settings if setting in FLAGS}
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


def configure(
    model: ModelConfig, training: TrainConfig, settings: dict[str, object]
) -> tuple[ModelConfig, TrainConfig]:
    """Apply typed ``--set`` settings (:func:`typed_settings`) to the model and training
    configurations; each key is a field of either (``sigma``, ``init_scale``, ``lr``...)."""
    fields = ModelConfig.__dataclass_fields__
    return (
        replace(model, **{key: value for key, value in settings.items() if key in fields}),
        replace(training, **{key: value for key, value in settings.items() if key not in fields}),
    )


def typed_settings(pairs: list[str]) -> dict[str, object]:
    """``--set KEY=VALUE`` pairs as typed values of the model or training settings they
    name, each converted by its field's declared type."""
    typed: dict[str, object] = {}
    for key, text in key_values(pairs, "--set").items():
        kind = next(
            (k for k in (ModelConfig, TrainConfig) if key in k.__dataclass_fields__), None
        )
        if kind is None:
            fields = {*ModelConfig.__dataclass_fields__, *TrainConfig.__dataclass_fields__}
            known = sorted(fields - {"seed"})  # the commands' --seed gives it
            raise InputError(f"--set: unknown setting {key!r}; settings: {', '.join(known)}")
        try:
            typed[key] = parse_setting(kind, key, text)
        except InputError as error:
            raise InputError(f"--set {error.message}") from None
    return typed


def truth(text: str) -> bool:
    """``true``/``false`` (also 1/0, yes/no, on/off) of a ``--set`` switch."""
    value = text.strip().lower()
    if value in ("true", "1", "yes", "on"):
        return True
    if value in ("false", "0", "no", "off"):
        return False
    raise ValueError(text)

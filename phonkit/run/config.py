"""The run configuration: every setting of a run as one typed object, and its ``config.json``.

This module is the one place that writes and reads ``config.json``: the JSON layout (flat
keys, the split's settings among them; ``model``, ``training`` and ``copy`` objects) stays
what earlier phonkit versions wrote, each group's settings written and read as declared
(:class:`~phonkit.settings.Checked`), and a configuration written before a setting existed
reads with the setting's old meaning (a run without ``morphemes`` split words into the lemma
and each feature; one without ``copy`` trains its copy models with the settings of its
size). A file that is not a run configuration is one :class:`~phonkit.errors.InputError`
naming the file and the setting.

The paths a record stores (a run's ``config.json``, an experiment's ``experiment.json``) say
nothing of the machine it was made on: each is stored relative to the record's own
directory (:func:`recorded_path`), so that a record and its data moved together still
point at each other, and read back from there (:func:`located_path`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from phonkit.data.tsv import write_atomic
from phonkit.errors import InputError
from phonkit.settings import Checked, CopyConfig, ModelConfig, SplitConfig, TrainConfig, declared

UNRECORDED = ""  # a run's feature table, where config.json does not say (no table has no name)


@dataclass(frozen=True)
class DataSettings:
    """Where the lexicon came from: the corpus reader and what it was asked for."""

    corpus: str = "sample"
    lang: str | None = None
    path: str | None = None
    columns: str | None = None
    options: dict[str, str] = field(default_factory=dict)
    data_dir: str | None = None


@dataclass(frozen=True)
class RunConfig:
    """Every setting of a run: data, transcriber, morpheme decomposition, split, model
    variant and settings, training settings, the copy models' settings, metrics, and the
    decoding bound; and the sizes of the split."""

    variant: str
    transcriber: str
    model: ModelConfig
    training: TrainConfig
    max_length: int  # decoding stops after this many symbols
    data: DataSettings = field(default_factory=DataSettings)
    split: SplitConfig = field(default_factory=SplitConfig)
    counts: dict[str, int] = field(default_factory=dict)  # the split's sizes: train, dev...
    # The copy models' settings; None for a run without copy models, and for one made before
    # they were recorded (its copy models take the settings of the training split's size).
    copy: CopyConfig | None = None
    morphemes: str = "features"  # the decomposition of runs made before the setting existed
    device: str = "auto"
    metrics: list[str] | None = None  # scored at the end; None: every installed metric
    phonkit_version: str = ""
    # The feature table whose proportions its candidates and underlying strings read (its
    # name; None: none was installed); UNRECORDED for a run made before it was recorded.
    feature_table: str | None = UNRECORDED

    @property
    def lang(self) -> str | None:
        return self.data.lang

    def to_json(self) -> dict[str, Any]:
        """The ``config.json`` object (the layout of every phonkit version so far)."""
        data = self.data
        return {
            "phonkit_version": self.phonkit_version,
            "corpus": data.corpus,
            "lang": data.lang,
            "corpus_request": {
                "path": data.path,
                "columns": data.columns,
                "options": dict(data.options),
                "data_dir": data.data_dir,
            },
            "transcriber": self.transcriber,
            "variant": self.variant,
            "morphemes": self.morphemes,
            "model": self.model.to_json(),
            "training": self.training.to_json(),
            **({"copy": self.copy.to_json()} if self.copy is not None else {}),
            "device": self.device,
            "split": dict(self.counts),
            **self.split.to_json(),  # protocol, k, draw, fold, max_entries
            "metrics": None if self.metrics is None else list(self.metrics),
            "max_length": self.max_length,
            **({"feature_table": self.feature_table} if self.feature_table != UNRECORDED else {}),
        }

    @classmethod
    def from_json(cls, config: Any, where: str) -> RunConfig:
        """A run configuration from the object of ``config.json`` (``where``: its path, for
        the error), checked: the keys every command reads, with their JSON types, and the
        settings of each group this phonkit knows, in their ranges."""
        if not isinstance(config, dict):
            raise InputError(
                f"not a phonkit run configuration (a JSON {type(config).__name__}, "
                "expected an object)",
                where,
            )
        for key, kind in (REQUIRED | OPTIONAL).items():
            value = config.get(key)
            if (value is None and key in OPTIONAL) or (
                isinstance(value, kind) and not isinstance(value, bool)
            ):
                continue
            if key in OPTIONAL:
                wrong = f"is not {JSON_TYPES[kind]}"
            else:
                found = "missing" if key not in config else JSON_TYPES.get(type(value), "null")
                wrong = f"is {found}, expected {JSON_TYPES[kind]}"
            raise InputError(f"not a phonkit run configuration: {key!r} {wrong}", where)
        split = {one.name: config[one.name] for one in declared(SplitConfig) if one.name in config}
        if split.get("draw", 1) is None:  # written null without a k before
            del split["draw"]
        copy = config.get("copy")
        request = config.get("corpus_request") or {}
        return cls(
            variant=config["variant"],
            transcriber=config["transcriber"],
            model=_group(ModelConfig, config["model"], "model", where),
            training=_group(TrainConfig, config["training"], "training", where),
            max_length=config["max_length"],
            data=DataSettings(
                corpus=config.get("corpus") or "?",
                lang=config.get("lang"),
                path=request.get("path"),
                columns=request.get("columns"),
                options=dict(request.get("options") or {}),
                data_dir=request.get("data_dir"),
            ),
            split=_group(SplitConfig, split, "split", where),
            counts=dict(config.get("split") or {}),
            copy=None if copy is None else _group(CopyConfig, copy, "copy", where),
            morphemes=config.get("morphemes") or "features",
            device=config.get("device") or "auto",
            metrics=config.get("metrics"),
            phonkit_version=config.get("phonkit_version") or "",
            feature_table=config.get("feature_table", UNRECORDED),
        )


Settings = TypeVar("Settings", bound=Checked)


def _group(kind: type[Settings], values: dict[str, Any], key: str, where: str) -> Settings:
    """One group's settings from ``config.json``; an error names the file and the setting."""
    try:
        return kind.from_json(values)
    except InputError as error:
        raise InputError(f"{key} settings: {error.message}", where, error.settings) from None


CONFIG = "config.json"


def recorded_path(path: str | Path | None, record: Path) -> str | None:
    """How a record in the directory ``record`` stores ``path``, a file or folder a command
    was given: relative to ``record`` (``../../data/nld.tsv``); its name alone where the two
    share no folder but the file system's root; as given where it names no file or folder
    here (a Hugging Face dataset, ``-`` for stdin). Never an absolute path."""
    if path is None or str(path) == "":
        return None if path is None else ""
    given = Path(path)
    if not given.is_absolute() and not given.exists():
        return str(path)
    target, base = Path(os.path.abspath(given)), Path(os.path.abspath(record))
    try:
        common = Path(os.path.commonpath([target, base]))
    except ValueError:  # on another drive
        return target.name
    if common == Path(common.anchor):
        return target.name
    return Path(os.path.relpath(target, base)).as_posix()


def located_path(stored: str | None, record: Path) -> Path | None:
    """Where a path that a record in the directory ``record`` stores is on this machine:
    ``record`` joined with it, where that is a file or folder (an absolute path, which
    records made before this rule hold, as it is); None where it is not there."""
    if stored is None or stored == "":
        return None
    if Path(stored).is_absolute():
        return Path(stored)
    # ``..`` taken away by name, as recorded_path wrote it (os.path.relpath)
    place = Path(os.path.normpath(os.path.abspath(Path(record, stored))))
    return place if place.exists() else None


def moved_path(stored: str | None, record: Path, to: Path) -> str | None:
    """A path that a record in ``record`` stores, as the same record moved to ``to`` stores
    it (an absolute one, of a record made before the rule, too); kept as stored where it
    leads nowhere here (a dataset's name, a file name alone)."""
    place = located_path(stored, record)
    return stored if place is None else recorded_path(place, to)


def moved_config(config: Any, record: Path, to: Path) -> Any:
    """The object of a ``config.json`` in ``record`` with its paths as they are stored in a
    copy of it in ``to`` (:func:`moved_path`); everything else as it is."""
    request = config.get("corpus_request") if isinstance(config, dict) else None
    if not isinstance(request, dict):
        return config
    moved = {
        key: moved_path(value, record, to) if key in PATHS and isinstance(value, str) else value
        for key, value in request.items()
    }
    return {**config, "corpus_request": moved}


PATHS = ("path", "data_dir")  # the keys of ``corpus_request`` that hold paths


def read_json(path: Path) -> Any:
    """A JSON file of a run directory; one clear error when it is missing or damaged."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("missing from the run directory", str(path)) from None
    except OSError as error:
        raise InputError(f"cannot read: {error.strerror}", str(path)) from None
    except ValueError as error:
        raise InputError(f"not valid JSON ({error})", str(path)) from None


def write_json(path: Path, data: Any) -> None:
    write_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def read_config(directory: Path) -> RunConfig:
    """The run configuration of the run directory ``directory``, checked."""
    path = directory / CONFIG
    return RunConfig.from_json(read_json(path), str(path))


def write_config(directory: Path, config: RunConfig) -> None:
    write_json(directory / CONFIG, config.to_json())


REQUIRED = {  # what every command reads from config.json, and its JSON type
    "variant": str,
    "transcriber": str,
    "model": dict,
    "training": dict,
    "max_length": int,
}
OPTIONAL: dict[str, type] = {  # what a configuration may leave out (or set to null)
    **dict.fromkeys(
        ("lang", "corpus", "morphemes", "device", "protocol", "phonkit_version", "feature_table"),
        str,
    ),
    "split": dict,
    "copy": dict,
    "corpus_request": dict,
    "metrics": list,
}
JSON_TYPES: dict[type, str] = {  # a JSON value's type, as an error names it
    str: "a string", dict: "an object", list: "a list", int: "a whole number",
    float: "a number", bool: "true or false",
}  # fmt: skip

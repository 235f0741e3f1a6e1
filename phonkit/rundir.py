"""The run directory: everything a trained model is, written atomically.

``config.json`` settings, ``vocab.json`` vocabularies, ``{train,dev,test}.tsv`` the split,
``checkpoint.pt`` the latest training state (for ``--resume``), ``model.pt`` the best weights,
``history.tsv`` per-epoch figures, ``metrics.json`` dev/test metrics (written last: a run
without it is unfinished) and ``predictions.tsv`` the test predictions.
"""

from __future__ import annotations

import dataclasses
import io
import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from phonkit.encoding import Example, Vocabularies
from phonkit.errors import InputError
from phonkit.lexicon import Decomposition, Entry
from phonkit.phonology import ModelConfig, Phonology
from phonkit.plugins import lookup
from phonkit.transcription import Transcriber
from phonkit.tsv import format_rows, read_rows, write_atomic

SPLITS = ("train", "dev", "test")
FINISHED = "metrics.json"
HISTORY = "history.tsv"


def _cell(value: Any) -> str:
    """A history figure as text: 1/0 for flags, six significant digits for measurements."""
    if isinstance(value, bool):
        return str(int(value))
    return f"{value:.6g}" if isinstance(value, float) else str(value)


class Run:
    def __init__(self, path: Path):
        self.path = path

    # -- creating and opening ----------------------------------------------------------------
    @classmethod
    def create(
        cls,
        path: Path,
        config: dict[str, Any],
        splits: dict[str, list[Example]],
        vocabularies: Vocabularies,
        transcriber: Transcriber,
        force: bool,
    ) -> Run:
        if path.exists() and not path.is_dir():
            raise InputError(f"{path} is a file; --out needs a directory")
        if path.exists() and any(path.iterdir()):
            if not (path / "config.json").is_file():
                raise InputError(
                    f"{path} is not empty and holds no phonkit run; choose another --out"
                )
            if not force:
                raise InputError(
                    f"{path} already holds a run; pass --force to replace it, or --resume to go on"
                )
            shutil.rmtree(path)
        run = cls(path)
        run.write_json("config.json", config)
        run.write_json("vocab.json", vocabularies.to_json())
        for name, examples in splits.items():
            rows = (
                (e.entry.lemma, e.entry.form, e.entry.bundle, transcriber.joiner.join(e.surface))
                for e in examples
            )
            write_atomic(path / f"{name}.tsv", format_rows(rows))
        return run

    @classmethod
    def open(cls, path: Path, finished: bool = True) -> Run:
        """An existing run; unless ``finished`` is False it must have completed training."""
        if not (path / "config.json").is_file():
            raise InputError(f"{path}: not a phonkit run directory (no config.json)")
        run = cls(path)
        if finished and not run.finished:
            raise InputError(
                f"{path}: the run is unfinished (training did not complete); "
                f"go on with: phonkit train --resume --out {path}"
            )
        return run

    @property
    def finished(self) -> bool:
        return (self.path / FINISHED).is_file()

    # -- contents ------------------------------------------------------------------------------
    def write_json(self, name: str, data: Any) -> None:
        write_atomic(self.path / name, json.dumps(data, indent=2, ensure_ascii=False) + "\n")

    def read_json(self, name: str) -> Any:
        try:
            return json.loads((self.path / name).read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise InputError(f"cannot read {name}: {error}", str(self.path)) from None

    @property
    def config(self) -> dict[str, Any]:
        return self.read_json("config.json")

    def vocabularies(self) -> Vocabularies:
        return Vocabularies.from_json(self.read_json("vocab.json"))

    def transcriber(self) -> Transcriber:
        return lookup("transcribers", self.config["transcriber"])

    def decomposition(self) -> Decomposition:
        """How the run splits words into morphemes (runs made before the setting existed
        split them into the lemma and each feature)."""
        return lookup("decompositions", self.config.get("morphemes", "features"))

    def examples(self, split: str) -> list[Example]:
        transcriber, decomposition = self.transcriber(), self.decomposition()
        examples = []
        for _, (lemma, form, bundle, surface) in read_rows(self.path / f"{split}.tsv"):
            entry = Entry(lemma, tuple(bundle.split(";")), form)
            surface_symbols = transcriber.split(surface)
            examples.append(Example(entry, surface_symbols, decomposition.morphemes(entry)))
        return examples

    def item_scores(self) -> dict[tuple[str, str, str], dict[str, float]]:
        """Each test cell's metric scores from ``predictions.tsv``, keyed by (lemma,
        features, gold form), for paired comparisons between runs on the same split."""
        path = self.path / "predictions.tsv"
        rows = read_rows(path if path.is_file() else path.with_suffix(".tsv.xz"))
        _, header = next(rows)
        metrics = header[4:]
        return {
            (row[0], row[1], row[2]): {m: float(v) for m, v in zip(metrics, row[4:], strict=True)}
            for _, row in rows
        }

    def build_model(self) -> Phonology:
        config = self.config
        vocabularies = self.vocabularies()
        variant = lookup("models", config["variant"])
        return variant(
            len(vocabularies.symbols), len(vocabularies.morphemes), ModelConfig(**config["model"])
        )

    def load_model(self, device: torch.device) -> Phonology:
        model = self.build_model()
        model.load_state_dict(torch.load(self.path / "model.pt", map_location="cpu"))
        return model.to(device).eval()

    def write_history(self, records: Sequence[Any]) -> None:
        """``history.tsv``: one row per epoch of training (the fields of
        :class:`phonkit.training.EpochRecord`)."""
        fields = [field.name for field in dataclasses.fields(records[0])] if records else []
        rows = [[_cell(getattr(record, name)) for name in fields] for record in records]
        write_atomic(self.path / HISTORY, format_rows([fields, *rows]))

    def save_torch(self, name: str, state: Any) -> None:
        buffer = io.BytesIO()
        torch.save(state, buffer)
        write_atomic(self.path / name, buffer.getvalue())

    def load_torch(self, name: str) -> Any:
        return torch.load(self.path / name, map_location="cpu", weights_only=False)

"""The run directory: everything a trained model is, written atomically.

``config.json`` settings, ``vocab.json`` vocabularies, ``{train,dev,test}.tsv`` the split,
``checkpoint.pt`` the latest training state (for ``--resume``), ``model.pt`` the best weights,
``history.tsv`` per-epoch figures, ``metrics.json`` dev/test metrics (written last: a run
without it is unfinished) and ``predictions.tsv`` the test predictions.
"""

from __future__ import annotations

import dataclasses
import io
import shutil
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import Any

import torch

from phonkit.data.encoding import Example, Vocabularies
from phonkit.data.lexicon import Decomposition, Entry
from phonkit.data.transcription import Transcriber
from phonkit.data.tsv import format_rows, read_rows, write_atomic
from phonkit.errors import InputError, Interrupted, at
from phonkit.plugins import lookup
from phonkit.run.config import RunConfig, read_config, read_json, write_config, write_json
from phonkit.run.lock import LOCK_NAME, RunLock, holder

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
        config: RunConfig,
        splits: dict[str, list[Example]],
        vocabularies: Vocabularies,
        transcriber: Transcriber,
        force: bool,
    ) -> Run:
        with RunLock(path):  # re-entrant: callers that go on to train hold it already
            if cls.check_target(path, force):
                clear(path)
            run = cls(path)
            write_config(path, config)
            run.config = config
            run.write_json("vocab.json", vocabularies.to_json())
            for name, examples in splits.items():
                rows = (
                    (
                        e.entry.lemma,
                        e.entry.form,
                        e.entry.bundle,
                        transcriber.joiner.join(e.surface),
                    )
                    for e in examples
                )
                write_atomic(path / f"{name}.tsv", format_rows(rows))
        return run

    @staticmethod
    def check_target(path: Path, force: bool) -> bool:
        """Whether a new run in ``path`` replaces one there (with ``force``); an error if it
        would replace a run without ``force``, or anything that is not a run."""
        if path.exists() and not path.is_dir():
            raise InputError(f"{path} is a file; out needs a directory", setting="out")
        contents = path.is_dir() and any(c.name != LOCK_NAME for c in path.iterdir())
        if not contents:
            return False
        if not (path / "config.json").is_file():
            raise InputError(
                f"{path} is not empty and holds no phonkit run; choose another out", setting="out"
            )
        if not force:
            raise InputError(
                f"{path} already holds a run; pass force to replace it, or resume to go on",
                setting=("force", "resume"),
            )
        return True

    @classmethod
    def open(cls, path: Path, finished: bool = True) -> Run:
        """An existing run; unless ``finished`` is False it must have completed training, and
        no other process may be writing it."""
        if not (path / "config.json").is_file():
            raise InputError(f"{path}: not a phonkit run directory (no config.json)")
        run = cls(path)
        run.config = read_config(path)  # checked now: a bad one fails before any work
        if finished:
            writer = holder(path)
            if writer is not None:
                raise InputError(
                    f"{path}: the run is being written by {writer.describe()}; "
                    "wait for it to finish"
                )
            if not run.finished:
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
        write_json(self.path / name, data)

    def read_json(self, name: str) -> Any:
        return read_json(self.path / name)

    @cached_property
    def config(self) -> RunConfig:
        """The run's settings, read from ``config.json`` once and checked."""
        return read_config(self.path)

    def vocabularies(self) -> Vocabularies:
        data = self.read_json("vocab.json")
        if not (
            isinstance(data, dict)
            and all(
                isinstance(data.get(key), list) and all(isinstance(x, str) for x in data[key])
                for key in ("symbols", "morphemes")
            )
        ):
            raise InputError(
                "not phonkit vocabularies (expected lists of strings 'symbols' and 'morphemes')",
                str(self.path / "vocab.json"),
            )
        return Vocabularies.from_json(data)

    def transcriber(self) -> Transcriber:
        return lookup("transcribers", self.config.transcriber)

    def decomposition(self) -> Decomposition:
        """How the run splits words into morphemes (runs made before the setting existed
        split them into the lemma and each feature)."""
        return lookup("decompositions", self.config.morphemes)

    def examples(self, split: str) -> list[Example]:
        transcriber, decomposition = self.transcriber(), self.decomposition()
        examples = []
        path = self.path / f"{split}.tsv"
        for number, row in read_rows(path):
            if len(row) != 4:
                raise InputError(
                    f"expected 4 tab-separated columns (lemma, form, features, surface), "
                    f"found {len(row)}",
                    at(path, number),
                )
            lemma, form, bundle, surface = row
            entry = Entry(lemma, tuple(bundle.split(";")), form)
            surface_symbols = transcriber.split(surface)
            examples.append(Example(entry, surface_symbols, decomposition.morphemes(entry)))
        return examples

    def item_scores(self) -> dict[tuple[str, str, str], dict[str, float]]:
        """Each test cell's metric scores from ``predictions.tsv``, keyed by (lemma,
        features, gold form), for paired comparisons between runs on the same split."""
        path = self.path / "predictions.tsv"
        rows = read_rows(path if path.is_file() else path.with_suffix(".tsv.xz"))
        _, header = next(rows, (0, []))
        metrics = header[4:]
        scores = {}
        for number, row in rows:
            try:
                values = [float(value) for value in row[4:]]
            except ValueError:
                values = []
            if len(row) != len(header) or len(values) != len(metrics):
                raise InputError(
                    "expected a row of the header's width with numbers for its metrics",
                    at(path, number),
                )
            scores[row[0], row[1], row[2]] = dict(zip(metrics, values, strict=True))
        return scores

    def write_history(self, records: Sequence[Any]) -> None:
        """``history.tsv``: one row per epoch of training (the fields of
        :class:`phonkit.model.training.EpochRecord`)."""
        fields = [field.name for field in dataclasses.fields(records[0])] if records else []
        rows = [[_cell(getattr(record, name)) for name in fields] for record in records]
        write_atomic(self.path / HISTORY, format_rows([fields, *rows]))

    def save_torch(self, name: str, state: Any) -> None:
        buffer = io.BytesIO()
        torch.save(state, buffer)
        write_atomic(self.path / name, buffer.getvalue())

    def load_torch(self, name: str, weights_only: bool = False) -> Any:
        path = self.path / name
        if not path.is_file():
            raise InputError(
                "missing from the run directory (training never kept a model; "
                f"train it again: phonkit train --force --out {self.path})",
                str(path),
            )
        try:
            return torch.load(path, map_location="cpu", weights_only=weights_only)
        except Exception as error:  # torch raises many types for a damaged file; one line
            raise InputError(
                f"cannot read it: the file is truncated or damaged ({type(error).__name__} "
                "from torch.load); train the run again",
                str(path),
            ) from None


def clear(path: Path) -> None:
    """Remove what a run directory holds, but not its lock; the finished mark goes first, so
    that a reader never sees a finished run with some of its files gone."""
    (path / FINISHED).unlink(missing_ok=True)
    for child in path.iterdir():
        if child.name == LOCK_NAME:
            continue
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink(missing_ok=True)


@contextmanager
def writing(path: Path) -> Iterator[None]:
    """Hold the run directory's lock while training writes it; Ctrl-C becomes an
    :class:`Interrupted` that says what the directory kept and how to go on."""
    with RunLock(path):
        try:
            yield
        except KeyboardInterrupt:
            raise Interrupted(kept(path)) from None


def kept(path: Path) -> str:
    """What an interrupted training run left in ``path``, and the command that goes on."""
    go_on = f"go on with: phonkit train --resume --out {path}"
    if not (path / "config.json").is_file():
        return f"{path} holds no run yet: nothing was kept; start the training again"
    if (path / FINISHED).is_file():
        return f"{path} holds a finished run"
    try:
        state = Run(path).load_torch("checkpoint.pt")
        epoch, total = int(state["epoch"]), Run(path).config.training.epochs
    except (InputError, KeyError, TypeError, ValueError):
        return f"{path} keeps the split and the settings; no epoch had finished; {go_on}"
    return (
        f"{path} keeps epoch {epoch} of at most {total} (checkpoint.pt; the best weights "
        f"so far in model.pt); {go_on}"
    )

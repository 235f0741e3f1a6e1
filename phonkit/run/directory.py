"""The run directory: everything a trained model is, written atomically.

``config.json`` settings, ``vocab.json`` vocabularies, ``{train,dev,test}.tsv`` the split,
``checkpoint.pt`` the latest training state (to resume), ``model.pt`` the best weights,
``copy-1.pt`` and ``copy-2.pt`` the copy models (``model.candidates=analogy+copy``),
``strings.tsv`` the underlying strings of the training split's morphemes (a table's run,
kept by ``fill``), ``judges.json`` the context width of the candidates' reliability, chosen on the
training cells, and the weights of their judges, chosen on the dev cells (a run that ranks
analogy candidates; the weights where it has dev cells), ``history.tsv`` per-epoch figures,
``metrics.json`` dev/test metrics (written last: a run without it is unfinished),
``predictions.tsv`` the test predictions and ``completed-{dev,test}.tsv`` the run's completion
of a covered file, the given cells and the gaps filled (an experiment's, after training: the
CoNLL–SIGMORPHON 2017 task 2).

This module alone names those files: everything else asks :class:`Run` for them.
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

from phonkit.data.features import Features
from phonkit.data.lexicon import Decomposition, Entry, Example, Vocabularies
from phonkit.data.transcription import Transcriber
from phonkit.data.tsv import format_rows, read_rows, write_atomic
from phonkit.errors import InputError, Interrupted, at
from phonkit.plugins import feature_table, lookup, registry
from phonkit.run.config import (
    CONFIG,
    UNRECORDED,
    RunConfig,
    read_config,
    read_json,
    write_config,
    write_json,
)
from phonkit.run.lock import LOCK_NAME, RunLock, holder

SPLITS = ("train", "dev", "test")
VOCAB = "vocab.json"
WEIGHTS = "model.pt"  # the best weights so far
CHECKPOINT = "checkpoint.pt"  # the latest training state
COPIES = ("copy-1.pt", "copy-2.pt")  # the copy models, judges of analogy candidates
HISTORY = "history.tsv"
PREDICTIONS = "predictions.tsv"
STRINGS = "strings.tsv"  # the underlying strings of the training split's morphemes
JUDGES = "judges.json"  # the judges' weights (chosen on the dev cells) and context width
METRICS = "metrics.json"  # written last: a run without it is unfinished
COMPLETED = {split: f"completed-{split}.tsv" for split in ("dev", "test")}  # covered files
RECORD = (CONFIG, METRICS, HISTORY, JUDGES)  # what the record of an experiment keeps of each run


def is_run(path: Path) -> bool:
    """Whether ``path`` holds a phonkit run (finished or not)."""
    return (path / CONFIG).is_file()


def is_finished(path: Path) -> bool:
    return is_run(path) and (path / METRICS).is_file()


def resume_hint(path: Path) -> str:
    """How to go on training the unfinished run in ``path``, in settings (the command line
    writes ``--resume and --out PATH``)."""
    return f"go on training it with resume and out={path}"


def _positive(value: Any) -> bool:
    """Whether ``value`` read from JSON is a finite number above 0 (not a boolean)."""
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and 0 < value < float("inf")
    )


def _whole(value: Any, most: int) -> bool:
    """Whether ``value`` read from JSON is a whole number from 1 to ``most`` (not a boolean)."""
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= most


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
            write_json(path / VOCAB, vocabularies.to_json())
            joiner = transcriber.joiner
            for name, examples in splits.items():
                rows = (
                    (e.entry.lemma, e.entry.form, e.entry.bundle, joiner.join(e.surface))
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
        if not is_run(path):
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
        if not is_run(path):
            raise InputError(f"{path}: not a phonkit run directory (no {CONFIG})")
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
                raise run.unfinished("training did not complete")
        return run

    @property
    def finished(self) -> bool:
        return (self.path / METRICS).is_file()

    def unfinished(self, what: str) -> InputError:
        """The error of a command that needs the run finished: ``what`` is missing."""
        return InputError(
            f"{self.path}: the run is unfinished ({what}); {resume_hint(self.path)}",
            setting=("resume", "out"),
        )

    # -- contents ------------------------------------------------------------------------------
    @cached_property
    def config(self) -> RunConfig:
        """The run's settings, read from ``config.json`` once and checked."""
        return read_config(self.path)

    def vocabularies(self) -> Vocabularies:
        data = read_json(self.path / VOCAB)
        if not (
            isinstance(data, dict)
            and all(
                isinstance(data.get(key), list) and all(isinstance(x, str) for x in data[key])
                for key in ("symbols", "morphemes")
            )
        ):
            raise InputError(
                "not phonkit vocabularies (expected lists of strings 'symbols' and 'morphemes')",
                str(self.path / VOCAB),
            )
        return Vocabularies.from_json(data)

    def transcriber(self) -> Transcriber:
        return lookup("transcribers", self.config.transcriber)

    def features(self) -> Features | None:
        """The features of a segment by the feature table the run was made with
        (``config.json``'s ``feature_table``; for a run made before it was recorded, the
        first one installed, as then); None for a run made without one. A table that is not
        installed is one clear error: without it the run would rank other candidates."""
        name = self.config.feature_table
        if name == UNRECORDED:
            return feature_table()
        if name is None:
            return None
        if name not in registry("feature_tables"):
            raise InputError(
                f"the run was made with the feature table {name!r}, which is not installed "
                "(phonkit plugins lists what is): install the plugin that registers it, e.g. "
                "pip install phonkit-panphon for panphon",
                str(self.path / CONFIG),
            )
        return feature_table(name)

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
        path = self.predictions
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

    @property
    def predictions(self) -> Path:
        """``predictions.tsv``: the test cells, their predictions and scores."""
        return self.path / PREDICTIONS

    def write_predictions(self, text: str) -> None:
        write_atomic(self.predictions, text)

    def completion(self, split: str) -> Path | None:
        """The run's completion of the covered file of ``split`` (``dev`` or ``test``; an
        experiment's record keeps it xz-compressed), None where it has none."""
        path = self.path / COMPLETED[split]
        for found in (path, path.with_suffix(".tsv.xz")):
            if found.is_file():
                return found
        return None

    def write_completion(self, split: str, text: str) -> None:
        write_atomic(self.path / COMPLETED[split], text)

    def strings(self) -> list[list[str]] | None:
        """The rows of ``strings.tsv`` (its header first); None where the run has none."""
        path = self.path / STRINGS
        if not path.is_file():
            return None
        return [row for _, row in read_rows(path)]

    def write_strings(self, text: str) -> None:
        write_atomic(self.path / STRINGS, text)

    def judges(self, widest: int) -> dict[str, float] | None:
        """The judges' weights chosen on the dev cells, with the reliability's context
        width (1 to ``widest``) where it was stored beside them, or the width alone (a run
        without dev cells); None where the run chose neither."""
        path = self.path / JUDGES
        if not path.is_file():
            return None
        weights = read_json(path)
        keys = ("reliability", "temperature")
        if not (
            isinstance(weights, dict)
            and (set(keys) <= set(weights) <= {*keys, "width"} or set(weights) == {"width"})
            and all(_positive(weights[key]) for key in keys if key in weights)
            and _whole(weights.get("width", 1), widest)
        ):
            raise InputError(
                "expected positive numbers reliability and temperature (and a whole width from "
                f"1 to {widest}), or the width alone",
                str(path),
            )
        return {key: float(value) for key, value in weights.items()}

    def write_judges(self, weights: dict[str, float]) -> None:
        write_json(self.path / JUDGES, weights)

    def metrics(self) -> dict[str, dict[str, float]]:
        """The dev and test scores of a finished run (``metrics.json``)."""
        return read_json(self.path / METRICS)

    def write_metrics(self, metrics: dict[str, dict[str, float]]) -> None:
        """Store the scores; this marks the run finished, so it comes last."""
        write_json(self.path / METRICS, metrics)

    def load_weights(self) -> tuple[Any, str]:
        """The best weights, and the file they came from (for errors)."""
        return self.load_torch(WEIGHTS), str(self.path / WEIGHTS)

    def save_weights(self, state: Any) -> None:
        self.save_torch(WEIGHTS, state)

    def copy_model_states(self) -> list[Any]:
        """The stored states of the run's copy models trained so far (none for a run without
        them); :func:`phonkit.run.factory.load_copy_models` builds them."""
        return [
            self.load_torch(name)
            for name in COPIES
            if (self.path / name).is_file()
        ]

    def missing_copy_models(self) -> list[int]:
        """The copy models (by number, from 1) a run with ``model.candidates=analogy+copy``
        has not trained yet; none for another run."""
        if self.config.model.candidates != "analogy+copy":
            return []
        return [n for n, name in enumerate(COPIES, 1) if not (self.path / name).is_file()]

    def save_copy_model(self, number: int, state: Any) -> None:
        """Store copy model ``number`` (from 1), as ``CopyModel.state()`` gives it."""
        self.save_torch(COPIES[number - 1], state)

    def checkpoint(self) -> Any | None:
        """The latest training state, None before the first epoch ended."""
        return self.load_torch(CHECKPOINT) if (self.path / CHECKPOINT).is_file() else None

    def save_checkpoint(self, state: Any) -> None:
        self.save_torch(CHECKPOINT, state)

    def write_history(self, records: Sequence[Any]) -> None:
        """``history.tsv``: one row per epoch of training (the fields of
        :class:`phonkit.model.training.EpochRecord`)."""
        fields = [field.name for field in dataclasses.fields(records[0])] if records else []
        rows = [[_cell(getattr(record, name)) for name in fields] for record in records]
        write_atomic(self.path / HISTORY, format_rows([fields, *rows]))

    def save_torch(self, name: str, state: Any) -> None:
        import torch  # here, not at the top: commands that read no weights never import it

        buffer = io.BytesIO()
        torch.save(state, buffer)
        write_atomic(self.path / name, buffer.getvalue())

    def load_torch(self, name: str) -> Any:
        """What ``name`` stores: tensors and plain values alone (``weights_only``), anything
        else refused unread, so that a run directory from elsewhere runs no code."""
        import pickle

        import torch

        path = self.path / name
        if not path.is_file():
            raise InputError(
                "missing from the run directory (training never kept a model; "
                f"train it again with force and out={self.path})",
                str(path),
                setting=("force", "out"),
            )
        try:
            return torch.load(path, map_location="cpu", weights_only=True)
        except pickle.UnpicklingError:
            raise InputError(
                "cannot read it: it holds more than the tensors and plain values phonkit "
                "stores (nothing in it was run); train the run again or take it from its "
                "source",
                str(path),
            ) from None
        except Exception as error:  # torch raises many types for a damaged file; one line
            raise InputError(
                f"cannot read it: the file is truncated or damaged ({type(error).__name__} "
                "from torch.load); train the run again",
                str(path),
            ) from None


def clear(path: Path) -> None:
    """Remove what a run directory holds, but not its lock; the finished mark goes first, so
    that a reader never sees a finished run with some of its files gone."""
    (path / METRICS).unlink(missing_ok=True)
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
            raise Interrupted(kept(path), setting=("resume", "out")) from None


def kept(path: Path) -> str:
    """What an interrupted training run left in ``path``, and the command that goes on."""
    go_on = resume_hint(path)
    if not is_run(path):
        return f"{path} holds no run yet: nothing was kept; start the training again"
    if is_finished(path):
        return f"{path} holds a finished run"
    try:
        state = Run(path).load_torch(CHECKPOINT)
        epoch, total = int(state["epoch"]), Run(path).config.training.epochs
    except (InputError, KeyError, TypeError, ValueError):
        return f"{path} keeps the split and the settings; no epoch had finished; {go_on}"
    return (
        f"{path} keeps epoch {epoch} of at most {total} ({CHECKPOINT}; the best weights "
        f"so far in {WEIGHTS}); {go_on}"
    )

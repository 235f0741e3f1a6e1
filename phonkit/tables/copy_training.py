"""The copy models train beside the model (``model.candidates=analogy+copy``).

Two copy models (:mod:`phonkit.model.copying`), from the run's seed and the next, judge the
candidates with the model: one alone varies from seed to seed by more than it gains
(docs/results/tables.md). On a machine with two CPU cores or more, where the model trains on
the CPU, a forked process trains them one after the other while the model trains, and the
model's process takes the second once the model is trained if the child has not begun it
(a process each would share two cores three ways). ``phonkit fill`` waits for the longer
of the two shares rather than their sum. The child ignores Ctrl-C (the parent stops it),
ends when the parent does, and holds none of the parent's locks (:mod:`phonkit.run.lock`
closes them at the fork). A copy model that could not train there trains in this process
after the model.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Mapping, Sequence

import torch

from phonkit.data.lexicon import Example
from phonkit.jobs import TrainRequest
from phonkit.model.copying import CopyModel, Paradigm, rows_of
from phonkit.model.device import one_thread
from phonkit.progress import say
from phonkit.run.directory import Run
from phonkit.settings import CopyConfig, ModelConfig
from phonkit.tables.candidates import known_forms
from phonkit.tables.sizes import copy_config


class CopyModelsBeside:
    """The missing copy models of a run, trained in a forked process while the model trains
    in this one; each is taken, in order, by whichever process is free first."""

    def __init__(self, run: Run, numbers: list[int]):
        fork = multiprocessing.get_context("fork")
        self.numbers = numbers
        self.taken = fork.Value("i", 0)  # how many of ``numbers`` a process has taken
        self.child = fork.Process(target=self._child, args=(run, os.getpid()), daemon=True)
        self.child.start()

    def take(self) -> int | None:
        """The next copy model nobody trains yet, now this process's to train."""
        with self.taken.get_lock():
            if self.taken.value == len(self.numbers):
                return None
            self.taken.value += 1
            return self.numbers[self.taken.value - 1]

    def end(self, run: Run) -> None:
        """Once the model is trained: train here, on one thread, the copy models the child
        has not begun, then wait for the child."""
        with one_thread():
            while (number := self.take()) is not None:
                save_copy_model(run, number)
        self.child.join()

    def stop(self) -> None:
        self.child.terminate()

    def _child(self, run: Run, parent: int) -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        threading.Thread(target=_end_with, args=(parent,), daemon=True).start()
        try:
            while (number := self.take()) is not None:
                save_copy_model(run, number)
        except BaseException:  # no traceback from here: the parent trains it again and says why
            os._exit(1)


def start_copy_models(run: Run, device: torch.device) -> CopyModelsBeside | None:
    """Start training the run's missing copy models in a forked process, where they have a
    core of their own."""
    if device.type != "cpu" or (os.cpu_count() or 1) < 2:
        return None
    if "fork" not in multiprocessing.get_all_start_methods():
        return None
    for stream in (sys.stdout, sys.stderr):  # a child flushes what it inherits when it ends
        stream.flush()
    missing = run.missing_copy_models()
    return CopyModelsBeside(run, missing) if missing else None


def end_copy_models(run: Run, beside: CopyModelsBeside | None) -> None:
    """Train the copy models not trained beside the model (with the child, or here any that
    is still missing: none could start, or one failed)."""
    if beside is not None:
        beside.end(run)
    for number in run.missing_copy_models():
        say(f"{run.path}: training copy model {number}")
        save_copy_model(run, number)


def copy_settings(
    job: TrainRequest, model: ModelConfig, train: Sequence[Example]
) -> CopyConfig | None:
    """The settings of the copy models of ``job``'s run (with the model's settings ``model``
    and the training split ``train``): those of the split's size, the job's on top; None
    for a run without copy models, which says so where the job gives copy settings."""
    given = job.given()["copy"]
    if model.candidates != "analogy+copy":
        if given:
            say(
                f"warning: the copy models' settings ({', '.join(f'copy.{n}' for n in given)}) "
                f"play no part: the run has no copy models (model.candidates={model.candidates})",
                setting=("model.candidates", *(f"copy.{name}" for name in given)),
            )
        return None
    return copy_config(rows_of(known_forms(train))[1], given)


def save_copy_model(run: Run, number: int) -> None:
    """Train copy model ``number`` (from 1) of the run, from the run's seed plus ``number``
    less one, and store it."""
    paradigms = known_forms(run.examples("train"))
    seed = run.config.training.seed + number - 1
    run.save_copy_model(number, train_copy_model(paradigms, seed, run.config.copy).state())


def train_copy_model(
    paradigms: Mapping[str, Paradigm], seed: int, settings: CopyConfig | None = None
) -> CopyModel:
    """A copy model of the known ``paradigms`` from ``seed`` with ``settings`` (None: those of
    their size, as for a run made before its copy models' settings were recorded)."""
    cells, table = rows_of(paradigms)
    return CopyModel.train(cells, table, settings or copy_config(table), seed)


def _end_with(parent: int) -> None:
    """End this process once ``parent`` has ended (killed, it could not stop its child)."""
    while os.getppid() == parent:
        time.sleep(0.2)
    os._exit(1)

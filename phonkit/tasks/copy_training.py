"""The copy models train beside the model (``model.candidates=analogy+copy``).

Two copy models (:mod:`phonkit.model.copying`), from the run's seed and the next, judge the
candidates with the model: one alone varies from seed to seed by more than it gains
(docs/small-data.md). On a machine with two CPU cores or more, where the model trains on
the CPU, they train one after the other in a forked process while the model trains, so that
``phonkit fill`` waits for the longer of the two shares rather than their sum (a process
each would share two cores three ways). The child ignores Ctrl-C (the parent stops it), ends
when the parent does, and holds none of the parent's locks (:mod:`phonkit.run.lock` closes
them at the fork). A copy model that could not train there trains in this process after the
model.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
from multiprocessing.process import BaseProcess

import torch

from phonkit.model.copying import CopyModel
from phonkit.progress import say
from phonkit.run.directory import Run
from phonkit.tasks.candidates import known_forms


def start_copy_models(run: Run, device: torch.device) -> list[BaseProcess]:
    """Start training the run's missing copy models in a forked process, where they have a
    core of their own."""
    if device.type != "cpu" or (os.cpu_count() or 1) < 2:
        return []
    if "fork" not in multiprocessing.get_all_start_methods():
        return []
    for stream in (sys.stdout, sys.stderr):  # a child flushes what it inherits when it ends
        stream.flush()
    missing = run.missing_copy_models()
    if not missing:
        return []
    fork = multiprocessing.get_context("fork")
    child = fork.Process(target=_child, args=(run, missing, os.getpid()), daemon=True)
    child.start()
    return [child]


def end_copy_models(run: Run, children: list[BaseProcess]) -> None:
    """Wait for the copy models trained beside the model, then train here any that is still
    missing (none could start, or one failed)."""
    for child in children:
        child.join()
    for number in run.missing_copy_models():
        say(f"{run.path}: training copy model {number}")
        save_copy_model(run, number)


def stop_copy_models(children: list[BaseProcess]) -> None:
    for child in children:
        child.terminate()


def save_copy_model(run: Run, number: int) -> None:
    paradigms = known_forms(run.examples("train"))
    seed = run.config.training.seed + number - 1
    run.save_copy_model(number, CopyModel.train(paradigms, seed))


def _child(run: Run, numbers: list[int], parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_end_with, args=(parent,), daemon=True).start()
    try:
        for number in numbers:
            save_copy_model(run, number)
    except BaseException:  # no traceback from here: the parent trains it again and says why
        os._exit(1)


def _end_with(parent: int) -> None:
    """End this process once ``parent`` has ended (killed, it could not stop its child)."""
    while os.getppid() == parent:
        time.sleep(0.2)
    os._exit(1)

"""Jobs: what a training run is asked for (:class:`TrainRequest`), and where the runs of an
experiment train (the launchers' contract: :class:`Launcher`, :class:`Session`, the
:class:`Planned` runs and their :class:`Outcome`).

A hook names these types (``register_launchers``), so they live below the plugin contract:
this module imports the data layer and the settings only.

An experiment plans its runs, reuses the finished ones and records every outcome
(:func:`phonkit.experiments.runner.execute`); a launcher only trains the runs still to do.
The built-in ``local`` launcher trains them in processes on this machine; plugins add others
(``phonkit-ray`` runs each as a task on a Ray cluster) through ``register_launchers``.

A launcher turns its settings (``launcher.KEY``: ``-L KEY=VALUE`` on the command line) into
a :class:`Session` before anything is written, so a bad setting or a cluster that cannot be
reached is one :class:`phonkit.errors.InputError`, with the experiment directory untouched.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from phonkit.data.corpora import CorpusRequest
from phonkit.data.lexicon import DEFAULT_DECOMPOSITION
from phonkit.errors import InputError
from phonkit.settings import GROUPS, RUN, SplitConfig, TrainConfig, by_group, parse, shortest

Settings = TypeVar("Settings")

# The variant a run trains when none is named: the amortized model, which reads a lemma's
# spelling and its known forms, ahead of pi on every lexicon measured (task-2 dev, UniMorph
# Dutch 3,000 forms and whole; docs/results/unimorph.md, docs/results/task2.md). A paradigm
# table's (``phonkit fill``) stays pi, with the analogy's candidates judged by copy models:
# ahead on the 33 textbook tables.
DEFAULT_VARIANT = "amortized"
TABLE_VARIANT = "pi"


@dataclass
class TrainRequest:
    """What a training run is asked for: the corpus and what to read from it, the transcriber,
    the model variant, the morpheme decomposition, the device, the metrics, and ``settings``:
    any declared setting of a run (:data:`phonkit.settings.RUN`: the model's, training's, the
    copy models' and the split's) by key, as ``--set`` takes them (``{"dim": 64, "k": 400,
    "copy.lr": 0.01}``). The model, training and copy settings not given are those of the
    training split's size (:mod:`phonkit.tables.sizes`: the declared defaults from 2,000
    forms on); the split's, the declared defaults. Keys and values are checked when the
    request is made."""

    corpus: str = "sample"
    request: CorpusRequest = field(default_factory=CorpusRequest)
    transcriber: str = "none"
    variant: str = DEFAULT_VARIANT
    morphemes: str = DEFAULT_DECOMPOSITION  # how words split into morphemes (a plugin name)
    settings: Mapping[str, Any] = field(default_factory=dict)
    device: str = "auto"
    metrics: list[str] | None = None  # scored at the end; None: every installed metric

    def __post_init__(self) -> None:
        self.settings = shortest(self.settings, RUN)  # ``model.dim`` is ``dim``
        for group, values in self.given().items():
            GROUPS[group](**values)  # each value in its range

    def given(self) -> dict[str, dict[str, Any]]:
        """The settings given, by group and name: ``{"model": {"dim": 64}, ...}``."""
        return by_group(self.settings, RUN)

    @property
    def split(self) -> SplitConfig:
        """The entries the run takes and their split."""
        return SplitConfig(**self.given()["split"])

    @property
    def protocol(self) -> str:
        """The split protocol: ``paradigms`` with a ``k`` is the k-sample."""
        return self.split.protocol

    @property
    def seed(self) -> int:
        """The seed of the split and of training."""
        return self.settings.get("seed", TrainConfig.seed)


@dataclass(frozen=True)
class Launch:
    """Where an experiment's runs train: the launcher, its settings (``launcher.KEY``, as
    text) and the local launcher's runs at once."""

    launcher: str = "local"
    settings: Mapping[str, str] = field(default_factory=dict)
    jobs: int = 1


class AfterTraining(Protocol):
    """What an experiment does with each of its runs once trained, in the process that
    trained it (the CoNLL–SIGMORPHON 2017 task 2 completes its covered files): writes only
    into the run's directory, and knows whether it is done, so that an experiment resumed
    finishes it without training the run again."""

    def done(self, run: Path) -> bool: ...

    def __call__(self, run: Path) -> None: ...


@dataclass
class Planned:
    """One run of an experiment: its directory name, what to train, the labels the reports
    group it by (language, variant, seed, k, draw...) and what is done with it once trained
    (``after``)."""

    name: str
    job: TrainRequest
    labels: dict[str, Any]
    after: AfterTraining | None = None


@dataclass
class Outcome:
    """How a run ended: ``finished``, ``skipped`` (its data cannot make a run: the reason is
    in ``message``) or ``failed`` (an error; the traceback is in its log)."""

    name: str
    status: str
    message: str = ""
    seconds: float = 0.0


class Session(Protocol):
    """A launcher ready to train runs (connected to its cluster, if it has one)."""

    def summary(self, runs: int) -> str:
        """How the runs will train, for the line that opens the experiment
        (``2 at a time in local processes``)."""
        ...

    def train(
        self, pending: Sequence[Planned], root: Path, record: Callable[[Outcome], None]
    ) -> None:
        """Train each run of ``pending`` into ``root/runs/NAME`` (its messages appended to
        ``root/logs/NAME.log``), calling ``record`` once per run as it ends: ``finished``,
        ``skipped`` (its data cannot make a run) or ``failed``. A run with a directory but no
        ``metrics.json`` was interrupted: it goes on from its checkpoint. One run's failure
        must not end the others."""
        ...

    def close(self) -> None:
        """Let go of what :meth:`Launcher.start` took (a cluster it started, a connection)."""
        ...


class Launcher(Protocol):
    """What ``register_launchers`` registers."""

    name: str
    description: str

    def start(self, settings: Mapping[str, str], jobs: int) -> Session:
        """A session from the launcher's settings (by key, as text) and the runs at once;
        raises :class:`phonkit.errors.InputError` for a setting it does not know or a cluster
        it cannot reach, and writes nothing."""
        ...


def read_settings(kind: type[Settings], settings: Mapping[str, str], launcher: str) -> Settings:
    """A launcher's settings as the dataclass ``kind``, each converted to its field's type
    (int, float, bool, str); an unknown key or a value of the wrong type is an
    :class:`InputError` naming the setting ``launcher.KEY``."""
    fields = [field.name for field in dataclasses.fields(kind)]  # type: ignore[arg-type]
    values: dict[str, Any] = {}
    for key, text in settings.items():
        setting = f"launcher.{key}"
        if key not in fields:
            message = f"the {launcher} launcher has no such setting; settings: {', '.join(fields)}"
            raise InputError(message, setting, setting)
        try:
            values[key] = parse(kind, key, text)
        except InputError as error:
            raise InputError(f"launcher.{error.message}", setting=setting) from None
    return kind(**values)

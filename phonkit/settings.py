"""Every setting of a model, its training and the fit of new lemmas, each declared once.

A setting is a field of :class:`ModelConfig`, :class:`TrainConfig` or :class:`FitConfig`
declared with :func:`setting`: its name, type and default (the field's), its range or
choices and its help; its section is its group (model, training or fit). Everything else is
derived from that declaration:

- the check when a settings object is made (a learning rate of ``nan`` or a dropout of 2
  is one :class:`~phonkit.errors.InputError` naming ``training.lr`` or ``model.dropout``,
  before any work is done, wherever the value came from);
- ``config.json`` (:meth:`to_json`) and ``--set KEY=VALUE`` (:func:`parse`);
- the commands' options (:mod:`phonkit.cli.settings`: ``--dim``, ``--lr``, ``--min-lr``...)
  and the flag an error names;
- the keywords of :class:`~phonkit.tasks.train.TrainRequest` (``model=ModelConfig(dim=64)``).

Adding a setting is one edit: a field here. This module imports neither torch nor typer,
so that ``phonkit --help`` and ``import phonkit`` stay light.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from phonkit.errors import InputError


@dataclass(frozen=True)
class Range:
    """Allowed values of a numeric setting."""

    low: float = -math.inf
    high: float = math.inf
    above: bool = False  # ``low`` itself is not allowed
    below: bool = False  # ``high`` itself is not allowed
    whole: bool = False  # a whole number

    def describe(self) -> str:
        kind = "a whole number" if self.whole else "a number"
        parts = []
        if self.low > -math.inf:
            parts.append(f"{'above' if self.above else 'at least'} {self.low:g}")
        if self.high < math.inf:
            parts.append(f"{'below' if self.below else 'at most'} {self.high:g}")
        return f"{kind} {' and '.join(parts)}" if parts else f"a finite {kind[2:]}"

    def admits(self, value: object) -> bool:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        if self.whole and not float(value).is_integer():
            return False
        if not math.isfinite(value):
            return False
        if value < self.low or (self.above and value == self.low):
            return False
        return not (value > self.high or (self.below and value == self.high))


@dataclass(frozen=True)
class Declaration:
    """What a setting's field declares besides its type and default."""

    help: str
    range: Range | None = None
    choices: tuple[str, ...] = ()


def setting(
    default: Any, help: str, *, range: Range | None = None, choices: tuple[str, ...] = ()
) -> Any:
    """A settings field: its default, help, and the range or choices its values must be in."""
    return field(default=default, metadata={"setting": Declaration(help, range, choices)})


@dataclass(frozen=True)
class Setting:
    """One declared setting, as the commands and the checks see it."""

    group: str  # model, training or fit: the object it belongs to and its config.json key
    name: str
    kind: type  # int, float, str or bool (a setting that may be None: ``optional``)
    default: Any
    declaration: Declaration

    @property
    def key(self) -> str:
        """``training.lr``: how errors and ``--set`` name it."""
        return f"{self.group}.{self.name}"


def check(settings: Any) -> None:
    """Each field of ``settings`` in its range and choices, a switch true or false: the first
    that is not is an :class:`InputError` naming it (``training.lr``)."""
    for one in declared(type(settings)):
        value = getattr(settings, one.name)
        allowed = one.declaration
        if one.kind is bool:
            wrong = not isinstance(value, bool)
            want = "true or false"
        elif allowed.choices:
            wrong = value not in allowed.choices
            *others, last = allowed.choices
            want = f"{', '.join(others)} or {last}" if others else last
        elif allowed.range is not None:
            wrong = not allowed.range.admits(value)
            want = allowed.range.describe()
        else:
            continue
        if wrong:
            raise InputError(f"{one.key} must be {want}, not {value!r}", setting=one.key)


def declared(kind: type) -> Iterator[Setting]:
    """The settings of one settings class, in declaration order."""
    hints = typing.get_type_hints(kind)
    for each in dataclasses.fields(kind):
        declaration = each.metadata.get("setting")
        if declaration is not None:
            yield Setting(
                GROUP_NAMES[kind], each.name, _plain(hints[each.name]), each.default, declaration
            )


def every() -> Iterator[Setting]:
    """Every declared setting, model first."""
    for kind in GROUPS.values():
        yield from declared(kind)


def parse(kind: type, name: str, text: str) -> Any:
    """The value of the field ``name`` of the dataclass ``kind`` written as ``text``,
    converted to the field's declared type (``int``, ``float``, ``str``, ``bool``, or one of
    them or None); an :class:`InputError` naming the setting when it does not convert."""
    hint = typing.get_type_hints(kind)[name]
    choices = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    if type(None) in choices and text.strip().lower() in ("none", ""):
        return None
    target = _plain(hint)
    try:
        if target is bool:
            return TRUTH[text.strip().lower()]
        return target(text)
    except (ValueError, KeyError):
        what = {int: "a whole number", float: "a number", bool: "true or false"}
        raise InputError(
            f"{name}={text}: {name} takes {what.get(target, target.__name__)}", setting=name
        ) from None


TRUTH = {"true": True, "1": True, "yes": True, "on": True, "false": False, "0": False}
TRUTH |= {"no": False, "off": False}


def _plain(hint: Any) -> type:
    choices = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    return next(c for c in choices if c is not type(None))


def split(values: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Settings by field name (``dim``, ``lr``...) sorted into their groups; an unknown name
    is an :class:`InputError` that lists the known ones."""
    parts: dict[str, dict[str, Any]] = {group: {} for group in GROUPS}
    names = {one.name: one.group for one in every() if one.group != "fit"}
    for name, value in values.items():
        if name not in names:
            known = ", ".join(sorted(names))
            raise InputError(f"unknown setting {name!r}; settings: {known}", setting=name)
        parts[names[name]][name] = value
    return parts


# --- the settings -------------------------------------------------------------------------

CANDIDATES = ("model", "analogy", "analogy+copy")  # see phonkit.tables.candidates
PRECISIONS = ("auto", "fp32", "bf16")
SELECTIONS = ("loss", "acc")


class Checked:
    """A settings class: its object is checked (:func:`check`) when it is made."""

    def __post_init__(self) -> None:
        check(self)


@dataclass
class ModelConfig(Checked):
    """Hyper-parameters of a model; stored in the run's config.json."""

    dim: int = setting(200, "Size d of underlying forms and the LSTM.", range=Range(1, whole=True))
    dropout: float = setting(
        0.2, "Dropout on the LSTM's inputs and outputs.", range=Range(0, 1, below=True)
    )
    sigma: float = setting(
        0.03,
        "Scale of the reparameterised noise on underlying forms (training only).",
        range=Range(0),
    )
    init_scale: float = setting(
        0.3, "Std of the initial morpheme vectors (the prior stays N(0, I)).", range=Range(0)
    )
    lemma_encoder: bool = setting(
        False,
        "Read each lemma's spelling: a BiLSTM gives the prior mean of its underlying form and "
        "a copy distribution over its symbols (for new lemmas; docs/method.md).",
    )
    candidates: str = setting(
        "model",
        "Gaps: the model's own decoding (model), or the analogy rewrites of the stem's known "
        "forms, ranked by the model (analogy) or by the model and two copy models, which read "
        "those forms and copies from them (analogy+copy; docs/small-data.md).",
        choices=CANDIDATES,
    )

    def to_json(self) -> dict[str, Any]:
        """The settings; ``lemma_encoder`` only when on and ``candidates`` only when not the
        model's own, so that runs and experiments made before they existed (which read as
        those defaults) keep the same settings."""
        settings = asdict(self)
        if not self.lemma_encoder:
            del settings["lemma_encoder"]
        if self.candidates == "model":
            del settings["candidates"]
        return settings


@dataclass
class TrainConfig(Checked):
    """Settings of training; stored in the run's config.json."""

    epochs: int = setting(
        100,
        "Maximum number of epochs (training stops when the learning rate falls below min_lr).",
        range=Range(1, whole=True),
    )
    batch_size: int = setting(64, "Forms per batch.", range=Range(1, whole=True))
    lr: float = setting(1e-3, "Adam learning rate.", range=Range(0, 1, above=True))
    min_lr: float = setting(
        1e-5, "Training stops when the learning rate falls below this.", range=Range(0)
    )
    patience: int = setting(
        0,
        "Epochs without dev improvement before the learning rate is halved.",
        range=Range(0, whole=True),
    )
    prior_weight: float = setting(
        1.0, "Weight of the N(0, I) prior on morpheme vectors.", range=Range(0)
    )
    precision: str = setting(
        "auto",
        "auto (bfloat16 where the device has native bfloat16 units: CUDA GPUs, CPUs with "
        "AVX-512 BF16 or AMX; else fp32), fp32, or bf16.",
        choices=PRECISIONS,
    )
    uf_lr_scale: float = setting(
        10.0,
        "Learning rate of the morpheme vectors relative to the rest.",
        range=Range(0, above=True),
    )
    select: str = setting(
        "loss",
        "The checkpoint kept: loss (best dev loss) or acc (best dev accuracy).",
        choices=SELECTIONS,
    )
    seed: int = setting(
        1, "Seed of the split, initialisation, batches and noise.", range=Range(whole=True)
    )

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class FitConfig(Checked):
    """Settings of the fit of new lemmas' underlying forms; the defaults come from the study
    in docs/method.md."""

    steps: int = setting(
        20, "Gradient steps fitting the UFs of new lemmas.", range=Range(0, whole=True)
    )
    lr: float = setting(0.03, "Adam learning rate of that fit.", range=Range(0, 1, above=True))
    prior_weight: float = setting(1.0, "Weight of the prior in that fit.", range=Range(0))


GROUPS: dict[str, type] = {"model": ModelConfig, "training": TrainConfig, "fit": FitConfig}
GROUP_NAMES = {kind: group for group, kind in GROUPS.items()}

"""Every setting of a run and of the fit of new lemmas, each declared once.

A setting is a field of a settings class declared with :func:`setting`: its name, type and
default (the field's), its range or choices and its help; its group is its class: the model
(:class:`ModelConfig`), its training (:class:`TrainConfig`), the copy models that judge a
small table's candidates (:class:`CopyConfig`), the entries a run takes and their split
(:class:`SplitConfig`), and the fit of new lemmas (:class:`FitConfig`). Everything else is
derived from that declaration:

- the check when a settings object is made (a learning rate of ``nan`` or a dropout of 2
  is one :class:`~phonkit.errors.InputError` naming ``training.lr`` or ``model.dropout``,
  before any work is done, wherever the value came from);
- ``config.json`` (:meth:`Checked.to_json`, :meth:`Checked.from_json`) and ``--set
  KEY=VALUE`` (:func:`find`, :func:`parse`);
- the commands' options (:mod:`phonkit.cli.settings`: ``--dim``, ``--lr``, ``--k``...)
  and the flag an error names;
- the keys of :class:`~phonkit.jobs.TrainRequest`'s ``settings`` (``{"dim": 64,
  "copy.lr": 0.01}``).

A setting's key is ``GROUP.NAME`` (``training.lr``), or its name alone (``lr``) where the
group's names are its own; the copy models' names are also the model's (``dim``, ``lr``...),
so theirs always take the group (``copy.lr``).

Adding a setting is one edit: a field here. This module imports neither torch nor typer,
so that ``phonkit --help`` and ``import phonkit`` stay light.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

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
    size: int = 0  # a tuple of this many numbers, each in ``range`` (written with commas)


def setting(
    default: Any,
    help: str,
    *,
    range: Range | None = None,
    choices: tuple[str, ...] = (),
    size: int = 0,
) -> Any:
    """A settings field: its default, help, and the range or choices its values must be in
    (``size``: a tuple of that many numbers, each in ``range``)."""
    declaration = Declaration(help, range, choices, size)
    return field(default=default, metadata={"setting": declaration})


@dataclass(frozen=True)
class Setting:
    """One declared setting, as the commands and the checks see it."""

    group: str  # model, training, copy, split or fit: the object it belongs to
    name: str
    kind: type  # int, float, str, bool or tuple (of numbers)
    default: Any
    declaration: Declaration
    optional: bool = False  # None is a value too (``k: int | None``)

    @property
    def key(self) -> str:
        """``training.lr``: how errors name it, and its key anywhere."""
        return f"{self.group}.{self.name}"

    @property
    def short(self) -> str:
        """The shortest key that names it: ``lr``, or ``copy.lr`` for a group whose names
        are not its own (``--set``, :class:`~phonkit.jobs.TrainRequest`, experiments)."""
        return self.key if GROUPS[self.group].qualified else self.name


def check(settings: Any) -> None:
    """Each field of ``settings`` in its range and choices, a switch true or false: the first
    that is not is an :class:`InputError` naming it (``training.lr``)."""
    for one in declared(type(settings)):
        value = getattr(settings, one.name)
        allowed = one.declaration
        if value is None and one.optional:
            continue
        if one.kind is bool:
            wrong = not isinstance(value, bool)
            want = "true or false"
        elif allowed.size:
            each = allowed.range or Range()
            wrong = not (
                isinstance(value, tuple)
                and len(value) == allowed.size
                and all(each.admits(number) for number in value)
            )
            want = f"{allowed.size} numbers, each {each.describe()}"
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
            hint = hints[each.name]
            optional = isinstance(hint, types.UnionType) and type(None) in typing.get_args(hint)
            plain = _plain(hint)
            yield Setting(GROUP_NAMES[kind], each.name, plain, each.default, declaration, optional)


def every() -> Iterator[Setting]:
    """Every declared setting, model first."""
    for kind in GROUPS.values():
        yield from declared(kind)


def find(key: str, groups: Iterable[str]) -> Setting:
    """The setting of ``groups`` that ``key`` names: ``GROUP.NAME``, or the name alone where
    the group's names are its own (:attr:`Setting.short`); an unknown key is an
    :class:`InputError` that lists the keys of ``groups``."""
    chosen = [one for group in groups for one in declared(GROUPS[group])]
    found = [one for one in chosen if key in (one.key, one.short)]
    if len(found) != 1:  # several: a name in two groups (fit.lr, training.lr) asked for alone
        known = ", ".join(one.key if found else one.short for one in chosen)
        what = f"setting {key!r} is ambiguous" if found else f"unknown setting {key!r}"
        raise InputError(f"{what}; settings: {known}", setting=key)
    return found[0]


def by_group(values: Mapping[str, Any], groups: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Settings by key (:func:`find`: ``dim``, ``copy.lr``...) sorted into ``groups``, by
    name: ``{"model": {"dim": 64}, "copy": {"lr": 0.01}, ...}``."""
    groups = tuple(groups)
    parts: dict[str, dict[str, Any]] = {group: {} for group in groups}
    for key, value in values.items():
        one = find(key, groups)
        parts[one.group][one.name] = value
    return parts


def shortest(values: Mapping[str, Any], groups: Iterable[str]) -> dict[str, Any]:
    """``values`` by the shortest key of each setting (``model.dim`` -> ``dim``), in order."""
    groups = tuple(groups)
    return {find(key, groups).short: value for key, value in values.items()}


def parse(kind: type, name: str, text: str, key: str = "") -> Any:
    """The value of the field ``name`` of the dataclass ``kind`` written as ``text``,
    converted to the field's declared type (``int``, ``float``, ``str``, ``bool``, numbers
    separated by commas for a tuple, or one of them or None); an :class:`InputError` naming
    the setting (as ``key``, else ``name``) when it does not convert."""
    hint = typing.get_type_hints(kind)[name]
    choices = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    if type(None) in choices and text.strip().lower() in ("none", ""):
        return None
    target = _plain(hint)
    try:
        if target is bool:
            return TRUTH[text.strip().lower()]
        if target is tuple:
            return tuple(float(part) for part in text.split(","))
        return target(text)
    except (ValueError, KeyError):
        what = {int: "a whole number", float: "a number", bool: "true or false"}
        what[tuple] = "numbers separated by commas"
        key = key or name
        raise InputError(
            f"{key}={text}: {key} takes {what.get(target, target.__name__)}", setting=key
        ) from None


TRUTH = {"true": True, "1": True, "yes": True, "on": True, "false": False, "0": False}
TRUTH |= {"no": False, "off": False}


def _plain(hint: Any) -> type:
    """The type of a setting's values: ``int`` for ``int | None``, ``tuple`` for
    ``tuple[float, ...]``."""
    choices = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    plain = next(c for c in choices if c is not type(None))
    return typing.get_origin(plain) or plain


# --- the settings -------------------------------------------------------------------------

CANDIDATES = ("model", "analogy", "analogy+copy", "ur")  # see phonkit.tables.candidates
PRECISIONS = ("auto", "fp32", "bf16")
SELECTIONS = ("loss", "acc")
SPLITS = ("paradigms", "lemmas", "sample", "folds", "all")  # phonkit.data.split.PROTOCOLS
ALIGNMENT_MOVES = 10  # a copy model's: offsets -3..+5 within a form, and to another form


class Checked:
    """A settings class: its object is checked (:func:`check`) when it is made, and read
    from and written to ``config.json`` by its declared settings."""

    #: Its settings' names are also another group's: their keys always take the group.
    qualified: ClassVar[bool] = False

    def __post_init__(self) -> None:
        check(self)

    def to_json(self) -> dict[str, Any]:
        """Each setting by name (a tuple as a list)."""
        return {
            one.name: list(value) if isinstance(value, tuple) else value
            for one in declared(type(self))
            for value in (getattr(self, one.name),)
        }

    @classmethod
    def from_json(cls, values: Mapping[str, Any]) -> Self:
        """The settings of a ``config.json`` object (by name; one left out: its default),
        checked; a name this phonkit does not declare is an :class:`InputError`."""
        settings = {one.name: one for one in declared(cls)}
        unknown = sorted(set(values) - set(settings))
        if unknown:
            raise InputError(
                f"unknown {GROUP_NAMES[cls]} setting {unknown[0]!r} (made by another phonkit "
                "version?)"
            )
        return cls(**{
            name: tuple(value) if settings[name].kind is tuple and isinstance(value, list)
            else value
            for name, value in values.items()
        })  # fmt: skip


#: Model settings declared after runs were first made: written only where not their default.
LATER = ("lemma_encoder", "candidates", "known_forms", "hallucinated")


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
    known_forms: int = setting(
        4,
        "The amortized model: known forms of a stem that each word reads, besides its "
        "lemma's spelling.",
        range=Range(0, whole=True),
    )
    hallucinated: float = setting(
        0.0,
        "The amortized model: hallucinated stems (a stem's shared part replaced by random "
        "symbols) trained beside each real one.",
        range=Range(0),
    )
    candidates: str = setting(
        "model",
        "Gaps: the model's own decoding (model), or the analogy rewrites of the stem's known "
        "forms, ranked by the model (analogy) or by the model and two copy models, which read "
        "those forms and copies from them (analogy+copy; docs/results/tables.md), or the forms "
        "the stem's underlying string spells out, most probable first (ur; "
        "docs/results/underlying-forms.md).",
        choices=CANDIDATES,
    )

    def to_json(self) -> dict[str, Any]:
        """The settings; ``lemma_encoder``, ``candidates``, ``known_forms`` and
        ``hallucinated`` only where not their defaults, so that runs and experiments made
        before they existed (which read as those defaults) keep the same settings."""
        settings = super().to_json()
        for one in declared(type(self)):
            if one.name in LATER and settings[one.name] == one.default:
                del settings[one.name]
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
        "auto (bfloat16 on CPUs with native bfloat16 units, AVX-512 BF16 or AMX; else fp32, "
        "CUDA GPUs included), fp32, or bf16.",
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
        1,
        "Seed of the split, initialisation, batches and noise (the copy models: this seed "
        "and the next).",
        range=Range(whole=True),
    )


@dataclass
class CopyConfig(Checked):
    """Settings of the copy models that judge a small table's candidates beside the model
    (``model.candidates=analogy+copy``, :mod:`phonkit.model.copying`); stored in the run's
    config.json and with each copy model's weights. The table's size chooses
    ``stems_per_batch``, ``steps``, ``hallucinated``, ``content`` and ``shift``
    (:func:`phonkit.tables.sizes.copy_config`); the settings given go on top. The two copy
    models train from ``training.seed`` and the next seed."""

    qualified = True  # dim, dropout, sigma, lr... are the model's names too: copy.lr

    stems_per_batch: int = setting(
        8, "Stems per batch, each with all its known forms.", range=Range(1, whole=True)
    )
    steps: int = setting(80, "Updates of training.", range=Range(1, whole=True))
    hallucinated: float = setting(
        0.0,
        "Hallucinated stems (a stem's shared part replaced by random symbols) per real stem.",
        range=Range(0),
    )
    content: bool = setting(
        True,
        "The alignment's moves weigh the content of the known forms' positions (q . k); "
        "else they depend on the decoder's state.",
    )
    embedding: int = setting(32, "Size of the symbol embeddings.", range=Range(1, whole=True))
    hidden: int = setting(64, "Size of the LSTMs' states.", range=Range(1, whole=True))
    dim: int = setting(
        64, "Size of the underlying forms and the cells' vectors.", range=Range(1, whole=True)
    )
    dropout: float = setting(
        0.2, "Dropout on the symbol embeddings.", range=Range(0, 1, below=True)
    )
    sigma: float = setting(
        0.03, "Scale of the noise on underlying forms (training only).", range=Range(0)
    )
    lr: float = setting(0.008, "Adam learning rate.", range=Range(0, 1, above=True))
    cell_lr_scale: float = setting(
        10.0, "Learning rate of the cells' vectors relative to the rest.", range=Range(0)
    )
    prior: float = setting(
        1e-4, "Weight of the N(0, I) prior on the cells' vectors.", range=Range(0)
    )
    subset: float = setting(
        0.5,
        "Chance that a training example may read only some of its stem's other known forms.",
        range=Range(0, 1),
    )
    kept_at_junction: int = setting(
        1, "Symbols a hallucinated stem keeps next to an affix.", range=Range(0, whole=True)
    )
    extra_length: int = setting(
        6,
        "A decoded form is at most this many symbols longer than its longest known form.",
        range=Range(0, whole=True),
    )
    shift: tuple[float, ...] = setting(
        (0.0,) * ALIGNMENT_MOVES,
        "The alignment's moves before training: the weights of the offsets -3 to +5 within "
        "a form and of a move to another form (10 numbers).",
        range=Range(),
        size=ALIGNMENT_MOVES,
    )


@dataclass
class SplitConfig(Checked):
    """The entries a run takes and how they split into train, dev and test; stored in the
    run's config.json (each as a key of its own: ``protocol``, ``k``...)."""

    protocol: str = setting(
        "paradigms",
        "paradigms: hold out cells of seen paradigms; lemmas: hold out whole paradigms (for "
        "lemmas new to the model); sample: the k-sample of k (paradigms with a k is the "
        "k-sample); folds: a fold of a table's stems (the table corpus); all: everything "
        "trains.",
        choices=SPLITS,
    )
    k: int | None = setting(
        None,
        "Train on k entries drawn by token frequency (the CELEX learning-curve split); dev "
        "and test come from the rest whose morphemes were drawn.",
        range=Range(1, whole=True),
    )
    draw: int = setting(1, "Which draw of the k-sample (1, 2, ...).", range=Range(1, whole=True))
    fold: int | None = setting(
        None,
        "With the folds split: the fold of the table's stems held out (1-5).",
        range=Range(1, whole=True),
    )
    max_entries: int | None = setting(
        None,
        "Keep at most this many entries of a corpus (whole paradigms, seeded).",
        range=Range(1, whole=True),
    )

    def __post_init__(self) -> None:
        if self.k is not None and self.protocol == "paradigms":
            self.protocol = "sample"  # the paradigms split with a k is the k-sample
        super().__post_init__()


@dataclass
class FitConfig(Checked):
    """Settings of the fit of new lemmas' underlying forms; the defaults come from the study
    in docs/method.md."""

    steps: int = setting(
        20,
        "Gradient steps fitting the UFs of new lemmas (pi, pd, joint).",
        range=Range(0, whole=True),
    )
    lr: float = setting(0.03, "Adam learning rate of that fit.", range=Range(0, 1, above=True))
    prior_weight: float = setting(1.0, "Weight of the prior in that fit.", range=Range(0))


GROUPS: dict[str, type[Checked]] = {
    "model": ModelConfig,
    "training": TrainConfig,
    "copy": CopyConfig,
    "split": SplitConfig,
    "fit": FitConfig,
}
GROUP_NAMES = {kind: group for group, kind in GROUPS.items()}
RUN = ("model", "training", "copy", "split")  # the groups of a run (TrainRequest.settings)

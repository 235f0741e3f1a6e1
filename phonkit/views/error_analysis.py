"""``phonkit errors``: where a model goes wrong on its test cells — accuracy by feature
bundle and by how often training saw the lemma, the most frequent errors as rewrites of the
word's ending (gold ending -> predicted ending; of its beginning where the two differ from
the first symbol on but end alike, as a missing ``ge-``), and the errors themselves, aligned
at the point where prediction and gold part (a concordance keyed on the error)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rapidfuzz.distance import Levenshtein

from phonkit.analysis.figures import pyplot, save
from phonkit.data.lexicon import Example, parse_features
from phonkit.data.tsv import read_rows
from phonkit.errors import InputError, at
from phonkit.run.directory import Run

COLUMNS = ["lemma", "features", "gold", "prediction"]


@dataclass(frozen=True)
class Prediction:
    """One scored test cell: the gold form and the model's 1-best, as surface symbols."""

    lemma: str
    features: tuple[str, ...]
    gold: tuple[str, ...]
    prediction: tuple[str, ...]
    nll: float | None = None  # the gold form's surprisal, where the run scored it

    @property
    def bundle(self) -> str:
        return ";".join(self.features)

    @property
    def correct(self) -> bool:
        return self.gold == self.prediction

    @property
    def distance(self) -> int:
        return Levenshtein.distance(self.gold, self.prediction)


END, START = "end", "start"


@dataclass(frozen=True)
class Rewrite:
    """An error as a rewrite of one end of the word: after the beginning that gold and
    prediction share (``before``), the gold ending became the predicted ending (``at`` =
    ``end``); or, where they differ from the first symbol on but share an ending
    (``after``), the gold beginning became the predicted one (``at`` = ``start``)."""

    at: str
    before: tuple[str, ...]
    gold_part: tuple[str, ...]
    predicted_part: tuple[str, ...]
    after: tuple[str, ...] = ()

    @property
    def kind(self) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
        return self.at, self.gold_part, self.predicted_part


def rewrite(gold: Sequence[str], prediction: Sequence[str]) -> Rewrite:
    gold, prediction = tuple(gold), tuple(prediction)
    shortest = min(len(gold), len(prediction))
    shared = 0
    while shared < shortest and gold[shared] == prediction[shared]:
        shared += 1
    if shared == 0:
        tail = 0
        while tail < shortest and gold[-1 - tail] == prediction[-1 - tail]:
            tail += 1
        if tail:
            cut = len(gold) - tail
            return Rewrite(START, (), gold[:cut], prediction[: len(prediction) - tail], gold[cut:])
    return Rewrite(END, gold[:shared], gold[shared:], prediction[shared:])


@dataclass
class Group:
    """The test cells of one feature bundle or one frequency band."""

    key: str
    train: int = 0  # training cells of the bundle, or of the band's lemmas
    cells: int = 0
    right: int = 0
    distance: int = 0
    lemmas: set[str] = field(default_factory=set)

    def add(self, item: Prediction) -> None:
        self.cells += 1
        self.right += item.correct
        self.distance += item.distance
        self.lemmas.add(item.lemma)

    @property
    def accuracy(self) -> float:
        return 100 * self.right / self.cells if self.cells else float("nan")

    @property
    def mld(self) -> float:
        return self.distance / self.cells if self.cells else float("nan")


@dataclass
class ErrorType:
    """One rewrite (of the ending, or of the beginning) with the errors that make it, in
    test-file order."""

    kind: tuple[str, tuple[str, ...], tuple[str, ...]]  # its Rewrite.kind
    errors: list[Prediction]

    def examples(self, joiner: str) -> str:
        """The first three errors as gold/predicted."""
        return ", ".join(
            f"{joiner.join(e.gold)}/{joiner.join(e.prediction)}" for e in self.errors[:3]
        )


@dataclass
class Analysis:
    cells: list[Prediction]  # the test cells analysed (after --bundle and --grep)
    bundles: list[Group]  # most test cells first
    bands: list[Group]  # by lemma frequency in training, rarest first
    types: list[ErrorType]  # most frequent first
    errors: list[tuple[Prediction, Rewrite]]  # by the frequency of their type

    @property
    def right(self) -> int:
        return sum(item.correct for item in self.cells)


def read_predictions(run: Run) -> list[Prediction]:
    """The test cells of ``predictions.tsv``, read with the run's transcriber; a run without
    them is unfinished, or had no test split."""
    path = run.predictions
    if not path.is_file() and run.finished:
        raise InputError(
            f"{run.path}: the run has no test cells (split {run.config.split.protocol!r}: "
            "every known cell trained, as phonkit fill does); nothing to analyse"
        )
    if not path.is_file():
        raise run.unfinished(f"no test predictions, {path.name}")
    split = run.transcriber().split
    rows = read_rows(path)
    first = next(rows, None)
    if first is None or first[1][:4] != COLUMNS:
        raise InputError(f"expected the header {' '.join(COLUMNS)} ...", at(path, 1))
    header = first[1]
    nll = header.index("nll") if "nll" in header else None
    cells = []
    for number, row in rows:
        if len(row) != len(header):
            raise InputError(
                f"expected {len(header)} tab-separated columns, found {len(row)}", at(path, number)
            )
        cells.append(
            Prediction(
                row[0],
                parse_features(row[1], at(path, number)),
                split(row[2]) if row[2] else (),
                split(row[3]) if row[3] else (),
                float(row[nll]) if nll is not None else None,
            )
        )
    return cells


def select(
    cells: Iterable[Prediction],
    bundle: str | None = None,
    pattern: re.Pattern | None = None,
    joiner: str = "",
) -> list[Prediction]:
    """The cells whose bundle has every feature of ``bundle`` (``V;PST`` selects every past
    tense of verbs) and whose gold or predicted form matches ``pattern``."""
    try:
        wanted = set(parse_features(bundle, "bundle")) if bundle is not None else set()
    except InputError as error:  # the setting ``bundle`` is at fault, not a file
        raise InputError(error.message, error.where, "bundle") from None
    return [
        item
        for item in cells
        if wanted <= set(item.features)
        and (
            pattern is None
            or pattern.search(joiner.join(item.gold))
            or pattern.search(joiner.join(item.prediction))
        )
    ]


def band(count: int) -> tuple[int, str]:
    """The frequency band of a lemma with ``count`` training cells: powers of two, so
    ``0``, ``1``, ``2-3``, ``4-7``, ...; returned with its lower bound, for sorting."""
    if count < 2:
        return count, str(count)
    low = 1 << (count.bit_length() - 1)
    return low, f"{low}-{2 * low - 1}"


def analyse(cells: Sequence[Prediction], training: Sequence[Example]) -> Analysis:
    """Group ``cells`` by bundle and by frequency band (training cells of the lemma, as the
    model saw them in ``training``), and sort the errors into ending rewrites."""
    bundle_train = Counter(example.entry.bundle for example in training)
    lemma_train = Counter(example.entry.lemma for example in training)
    bundles: dict[str, Group] = {}
    bands: dict[tuple[int, str], Group] = {}
    for item in cells:
        bundles.setdefault(item.bundle, Group(item.bundle, bundle_train[item.bundle])).add(item)
        key = band(lemma_train[item.lemma])
        bands.setdefault(key, Group(key[1])).add(item)
    for group in bands.values():
        group.train = sum(lemma_train[lemma] for lemma in group.lemmas)
    errors = [(item, rewrite(item.gold, item.prediction)) for item in cells if not item.correct]
    kinds: dict[tuple[str, tuple[str, ...], tuple[str, ...]], list[Prediction]] = {}
    for item, change in errors:
        kinds.setdefault(change.kind, []).append(item)
    types = [ErrorType(kind, items) for kind, items in kinds.items()]
    types.sort(key=lambda t: (-len(t.errors), t.kind))
    rank = {t.kind: number for number, t in enumerate(types)}
    errors.sort(key=lambda pair: rank[pair[1].kind])
    return Analysis(
        list(cells),
        sorted(bundles.values(), key=lambda g: (-g.cells, g.key)),
        [bands[key] for key in sorted(bands)],
        types,
        errors,
    )


def wilson(right: int, cells: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of an accuracy, in %: honest for few cells and for
    accuracies near 0 or 100, where the normal approximation is not."""
    if not cells:
        return float("nan"), float("nan")
    p = right / cells
    centre = (p + z * z / (2 * cells)) / (1 + z * z / cells)
    half = z * (p * (1 - p) / cells + z * z / (4 * cells * cells)) ** 0.5 / (1 + z * z / cells)
    # The interval always holds p; at p = 0 or 1 rounding would put an end a hair inside.
    return 100 * max(0.0, min(p, centre - half)), 100 * min(1.0, max(p, centre + half))


def plot(analysis: Analysis, out: Path, title: str, top: int = 30) -> None:
    """Accuracy with its 95% Wilson interval by bundle (the ``top`` bundles with most test
    cells) and by frequency band; each label gives the number of test cells."""
    plt = pyplot()

    shown = sorted(analysis.bundles[:top], key=lambda g: (g.accuracy, g.key))
    height = max(3.5, 0.24 * len(shown) + 1.4)
    figure, (by_bundle, by_band) = plt.subplots(
        1, 2, figsize=(13, height), gridspec_kw={"width_ratios": [3, 2]}
    )
    low = min((wilson(g.right, g.cells)[0] for g in [*shown, *analysis.bands]), default=0.0)
    limits = (max(0.0, 5 * (low // 5) - 2), 101)
    _dots(by_bundle, shown, limits, horizontal=True)
    more = f", the {len(shown)} of {len(analysis.bundles)} with most test cells"
    by_bundle.set(
        xlabel="accuracy (%), 95% interval",
        title="by feature bundle" + (more if len(shown) < len(analysis.bundles) else ""),
    )
    _dots(by_band, analysis.bands, limits, horizontal=False)
    by_band.set(
        xlabel="training cells of the lemma",
        ylabel="accuracy (%), 95% interval",
        title="by lemma frequency in training",
    )
    figure.suptitle(title)
    figure.tight_layout()
    save(figure, out)


def _dots(axes, groups: Sequence[Group], limits: tuple[float, float], horizontal: bool) -> None:
    positions = list(range(len(groups)))
    values = [group.accuracy for group in groups]
    intervals = [wilson(group.right, group.cells) for group in groups]
    spread = [
        [max(0.0, v - lo) for v, (lo, _) in zip(values, intervals, strict=True)],
        [max(0.0, hi - v) for v, (_, hi) in zip(values, intervals, strict=True)],
    ]
    labels = [f"{group.key}  (n={group.cells:,})" for group in groups]
    style = {"fmt": "o", "color": "tab:blue", "ecolor": "tab:gray", "capsize": 2, "ms": 4}
    if horizontal:
        axes.errorbar(values, positions, xerr=spread, **style)
        axes.set_yticks(positions, labels, fontsize=7)
        axes.set_xlim(*limits)
        axes.set_ylim(-0.7, len(groups) - 0.3)
    else:
        axes.errorbar(positions, values, yerr=spread, **style)
        axes.set_xticks(positions, [label.replace("  ", "\n") for label in labels], fontsize=8)
        axes.set_ylim(*limits)
        axes.set_xlim(-0.7, len(groups) - 0.3)
    axes.grid(alpha=0.3)

"""Looking at learned underlying forms: the morpheme vectors of a run with their metadata,
nearest neighbours, 2-D projections and a probe of what the vectors encode."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from phonkit.analysis.figures import pyplot, save
from phonkit.analysis.vowels import ATTRIBUTES, VOWELS, attributes
from phonkit.data.lexicon import FEATURE, LEMMA
from phonkit.errors import InputError, closest
from phonkit.run.directory import Run
from phonkit.run.factory import load_model

KINDS = {LEMMA: "stem", FEATURE: "feature"}  # a morpheme's kind by the prefix of its name


@dataclass
class Inventory:
    """Every morpheme of a run: name, kind (stem or feature), training frequency, vector."""

    morphemes: list[str]
    kinds: list[str]
    frequency: list[int]
    vectors: np.ndarray
    lang: str | None
    title: str

    @classmethod
    def of(cls, run: Run | Path) -> Inventory:
        """The morphemes of ``run`` (or of the finished run in the directory ``run``)."""
        run = run if isinstance(run, Run) else Run.open(run)
        names = run.vocabularies().morphemes.to_json()
        counts = Counter(m for example in run.examples("train") for m in example.morphemes)
        # through the model, so that damaged or mismatched weights are one clear error
        model = load_model(run, torch.device("cpu"))
        # with the lemma encoder a lemma's UF is its residual plus the mean its spelling
        # gives; the amortized model's, what it reads of the lemma plus the residual
        weights = model.underlying_vectors()
        reserved = weights.shape[0] - len(names)
        config = run.config
        title = f"{config.data.corpus}/{config.lang or '-'} {config.variant}"
        return cls(
            [name.partition(":")[2] for name in names],
            ["stem" if name.startswith(LEMMA) else "feature" for name in names],
            [counts[name] for name in names],
            weights[reserved:].float().numpy(),
            config.lang,
            title,
        )

    def attribute_names(self) -> list[str]:
        return ["kind", "frequency", *(ATTRIBUTES if self.lang in VOWELS else ())]

    def attribute(self, name: str) -> list[str]:
        """One attribute for every morpheme (vowel attributes are '' for features)."""
        if name == "kind":
            return list(self.kinds)
        if name == "frequency":
            return [str(f) for f in self.frequency]
        if name not in self.attribute_names():
            raise InputError(
                f"attribute {name!r} cannot be computed for language {self.lang!r}; "
                f"attributes here: {', '.join(self.attribute_names())}"
                + (
                    ""
                    if self.lang in VOWELS
                    else f" (vowel attributes exist for {', '.join(VOWELS)})"
                )
            )
        return [
            attributes(morpheme, self.lang or "")[name] if kind == "stem" else ""
            for morpheme, kind in zip(self.morphemes, self.kinds, strict=True)
        ]

    def select(self, kind: str) -> np.ndarray:
        """Indices of the morphemes of a kind: ``stems``, ``features`` or ``both``."""
        wanted = {"stems": {"stem"}, "features": {"feature"}, "both": {"stem", "feature"}}
        if kind not in wanted:
            raise InputError(f"unknown kind {kind!r}; use stems, features or both")
        return np.array([i for i, k in enumerate(self.kinds) if k in wanted[kind]], dtype=int)

    def find(self, morpheme: str) -> int:
        """The index of a morpheme given as ``kitap``, ``lemma:kitap``, ``PL`` or ``feat:PL``."""
        prefix, _, rest = morpheme.partition(":")
        kind = KINDS.get(prefix + ":")
        name = rest if kind else morpheme
        found = [
            i for i, m in enumerate(self.morphemes) if m == name and kind in (None, self.kinds[i])
        ]
        if found:
            return found[0]
        close = ", ".join(closest(name, self.morphemes))
        raise InputError(f"morpheme {morpheme!r} is not in the model; closest: {close}")


def neighbours(inventory: Inventory, morpheme: str, n: int) -> list[tuple[str, str, float]]:
    """The ``n`` morphemes with the most similar vectors (cosine), most similar first."""
    index = inventory.find(morpheme)
    unit = inventory.vectors / np.linalg.norm(inventory.vectors, axis=1, keepdims=True).clip(1e-12)
    similarity = unit @ unit[index]
    similarity[index] = -np.inf
    order = np.argsort(-similarity)[:n]
    return [(inventory.morphemes[i], inventory.kinds[i], float(similarity[i])) for i in order]


def project(vectors: np.ndarray, method: str, seed: int = 0) -> np.ndarray:
    """2-D coordinates by PCA or t-SNE (scikit-learn)."""
    if method == "pca":
        from sklearn.decomposition import PCA

        return PCA(n_components=2, random_state=seed).fit_transform(vectors)
    if method == "tsne":
        from sklearn.manifold import TSNE

        perplexity = float(min(30, max(2, len(vectors) - 1) / 3))
        return TSNE(
            n_components=2, perplexity=perplexity, init="pca", random_state=seed
        ).fit_transform(vectors)
    raise InputError(f"unknown method {method!r}; use pca or tsne")


@dataclass
class ProbeResult:
    attribute: str
    items: int
    classes: dict[str, int]
    accuracy: float
    accuracy_std: float
    baseline: float


def probe(inventory: Inventory, attribute: str, folds: int = 5, seed: int = 0) -> ProbeResult:
    """Cross-validated logistic-regression accuracy of predicting an attribute of the stems
    from their vectors, and the majority-class baseline under the same folds."""
    from sklearn.dummy import DummyClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    labels = inventory.attribute(attribute)
    counts = Counter(labels[i] for i in inventory.select("stems") if labels[i])
    # a class too rare to appear in every fold cannot be learned or scored: leave it out
    rows = [i for i in inventory.select("stems") if counts.get(labels[i], 0) >= folds]
    y = np.array([labels[i] for i in rows])
    classes = Counter(y.tolist())
    usable = min(classes.values(), default=0)
    if len(classes) < 2:
        raise InputError(
            f"attribute {attribute!r} needs two classes of at least {folds} stems each; "
            f"got {dict(counts)}"
        )
    x = inventory.vectors[rows]
    splits = StratifiedKFold(n_splits=min(folds, usable), shuffle=True, random_state=seed)
    scores = cross_val_score(LogisticRegression(max_iter=2000), x, y, cv=splits)
    baseline = cross_val_score(DummyClassifier(strategy="most_frequent"), x, y, cv=splits)
    return ProbeResult(
        attribute,
        len(rows),
        dict(classes),
        100 * scores.mean(),
        100 * scores.std(),
        100 * baseline.mean(),
    )


def plot(
    inventory: Inventory,
    out: Path,
    method: str,
    kind: str,
    color_by: str,
    labels: int,
    seed: int = 0,
) -> None:
    """Scatter the projected vectors coloured by an attribute, with a few readable labels."""
    plt = pyplot()

    rows = inventory.select(kind)
    if len(rows) < 3:
        raise InputError(f"only {len(rows)} morphemes of kind {kind!r}: nothing to plot")
    points = project(inventory.vectors[rows], method, seed)
    values = [inventory.attribute(color_by)[i] or "(none)" for i in rows]
    figure, axes = plt.subplots(figsize=(8, 6.5))
    for number, value in enumerate(sorted(set(values))):
        mask = np.array([v == value for v in values])
        axes.scatter(
            points[mask, 0],
            points[mask, 1],
            s=14,
            alpha=0.75,
            label=value,
            color=plt.get_cmap("tab10")(number % 10),
        )
    for i in _sparse_labels(points, [inventory.frequency[r] for r in rows], labels):
        axes.annotate(
            inventory.morphemes[rows[i]],
            points[i],
            fontsize=8,
            alpha=0.9,
            xytext=(3, 3),
            textcoords="offset points",
        )
    what = {"stems": "stem", "features": "feature", "both": "morpheme"}[kind]
    how = {"pca": "PCA", "tsne": "t-SNE"}[method]
    axes.set_title(f"{inventory.title}: {what} underlying forms ({how}), coloured by {color_by}")
    axes.set_xticks([])
    axes.set_yticks([])
    if len(set(values)) <= 20:
        axes.legend(title=color_by, loc="best", fontsize=8, markerscale=1.5)
    figure.tight_layout()
    save(figure, out, dpi=150)


def _sparse_labels(points: np.ndarray, frequency: list[int], limit: int) -> list[int]:
    """Up to ``limit`` points, most frequent first, none closer to another than 6% of the
    plot's extent: labels that do not pile up."""
    extent = float(np.ptp(points, axis=0).max()) or 1.0
    chosen: list[int] = []
    for i in sorted(range(len(points)), key=lambda i: -frequency[i]):
        if len(chosen) >= limit:
            break
        if all(np.linalg.norm(points[i] - points[j]) > 0.06 * extent for j in chosen):
            chosen.append(i)
    return chosen

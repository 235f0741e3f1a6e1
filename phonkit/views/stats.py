"""``phonkit stats``: a lexicon described the way corpus linguists describe one — sizes,
the distribution of paradigm sizes, morphemes per word and form lengths, the surface
alphabet, the feature inventory — as ``section<TAB>key<TAB>value`` rows, and a figure."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from phonkit.analysis.figures import pyplot, save
from phonkit.data.lexicon import Entry
from phonkit.errors import InputError
from phonkit.views.pos import lemma_classes
from phonkit.views.source import Part

SECTIONS = (
    "size",
    "pos",
    "paradigm_size",
    "morphemes_per_word",
    "features_per_word",
    "form_length",
    "alphabet",
    "feature",
    "bundle",
)


@dataclass
class Description:
    """The figures of one set of entries (a corpus, or one split of a run)."""

    name: str
    entries: int
    lemmas: int
    forms: int  # distinct written forms
    tokens: float | None  # sum of the token counts, None without counts
    pos: Counter[str]  # lemmas per class (part of speech)
    paradigm_sizes: Counter[int]  # cells per lemma -> lemmas
    morphemes_per_word: Counter[int]  # abstract morphemes of an entry -> entries
    features_per_word: Counter[int]  # features in an entry's bundle -> entries
    form_lengths: Counter[int]  # surface symbols of an entry -> entries
    alphabet: Counter[str]  # surface symbol -> occurrences over all entries
    features: Counter[str]  # feature -> entries carrying it
    bundles: Counter[str]  # feature bundle -> entries
    form_tokens: Counter[str]  # written form -> token count (empty without counts)

    def size(self) -> dict[str, float]:
        figures: dict[str, float] = {
            "entries": self.entries,
            "lemmas": self.lemmas,
            "forms": self.forms,
            "bundles": len(self.bundles),
            "features": len(self.features),
            "symbols": len(self.alphabet),
        }
        if self.tokens is not None:
            figures["tokens"] = self.tokens
        return figures

    def section(self, name: str) -> list[tuple[object, float]]:
        """The ``(key, value)`` pairs of one section: distributions by key, inventories by
        frequency (most frequent first, ties by key)."""
        if name == "size":
            return list(self.size().items())
        distributions = {
            "paradigm_size": self.paradigm_sizes,
            "morphemes_per_word": self.morphemes_per_word,
            "features_per_word": self.features_per_word,
            "form_length": self.form_lengths,
        }
        if name in distributions:
            return sorted(distributions[name].items())
        inventories = {
            "pos": self.pos,
            "alphabet": self.alphabet,
            "feature": self.features,
            "bundle": self.bundles,
        }
        if name not in inventories:
            raise InputError(f"unknown section {name!r}; sections: {', '.join(SECTIONS)}")
        return sorted(inventories[name].items(), key=lambda item: (-item[1], item[0]))

    def rows(self, sections: Sequence[str] = SECTIONS) -> Iterator[tuple[str, str, str]]:
        for section in sections:
            for key, value in self.section(section):
                yield section, str(key), number(value)


def describe(part: Part) -> Description:
    entries = [example.entry for example in part.examples]
    cells = Counter(entry.lemma for entry in entries)
    counts = [entry.count for entry in entries if entry.count is not None]
    return Description(
        name=part.name,
        entries=len(entries),
        lemmas=len(cells),
        forms=len({entry.form for entry in entries}),
        tokens=sum(counts) if counts else None,
        pos=Counter(lemma_classes(entries).values()),
        paradigm_sizes=Counter(cells.values()),
        morphemes_per_word=Counter(len(example.morphemes) for example in part.examples),
        features_per_word=Counter(len(entry.features) for entry in entries),
        form_lengths=Counter(len(example.surface) for example in part.examples),
        alphabet=Counter(symbol for example in part.examples for symbol in example.surface),
        features=Counter(value for entry in entries for value in entry.features),
        bundles=Counter(entry.bundle for entry in entries),
        form_tokens=_form_tokens(entries),
    )


def _form_tokens(entries: Sequence[Entry]) -> Counter[str]:
    """Token counts summed by written form (a form that fills several cells is one word)."""
    tokens: Counter[str] = Counter()
    for entry in entries:
        if entry.count is not None:
            tokens[entry.form] += entry.count  # type: ignore[assignment]  # a TSV's may be 2.5
    return tokens


def number(value: float) -> str:
    """Whole numbers without a decimal point, others to six significant digits."""
    return str(int(value)) if float(value).is_integer() else f"{value:.6g}"


def mean(distribution: Counter[int]) -> float:
    total = sum(distribution.values())
    return sum(k * v for k, v in distribution.items()) / total if total else float("nan")


def median(distribution: Counter[int]) -> float:
    values = sorted(distribution.elements())
    return statistics.median(values) if values else float("nan")


def plot(description: Description, out: Path, title: str) -> None:
    """Three panels: lemmas by paradigm size; feature bundles, features and (with token
    counts) forms by frequency rank, log-log; the surface alphabet by frequency."""
    plt = pyplot()

    figure, (sizes, ranks, alphabet) = plt.subplots(1, 3, figsize=(15, 4.4))
    points = sorted(description.paradigm_sizes.items())
    width = max(1.0, (points[-1][0] - points[0][0]) / 80) if points else 1.0
    sizes.bar([k for k, _ in points], [v for _, v in points], width=width, color="tab:blue")
    sizes.set(xlabel="cells per lemma (paradigm size)", ylabel="lemmas", title="paradigm sizes")
    for counter, style, what in (
        (description.bundles, "-", "feature bundles (entries)"),
        (description.features, "--", "features (entries)"),
        (description.form_tokens, ":", "forms (tokens)"),
    ):
        frequencies = sorted(counter.values(), reverse=True)
        if frequencies:
            ranks.loglog(range(1, len(frequencies) + 1), frequencies, style, label=what)
    ranks.set(xlabel="rank", ylabel="frequency", title="rank and frequency")
    ranks.legend(fontsize=8)
    shown = description.alphabet.most_common(40)
    alphabet.bar(range(len(shown)), [count for _, count in shown], color="tab:gray")
    labels = ["␣" if symbol == " " else symbol for symbol, _ in shown]
    alphabet.set_xticks(range(len(shown)), labels, fontsize=8)
    alphabet.set(
        ylabel="occurrences",
        title=f"surface alphabet ({len(shown)} of {len(description.alphabet)} symbols)",
    )
    for axes in (sizes, ranks, alphabet):
        axes.grid(alpha=0.3)
    figure.suptitle(f"{title}: {description.entries:,} entries, {description.lemmas:,} lemmas")
    figure.tight_layout()
    save(figure, out)

"""Parts of speech in UniMorph bundles: which feature names a word's class, and the class of
a lemma, which decides which feature bundles make up its paradigm."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from phonkit.data.lexicon import Entry

# The part-of-speech values of the UniMorph schema (Sylak-Glassman 2016; Kirov et al. 2018).
# V.PTCP, V.MSDR and V.CVB are verb forms and belong to the paradigms of verbs.
PARTS_OF_SPEECH = frozenset(
    [
        "N",
        "PROPN",
        "ADJ",
        "PRO",
        "CLF",
        "ART",
        "DET",
        "V",
        "ADV",
        "AUX",
        "V.PTCP",
        "V.MSDR",
        "V.CVB",
        "ADP",
        "COMP",
        "CONJ",
        "NUM",
        "PART",
        "INTJ",
    ]
)
UNKNOWN = "-"  # bundles without a part-of-speech feature (CELEX inflection types, say)


def part_of_speech(features: Iterable[str]) -> str:
    """The bundle's part-of-speech feature, or ``-`` when it has none."""
    return next((value for value in features if value in PARTS_OF_SPEECH), UNKNOWN)


def lemma_classes(entries: Iterable[Entry]) -> dict[str, str]:
    """Each lemma's class: the most frequent part of speech among its cells, so a Dutch verb,
    whose participles are ``V.PTCP``, is a ``V`` (ties go to the part of speech seen first)."""
    counts: dict[str, Counter[str]] = {}
    for entry in entries:
        counts.setdefault(entry.lemma, Counter())[part_of_speech(entry.features)] += 1
    return {lemma: found.most_common(1)[0][0] for lemma, found in counts.items()}

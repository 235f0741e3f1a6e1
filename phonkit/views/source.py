"""What a view looks at: the entries of a corpus, read by its reader, or the splits of a run,
each entry with its surface symbols."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from phonkit.data.corpora import CorpusRequest
from phonkit.data.lexicon import DEFAULT_DECOMPOSITION, Example
from phonkit.errors import InputError
from phonkit.plugins import lookup
from phonkit.run.directory import SPLITS, Run
from phonkit.tasks.corpus import surface_examples

ALL = "all"


@dataclass
class Part:
    """A named set of entries with their surface symbols: a corpus, or one split of a run."""

    name: str
    examples: list[Example]

    @property
    def has_counts(self) -> bool:
        return any(example.entry.count is not None for example in self.examples)


@dataclass
class Source:
    """The parts a view describes: one corpus, or a run's train, dev and test splits."""

    label: str  # the corpus's or the run's name, for titles
    parts: list[Part]
    run: Run | None = None

    def whole(self) -> Part:
        """Every entry: the corpus, or the union of a run's splits."""
        return Part(ALL, [example for part in self.parts for example in part.examples])


def corpus_source(
    corpus: str,
    request: CorpusRequest,
    transcriber: str = "none",
    morphemes: str = DEFAULT_DECOMPOSITION,
) -> Source:
    """A corpus read by its reader, each entry with its surface symbols from ``transcriber``
    (``none``: the characters of the written form) and its morphemes as the decomposition
    ``morphemes`` splits it, exactly as ``train`` would see them (forms the transcriber gives
    no symbols are left out, with a warning)."""
    lookup("transcribers", transcriber)
    lookup("decompositions", morphemes)
    lexicon = lookup("corpora", corpus).read(request)
    examples = surface_examples(lexicon, transcriber, request.lang, morphemes)
    name = lexicon.name or corpus
    return Source(name, [Part(name, examples)])


def run_source(path: Path, splits: tuple[str, ...] = SPLITS) -> Source:
    """A run's splits as the run wrote them (surface symbols as the model saw them)."""
    run = Run.open(path, finished=False)
    unknown = [split for split in splits if split not in SPLITS]
    if unknown:
        raise InputError(f"unknown split {unknown[0]!r}; use {', '.join(SPLITS)}")
    return Source(str(path), [Part(split, run.examples(split)) for split in splits], run)

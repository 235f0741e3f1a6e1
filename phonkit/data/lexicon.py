"""Entries, lexicons, the morphemes of a word and the vocabularies that number them."""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from phonkit.data.tsv import read_rows
from phonkit.errors import InputError, at

Item = TypeVar("Item")

PAD, BOS, EOS, UNK = "<pad>", "<s>", "</s>", "<unk>"
RESERVED = (PAD, BOS, EOS, UNK)
PAD_ID, BOS_ID, EOS_ID, UNK_ID = range(4)
LEMMA, FEATURE = "lemma:", "feat:"


@dataclass(frozen=True)
class Entry:
    """One attested word: a lemma, its feature bundle and its surface form."""

    lemma: str
    features: tuple[str, ...]
    form: str
    count: float | None = None

    @property
    def bundle(self) -> str:
        return ";".join(self.features)


class Decomposition:
    """How a word splits into abstract morphemes, each with one underlying form. A plugin
    kind (``register_decompositions``): subclasses set ``name`` and ``description``. The
    first morpheme is always the lemma's (``lemma:`` + lemma); the others carry the
    features (``feat:`` + a value), and are shared by every word that has them."""

    name: str = ""
    description: str = ""

    def morphemes(self, entry: Entry) -> tuple[str, ...]:
        raise NotImplementedError


DEFAULT_DECOMPOSITION = "bundle"


class PerFeature(Decomposition):
    name = "features"
    description = "the lemma and each feature of the bundle: kitap + N, ACC, PL"

    def morphemes(self, entry: Entry) -> tuple[str, ...]:
        return (LEMMA + entry.lemma, *(FEATURE + value for value in entry.features))


class BundleAndFeatures(Decomposition):
    name = "bundle+features"
    description = (
        "the lemma, the whole feature bundle and each feature: kitap + N;ACC;PL, N, ACC, PL "
        "(a cell no training word has is known by its features)"
    )

    def morphemes(self, entry: Entry) -> tuple[str, ...]:
        bundle = FEATURE + entry.bundle
        features = (FEATURE + value for value in entry.features)
        return (LEMMA + entry.lemma, *dict.fromkeys((bundle, *features)))


class WholeBundle(Decomposition):
    name = "bundle"
    description = "the lemma and the whole feature bundle as one affix: kitap + N;ACC;PL"

    def morphemes(self, entry: Entry) -> tuple[str, ...]:
        return (LEMMA + entry.lemma, FEATURE + entry.bundle)


def parse_features(text: str, where: str) -> tuple[str, ...]:
    """Split a UniMorph bundle on ``;``; values with ``/`` or ``+`` stay whole."""
    features = tuple(value.strip() for value in text.split(";") if value.strip())
    if not features:
        raise InputError("empty feature bundle", where)
    return features


def parse_lemma(text: str, where: str) -> str:
    lemma = unicodedata.normalize("NFC", text.strip())
    if not lemma:
        raise InputError("empty lemma", where)
    return lemma


# predict names a lemma the model lacks apart for each run of rows it has: the lemma, this
# mark, the line of the run's first row (phonkit.tasks.predict.by_run)
RUN_MARK = "\t"


def as_written(lemma: str) -> str:
    """A lemma as its input wrote it, without the run of rows predict names it apart by."""
    return lemma.partition(RUN_MARK)[0]


def segment(form: str) -> tuple[str, ...]:
    """Orthographic surface symbols: the NFC code points of the form."""
    return tuple(unicodedata.normalize("NFC", form))


@dataclass
class Lexicon:
    """The entries of one language from one corpus, exact duplicates removed."""

    entries: list[Entry]
    name: str = ""
    notes: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, entries: Iterable[Entry], name: str = "") -> Lexicon:
        return cls(list(dict.fromkeys(entries)), name)

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def lemmas(self) -> set[str]:
        return {entry.lemma for entry in self.entries}

    def capped(self, limit: int, seed: int) -> Lexicon:
        """At most ``limit`` entries, taken as whole paradigms of lemmas in a seeded random
        order, so that paradigm completion still has paradigms to complete (the paradigm
        that reaches the limit is cut short)."""
        grouped = paradigms(self.entries, lambda entry: entry.lemma)
        lemmas = sorted(grouped)
        random.Random(f"cap:{seed}").shuffle(lemmas)
        kept: list[Entry] = []
        for lemma in lemmas:
            if len(kept) >= limit:
                break
            kept.extend(grouped[lemma][: limit - len(kept)])
        return Lexicon(kept, self.name, self.notes)


def paradigms(items: Iterable[Item], lemma: Callable[[Item], str]) -> dict[str, list[Item]]:
    """The paradigms of ``items`` (entries, examples...): the items of each lemma, lemmas in
    the order they first come, items in input order."""
    found: dict[str, list[Item]] = {}
    for item in items:
        found.setdefault(lemma(item), []).append(item)
    return found


ROLES = ("lemma", "form", "features", "count")
UNIMORPH_COLUMNS = "lemma,form,features"


def parse_columns(spec: str) -> tuple[dict[str, str], int | None]:
    """Parse a column spec: roles in file order (``lemma,features,form``, ``_`` skips one),
    or ``role=column`` pairs where the column is a 1-based number or a name.

    Returns the role -> column mapping and, for the in-order form, the exact column count."""
    mapping: dict[str, str] = {}
    items = [part.strip() for part in spec.split(",")]
    in_order = all("=" not in item for item in items)
    for position, item in enumerate(items):
        role, _, column = item.partition("=")
        role = role.strip()
        if role == "_" and in_order:
            continue
        if role not in ROLES:
            raise InputError(
                f"unknown column role {role!r} in data.columns; roles: {', '.join(ROLES)}",
                setting="data.columns",
            )
        mapping[role] = column.strip() if column else str(position + 1)
    missing = [role for role in ("lemma", "form", "features") if role not in mapping]
    if missing:
        raise InputError(
            f"data.columns={spec!r} lacks {', '.join(missing)}", setting="data.columns"
        )
    return mapping, len(items) if in_order else None


def entry_from_fields(values: dict[str, str], where: str) -> Entry:
    """Build an entry from one record's lemma/form/features/count values, validating each."""
    form = unicodedata.normalize("NFC", values["form"].strip())
    if not form:
        raise InputError("empty form", where)
    count = None
    if values.get("count") not in (None, ""):
        try:
            count = float(values["count"])
        except ValueError:
            raise InputError(f"count {values['count']!r} is not a number", where) from None
    return Entry(
        parse_lemma(values["lemma"], where),
        parse_features(values["features"], where),
        form,
        count,
    )


def read_tsv(path: Path, columns: str = UNIMORPH_COLUMNS, name: str | None = None) -> Lexicon:
    """Read a lexicon from a TSV file whose columns are given by a column spec (1-based)."""
    mapping, exact = parse_columns(columns)
    try:
        positions = {role: int(column) - 1 for role, column in mapping.items()}
    except ValueError:
        raise InputError(
            f"data.columns={columns!r}: TSV columns are roles in order or numbers",
            setting="data.columns",
        ) from None
    width = exact or max(positions.values()) + 1
    entries = []
    for number, row in read_rows(path, name):
        where = at(name or path, number)
        if len(row) != width and (exact or len(row) < width):
            raise InputError(f"expected {width} tab-separated columns, found {len(row)}", where)
        values = {role: row[index] for role, index in positions.items()}
        entries.append(entry_from_fields(values, where))
    return Lexicon.of(entries, str(name or path))


class Vocabulary:
    """A numbering of strings; the first ids are reserved (PAD, BOS, EOS, UNK for symbols)."""

    def __init__(self, items: Iterable[str], reserved: Sequence[str] = RESERVED):
        self.items: list[str] = list(reserved) + sorted(set(items) - set(reserved))
        self.index = {item: number for number, item in enumerate(self.items)}
        self.reserved = len(reserved)

    def __len__(self) -> int:
        return len(self.items)

    def __contains__(self, item: str) -> bool:
        return item in self.index

    def encode(self, items: Iterable[str]) -> list[int]:
        return [self.index.get(item, UNK_ID) for item in items]

    def decode(self, ids: Iterable[int]) -> list[str]:
        return [self.items[number] for number in ids]

    def to_json(self) -> list[str]:
        return self.items[self.reserved :]

    def extended(self, items: Iterable[str]) -> Vocabulary:
        """A copy that also numbers ``items``, after every existing id (which stay as they are)."""
        copy = Vocabulary((), self.items[: self.reserved])
        copy.items = self.items + [item for item in dict.fromkeys(items) if item not in self]
        copy.index = {item: number for number, item in enumerate(copy.items)}
        return copy


@dataclass(frozen=True)
class Example:
    """An entry with its surface form as a sequence of symbols (characters or IPA segments)
    and its abstract morphemes, as the run's decomposition splits it (see
    :class:`phonkit.data.lexicon.Decomposition`)."""

    entry: Entry
    surface: tuple[str, ...]
    morphemes: tuple[str, ...]


@dataclass
class Vocabularies:
    symbols: Vocabulary
    morphemes: Vocabulary

    @classmethod
    def build(cls, examples: Sequence[Example]) -> Vocabularies:
        return cls(
            Vocabulary(symbol for example in examples for symbol in example.surface),
            Vocabulary(m for example in examples for m in example.morphemes),
        )

    def to_json(self) -> dict[str, list[str]]:
        return {"symbols": self.symbols.to_json(), "morphemes": self.morphemes.to_json()}

    @classmethod
    def from_json(cls, data: dict[str, list[str]]) -> Vocabularies:
        return cls(Vocabulary(data["symbols"]), Vocabulary(data["morphemes"]))

"""Predict rows: a lemma, its features and a known form or a gap, read from TSV in the
columns a user gives and written back as they came, with the gaps filled.

phonkit's own order is ``lemma<TAB>features[<TAB>form]``; the UniMorph and SIGMORPHON files'
is ``lemma<TAB>form<TAB>features`` (:class:`Layout`). An empty form, or ``--``, is a gap."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO

from phonkit.data.lexicon import Entry, parse_features, parse_lemma
from phonkit.data.table import written_form
from phonkit.data.tsv import lines_as_read
from phonkit.errors import InputError, at

GAP = ("", "--")


ROLES = ("lemma", "features", "form")
PREDICT_COLUMNS = "lemma,features,form"  # phonkit's own order; the field's: lemma,form,features


@dataclass(frozen=True)
class Layout:
    """Where a predict row has its lemma, features and form (0-based columns): phonkit's own
    order ``lemma<TAB>features[<TAB>form]``, where the form may be left off, or any other,
    as the UniMorph and SIGMORPHON files' ``lemma<TAB>form<TAB>features``, where every row
    has all three."""

    lemma: int = 0
    features: int = 1
    form: int = 2

    @classmethod
    def parse(cls, spec: str) -> Layout:
        """The layout of ``spec``, the three roles in file order (``lemma,form,features``)."""
        roles = [part.strip() for part in spec.split(",")]
        if sorted(roles) != sorted(ROLES):
            raise InputError(
                f"columns={spec!r}: give lemma, features and form once each, in file order "
                "(lemma,features,form or lemma,form,features)",
                setting="columns",
            )
        return cls(*(roles.index(role) for role in ROLES))

    @property
    def form_optional(self) -> bool:
        """A row may leave its form off: the form is the last of the three."""
        return self.form == 2


DEFAULT_LAYOUT = Layout()


@dataclass
class Cell:
    """One predict row: a lemma and features, a known form or a gap, and extra columns; and
    for writing it back, its first three fields as written (none: a row made in code,
    written as parsed) and where its lemma, features and form are among them, what came
    before it (blank lines, a byte-order mark) and its line ending, as read."""

    line: int
    entry: Entry  # form is "" for a gap
    extra: list[str]
    written: tuple[str, ...] = ()
    before: str = ""
    ending: str = "\n"
    layout: Layout = DEFAULT_LAYOUT

    @property
    def gap(self) -> bool:
        return self.entry.form == ""

    def fields(self) -> tuple[str, str, str]:
        """The row's lemma, features and form (``""`` where it has no form field) as they
        are written back."""
        if not self.written:
            return self.entry.lemma, self.entry.bundle, self.entry.form
        layout, written = self.layout, self.written
        form = written[layout.form] if layout.form < len(written) else ""
        return written[layout.lemma], written[layout.features], form

    def row(self, form: str) -> list[str]:
        """The row's fields in file order with ``form`` in its form field, then its extra
        columns."""
        lemma, features, _ = self.fields()
        fields = [""] * 3
        layout = self.layout
        fields[layout.lemma], fields[layout.features], fields[layout.form] = lemma, features, form
        return [*fields, *self.extra]


def in_rows_form(form: str, cell: Cell) -> str:
    """A predicted ``form`` in the Unicode normalization form ``cell``'s row is written in
    (:func:`~phonkit.data.table.written_form`: decomposed where its lemma and known form
    are, as ``fill`` writes a table's gaps), so that a row comes back in one form."""
    lemma, _, known = cell.fields()
    return unicodedata.normalize(written_form((lemma, known)), form)


def read_cells(stream: IO[bytes], name: str, layout: Layout = DEFAULT_LAYOUT) -> list[Cell]:
    """All the rows of a predict TSV (see :func:`iter_cells`)."""
    return list(iter_cells(stream, name, layout=layout))


def iter_cells(
    stream: Iterable[bytes],
    name: str,
    tail: list[str] | None = None,
    layout: Layout = DEFAULT_LAYOUT,
) -> Iterator[Cell]:
    """The rows of a predict TSV, one at a time: the lemma, features and form where
    ``layout`` has them (``lemma<TAB>features[<TAB>form]`` by default, the form left off or
    empty or ``--`` for a gap), extra columns after the three; when the first row is wider
    than 3 columns, every row must have its width, so extra columns line up. Blank lines
    are no rows: each row keeps those before it, and ``tail`` gets those after the last, as
    read."""
    width: int | None = None
    least = 2 if layout.form_optional else 3
    before = ""
    for number, text, read in lines_as_read(stream, name):
        if not text.strip():
            before += read
            continue
        row, where = text.split("\t"), at(name, number)
        if width is None:
            width = len(row) if len(row) > 3 else 0
        if (width and len(row) != width) or (not width and not least <= len(row) <= 3):
            expected = (
                f"{width} (as on the first line)" if width else " or ".join(
                    str(n) for n in range(least, 4))
            )
            raise InputError(f"expected {expected} tab-separated columns, found {len(row)}", where)
        form = row[layout.form].strip() if len(row) > layout.form else ""
        entry = Entry(
            parse_lemma(row[layout.lemma], where),
            parse_features(row[layout.features], where),
            "" if form in GAP else form,
        )
        ending = read[len(read.rstrip("\r\n")) :]
        mark = read[: len(read) - len(text) - len(ending)]  # a byte-order mark
        yield Cell(number, entry, row[3:], tuple(row[:3]), before + mark, ending, layout)
        before = ""
    if tail is not None:
        tail.append(before)

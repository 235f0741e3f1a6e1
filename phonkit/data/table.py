"""Wide paradigm tables, as a phonologist writes them: one row per stem, one column per cell.

A table is CSV or TSV (by the file's extension, or a delimiter given), optionally with a
header row naming the cells (else cells are named by column number, from 1) and a column
naming the stems (else stems are named by row number, from 1). An empty cell is a form not
known: a gap ``phonkit fill`` fills. Its entries are (stem, cell, form): the stem is the
lemma and the cell the one feature of the word.

What is learnt from is each field stripped and in NFC; what is written back is the file as
it came in, byte for byte, but for the gaps filled: every line as read (blank lines, the
header, quoting, trailing delimiters, its line ending or none after the last line, the
byte-order mark), and in a row with a gap filled every other field as written, the filled
form in the gap's place in the Unicode normalization form the table's known cells are
written in (:func:`written_form`: NFD when they are decomposed, NFC otherwise).

The cross-validation of ``phonkit experiment tables`` is here too (:func:`fold_split`):
five folds over stems, each test stem losing one known cell, so that the experiment's runs
and its baselines hold out the same cells.
"""

from __future__ import annotations

import csv
import io
import random
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal

from phonkit.data.lexicon import Entry, Lexicon, paradigms
from phonkit.data.tsv import lines_as_read, open_bytes, stdin_bytes
from phonkit.errors import InputError, at

STDIN = "-"
DELIMITERS = {".csv": ",", ".tsv": "\t", ".tab": "\t"}
FOLDS = 5
Normalization = Literal["NFC", "NFD"]  # the Unicode normalization forms a table is written in


@dataclass(frozen=True)
class Gap:
    """An empty cell of a table: its row and column (from 0)."""

    row: int
    column: int


@dataclass(frozen=True)
class Layout:
    """A table's file as read: its lines as text, each with its line ending (the first
    with the byte-order mark where the file has one), and each stem's line (from 0)."""

    lines: list[str]
    rows: list[int]


@dataclass
class ParadigmTable:
    """A paradigm table: stems (rows) by cells (columns), ``""`` for a form not known.

    ``stems``, ``cells`` and ``forms`` are what is learnt from (stripped, NFC); the rest
    keeps what writing the table back needs: the delimiter, the header row (or None), which
    column, if any, names the stems, the Unicode normalization form of the forms written
    into gaps (``normalization``) and the file as read (``layout``; None for a table made
    in code, written anew from ``stems`` and ``forms``)."""

    name: str
    stems: list[str]
    cells: list[str]
    forms: list[list[str]]
    delimiter: str = ","
    header: list[str] | None = None
    stem_column: int | None = None  # from 0, in the file's columns
    normalization: Normalization = "NFC"
    layout: Layout | None = None

    def entries(self) -> list[Entry]:
        """The known forms as entries: lemma = stem, the one feature = cell."""
        return [
            Entry(stem, (cell,), form)
            for stem, row in zip(self.stems, self.forms, strict=True)
            for cell, form in zip(self.cells, row, strict=True)
            if form
        ]

    def lexicon(self) -> Lexicon:
        return Lexicon.of(self.entries(), self.name)

    def gaps(self) -> list[Gap]:
        return [
            Gap(row, column)
            for row, forms in enumerate(self.forms)
            for column, form in enumerate(forms)
            if not form
        ]

    def known(self) -> int:
        return sum(bool(form) for row in self.forms for form in row)

    def format(self, forms: list[list[str]] | None = None) -> str:
        """The table as text, with ``forms`` (default: its own) in its cells: the file as
        read, but for each cell whose form is not the table's own, which is written in the
        table's normalization form in that cell's place; a table made in code anew, in its
        delimiter, header and stem column."""
        forms = forms or self.forms
        if self.layout is None:
            out = io.StringIO()
            writer = csv.writer(out, delimiter=self.delimiter, lineterminator="\n")
            if self.header is not None:
                writer.writerow(self.header)
            for stem, row in zip(self.stems, forms, strict=True):
                fields = [self._normalized(form) for form in row]
                if self.stem_column is not None:
                    fields.insert(self.stem_column, stem)
                writer.writerow(fields)
            return out.getvalue()
        lines = list(self.layout.lines)
        for number, (row, own) in enumerate(zip(forms, self.forms, strict=True)):
            changed = {column: form for column, (form, was) in enumerate(zip(row, own, strict=True))
                       if form != was}  # fmt: skip
            if changed:
                lines[self.layout.rows[number]] = self._line(self.layout.rows[number], changed)
        return "".join(lines)

    def _normalized(self, form: str) -> str:
        return unicodedata.normalize(self.normalization, form)

    def _line(self, number: int, changed: dict[int, str]) -> str:
        """Line ``number`` (from 0) of the file with the forms ``changed`` (by column of
        cells) in their fields, every other byte as read."""
        assert self.layout is not None
        line = self.layout.lines[number]
        text = line.rstrip("\r\n")
        mark = "\ufeff" if text.startswith("\ufeff") else ""
        fields = _fields_as_written(text[len(mark) :], self.delimiter)
        for column, form in changed.items():
            after_stem = self.stem_column is not None and column >= self.stem_column
            out = io.StringIO()
            csv.writer(out, delimiter=self.delimiter, lineterminator="").writerow(
                [self._normalized(form)]
            )  # quoted as a CSV writer would, where the form needs it
            fields[column + 1 if after_stem else column] = out.getvalue()
        return mark + self.delimiter.join(fields) + line[len(text) :]


def delimiter_of(source: str, delimiter: str | None) -> str:
    """The delimiter given (``tab``, ``\\t`` and ``comma`` are spelled out), else the one of
    the file's extension (``.csv``: comma; ``.tsv``, ``.tab``: tab; ``-``: tab)."""
    if delimiter is not None:
        spelled = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";"}
        chosen = spelled.get(delimiter, delimiter)
        if len(chosen) != 1 or chosen in '\r\n"':
            raise InputError(
                f"the delimiter must be one character (or tab, comma, semicolon), not {delimiter!r}"
            )
        return chosen
    if source == STDIN:
        return "\t"
    suffixes = [s for s in Path(source).suffixes if s not in (".xz", ".gz")]
    suffix = suffixes[-1].lower() if suffixes else ""
    if suffix not in DELIMITERS:
        raise InputError(
            f"cannot tell the delimiter from the extension {suffix or '(none)'!r}; "
            "name the file .csv or .tsv, or give its delimiter",
            source,
        )
    return DELIMITERS[suffix]


def read_table(
    source: str | Path,
    delimiter: str | None = None,
    header: bool = False,
    stem_column: int | None = None,
    stream: IO[bytes] | None = None,
) -> ParadigmTable:
    """Read a paradigm table from a file, or from standard input when ``source`` is ``-``
    (``stream``: another stream to read for it). ``stem_column`` counts from 1. Every row
    must have as many fields as the first (empty fields at the end of a row past the
    columns any row fills, as a spreadsheet's trailing delimiter makes them, are no
    fields); stems named twice, a table with no form,
    or bytes that are not UTF-8 are one :class:`InputError` naming the file and line."""
    name = str(source)
    chosen = delimiter_of(name, delimiter)
    if stem_column is not None and stem_column < 1:
        raise InputError(f"the stem column must be 1 or more, not {stem_column}")
    lines: list[str] = []
    if name == STDIN:
        stream = stream or stdin_bytes("the table")
        rows = list(_rows(stream, "<stdin>", chosen, lines))
        name = "<stdin>"
    else:
        with open_bytes(Path(name)) as handle:
            rows = list(_rows(handle, name, chosen, lines))
    if not rows:
        raise InputError("the table is empty", name)
    width = _width(rows)
    for number, fields in rows:
        if len(fields) > width and not any(extra.strip() for extra in fields[width:]):
            del fields[width:]  # a trailing delimiter (or several): no field more
        if len(fields) != width:
            raise InputError(
                f"expected {width} fields (as in the first row), found {len(fields)}",
                at(name, number),
            )
    column = None if stem_column is None else stem_column - 1
    if column is not None and column >= width:
        raise InputError(f"no stem column {stem_column}: the rows have {width} fields", name)
    head = None
    if header:
        head = rows[0][1]
        rows = rows[1:]
    cells = _cell_names(head, width, column, name)
    stems: list[str] = []
    forms: list[list[str]] = []
    seen: dict[str, int] = {}
    for position, (number, fields) in enumerate(rows, 1):
        values = [_clean(value) for value in fields]
        stem = values.pop(column) if column is not None else str(position)
        if not stem:
            raise InputError(f"empty stem name in column {stem_column}", at(name, number))
        if stem in seen:
            raise InputError(
                f"stem {stem!r} is named twice (first on line {seen[stem]})", at(name, number)
            )
        seen[stem] = number
        stems.append(stem)
        forms.append(values)
    known = [text for _, fields in rows for place, text in enumerate(fields) if place != column]
    layout = Layout(lines, [number - 1 for number, _ in rows])
    table = ParadigmTable(
        _table_name(name), stems, cells, forms, chosen, head, column, written_form(known), layout
    )
    if not table.known():
        raise InputError("the table has no filled cell to learn from", name)
    return table


def written_form(cells: Iterable[str]) -> Normalization:
    """The Unicode normalization form ``cells`` are written in: ``NFD`` when every cell that
    NFC and NFD write differently is decomposed (as many IPA keyboards write), else ``NFC``
    (composed, a mix of both, or nothing to tell by)."""
    composed = decomposed = False
    for text in cells:
        nfc, nfd = unicodedata.normalize("NFC", text), unicodedata.normalize("NFD", text)
        composed |= text != nfd
        decomposed |= text != nfc
    return "NFD" if decomposed and not composed else "NFC"


def _fields_as_written(text: str, delimiter: str) -> list[str]:
    """The fields of a well-formed row as they are written in it, quotes included."""
    fields, start, quoted = [], 0, False
    for place, char in enumerate(text):
        if char == '"' and text.startswith('"', start):  # in a quoted field: "" is a quote
            quoted = not quoted
        elif char == delimiter and not quoted:
            fields.append(text[start:place])
            start = place + 1
    return [*fields, text[start:]]


def _rows(
    stream: Iterable[bytes], name: str, delimiter: str, lines: list[str]
) -> Iterator[tuple[int, list[str]]]:
    """(line number, fields) of each non-blank line; every line goes to ``lines`` as read."""
    for number, text, read in lines_as_read(stream, name):
        lines.append(read)
        if not text.strip():
            continue
        try:
            fields = next(csv.reader([text], delimiter=delimiter, strict=True))
        except csv.Error as error:
            raise InputError(f"not a well-formed row ({error})", at(name, number)) from None
        yield number, fields


def _width(rows: list[tuple[int, list[str]]]) -> int:
    """The table's number of columns: the first row's, less the columns at its end that no
    row fills (a spreadsheet's trailing delimiter, on the first row too)."""
    first = len(rows[0][1])
    used = max(
        (1 + max((c for c, text in enumerate(fields) if text.strip()), default=-1))
        for _, fields in rows
    )
    return min(first, used) if used else first


def _table_name(source: str) -> str:
    """``Odden_4.5_Turkish`` of ``tables/Odden_4.5_Turkish.csv.gz``; ``stdin`` for ``-``."""
    if source == "<stdin>":
        return "stdin"
    name = Path(source).name
    for suffix in (".xz", ".gz", *DELIMITERS):
        name = name.removesuffix(suffix)
    return name


def _clean(value: str) -> str:
    return unicodedata.normalize("NFC", value.strip())


def _cell_names(head: list[str] | None, width: int, stem: int | None, name: str) -> list[str]:
    columns = [c for c in range(width) if c != stem]
    if head is None:
        return [str(c + 1) for c in columns]
    cells = [_clean(head[c]) or str(c + 1) for c in columns]
    repeated = sorted({cell for cell in cells if cells.count(cell) > 1})
    if repeated:
        raise InputError(f"the header names cell {repeated[0]!r} twice", at(name, 1))
    return cells


# -- cross-validation over stems -------------------------------------------------------------


@dataclass
class Fold:
    """One fold of a table: the training entries and the held-out (test) entries."""

    train: list[Entry]
    test: list[Entry]


def fold_split(entries: list[Entry], fold: int, seed: int = 1, folds: int = FOLDS) -> Fold:
    """Fold ``fold`` (from 1) of ``folds`` over stems, in order of first appearance: stem i
    (from 0) is in fold ``i % folds + 1``. Each stem of the fold with at least two known
    cells loses one of them, chosen with ``seed``; everything else trains."""
    if not 1 <= fold <= folds:
        raise InputError(f"split.fold must be 1 to {folds}, not {fold}", setting="split.fold")
    stems = paradigms(entries, lambda entry: entry.lemma)
    train: list[Entry] = []
    test: list[Entry] = []
    for index, (_, known) in enumerate(stems.items()):
        if index % folds == fold - 1 and len(known) >= 2:
            held = random.Random(f"{seed}:{index}").randrange(len(known))
            test.append(known[held])
            train.extend(entry for number, entry in enumerate(known) if number != held)
        else:
            train.extend(known)
    return Fold(train, test)

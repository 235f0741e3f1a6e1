"""A wide paradigm table of the user's (CSV or TSV): one row per stem, one column per cell.

``--corpus table --path FILE``; the corpus options ``delimiter``, ``header`` (yes/no) and
``stem_column`` (from 1) say how the file is laid out (see :mod:`phonkit.data.table`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from phonkit.data.corpora import Corpus, CorpusRequest
from phonkit.data.lexicon import Lexicon
from phonkit.data.table import ParadigmTable, read_table
from phonkit.errors import InputError
from phonkit.hookspecs import hookimpl
from phonkit.settings import parse


class TableCorpus(Corpus):
    name = "table"
    description = (
        "a paradigm table, a row per stem and a column per cell (--path FILE.csv|.tsv; "
        "options delimiter, header=yes, stem_column=N)"
    )

    def read(self, request: CorpusRequest) -> Lexicon:
        return self.table(request).lexicon()

    def table(self, request: CorpusRequest) -> ParadigmTable:
        if not request.path:
            raise InputError("corpus 'table' needs data.path=FILE", setting="data.path")
        known = {field.name for field in dataclasses.fields(TableOptions)}
        unknown = sorted(set(request.options) - known)
        if unknown:
            raise InputError(
                f"corpus 'table' has no option {unknown[0]!r}; options: {', '.join(sorted(known))}"
            )
        given = {key: parse(TableOptions, key, text) for key, text in request.options.items()}
        options = TableOptions(**given)
        return read_table(request.path, options.delimiter, options.header, options.stem_column)


@dataclass
class TableOptions:
    """The corpus options of ``table`` (``-O KEY=VALUE``)."""

    delimiter: str | None = None
    header: bool = False
    stem_column: int | None = None  # from 1


@hookimpl
def register_corpora(register):
    register(TableCorpus())

"""A wide paradigm table of the user's (CSV or TSV): one row per stem, one column per cell.

``--corpus table --path FILE``; the corpus options ``delimiter``, ``header`` (yes/no) and
``stem_column`` (from 1) say how the file is laid out (see :mod:`phonkit.data.table`).
"""

from __future__ import annotations

from phonkit.data.corpora import Corpus, CorpusRequest
from phonkit.data.lexicon import Lexicon
from phonkit.data.table import ParadigmTable, read_table
from phonkit.errors import InputError
from phonkit.hookspecs import hookimpl

OPTIONS = ("delimiter", "header", "stem_column")


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
        unknown = sorted(set(request.options) - set(OPTIONS))
        if unknown:
            raise InputError(
                f"corpus 'table' has no option {unknown[0]!r}; options: {', '.join(OPTIONS)}"
            )
        options = request.options
        return read_table(
            request.path,
            options.get("delimiter"),
            _yes(options.get("header", "no"), "header"),
            _column(options.get("stem_column")),
        )


def _yes(text: str, option: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("1", "yes", "true", "on"):
        return True
    if lowered in ("0", "no", "false", "off"):
        return False
    raise InputError(f"corpus option {option} takes yes or no, not {text!r}")


def _column(text: str | None) -> int | None:
    if text is None or not text.strip():
        return None
    try:
        return int(text)
    except ValueError:
        raise InputError(f"corpus option stem_column takes a column number, not {text!r}") from None


@hookimpl
def register_corpora(register):
    register(TableCorpus())
